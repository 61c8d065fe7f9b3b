// The session state machine: executes the rules of SessionRules.swift (the transition table,
// the deadline table, the named conditions and refusals) on the machine's fields
// (SessionFields.swift); restore's rules are SessionRestore.swift. The engine (Engine.swift) and
// the lock-free activity gate (ActivityGate.swift) only execute what the machine publishes.
//
// Theory of operation
// -------------------
// The machine is a value with no clock, no lock and no thread: every call takes `now`
// (milliseconds on a monotonic clock that counts deep sleep) and the engine around it
// supplies time, locking and delivery. Arguments arrive with their own range checked (the
// engine's public API is the boundary that checks them); what depends on the session is
// checked here, as a refusal the transition table names.
//
// A session is five states (LOADING, ACTIVE, WARNING, LOCKED, EXPIRED). Two things move it
// (SessionRules.swift's head says how the tables decide):
//
// 1. Inputs. Every input method starts with `admits(.input)` (the cell for the input and the
//    state), raises refusals only through `refuse`, and changes state only through `move(by:)`.
// 2. Deadlines, derived from the fields on demand (the deadline properties below; their table
//    and `time(of:)` are in SessionRules.swift). A background that begins inside an announced
//    expected interruption does not lock before the announcement's end. What an unlock needs is
//    derived too (`requiredAuth`): the credential once the time since the last credential
//    verification reached the strong-auth timeout, or while `credentialRequired`.
//    `evaluate(now:)` applies every deadline that is due, one at a time in time order (ties:
//    the table's order, most severe first), each at its own instant, exactly as if the process
//    had been awake throughout. So a lock at t1 starts the locked timeout at t1, and a frozen
//    process that wakes two hours late lands in the right final state.
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

