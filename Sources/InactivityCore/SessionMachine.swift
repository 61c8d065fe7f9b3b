// The session state machine. Every rule that decides a state, a reason, or what activity
// counts lives in this file, except restore's (SessionRestore.swift); the machine's fields and
// their packing are SessionFields.swift. The engine (Engine.swift) and the lock-free activity
// gate (ActivityGate.swift) only execute what the machine publishes.
//
// Theory of operation
// -------------------
// The machine is a value with no clock, no lock and no thread: every call takes `now`
// (milliseconds on a monotonic clock that counts deep sleep) and the engine around it
// supplies time, locking and delivery. Arguments arrive validated (the engine's public API is
// the boundary that checks them); the machine asserts what it relies on.
//
// A session is five states (LOADING, ACTIVE, WARNING, LOCKED, EXPIRED). Two things move it:
//
// 1. Inputs (start, lock, unlock, ...). `Input.rule` below is the transition table: for every
//    input and every state it says `refused` (INACT_E_INVALID_STATE, nothing changes), `noOp`
//    (success, nothing changes), `applied`, or applied only when a condition holds, and where
//    an applied input takes the session. Every input method starts by consulting it
//    (`admits`), so the table is the whole truth about which input does what where.
// 2. Deadlines, derived from the fields on demand (never stored, so they cannot go stale).
//    `DeadlineKind.rule` is their table: the states each runs in and where it leads.
//      warning    = last activity + effective idle - warning
//      idle       = last activity + effective idle            (LOCK or EXPIRE)
//      background = background start + background timeout    (LOCKED)
//      absolute   = start + absolute timeout                  (EXPIRED)
//      locked     = locked-at + locked timeout                (EXPIRED)
//      grace end  = all windows hidden + grace                (background takes effect)
//      tick       = idle deadline - k * tick, k >= 1          (countdown in WARNING)
//      offline    = last server contact + offline timeout     (LOCKED)
//      offline expiry = last server contact + offline expiry  (EXPIRED)
//    A background that begins inside an announced expected interruption does not lock before
//    the announcement's end (background = max(background start + timeout, announcement end)).
//    What an unlock needs is derived too (`requiredAuth`): the credential once the time since
//    the last credential verification reached the strong-auth timeout, or while
//    `credentialRequired`.
//    `evaluate(now:)` applies every deadline that is due, one at a time in time order (ties:
//    the most severe first), each at its own instant, exactly as if the process had been
//    awake throughout. So a lock at t1 starts the locked timeout at t1, and a frozen process
//    that wakes two hours late lands in the right final state.
//
// The host sees only results: `collect(now:)` turns everything that happened since the last
// collect into at most one STATE_CHANGED event (from the state the host last saw to the
// current one, with the reason and time of the last change) or, when the state did not
// change, at most one countdown TICK (the latest due; past ticks are not replayed).
//
// Invariants (asserted in debug builds):
// - No deadline is applied before its time, nor before `cursor`. `cursor` moves back only
//   when the clock does (`observe`: a simulated reboot) and when a restore places it at the
//   snapshot's instant before catching up.
// - ACTIVE and WARNING have a start time; LOCKED has a locked-at time.
// - `reason` is one of `Reason.allowed(in: state)`.

/// An input the host gives the engine. Its row in the transition table is `rule`.
///
/// Adding an input: a case here, its row in `rule`, its `name`, and a method on
/// `SessionMachine` that starts with `guard try admits(.input) else { return }`.
enum Input: CaseIterable {
    case start, restore, activity, continueSession, lock, unlock, unlockFailed, end
    case refreshResult, refreshRevoked, background, foreground, windowShown, windowHidden
    case pushScope, popScope, acquireHold, releaseHold, setPolicy
    case expectInterruption, deviceLocked, biometricsChanged, tokenRotated
    case serverContact, setCeilings

    /// The transition table: what the input does in each state, and where it leads when applied.
    var rule: Rule {
        switch self {
        //                         LOADING   ACTIVE    WARNING     LOCKED    EXPIRED   when applied
        case .start:          Rule(.applied, .refused, .refused,   .refused, .applied, .to(.active, .started))
        case .restore:        Rule(.applied, .refused, .refused,   .refused, .refused, .toSnapshot)
        case .activity:       Rule(.noOp,    .counted, .dismisses, .noOp,    .noOp,    .to(.active, .activity))
        case .continueSession:Rule(.refused, .refused, .applied,   .refused, .refused, .to(.active, .continued))
        case .lock:           Rule(.refused, .applied, .applied,   .noOp,    .refused, .to(.locked, .manualLock))
        case .unlock:         Rule(.refused, .refused, .refused,   .unlessBg,.refused, .to(.active, .unlocked))
        case .unlockFailed:   Rule(.refused, .refused, .refused,   .applied, .refused, .atFailureLimit(.expired, .unlockFailures))
        case .end:            Rule(.applied, .applied, .applied,   .applied, .noOp,    .toNamedReason(.expired))
        case .refreshResult:  Rule(.noOp,    .noOp,    .noOp,      .noOp,    .noOp,    .stays)
        case .refreshRevoked: Rule(.applied, .applied, .applied,   .applied, .noOp,    .to(.expired, .revoked))
        // Only a live session has a background timeout to spare.
        case .expectInterruption:
                              Rule(.refused, .applied, .applied,   .refused, .refused, .stays)
        // Background starts in every state; a live session locks too when the policy says so.
        case .deviceLocked:   Rule(.applied, .applied, .applied,   .applied, .applied, .toWhen(.locksOnDeviceLock, .locked, .deviceLocked))
        case .background, .foreground, .windowShown, .windowHidden, .pushScope, .popScope,
             .acquireHold, .releaseHold, .setPolicy, .biometricsChanged, .tokenRotated,
             .serverContact, .setCeilings:
                              Rule(.applied, .applied, .applied,   .applied, .applied, .stays)
        }
    }

    var name: String {
        switch self {
        case .start: "start"
        case .restore: "restore"
        case .activity: "activity"
        case .continueSession: "continue"
        case .lock: "lock"
        case .unlock: "unlock"
        case .unlockFailed: "unlock failed"
        case .end: "end"
        case .refreshResult: "refresh result"
        case .refreshRevoked: "revoked refresh"
        case .background: "background"
        case .foreground: "foreground"
        case .windowShown: "window shown"
        case .windowHidden: "window hidden"
        case .pushScope: "push scope"
        case .popScope: "pop scope"
        case .acquireHold: "acquire hold"
        case .releaseHold: "release hold"
        case .setPolicy: "set policy"
        case .expectInterruption: "expect interruption"
        case .deviceLocked: "device locked"
        case .biometricsChanged: "biometrics changed"
        case .tokenRotated: "token rotated"
        case .serverContact: "server contact"
        case .setCeilings: "set ceilings"
        }
    }
}

/// What an input does in one state.
enum Outcome: Equatable {
    /// Refused with `invalidState`; nothing changes.
    case refused
    /// Accepted; nothing changes.
    case noOp
    /// The input's effect is applied.
    case applied
    /// Applied when the condition holds at the time of the call; a no-op otherwise.
    case appliedIf(Condition)
    /// Refused (`invalidState`) when the condition holds at the time of the call; applied
    /// otherwise.
    case refusedIf(Condition)

    /// Activity that counts is applied.
    static let counted = Outcome.appliedIf(.activityCounts)
    /// Activity that counts and that the policy lets dismiss the warning is applied.
    static let dismisses = Outcome.appliedIf(.activityDismissesWarning)
    /// Unlock is refused in background once the background timeout has passed.
    static let unlessBg = Outcome.refusedIf(.backgroundTimeoutPassed)
}

/// What an applicable outcome may depend on besides the state.
enum Condition: Equatable {
    /// The policy counts the activity's kind and the app is in foreground.
    case activityCounts
    /// As `activityCounts`, and `policy.activityDismissesWarning` is set.
    case activityDismissesWarning
    /// In background (in effect, not a grace) for at least the background timeout: an ACTIVE
    /// session would lock again at once, LOCKED to LOCKED with no event for the host.
    case backgroundTimeoutPassed
    /// `policy.lockOnDeviceLock` is set and the session is ACTIVE or WARNING.
    case locksOnDeviceLock
}

extension Condition {
    /// How a refusal for this condition reads: "<input> is not allowed <refusal>".
    var refusal: String {
        switch self {
        case .activityCounts, .activityDismissesWarning, .locksOnDeviceLock: "without the condition"
        case .backgroundTimeoutPassed:
            "in background once the background timeout has passed (the session would lock again at once): enter foreground first"
        }
    }
}

/// Where an applied input takes the session.
enum Move: Equatable {
    /// The input does not change the state (fields may; in WARNING an idle deadline moved
    /// later ends the warning by its own rule: ACTIVE, EXTENDED).
    case stays
    /// To this state and reason (from the same state: the fields change, the state does not).
    case to(SessionState, Reason)
    /// To this state, with the reason the input names (`end`).
    case toNamedReason(SessionState)
    /// To this state and reason once the failures reach the policy's limit; else stays.
    case atFailureLimit(SessionState, Reason)
    /// To this state and reason when the condition holds; else stays.
    case toWhen(Condition, SessionState, Reason)
    /// To the snapshot's state, judged at this clock; EXPIRED (RESTORE_FAILED) when corrupt.
    case toSnapshot
}

/// One row of the transition table.
struct Rule {
    var loading, active, warning, locked, expired: Outcome
    var move: Move

    init(_ loading: Outcome, _ active: Outcome, _ warning: Outcome, _ locked: Outcome, _ expired: Outcome,
         _ move: Move) {
        (self.loading, self.active, self.warning, self.locked, self.expired) = (loading, active, warning, locked, expired)
        self.move = move
    }

    subscript(state: SessionState) -> Outcome {
        switch state {
        case .loading: loading
        case .active: active
        case .warning: warning
        case .locked: locked
        case .expired: expired
        }
    }
}

/// A set of states as bits.
struct StateSet: OptionSet {
    let rawValue: UInt8
    static let loading = StateSet(rawValue: 1 << 0)
    static let active = StateSet(rawValue: 1 << 1)
    static let warning = StateSet(rawValue: 1 << 2)
    static let locked = StateSet(rawValue: 1 << 3)
    static let expired = StateSet(rawValue: 1 << 4)
    static let all: StateSet = [.loading, .active, .warning, .locked, .expired]

    func contains(_ state: SessionState) -> Bool { rawValue & (1 << UInt8(state.rawValue)) != 0 }
}

/// The earlier of two optional instants.
@inline(__always)
func earliest(_ a: Int64?, _ b: Int64?) -> Int64? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
}

/// The deadlines, in tie-break order: at the same instant the earlier case is applied first
/// (most severe first), so simultaneous idle lock and absolute expiry end in EXPIRED.
enum DeadlineKind: Int, Comparable, CaseIterable {
    case absolute, offlineExpiry, lockedTimeout, idleExpire, offlineLock, background, idleLock, graceEnd, warning, tick
    static func < (a: DeadlineKind, b: DeadlineKind) -> Bool { a.rawValue < b.rawValue }