/// The earlier of two optional instants.
@inline(__always)
func earliest(_ a: Int64?, _ b: Int64?) -> Int64? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
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
        min(policy.idleTimeoutMs, strictestScopeIdleMs ?? SessionPolicy.never)
    }

    /// True while the idle countdown is suspended (a hold, or background with the pause policy).
    var idleSuspended: Bool {
        anyHoldOpen || (policy.pauseIdleInBackground && backgroundSince != nil)
    }

    var inBackground: Bool { backgroundSince != nil }

    /// The idle action's deadline, when one runs: this engine's own (not while suspended), or
    /// another holder's adopted one when earlier (a holder's deadline is not suspended by this
    /// engine's holds: nothing a holder reports is extended here).
    var idleDeadline: Int64? {
        guard DeadlineKind.idleLock.runs(in: state) else { return nil }
        var own: Int64?
        if !idleSuspended {
            let d = deadline(lastActivity, plus: effectiveIdleMs)
            own = d == SessionPolicy.never ? nil : d
        }
        return earliest(own, adoptedIdle?.deadline)
    }

    /// When WARNING starts (or started): the idle deadline less the warning, if a warning is set.
    var warningDeadline: Int64? {
        guard let d = idleDeadline else { return nil }
        return policy.warningMs > 0 ? d - policy.warningMs : nil
    }

    /// The absolute expiry: this engine's own, or another holder's adopted one when earlier.
    var absoluteDeadline: Int64? {
        guard DeadlineKind.absolute.runs(in: state) else { return nil }
        var own: Int64?
        if let s = startedAt {
            let d = deadline(s, plus: policy.absoluteTimeoutMs)
            own = d == SessionPolicy.never ? nil : d
        }
        return earliest(own, adoptedAbsolute)
    }

    /// The next KEEPALIVE: user activity not yet carried goes at once after a quiet interval,
    /// else at the end of the interval since the last one. With nothing to carry, the end of
    /// that interval is still a wake-up (the lock-free gate may have stamped activity since),
    /// after which the keepalive is quiet (`keepaliveQuiet`) until the next user activity.
    var keepaliveDeadline: Int64? {
        let interval = policy.keepaliveIntervalMs
        guard interval > 0, DeadlineKind.keepalive.runs(in: state) else { return nil }
        let k = keepalive
        let end = deadline(k.pingedAt, plus: interval)
        if k.userActivity > k.carried { return max(end, k.userActivity) }
        return end > cursor ? end : nil
    }

    /// No KEEPALIVE is pending and the interval since the last one has passed: the next user
    /// activity asks for one at once, so it takes the lock (`gateMode`).
    var keepaliveQuiet: Bool {
        let interval = policy.keepaliveIntervalMs
        guard interval > 0, DeadlineKind.keepalive.runs(in: state) else { return false }
        let k = keepalive
        return k.userActivity <= k.carried && deadline(k.pingedAt, plus: interval) <= cursor
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
    var tickDeadline: (index: Int64, time: Int64)? {
        guard DeadlineKind.tick.runs(in: state), policy.tickMs > 0, let k = tickIndex, k > 1,
              let d = idleDeadline else { return nil }
        return (k - 1, d - (k - 1) * policy.tickMs)
    }

    /// The earliest deadline that can fire from the current fields (ties: the table's order,
    /// most severe first).
    private func earliestDeadline(includingTicks: Bool = true) -> Deadline? {
        var best: Deadline?
        for kind in DeadlineKind.inOrder where includingTicks || !kind.onlyEvent {
            // In tie order: a later kind replaces the best only when strictly earlier.
            guard let t = time(of: kind), best.map({ t < $0.time }) ?? true else { continue }
            best = Deadline(time: t, kind: kind)
        }
        return best
    }

    /// The earliest time among the kinds `include` selects.
    private func earliestTime(_ include: (DeadlineKind) -> Bool) -> Int64? {
        DeadlineKind.inOrder.reduce(nil) { include($1) ? earliest($0, time(of: $1)) : $0 }
    }

    /// The next instant the machine must be evaluated, if any.
    var nextWake: Int64? { earliestDeadline()?.time }

    /// The same without countdown ticks and keepalives, for an engine nobody receives events
    /// from: they are only events, and the next evaluation covers them as a catch-up does.
    var nextWakeIgnoringTicks: Int64? { earliestDeadline(includingTicks: false)?.time }

    /// The next lock or expiry: what a countdown shows.
    var nextLockOrExpiry: Int64? { earliestTime { $0.locksOrExpires } }

    func remaining(at now: Int64) -> Int64 {
        guard let t = nextLockOrExpiry else { return SessionPolicy.never }
        return max(0, t - now)
    }

    // MARK: The lock-free activity path

    /// What activity of a counted kind does now, by the table's activity row.
    private var gateMode: ActivityGate.Mode {
        guard admitsActivity(ofKind: nil) else { return .ignore }
        // A stamp of the last activity (the state stays) is what the gate can do without the
        // lock; a change of state takes it. So does the first activity after a holder's idle
        // deadline was adopted (it supersedes it) and the first after a quiet keepalive interval
        // (it asks for a KEEPALIVE at once): each once, then the gate stamps again.
        guard Input.activity.cell(in: state).move == .stays, adoptedIdle == nil, !keepaliveQuiet else { return .slow }
        // With a keepalive, a stamp must be the user's: PROGRAMMATIC activity, when counted,
        // takes the lock.
        if policy.keepaliveIntervalMs > 0 && policy.activityKinds.contains(.programmatic) { return .acceptListed }
        return .accept
    }

    /// What the gate may accept until the next locked call: it drops activity the machine would
    /// not apply, stamps activity that only moves the last activity, and sends the rest (and
    /// every call once a deadline is due) through the lock.
    var gateView: GateView {
        let mode = gateMode
        let kinds = mode == .acceptListed ? policy.activityKinds.subtracting(.programmatic) : policy.activityKinds
        var view = GateView(mode: mode, kinds: kinds, lastActivity: lastActivity,
                            window: SessionPolicy.never, horizon: nextWake ?? SessionPolicy.never)
        if mode.stamps {
            // The idle and warning deadlines move with each stamp: the window covers them,
            // measured from the gate's last stamp; the horizon is every deadline activity does
            // not move.
            if !idleSuspended {
                view.window = policy.warningMs > 0 ? effectiveIdleMs - policy.warningMs : effectiveIdleMs
            }
            view.horizon = earliestTime { !$0.rule.movesWithActivity } ?? SessionPolicy.never
        }
        return view
    }

    /// Takes in the last activity the gate stamped without the lock since `gateView` was
    /// published. The gate stamps only in `accept` mode, and the machine has not changed since
    /// (every change goes through the lock, which republishes), so a later stamp is activity
    /// that counted.
    mutating func mergeGateStamp(_ stamp: Int64, now: Int64) {
        guard gateMode.stamps, stamp > lastActivity, stamp <= now else { return }
        lastActivity = stamp
        noteUserActivity(at: stamp)   // with a keepalive, the gate stamps only the user's kinds
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
        if let a = adoptedIdle, let d = shift(a.deadline), let at = shift(a.at) { adoptedIdle = (d, at) }
        adoptedAbsolute = shift(adoptedAbsolute)
        if policy.keepaliveIntervalMs > 0 {
            // "Long ago" stays long ago.
            func shiftKnown(_ t: Int64) -> Int64 { t == .min ? t : shift(t)! }
            var k = keepalive
            (k.pingedAt, k.carried, k.userActivity) = (shiftKnown(k.pingedAt), shiftKnown(k.carried), shiftKnown(k.userActivity))
            k.due = shift(k.due)
            keepalive = k
        }
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
        case .keepalive:
            // User activity not yet carried: a KEEPALIVE for the host (`collect`). Nothing to
            // carry: the interval ends quiet.
            var k = keepalive
            if k.userActivity > k.carried {
                (k.due, k.pingedAt, k.carried) = (k.userActivity, t, k.userActivity)
                keepalive = k
            }
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
        if newState != .active && newState != .warning {
            interruption = nil
            keepalive.due = nil   // a due keepalive is dropped when the session locks or ends
        }
        if newState == .warning, policy.tickMs > 0, let d = idleDeadline {
            // The WARNING event itself shows the remaining time; the first tick is the next
            // multiple of the tick period below it.
            tickIndex = ceilDiv(d - t, policy.tickMs)
        } else {
            tickIndex = nil
        }
    }

    /// Makes the move the input's cell names in the current state: the one way an input
    /// changes the state.
    private mutating func move(by input: Input, reason named: Reason? = nil, at t: Int64) {
        switch input.cell(in: state).move {
        case .stays: break
        case .to(let s, let r): transition(to: s, r, at: t)
        case .toIf(let c, let s, let r): if holds(c, kind: nil) { transition(to: s, r, at: t) }
        case .toNamedReason(let s): transition(to: s, named!, at: t)
        case .toSnapshot: assertionFailure("\(input.name): a restore lands by RestoreRule")
        }
    }

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
        // After the state: the catch-up comes first, and a session no longer live sends nothing
        // (`transition` dropped it).
        if let activity = keepalive.due {
            keepalive.due = nil
            events.append(SessionEvent(kind: .keepalive, state: state, previousState: state,
                                       reason: reason, remainingMs: remaining(at: now),
                                       timeMs: activity, nowMs: now, engine: engine))
        }
    }

    // MARK: Inputs

    /// Consults the transition table for `input` in the current state: throws `invalidState`
    /// when it is refused, returns false for a no-op and true when its effect is to be applied.
    func admits(_ input: Input, kind: ActivityKind? = nil) throws(InactivityError) -> Bool {
        switch input.cell(in: state).outcome {
        case .refused: throw InactivityError.invalidState(input.name, state)
        case .noOp: return false
        case .applied: return true
        case .appliedIf(let condition): return holds(condition, kind: kind)
        }
    }

    /// Refuses an admitted `input` for `refusal` when `condition` holds (the method computes
    /// it; it never tests the state). The cell must list the refusal: a refusal the table does
    /// not name is a bug (asserted), so the generated docs list every refusal there is.
    func refuse(_ input: Input, _ refusal: Refusal, if condition: Bool,
                _ message: @autoclosure () -> ErrorText) throws(InactivityError) {
        assert(input.cell(in: state).refusals.contains(refusal),
               "\(input.name) in \(state): refusal \(refusal) is not in the transition table")
        if condition { throw InactivityError(refusal.status, message()) }
    }

    /// Whether `condition` holds now; `kind` nil: for some counted kind. Never the state.
    func holds(_ condition: Condition, kind: ActivityKind?) -> Bool {
        switch condition {
        case .activityCounts:
            return (kind.map { policy.activityKinds.contains($0) } ?? true) && backgroundSince == nil
        case .activityDismissesWarning:
            return holds(.activityCounts, kind: kind) && policy.activityDismissesWarning
        case .lockOnDeviceLock:
            return policy.lockOnDeviceLock
        case .failuresAtLimit:
            return policy.maxUnlockFailures > 0 && unlockFailures >= policy.maxUnlockFailures
        case .holderActivityDismissesWarning:
            return policy.activityDismissesWarning
        }
    }

    /// In background (in effect, not a grace) for at least the background timeout.
    var backgroundTimeoutPassed: Bool {
        guard let b = backgroundSince else { return false }
        return deadline(b, plus: policy.backgroundTimeoutMs) <= cursor
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
        // A new session: no holder's deadline yet, and the sign-in is what the server last heard.
        adoptedIdle = nil
        adoptedAbsolute = nil
        keepalive = policy.keepaliveIntervalMs > 0 ? Keepalive(pingedAt: now, carried: now, userActivity: now) : Keepalive()
        move(by: .start, at: now)
    }

    /// Activity of one kind (a single known kind: the engine checks it).
    mutating func activity(_ kind: ActivityKind, now: Int64) throws(InactivityError) {
        assert(kind.isSingleKnownKind)
        guard try admits(.activity, kind: kind) else { return }
        lastActivity = max(lastActivity, now)
        supersedeAdoptedIdle(at: now)
        if kind != .programmatic { noteUserActivity(at: now) }
        move(by: .activity, at: now)   // in ACTIVE: a stamp (the cell stays)
    }

    /// User activity (not PROGRAMMATIC) at `t`, for the keepalive to carry.
    private mutating func noteUserActivity(at t: Int64) {
        guard policy.keepaliveIntervalMs > 0, t > keepalive.userActivity else { return }
        keepalive.userActivity = t
    }

    /// Counted activity of this session after a holder's idle deadline was reported supersedes
    /// it: this engine's own deadline counts from that activity again.
    private mutating func supersedeAdoptedIdle(at t: Int64) {
        if let a = adoptedIdle, t > a.at { adoptedIdle = nil }
    }

    mutating func continueSession(now: Int64) throws(InactivityError) {
        guard try admits(.continueSession) else { return }
        lastActivity = now
        supersedeAdoptedIdle(at: now)
        noteUserActivity(at: now)
        move(by: .continueSession, at: now)
    }

    mutating func lock(now: Int64) throws(InactivityError) {
        guard try admits(.lock) else { return }   // LOCKED: a lock screen is never shown twice
        move(by: .lock, at: now)
    }

    /// Refuses a method weaker than what the lock requires.
    private func requireStrength(_ method: AuthStrength, _ input: Input, now: Int64) throws(InactivityError) {
        let needed = requiredAuth(at: now)
        let why: ErrorText = credentialRequired
            ? "the credential must be verified again (biometrics changed, or the time since the last credential verification is unknown)"
            : "policy.strong_auth_timeout_ms (\(policy.strongAuthTimeoutMs)) has passed since the last credential verification"
        try refuse(input, .weakMethod, if: method < needed,
                   "\(input.name): method (\(method)) is weaker than the \(needed) this lock requires: \(why)")
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
        try refuse(.unlock, .backgroundTimeoutPassed, if: backgroundTimeoutPassed,
                   "unlock is not allowed in background once the background timeout has passed (the session would lock again at once): enter foreground first (state \(state))")
        try refuse(.unlock, .offline, if: offlineBlocked(at: now),
                   "unlock: no successful server contact for policy.offline_timeout_ms (\(policy.offlineTimeoutMs)): report a server contact first")
        try requireStrength(method, .unlock, now: now)
        lastActivity = now
        supersedeAdoptedIdle(at: now)
        noteUserActivity(at: now)
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
        move(by: .unlockFailed, at: now)   // at the limit
        return unlockFailures
    }


    /// Ends the session with an ending reason (`Reason.isEnding`: the engine checks it).
    mutating func end(_ endReason: Reason, now: Int64) throws(InactivityError) {
        assert(endReason.isEnding)
        guard try admits(.end) else { return }
        move(by: .end, reason: endReason, at: now)
    }

    // MARK: What another holder reports

    /// Checks a holder's report on its own (the engine's boundary check): a known kind, an age
    /// or time left of 0 .. 100 years, and the reason the kind takes (NONE for activity and
    /// deadlines, a LOCKED reason for a lock, an EXPIRED one for an expiry).
    static func checkHolderReport(kind: Int32, reason: Int32, ms: Int64) throws(InactivityError) -> (HolderKind, Reason) {
        guard let k = HolderKind(rawValue: kind) else {
            throw InactivityError(.invalidArgument, "kind (\(kind)) must be an inact_holder_kind (1..5)")
        }
        guard ms >= 0, ms <= SessionPolicy.maxFiniteMs else {
            throw InactivityError(.invalidArgument,
                                  "ms (\(ms)) must be >= 0 and at most 100 years (an age or a time left, relative to the report)")
        }
        let named = Reason(rawValue: reason)
        switch k {
        case .activity, .idleDeadline, .absoluteDeadline:
            guard named == Reason.none else {
                throw InactivityError(.invalidArgument, "reason (\(reason)) must be INACT_REASON_NONE (0) for holder kind \(kind)")
            }
        case .locked:
            guard let r = named, Input.holderLocked.namedReasons.contains(r) else {
                throw InactivityError(.invalidArgument, "reason (\(reason)) must be a LOCKED reason for INACT_HOLDER_LOCKED")
            }
        case .expired:
            guard let r = named, Input.holderExpired.namedReasons.contains(r) else {
                throw InactivityError(.invalidArgument, "reason (\(reason)) must be an EXPIRED reason for INACT_HOLDER_EXPIRED")
            }
        }
        return (k, named!)
    }

    /// A holder's report (passed `checkHolderReport`). Instants travel as ages or times left
    /// relative to the report (holders do not share this clock): an instant is `now - age`,
    /// never after now and never before the session's start, nor before this engine's own last
    /// activity (activity) or its last change (a lock or an expiry: this engine's history
    /// stands); a deadline is `now + left`.
    mutating func holderReport(_ kind: HolderKind, reason: Reason, ms: Int64, now: Int64) throws(InactivityError) {
        switch kind {
        case .activity: try holderActivity(ageMs: ms, now: now)
        case .locked: try holderLocked(reason, ageMs: ms, now: now)
        case .expired: try holderExpired(reason, ageMs: ms, now: now)
        case .idleDeadline: try holderIdleDeadline(leftMs: ms, now: now)
        case .absoluteDeadline: try holderAbsoluteDeadline(leftMs: ms, now: now)
        }
    }

    /// `now - age`, clamped to [notBefore, now] (`notBefore` nil: now).
    private func placed(ageMs: Int64, notBefore: Int64?, now: Int64) -> Int64 {
        let (t, overflow) = now.subtractingReportingOverflow(ageMs)
        return min(now, max(overflow ? .min : t, notBefore ?? now))
    }

    /// The user's activity another holder saw: counted as this session's at its instant (never
    /// before this engine's own last activity, so no deadline moves earlier).
    private mutating func holderActivity(ageMs: Int64, now: Int64) throws(InactivityError) {
        guard try admits(.holderActivity) else { return }
        let t = placed(ageMs: ageMs, notBefore: max(startedAt ?? now, lastActivity), now: now)
        lastActivity = t
        supersedeAdoptedIdle(at: t)
        noteUserActivity(at: t)
        move(by: .holderActivity, at: now)   // WARNING -> ACTIVE where activity dismisses it
    }

    /// The holder locked: a live session follows, with the holder's reason, at its instant.
    private mutating func holderLocked(_ lockReason: Reason, ageMs: Int64, now: Int64) throws(InactivityError) {
        guard try admits(.holderLocked) else { return }
        let t = placed(ageMs: ageMs, notBefore: max(startedAt ?? now, changedAt), now: now)
        move(by: .holderLocked, reason: lockReason, at: t)
    }

    /// The holder's session expired or ended: this one follows, with the holder's reason.
    private mutating func holderExpired(_ endReason: Reason, ageMs: Int64, now: Int64) throws(InactivityError) {
        guard try admits(.holderExpired) else { return }
        let start = startedAt.map { max($0, changedAt) }
        let t = placed(ageMs: ageMs, notBefore: start, now: now)
        move(by: .holderExpired, reason: endReason, at: t)
    }

    /// The holder's idle deadline: adopted when earlier than this engine's (never later).
    private mutating func holderIdleDeadline(leftMs: Int64, now: Int64) throws(InactivityError) {
        guard try admits(.holderIdleDeadline) else { return }
        let d = deadline(now, plus: leftMs)
        guard d < (idleDeadline ?? SessionPolicy.never) else { return }
        adoptedIdle = (d, now)
        realignTicks()
    }

    /// The holder's absolute deadline: adopted when earlier, for the rest of the session.
    private mutating func holderAbsoluteDeadline(leftMs: Int64, now: Int64) throws(InactivityError) {
        guard try admits(.holderAbsoluteDeadline) else { return }
        let d = deadline(now, plus: leftMs)
        guard d < (absoluteDeadline ?? SessionPolicy.never) else { return }
        adoptedAbsolute = d
    }

    /// Classifies a token refresh (docs/design.md, "Reasons"); only REVOKED changes the session.
    static func classifyRefresh(httpStatus: Int32, invalidGrant: Bool) throws(InactivityError) -> RefreshOutcome {
        guard httpStatus == 0 || (100...599).contains(httpStatus) else {
            throw InactivityError(.invalidArgument,
                                  "http_status (\(httpStatus)) must be 0 (no response) or 100..599")
        }
        switch httpStatus {
        case 200...299: return .ok
        case 401: return .revoked
        case 400 where invalidGrant: return .revoked
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
        try refuse(.tokenRotated, .olderGeneration, if: generation < newestGeneration,
                   "generation (\(generation)) is older than the newest generation seen (\(newestGeneration))")
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
        move(by: .deviceLocked, at: now)   // with lock on device lock, where a session runs
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
        try refuse(.expectInterruption, .overInterruptionCap, if: maxMs > policy.expectedInterruptionMaxMs,
                   "max_ms (\(maxMs)) must be at most policy.expected_interruption_max_ms (\(policy.expectedInterruptionMaxMs))")
        try refuse(.expectInterruption, .announcedInBackground, if: backgroundSince != nil || hiddenSince != nil,
                   "expect interruption is not allowed in background (announce before the sheet appears)")
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
        if let b = backgroundSince, policy.pauseIdleInBackground, !anyHoldOpen,
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
        try refuse(.windowShown, .windowLimit, if: visibleWindows >= SessionMachine.maxVisibleWindows,
                   "visible windows: at most \(SessionMachine.maxVisibleWindows)")
        visibleWindows += 1
        if visibleWindows == 1 { resumeForeground(now: now) }
    }

    mutating func windowHidden(now: Int64) throws(InactivityError) {
        guard try admits(.windowHidden) else { return }
        try refuse(.windowHidden, .noWindowShown, if: visibleWindows <= 0,
                   "window hidden: visible windows (0) must be > 0 (every window hidden needs a window shown before it)")
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
        try refuse(.pushScope, .scopeNotAboveWarning, if: idleTimeoutMs <= policy.warningMs,
                   "idle_timeout_ms (\(idleTimeoutMs)) must be longer than policy.warning_ms (\(policy.warningMs))")
        try refuse(.pushScope, .scopeLimit, if: scopes.count >= maxOpenScopesOrHolds,
                   "scopes: at most \(maxOpenScopesOrHolds) open at once")
        let id = nextScopeID
        nextScopeID += 1
        scopes.append((id, idleTimeoutMs))
        realignTicks()
        return id
    }

    mutating func popScope(_ id: UInt64, now: Int64) throws(InactivityError) {
        guard try admits(.popScope) else { return }
        let i = scopes.firstIndex { $0.id == id }
        try refuse(.popScope, .scopeNotOpen, if: i == nil, "scope_id (\(id)) is not an open scope")
        scopes.remove(at: i!)
        realignTicks()
    }

    /// Returns the hold's id (0, never an id, where the table makes it a no-op).
    mutating func acquireHold(now: Int64) throws(InactivityError) -> UInt64 {
        guard try admits(.acquireHold) else { return 0 }
        try refuse(.acquireHold, .holdLimit, if: holds.count >= maxOpenScopesOrHolds,
                   "holds: at most \(maxOpenScopesOrHolds) open at once")
        let id = nextHoldID
        nextHoldID += 1
        holds.append(id)
        return id
    }

    mutating func releaseHold(_ id: UInt64, now: Int64) throws(InactivityError) {
        guard try admits(.releaseHold) else { return }
        let i = holds.firstIndex(of: id)
        try refuse(.releaseHold, .holdNotOpen, if: i == nil, "hold_id (\(id)) is not an open hold")
        holds.remove(at: i!)
        if holds.isEmpty && (state == .active || state == .warning) {
            lastActivity = max(lastActivity, now)
        }
    }

    /// Replaces the policy (`newPolicy` passed `validate()`: the engine checks it).
    mutating func setPolicy(_ newPolicy: SessionPolicy) throws(InactivityError) {
        assertValid(newPolicy)
        guard try admits(.setPolicy) else { return }
        do throws(InactivityError) {
            try ceilings.check(newPolicy)
        } catch {
            try refuse(.setPolicy, .laxerThanCeiling, if: true, error.text)
        }
        // Against the open scopes: a check of the session, not of the value alone.
        let strictest = scopes.map({ $0.idleMs }).min() ?? SessionPolicy.never
        try refuse(.setPolicy, .warningNotBelowScopes, if: newPolicy.warningMs >= strictest,
                   "policy.warning_ms (\(newPolicy.warningMs)) must be shorter than every open scope's idle timeout (\(strictest))")
        if (policy.keepaliveIntervalMs == 0) != (newPolicy.keepaliveIntervalMs == 0) {
            keepalive = Keepalive()   // turned on: quiet, the next user activity pings at once
        }
        sharedPolicy = Interned.policy(newPolicy)
        if let i = interruption, i.end - i.start > policy.expectedInterruptionMaxMs {
            interruption = (i.start, i.start + policy.expectedInterruptionMaxMs)   // the new cap binds at once
        }
        realignTicks()
        // A limit at or below the failures counted (the cell: LOCKED). The engine evaluated up
        // to the call's instant before it: `cursor` is now.
        move(by: .setPolicy, at: cursor)
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
            try refuse(.setCeilings, .tightenedPolicyInvalid, if: true,
                       "ceilings: the current policy made as strict as them is invalid: \(error.text)")
        }
        let saved = sharedCeilings
        sharedCeilings = Interned.ceilings(newCeilings)
        do throws(InactivityError) {
            // Its cell's move (a failure limit brought to the failures counted) is the same
            // as set policy's, made there.
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