    /// The deadline table: the states the deadline runs in, and the state and reason it leads
    /// to (nil: the state does not change).
    var rule: (runsIn: StateSet, to: (state: SessionState, reason: Reason)?) {
        switch self {
        case .absolute:      ([.active, .warning, .locked], (.expired, .absoluteTimeout))
        case .offlineExpiry: ([.active, .warning, .locked], (.expired, .offlineExpiry))
        case .offlineLock:   ([.active, .warning],          (.locked, .offlineTimeout))
        case .lockedTimeout: ([.locked],                    (.expired, .lockedTimeout))
        case .idleExpire:    ([.active, .warning],          (.expired, .idleTimeout))
        case .background:    ([.active, .warning],          (.locked, .backgroundTimeout))
        case .idleLock:      ([.active, .warning],          (.locked, .idleTimeout))
        case .graceEnd:      (.all,                         nil)   // background takes effect
        case .warning:       ([.active],                    (.warning, .idle))
        case .tick:          ([.warning],                   nil)   // a countdown TICK event
        }
    }

    func runs(in state: SessionState) -> Bool { rule.runsIn.contains(state) }
}

struct Deadline {
    var time: Int64
    var kind: DeadlineKind
}

/// The most scopes or holds open at once on one engine (a leak guard, not a design limit).
let maxOpenScopesOrHolds = 1024

/// What the lock-free activity path may do until the next locked call (ActivityGate.swift).
struct GateView: Equatable {
    var mode: ActivityGate.Mode
    /// The kinds that count (the gate drops the others in `accept` mode).
    var kinds: ActivityKind
    var lastActivity: Int64
    /// Activity at or after `lastActivity + window` is due for a deadline: it takes the lock.
    var window: Int64
    /// The earliest deadline the window does not cover: any call at or after it takes the lock.
    var horizon: Int64
}

extension SessionMachine {
    // MARK: Derived values

    /// The effective idle timeout: the minimum of the policy's and every open scope's.
    var effectiveIdleMs: Int64 {
        scopes.reduce(policy.idleTimeoutMs) { min($0, $1.idleMs) }
    }

    /// True while the idle countdown is suspended (a hold, or background with the pause policy).
    var idleSuspended: Bool {
        !holds.isEmpty || (policy.pauseIdleInBackground && backgroundSince != nil)
    }

    var inBackground: Bool { backgroundSince != nil }

    /// The idle action's deadline, when one runs.
    var idleDeadline: Int64? {
        guard DeadlineKind.idleLock.runs(in: state), !idleSuspended else { return nil }
        let d = deadline(lastActivity, plus: effectiveIdleMs)
        return d == SessionPolicy.never ? nil : d
    }

    /// When WARNING starts (or started): the idle deadline less the warning, if a warning is set.
    var warningDeadline: Int64? {
        guard let d = idleDeadline else { return nil }
        return policy.warningMs > 0 ? d - policy.warningMs : nil
    }

    var absoluteDeadline: Int64? {
        guard DeadlineKind.absolute.runs(in: state), let s = startedAt else { return nil }
        let d = deadline(s, plus: policy.absoluteTimeoutMs)
        return d == SessionPolicy.never ? nil : d
    }

    var backgroundDeadline: Int64? {
        guard DeadlineKind.background.runs(in: state) else { return nil }
        let d: Int64
        if let b = backgroundSince {
            d = deadline(b, plus: policy.backgroundTimeoutMs)
        } else if let h = hiddenSince {
            // Background counts from the instant the last window was hidden, but acts no earlier
            // than the end of the grace.
            if policy.backgroundTimeoutMs == SessionPolicy.never { return nil }
            d = deadline(h, plus: max(policy.backgroundTimeoutMs, policy.backgroundGraceMs))
        } else {
            return nil
        }
        if d == SessionPolicy.never { return nil }
        return interruptionCover.map { max(d, $0) } ?? d
    }

    /// The end of the announced interruption that covers the current background, if any.
    var interruptionCover: Int64? {
        guard let i = interruption, let b = backgroundSince ?? hiddenSince, b >= i.start, b <= i.end else { return nil }
        return i.end
    }

    var offlineLockDeadline: Int64? {
        guard DeadlineKind.offlineLock.runs(in: state), let c = lastContactAt else { return nil }
        let d = deadline(c, plus: policy.offlineTimeoutMs)
        return d == SessionPolicy.never ? nil : d
    }

    var offlineExpiryDeadline: Int64? {
        guard DeadlineKind.offlineExpiry.runs(in: state), let c = lastContactAt else { return nil }
        let d = deadline(c, plus: policy.offlineExpiryMs)
        return d == SessionPolicy.never ? nil : d
    }

    /// True when the offline timeout has passed: an unlock must wait for a server contact.
    func offlineBlocked(at now: Int64) -> Bool {
        guard let c = lastContactAt else { return false }
        return deadline(c, plus: policy.offlineTimeoutMs) <= now
    }

    /// The instant from which a biometric no longer unlocks (the last credential verification
    /// when one is required already); nil when a biometric is always enough.
    var strongAuthDeadline: Int64? {
        guard let c = lastCredentialAt else { return nil }
        if credentialRequired { return c }
        let d = deadline(c, plus: policy.strongAuthTimeoutMs)
        return d == SessionPolicy.never ? nil : d
    }

    /// What an unlock needs at `now`: nothing unless LOCKED.
    func requiredAuth(at now: Int64) -> AuthStrength {
        guard state == .locked else { return .none }
        if credentialRequired { return .credential }
        if let d = strongAuthDeadline, d <= now { return .credential }
        return .biometric
    }

    var lockedDeadline: Int64? {
        guard DeadlineKind.lockedTimeout.runs(in: state), let l = lockedAt else { return nil }
        let d = deadline(l, plus: policy.lockedTimeoutMs)
        return d == SessionPolicy.never ? nil : d
    }

    var graceDeadline: Int64? {
        guard DeadlineKind.graceEnd.runs(in: state), let h = hiddenSince else { return nil }
        return deadline(h, plus: policy.backgroundGraceMs)
    }

    /// The next countdown tick: the largest k * tick strictly below the remaining time covered.
    private var tickDeadline: (index: Int64, time: Int64)? {
        guard DeadlineKind.tick.runs(in: state), policy.tickMs > 0, let k = tickIndex, k > 1,
              let d = idleDeadline else { return nil }
        return (k - 1, d - (k - 1) * policy.tickMs)
    }

    /// The earliest deadline that can fire from the current fields (ties: the most severe).
    private func earliestDeadline(includingTicks: Bool = true) -> Deadline? {
        var best: Deadline?
        func consider(_ time: Int64?, _ kind: DeadlineKind) {
            guard let time, kind.runs(in: state) else { return }
            if let b = best, (b.time, b.kind) <= (time, kind) { return }
            best = Deadline(time: time, kind: kind)
        }
        consider(absoluteDeadline, .absolute)
        consider(offlineExpiryDeadline, .offlineExpiry)
        consider(offlineLockDeadline, .offlineLock)
        consider(lockedDeadline, .lockedTimeout)
        if let d = idleDeadline { consider(d, policy.idleAction == .lock ? .idleLock : .idleExpire) }
        consider(backgroundDeadline, .background)
        consider(graceDeadline, .graceEnd)
        consider(warningDeadline, .warning)
        if includingTicks { consider(tickDeadline?.time, .tick) }
        return best
    }

    /// The next instant the machine must be evaluated, if any.
    var nextWake: Int64? { earliestDeadline()?.time }

    /// The same without countdown ticks, for an engine nobody receives events from: a tick only
    /// shows the countdown, and the next evaluation covers the ticks passed as a catch-up does.
    var nextWakeIgnoringTicks: Int64? { earliestDeadline(includingTicks: false)?.time }

    /// The next lock or expiry: what a countdown shows.
    var nextLockOrExpiry: Int64? {
        earliest(earliest(earliest(idleDeadline, absoluteDeadline), earliest(backgroundDeadline, lockedDeadline)),
                 earliest(offlineLockDeadline, offlineExpiryDeadline))
    }

    func remaining(at now: Int64) -> Int64 {
        guard let t = nextLockOrExpiry else { return SessionPolicy.never }
        return max(0, t - now)
    }

    // MARK: The lock-free activity path

    /// What activity of a counted kind does now, by the table's activity row.
    private var gateMode: ActivityGate.Mode {
        guard admitsActivity(ofKind: nil) else { return .ignore }
        // A stamp of the last activity (the state stays) is what the gate can do without the
        // lock; a change of state takes it.
        if case .to(let target, _) = Input.activity.rule.move, target == state { return .accept }
        return .slow
    }

    /// What the gate may accept until the next locked call: it drops activity the machine would
    /// not apply, stamps activity that only moves the last activity, and sends the rest (and
    /// every call once a deadline is due) through the lock.
    var gateView: GateView {
        let mode = gateMode
        var view = GateView(mode: mode, kinds: policy.activityKinds, lastActivity: lastActivity,
                            window: SessionPolicy.never, horizon: nextWake ?? SessionPolicy.never)
        if mode == .accept {
            // The idle and warning deadlines move with each stamp: the window covers them,
            // measured from the gate's last stamp; the horizon is every other deadline.
            if !idleSuspended {
                view.window = policy.warningMs > 0 ? effectiveIdleMs - policy.warningMs : effectiveIdleMs
            }
            view.horizon = earliest(earliest(earliest(absoluteDeadline, backgroundDeadline), graceDeadline),
                                    earliest(offlineLockDeadline, offlineExpiryDeadline))
                ?? SessionPolicy.never
        }
        return view
    }

    /// Takes in the last activity the gate stamped without the lock since `gateView` was
    /// published. The gate stamps only in `accept` mode, and the machine has not changed since
    /// (every change goes through the lock, which republishes), so a later stamp is activity
    /// that counted.
    mutating func mergeGateStamp(_ stamp: Int64, now: Int64) {
        guard gateMode == .accept, stamp > lastActivity, stamp <= now else { return }
        lastActivity = stamp
    }

    // MARK: Evaluation

    /// Notices a clock discontinuity before evaluating. A live process never sees its monotonic
    /// clock go back or change boots; only a simulated reboot of a manual clock does that. The
    /// elapsed time across it is unknown, so every instant is moved with the clock (nothing is
    /// applied for the unknown gap) and a running session fails secure: LOCKED (UNTRUSTED_CLOCK).
    mutating func observe(_ clock: ClockReading) {
        defer { lastBootID = clock.bootID }
        let now = clock.monotonicMs
        let rebooted = lastBootID != nil && lastBootID != clock.bootID
        guard rebooted || now < cursor else { return }
        let delta = now &- cursor
        func shift(_ t: Int64?) -> Int64? { t.map { $0.addingReportingOverflow(delta).overflow ? now : $0 &+ delta } }
        startedAt = shift(startedAt)
        lastActivity = shift(lastActivity)!
        lockedAt = shift(lockedAt)
        lastCredentialAt = shift(lastCredentialAt)
        lastContactAt = shift(lastContactAt)
        if let i = interruption, let s = shift(i.start), let e = shift(i.end) { interruption = (s, e) }
        backgroundSince = shift(backgroundSince)
        hiddenSince = shift(hiddenSince)
        changedAt = now
        cursor = now
        pendingTick = nil
        let discontinuity = SessionMachine.clockDiscontinuity
        if discontinuity.from.contains(state) {
            transition(to: discontinuity.to, discontinuity.reason, at: now)
        }
    }

    /// Applies every deadline due at or before `now`, in time order. Returns the last deadline
    /// applied that changed the state, if any.
    @discardableResult
    mutating func evaluate(now: Int64) -> DeadlineKind? {
        var changed: DeadlineKind?
        while let due = earliestDeadline(), due.time <= now {
            let t = max(due.time, cursor)
            if due.kind == .tick {
                coverTicks(upTo: now)
                continue
            }
            cursor = t
            if apply(due.kind, at: t) { changed = due.kind }
        }
        cursor = max(cursor, now)
        normalizeWarning()
        // An announcement that no background used by its end lapses.
        if let i = interruption, i.end < cursor, interruptionCover == nil { interruption = nil }
        checkInvariants()
        return changed
    }

    /// Jumps to the latest due tick that is not past another deadline: past ticks are not
    /// replayed, one TICK stands for them.
    private mutating func coverTicks(upTo now: Int64) {
        let limit = min(now, earliestDeadline(includingTicks: false)?.time ?? now)
        let d = idleDeadline!
        let k = max(1, ceilDiv(d - limit, policy.tickMs))
        let index = min(k, tickIndex! - 1)
        tickIndex = index
        pendingTick = (index, max(d - index * policy.tickMs, cursor))
        cursor = max(cursor, pendingTick!.time)
    }

    /// Applies one deadline by the deadline table. Returns true when it changed the state.
    private mutating func apply(_ kind: DeadlineKind, at t: Int64) -> Bool {
        if let to = kind.rule.to {
            transition(to: to.state, to.reason, at: t)
            return true
        }
        switch kind {
        case .graceEnd:
            backgroundSince = hiddenSince
            hiddenSince = nil
        default:
            assertionFailure("deadline \(kind) has no effect")
        }
        return false
    }

    mutating func transition(to newState: SessionState, _ newReason: Reason, at t: Int64) {
        state = newState
        reason = newReason
        changedAt = t
        pendingTick = nil
        lockedAt = newState == .locked ? t : nil
        if newState != .active && newState != .warning { interruption = nil }
        if newState == .warning, policy.tickMs > 0, let d = idleDeadline {
            // The WARNING event itself shows the remaining time; the first tick is the next
            // multiple of the tick period below it.
            tickIndex = ceilDiv(d - t, policy.tickMs)
        } else {
            tickIndex = nil
        }
    }

    /// Makes the move an applied input's table row names.
    private mutating func move(by input: Input, reason named: Reason? = nil, at t: Int64) {
        switch input.rule.move {
        case .to(let s, let r), .atFailureLimit(let s, let r), .toWhen(_, let s, let r): transition(to: s, r, at: t)
        case .toNamedReason(let s): transition(to: s, named!, at: t)
        case .stays, .toSnapshot: assertionFailure("\(input.name) names no single move")
        }
    }

    /// WARNING ends by itself when its deadline is no longer due.
    static let warningEnds = (from: SessionState.warning, to: SessionState.active, reason: Reason.extended)
    /// A running session whose clock jumped back or changed boots (`observe`).
    static let clockDiscontinuity = (from: [SessionState.active, .warning], to: SessionState.locked,
                                     reason: Reason.untrustedClock)

    /// WARNING lasts only while its deadline is due: when an input moved the idle deadline
    /// later (a hold, a scope popped, a relaxed policy), return to ACTIVE (EXTENDED).
    private mutating func normalizeWarning() {
        guard state == SessionMachine.warningEnds.from else { return }
        if let w = warningDeadline, w <= cursor {
            if tickIndex == nil, policy.tickMs > 0, let d = idleDeadline {
                tickIndex = ceilDiv(d - cursor, policy.tickMs)
            }
            if policy.tickMs == 0 { tickIndex = nil }
            return
        }
        transition(to: SessionMachine.warningEnds.to, SessionMachine.warningEnds.reason, at: cursor)
    }

    /// Events for the host: the change since it last looked (folded into one), else a tick.
    mutating func collect(now: Int64, engine: UInt64, into events: inout [SessionEvent]) {
        if state != seenState {
            events.append(SessionEvent(kind: .stateChanged, state: state, previousState: seenState,
                                       reason: reason, remainingMs: remaining(at: now),
                                       timeMs: changedAt, nowMs: now, engine: engine,
                                       requiredAuth: requiredAuth(at: now)))
            seenState = state
            pendingTick = nil
        } else if let tick = pendingTick {
            if state == .warning {
                events.append(SessionEvent(kind: .tick, state: state, previousState: state,
                                           reason: reason, remainingMs: remaining(at: now),
                                           timeMs: tick.time, nowMs: now, engine: engine))
            }
            pendingTick = nil
        }
    }

    // MARK: Inputs

    /// Consults the transition table for `input` in the current state: throws `invalidState`
    /// when it is refused, returns false for a no-op and true when its effect is to be applied.
    func admits(_ input: Input, kind: ActivityKind? = nil) throws(InactivityError) -> Bool {
        switch input.rule[state] {
        case .refused: throw InactivityError.invalidState(input.name, state)
        case .noOp: return false
        case .applied: return true
        case .appliedIf(let condition): return holds(condition, kind: kind)
        case .refusedIf(let condition):
            guard !holds(condition, kind: kind) else {
                throw InactivityError(.invalidState, "\(input.name) is not allowed \(condition.refusal) (state \(state))")
            }
            return true
        }
    }

    /// Whether `condition` holds now; `kind` nil: for some counted kind.
    private func holds(_ condition: Condition, kind: ActivityKind?) -> Bool {
        switch condition {
        case .activityCounts:
            return (kind.map { policy.activityKinds.contains($0) } ?? true) && backgroundSince == nil
        case .activityDismissesWarning:
            return holds(.activityCounts, kind: kind) && policy.activityDismissesWarning
        case .backgroundTimeoutPassed:
            guard let b = backgroundSince else { return false }
            return deadline(b, plus: policy.backgroundTimeoutMs) <= cursor
        case .locksOnDeviceLock:
            return policy.lockOnDeviceLock && (state == .active || state == .warning)
        }
    }

    private func admitsActivity(ofKind kind: ActivityKind?) -> Bool {
        (try? admits(.activity, kind: kind)) ?? false
    }

    mutating func start(now: Int64) throws(InactivityError) {
        guard try admits(.start) else { return }
        startedAt = now
        lastActivity = now
        unlockFailures = 0
        // A sign-in verifies the credential and contacts the server, and starts a new family of
        // refresh tokens.
        lastCredentialAt = now
        credentialRequired = false
        lastContactAt = now
        newestGeneration = 0
        move(by: .start, at: now)
    }

    /// Activity of one kind (a single known kind: the engine checks it).
    mutating func activity(_ kind: ActivityKind, now: Int64) throws(InactivityError) {
        assert(kind.isSingleKnownKind)
        guard try admits(.activity, kind: kind) else { return }
        lastActivity = max(lastActivity, now)
        if state != .active { move(by: .activity, at: now) }   // in ACTIVE: a stamp
    }

    mutating func continueSession(now: Int64) throws(InactivityError) {
        guard try admits(.continueSession) else { return }
        lastActivity = now
        move(by: .continueSession, at: now)
    }

    mutating func lock(now: Int64) throws(InactivityError) {
        guard try admits(.lock) else { return }   // LOCKED: a lock screen is never shown twice
        move(by: .lock, at: now)
    }

    /// Refuses a method weaker than what the lock requires.
    private func requireStrength(_ method: AuthStrength, _ input: Input, now: Int64) throws(InactivityError) {
        let needed = requiredAuth(at: now)
        guard method >= needed else {
            let why = credentialRequired
                ? "the credential must be verified again (biometrics changed, or the time since the last credential verification is unknown)"
                : "policy.strong_auth_timeout_ms (\(policy.strongAuthTimeoutMs)) has passed since the last credential verification"
            throw InactivityError(.weakAuth, "\(input.name): method (\(method)) is weaker than the \(needed) this lock requires: \(why)")
        }
    }

    /// Checks an unlock method on its own (the engine's boundary check).
    static func checkMethod(_ method: AuthStrength) throws(InactivityError) {
        guard method != .none else {
            throw InactivityError(.invalidArgument, "method (0) must be INACT_AUTH_BIOMETRIC (1) or INACT_AUTH_CREDENTIAL (2)")
        }
    }

    /// The host verified the user with `method` (passed `checkMethod`). Past the offline
    /// timeout it is refused (`offline`); a method weaker than required too (`weakAuth`).
    mutating func unlock(method: AuthStrength = .credential, now: Int64) throws(InactivityError) {
        assert(method != .none)
        guard try admits(.unlock) else { return }
        if offlineBlocked(at: now) {
            throw InactivityError(.offline,
                                  "unlock: no successful server contact for policy.offline_timeout_ms (\(policy.offlineTimeoutMs)): report a server contact first")
        }
        try requireStrength(method, .unlock, now: now)
        lastActivity = now
        unlockFailures = 0
        if method == .credential {
            lastCredentialAt = now
            credentialRequired = false
        }
        move(by: .unlock, at: now)
    }

    /// Returns the failures in a row. A method the lock does not accept is refused and not
    /// counted; a failed attempt of an accepted one counts (also while offline).
    mutating func unlockFailed(method: AuthStrength = .credential, now: Int64) throws(InactivityError) -> UInt32 {
        assert(method != .none)
        guard try admits(.unlockFailed) else { return unlockFailures }
        try requireStrength(method, .unlockFailed, now: now)
        unlockFailures = unlockFailures == .max ? .max : unlockFailures + 1
        if failureLimitReached {
            move(by: .unlockFailed, at: now)
        }
        return unlockFailures
    }

    /// The failed attempts counted reach the policy's limit (0: no limit).
    var failureLimitReached: Bool {
        policy.maxUnlockFailures > 0 && unlockFailures >= policy.maxUnlockFailures
    }

    /// A limit lowered to or below the failures already counted (a new policy, ceilings, a
    /// restore under a stricter policy than the snapshot's): the attempts allowed are spent,
    /// so the session takes the move of the failed unlock that reaches the limit, now, in the
    /// states where a failed unlock counts (LOCKED: EXPIRED, UNLOCK_FAILURES). Returns true
    /// when it moved the session.
    mutating func expireIfFailuresSpent(at now: Int64) -> Bool {
        guard Input.unlockFailed.rule[state] == .applied, failureLimitReached else { return false }
        move(by: .unlockFailed, at: now)
        return true
    }

    /// Ends the session with an ending reason (`Reason.isEnding`: the engine checks it).
    mutating func end(_ endReason: Reason, now: Int64) throws(InactivityError) {
        assert(endReason.isEnding)
        guard try admits(.end) else { return }
        move(by: .end, reason: endReason, at: now)
    }

    /// Classifies a token refresh (docs/design.md, "Reasons"); only REVOKED changes the session.
    static func classifyRefresh(httpStatus: Int32, oauthError: String?) throws(InactivityError) -> RefreshOutcome {
        guard httpStatus == 0 || (100...599).contains(httpStatus) else {
            throw InactivityError(.invalidArgument,
                                  "http_status (\(httpStatus)) must be 0 (no response) or 100..599")
        }
        switch httpStatus {
        case 200...299: return .ok
        case 401: return .revoked
        // Byte equality, as RFC 6749 error codes are ASCII tokens (String == would compare by
        // canonical equivalence, which needs the Unicode tables in the C library).
        case 400 where oauthError?.utf8.elementsEqual("invalid_grant".utf8) == true: return .revoked
        case 0, 408, 429, 500...599: return .retry
        default: return .failed
        }
    }

    /// Applies a classified refresh that used refresh token `generation` (0: not tracked) and
    /// returns the final outcome: an `invalid_grant` for a generation older than the newest
    /// rotation reported is a rotation race, STALE, and changes nothing. A 2xx is a successful
    /// server contact.
    ///
    /// Fail secure: only `tokenRotated` moves the newest generation (a result's generation is
    /// never trusted to, so one bogus value, say an uninitialised UINT64_MAX, cannot turn every
    /// later revocation into STALE), and a plain 401 (no `invalid_grant`) always revokes.
    mutating func refreshResult(_ classified: RefreshOutcome, invalidGrant: Bool, generation: UInt64 = 0,
                                now: Int64) throws(InactivityError) -> RefreshOutcome {
        let stale = classified == .revoked && invalidGrant && generation != 0 && generation < newestGeneration
        let outcome: RefreshOutcome = stale ? .stale : classified
        let input: Input = outcome == .revoked ? .refreshRevoked : .refreshResult
        if try admits(input) { move(by: input, at: now) }
        if outcome == .ok { try serverContact(now: now) }
        return outcome
    }

    /// The host stored refresh token `generation` (a rotation). Generations never go back.
    mutating func tokenRotated(_ generation: UInt64, now: Int64) throws(InactivityError) {
        guard try admits(.tokenRotated) else { return }
        guard generation >= newestGeneration else {
            throw InactivityError(.invalidArgument,
                                  "generation (\(generation)) is older than the newest generation seen (\(newestGeneration))")
        }
        newestGeneration = generation
    }

    /// A successful server contact. Kept in LOADING too, so that a restore right after an
    /// online check keeps it.
    mutating func serverContact(now: Int64) throws(InactivityError) {
        guard try admits(.serverContact) else { return }
        lastContactAt = max(lastContactAt ?? now, now)
    }

    /// The enrolled biometrics changed: until the next credential verification a biometric
    /// does not unlock. Kept in LOADING too (a restore adds the snapshot's own flag).
    mutating func biometricsChanged(now: Int64) throws(InactivityError) {
        guard try admits(.biometricsChanged) else { return }
        credentialRequired = true
    }

    /// The device locked: background starts (an announced interruption no longer applies: this
    /// is not the app's own sheet) and, with `policy.lockOnDeviceLock`, the session locks.
    mutating func deviceLocked(now: Int64) throws(InactivityError) {
        guard try admits(.deviceLocked) else { return }
        interruption = nil
        enterBackground(now: now)
        if case .toWhen(let condition, _, _) = Input.deviceLocked.rule.move, holds(condition, kind: nil) {
            move(by: .deviceLocked, at: now)
        }
    }

    /// Checks an announced duration on its own (the engine's boundary check).
    static func checkInterruption(maxMs: Int64) throws(InactivityError) {
        guard maxMs >= 0 else {
            throw InactivityError(.invalidArgument, "max_ms (\(maxMs)) must be >= 0 (0 withdraws the announcement)")
        }
    }

    /// Announces an expected interruption of at most `maxMs` from now (passed
    /// `checkInterruption`); 0 withdraws one.
    mutating func expectInterruption(maxMs: Int64, now: Int64) throws(InactivityError) {
        assert(maxMs >= 0)
        guard try admits(.expectInterruption) else { return }
        guard maxMs <= policy.expectedInterruptionMaxMs else {
            throw InactivityError(.invalidArgument,
                                  "max_ms (\(maxMs)) must be at most policy.expected_interruption_max_ms (\(policy.expectedInterruptionMaxMs))")
        }
        guard backgroundSince == nil && hiddenSince == nil else {
            throw InactivityError(.invalidState, "expect interruption is not allowed in background (announce before the sheet appears)")
        }
        interruption = maxMs == 0 ? nil : (now, now + maxMs)
    }

    mutating func background(now: Int64) throws(InactivityError) {
        guard try admits(.background) else { return }
        enterBackground(now: now)
    }

    /// Background takes effect (an input, a device lock).
    private mutating func enterBackground(now: Int64) {
        if backgroundSince == nil {
            backgroundSince = hiddenSince ?? now
        }
        hiddenSince = nil
    }

    mutating func foreground(now: Int64) throws(InactivityError) {
        guard try admits(.foreground) else { return }
        resumeForeground(now: now)
    }

    /// Leaves background (an input, a window shown, the end of a restore).
    mutating func resumeForeground(now: Int64) {
        if interruptionCover != nil { interruption = nil }   // used once
        if let b = backgroundSince, policy.pauseIdleInBackground, holds.isEmpty,
           state == .active || state == .warning {
            // The idle countdown stopped while in background: resume it where it was. It stopped
            // at the background start, or later if it was restarted in background (an unlock, the
            // last hold released): only the time since then is given back.
            let pausedSince = max(b, lastActivity)
            lastActivity = min(now, deadline(lastActivity, plus: max(0, now - pausedSince)))
        }
        backgroundSince = nil
        hiddenSince = nil
    }

    /// The most windows counted as visible at once (a leak guard).
    static let maxVisibleWindows = Int32(maxOpenScopesOrHolds) * 64

    mutating func windowShown(now: Int64) throws(InactivityError) {
        guard try admits(.windowShown) else { return }
        guard visibleWindows < SessionMachine.maxVisibleWindows else {
            throw InactivityError(.limit, "visible windows: at most \(SessionMachine.maxVisibleWindows)")
        }
        visibleWindows += 1
        if visibleWindows == 1 { resumeForeground(now: now) }
    }

    mutating func windowHidden(now: Int64) throws(InactivityError) {
        guard try admits(.windowHidden) else { return }
        guard visibleWindows > 0 else {
            throw InactivityError(.invalidState,
                                  "window hidden: visible windows (0) must be > 0 (every window hidden needs a window shown before it)")
        }
        visibleWindows -= 1
        if visibleWindows == 0 && backgroundSince == nil {
            hiddenSince = now
        }
    }

    /// Checks a scope's idle timeout on its own (the engine's boundary check).
    static func checkScope(idleTimeoutMs: Int64) throws(InactivityError) {
        guard idleTimeoutMs > 0, idleTimeoutMs <= SessionPolicy.maxFiniteMs else {
            throw InactivityError(.invalidArgument,
                                  "idle_timeout_ms (\(idleTimeoutMs)) must be > 0 and at most 100 years")
        }
    }

    /// Opens a scope (`idleTimeoutMs` passed `checkScope`); returns its id (0, never an id,
    /// where the table makes the push a no-op).
    mutating func pushScope(idleTimeoutMs: Int64, now: Int64) throws(InactivityError) -> UInt64 {
        assert((try? SessionMachine.checkScope(idleTimeoutMs: idleTimeoutMs)) != nil)
        guard try admits(.pushScope) else { return 0 }
        // Against the policy in force: a check of the session, not of the value alone.
        guard idleTimeoutMs > policy.warningMs else {
            throw InactivityError(.invalidArgument,
                                  "idle_timeout_ms (\(idleTimeoutMs)) must be longer than policy.warning_ms (\(policy.warningMs))")
        }
        guard scopes.count < maxOpenScopesOrHolds else {
            throw InactivityError(.limit, "scopes: at most \(maxOpenScopesOrHolds) open at once")
        }
        let id = nextScopeID
        nextScopeID += 1
        scopes.append((id, idleTimeoutMs))
        realignTicks()
        return id
    }

    mutating func popScope(_ id: UInt64, now: Int64) throws(InactivityError) {
        guard try admits(.popScope) else { return }
        guard let i = scopes.firstIndex(where: { $0.id == id }) else {
            throw InactivityError(.notFound, "scope_id (\(id)) is not an open scope")
        }
        scopes.remove(at: i)
        realignTicks()
    }

    /// Returns the hold's id (0, never an id, where the table makes it a no-op).
    mutating func acquireHold(now: Int64) throws(InactivityError) -> UInt64 {
        guard try admits(.acquireHold) else { return 0 }
        guard holds.count < maxOpenScopesOrHolds else {
            throw InactivityError(.limit, "holds: at most \(maxOpenScopesOrHolds) open at once")
        }
        let id = nextHoldID
        nextHoldID += 1
        holds.append(id)
        return id
    }

    mutating func releaseHold(_ id: UInt64, now: Int64) throws(InactivityError) {
        guard try admits(.releaseHold) else { return }
        guard let i = holds.firstIndex(of: id) else {
            throw InactivityError(.notFound, "hold_id (\(id)) is not an open hold")
        }
        holds.remove(at: i)
        if holds.isEmpty && (state == .active || state == .warning) {
            lastActivity = max(lastActivity, now)
        }
    }

    /// Replaces the policy (`newPolicy` passed `validate()`: the engine checks it).
    mutating func setPolicy(_ newPolicy: SessionPolicy) throws(InactivityError) {
        assertValid(newPolicy)
        guard try admits(.setPolicy) else { return }
        try ceilings.check(newPolicy)
        // Against the open scopes: a check of the session, not of the value alone.
        if let strictest = scopes.map({ $0.idleMs }).min(), newPolicy.warningMs >= strictest {
            throw InactivityError(.invalidArgument,
                                  "policy.warning_ms (\(newPolicy.warningMs)) must be shorter than every open scope's idle timeout (\(strictest))")
        }
        sharedPolicy = Interned.policy(newPolicy)
        if let i = interruption, i.end - i.start > policy.expectedInterruptionMaxMs {
            interruption = (i.start, i.start + policy.expectedInterruptionMaxMs)   // the new cap binds at once
        }
        realignTicks()
        // The engine evaluated up to the call's instant before it: `cursor` is now.
        _ = expireIfFailuresSpent(at: cursor)
    }

    /// The idle deadline moved while WARNING may stay (a policy, a scope): the countdown goes
    /// on from the new remaining time, on its grid (the next tick at the next multiple below).
    private mutating func realignTicks() {
        if state == .warning && policy.tickMs > 0, let d = idleDeadline {
            tickIndex = ceilDiv(d - cursor, policy.tickMs)
        }
    }

    /// Sets the administrator's limits (passed `validate()`) and makes the current policy as
    /// strict as them. Refused (nothing changes) when the tightened policy is invalid.
    mutating func setCeilings(_ newCeilings: PolicyCeilings) throws(InactivityError) {
        guard try admits(.setCeilings) else { return }
        let tightened = newCeilings.tighten(policy)
        do throws(InactivityError) {
            try tightened.validate()
        } catch {
            throw InactivityError(.invalidArgument, "ceilings: the current policy made as strict as them is invalid: \(error.message)")
        }
        let saved = sharedCeilings
        sharedCeilings = Interned.ceilings(newCeilings)
        do throws(InactivityError) {
            try setPolicy(tightened)
        } catch {
            sharedCeilings = saved
            throw error
        }
    }


    // MARK: Invariants

    func checkInvariants() {
        assert(Reason.allowed(in: state).contains(reason), "reason \(reason) in state \(state)")
        assert(state != .locked || lockedAt != nil, "LOCKED without locked-at")
        assert(!(state == .active || state == .warning) || startedAt != nil, "session without start")
    }
}

func assertValid(_ policy: SessionPolicy) {
    assert((try? policy.validate()) != nil, "an unchecked policy reached the machine")
}

@inline(__always)
func ceilDiv(_ a: Int64, _ b: Int64) -> Int64 {
    precondition(b > 0)
    if a <= 0 { return 0 }
    return (a - 1) / b + 1
}
