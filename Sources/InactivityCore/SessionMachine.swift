// The session state machine. Everything that decides a state lives in this file.
//
// Theory of operation
// -------------------
// The machine is a value with no clock, no lock and no thread: every call takes `now`
// (milliseconds on a monotonic clock that counts deep sleep) and the engine around it
// (Engine.swift) supplies time, locking and delivery.
//
// A session is five states (LOADING, ACTIVE, WARNING, LOCKED, EXPIRED). Two things move it:
//
// 1. Inputs (start, lock, unlock, ...). `Input.allowedStates` below is the table of which
//    state accepts which input; anything else is refused with `invalidState` and changes
//    nothing. An input's effect is applied at `now`.
// 2. Deadlines, derived from the fields on demand (never stored, so they cannot go stale):
//      warning    = last activity + effective idle - warning
//      idle       = last activity + effective idle            (LOCK or EXPIRE)
//      background = background start + background timeout    (LOCKED)
//      absolute   = start + absolute timeout                  (EXPIRED)
//      locked     = locked-at + locked timeout                (EXPIRED)
//      grace end  = all windows hidden + grace                (background takes effect)
//      tick       = idle deadline - k * tick, k >= 1          (countdown in WARNING)
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
// - `cursor` never decreases; no deadline is applied before its time, nor before `cursor`.
// - ACTIVE and WARNING have a start time; LOCKED has a locked-at time.
// - `reason` is one of `Reason.allowed(in: state)`.

/// An input the host gives the engine, with the states that accept it.
enum Input: CaseIterable {
    case start, restore, activity, continueSession, lock, unlock, unlockFailed, end
    case refreshResult, background, foreground, windowShown, windowHidden
    case pushScope, popScope, acquireHold, releaseHold, setPolicy

    /// The transition table's left half: the states in which the input is allowed.
    /// (Its effects are in `SessionMachine.apply`.)
    var allowedStates: StateSet {
        switch self {
        case .start: [.loading, .expired]
        case .restore: [.loading]
        case .continueSession: [.warning]
        case .lock: [.active, .warning, .locked]           // LOCKED: no-op success
        case .unlock, .unlockFailed: [.locked]
        case .activity, .end, .refreshResult, .background, .foreground, .windowShown,
             .windowHidden, .pushScope, .popScope, .acquireHold, .releaseHold, .setPolicy:
            .all                                           // activity: ignored where it does not count
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
        case .background: "background"
        case .foreground: "foreground"
        case .windowShown: "window shown"
        case .windowHidden: "window hidden"
        case .pushScope: "push scope"
        case .popScope: "pop scope"
        case .acquireHold: "acquire hold"
        case .releaseHold: "release hold"
        case .setPolicy: "set policy"
        }
    }
}

/// A set of states as bits: the transition table without allocating on every call.
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
enum DeadlineKind: Int, Comparable {
    case absolute, lockedTimeout, idleExpire, background, idleLock, graceEnd, warning, tick
    static func < (a: DeadlineKind, b: DeadlineKind) -> Bool { a.rawValue < b.rawValue }
}

struct Deadline {
    var time: Int64
    var kind: DeadlineKind
}

/// The most scopes or holds open at once on one engine (a leak guard, not a design limit).
let maxOpenScopesOrHolds = 1024

struct SessionMachine {
    private(set) var policy: SessionPolicy
    private(set) var state: SessionState = .loading
    private(set) var reason: Reason = .none

    // Session fields (engine-clock milliseconds).
    private(set) var startedAt: Int64?
    var lastActivity: Int64 = 0
    private(set) var lockedAt: Int64?
    private(set) var unlockFailures: UInt32 = 0

    // Background: `backgroundSince` is background in effect (activity ignored); `hiddenSince` is
    // the instant the visible-window count dropped to 0 while the grace runs.
    private(set) var backgroundSince: Int64?
    private(set) var hiddenSince: Int64?
    private(set) var visibleWindows: Int32 = 0

    private(set) var scopes: [(id: UInt64, idleMs: Int64)] = []
    private(set) var holds: [UInt64] = []
    private var nextScopeID: UInt64 = 1
    private var nextHoldID: UInt64 = 1

    /// The latest instant evaluated; deadlines are never applied before it.
    private(set) var cursor: Int64
    /// The countdown tick already covered in WARNING (remaining = k * tick).
    private var tickIndex: Int64?
    /// A tick due since the last collect, to deliver if the state did not change.
    private var pendingTick: (index: Int64, time: Int64)?
    /// The state and time of the last change, and what the host last saw.
    private var changedAt: Int64
    private(set) var seenState: SessionState = .loading
    /// Set while restoring: the reason of the last deadline applied, if any.
    private var appliedDeadline = false
    /// The boot id of the clock at the last evaluation.
    private var lastBootID: UInt64?

    init(policy: SessionPolicy, now: Int64) {
        self.policy = policy
        self.cursor = now
        self.changedAt = now
    }

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
        guard state == .active || state == .warning, !idleSuspended else { return nil }
        let d = deadline(lastActivity, plus: effectiveIdleMs)
        return d == SessionPolicy.never ? nil : d
    }

    var warningDeadline: Int64? {
        guard let d = idleDeadline else { return nil }
        return policy.warningMs > 0 ? d - policy.warningMs : nil
    }

    var absoluteDeadline: Int64? {
        guard state == .active || state == .warning || state == .locked, let s = startedAt else { return nil }
        let d = deadline(s, plus: policy.absoluteTimeoutMs)
        return d == SessionPolicy.never ? nil : d
    }

    var backgroundDeadline: Int64? {
        guard state == .active || state == .warning else { return nil }
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
        return d == SessionPolicy.never ? nil : d
    }

    var lockedDeadline: Int64? {
        guard state == .locked, let l = lockedAt else { return nil }
        let d = deadline(l, plus: policy.lockedTimeoutMs)
        return d == SessionPolicy.never ? nil : d
    }

    var graceDeadline: Int64? {
        guard let h = hiddenSince else { return nil }
        return deadline(h, plus: policy.backgroundGraceMs)
    }

    /// The next countdown tick: the largest k * tick strictly below the remaining time covered.
    private var tickDeadline: (index: Int64, time: Int64)? {
        guard state == .warning, policy.tickMs > 0, let k = tickIndex, k > 1, let d = idleDeadline else { return nil }
        return (k - 1, d - (k - 1) * policy.tickMs)
    }

    /// Every deadline that can fire from the current fields, earliest first.
    private func earliestDeadline() -> Deadline? {
        var best: Deadline?
        func consider(_ time: Int64?, _ kind: DeadlineKind) {
            guard let time else { return }
            if let b = best, (b.time, b.kind) <= (time, kind) { return }
            best = Deadline(time: time, kind: kind)
        }
        consider(absoluteDeadline, .absolute)
        consider(lockedDeadline, .lockedTimeout)
        if let d = idleDeadline { consider(d, policy.idleAction == .lock ? .idleLock : .idleExpire) }
        consider(backgroundDeadline, .background)
        consider(graceDeadline, .graceEnd)
        if state == .active { consider(warningDeadline, .warning) }
        consider(tickDeadline?.time, .tick)
        return best
    }

    /// The next instant the machine must be evaluated, if any.
    var nextWake: Int64? { earliestDeadline()?.time }

    /// The next lock or expiry: what a countdown shows.
    var nextLockOrExpiry: Int64? {
        earliest(earliest(idleDeadline, absoluteDeadline), earliest(backgroundDeadline, lockedDeadline))
    }

    func remaining(at now: Int64) -> Int64 {
        guard let t = nextLockOrExpiry else { return SessionPolicy.never }
        return max(0, t - now)
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
        backgroundSince = shift(backgroundSince)
        hiddenSince = shift(hiddenSince)
        changedAt = now
        cursor = now
        pendingTick = nil
        if state == .active || state == .warning {
            transition(to: .locked, .untrustedClock, at: now)
        }
    }

    /// Applies every deadline due at or before `now`, in time order.
    mutating func evaluate(now: Int64) {
        while let due = earliestDeadline(), due.time <= now {
            let t = max(due.time, cursor)
            if due.kind == .tick {
                // Jump to the latest due tick that is not past another deadline: past ticks are
                // not replayed.
                let limit = min(now, nextNonTickDeadline() ?? now)
                let d = idleDeadline!
                let k = max(1, ceilDiv(d - limit, policy.tickMs))
                let index = min(k, tickIndex! - 1)
                tickIndex = index
                pendingTick = (index, max(d - index * policy.tickMs, cursor))
                cursor = max(cursor, pendingTick!.time)
                continue
            }
            cursor = t
            apply(due.kind, at: t)
        }
        cursor = max(cursor, now)
        normalizeWarning()
        checkInvariants()
    }

    private func nextNonTickDeadline() -> Int64? {
        earliest(earliest(earliest(absoluteDeadline, lockedDeadline), earliest(idleDeadline, backgroundDeadline)), graceDeadline)
    }

    private mutating func apply(_ kind: DeadlineKind, at t: Int64) {
        if kind != .graceEnd { appliedDeadline = true }
        switch kind {
        case .absolute: transition(to: .expired, .absoluteTimeout, at: t)
        case .lockedTimeout: transition(to: .expired, .lockedTimeout, at: t)
        case .idleExpire: transition(to: .expired, .idleTimeout, at: t)
        case .background: transition(to: .locked, .backgroundTimeout, at: t)
        case .idleLock: transition(to: .locked, .idleTimeout, at: t)
        case .graceEnd:
            backgroundSince = hiddenSince
            hiddenSince = nil
        case .warning:
            transition(to: .warning, .idle, at: t)
        case .tick:
            break   // handled in evaluate
        }
    }

    private mutating func transition(to newState: SessionState, _ newReason: Reason, at t: Int64) {
        state = newState
        reason = newReason
        changedAt = t
        pendingTick = nil
        lockedAt = newState == .locked ? t : nil
        if newState == .warning, policy.tickMs > 0, let d = idleDeadline {
            // The WARNING event itself shows the remaining time; the first tick is the next
            // multiple of the tick period below it.
            tickIndex = ceilDiv(d - t, policy.tickMs)
        } else {
            tickIndex = nil
        }
    }

    /// WARNING lasts only while its deadline is due: when an input moved the idle deadline
    /// later (a hold, a scope popped, a relaxed policy), return to ACTIVE (EXTENDED).
    private mutating func normalizeWarning() {
        guard state == .warning else { return }
        if let w = warningDeadline, w <= cursor {
            if tickIndex == nil, policy.tickMs > 0, let d = idleDeadline {
                tickIndex = ceilDiv(d - cursor, policy.tickMs)
            }
            if policy.tickMs == 0 { tickIndex = nil }
            return
        }
        transition(to: .active, .extended, at: cursor)
    }

    /// Events for the host: the change since it last looked (folded into one), else a tick.
    mutating func collect(now: Int64, engine: UInt64, into events: inout [SessionEvent]) {
        if state != seenState {
            events.append(SessionEvent(kind: .stateChanged, state: state, previousState: seenState,
                                       reason: reason, remainingMs: remaining(at: now),
                                       timeMs: changedAt, nowMs: now, engine: engine))
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

    private func require(_ input: Input) throws(InactivityError) {
        if !input.allowedStates.contains(state) {
            throw InactivityError.invalidState(input.name, state)
        }
    }

    mutating func start(now: Int64) throws(InactivityError) {
        try require(.start)
        startedAt = now
        lastActivity = now
        unlockFailures = 0
        transition(to: .active, .started, at: now)
    }

    /// Activity of one kind (validated by the caller). Returns true when it was recorded.
    @discardableResult
    mutating func activity(_ kind: ActivityKind, now: Int64) -> Bool {
        guard policy.activityKinds.contains(kind), backgroundSince == nil else { return false }
        switch state {
        case .active:
            lastActivity = max(lastActivity, now)
            return true
        case .warning where policy.activityDismissesWarning:
            lastActivity = now
            transition(to: .active, .activity, at: now)
            return true
        default:
            return false   // not recorded at all
        }
    }

    mutating func continueSession(now: Int64) throws(InactivityError) {
        try require(.continueSession)
        lastActivity = now
        transition(to: .active, .continued, at: now)
    }

    mutating func lock(now: Int64) throws(InactivityError) {
        try require(.lock)
        if state == .locked { return }   // a lock screen is never shown twice
        transition(to: .locked, .manualLock, at: now)
    }

    mutating func unlock(now: Int64) throws(InactivityError) {
        try require(.unlock)
        lastActivity = now
        unlockFailures = 0
        transition(to: .active, .unlocked, at: now)
    }

    mutating func unlockFailed(now: Int64) throws(InactivityError) -> UInt32 {
        try require(.unlockFailed)
        unlockFailures = unlockFailures == .max ? .max : unlockFailures + 1
        if policy.maxUnlockFailures > 0 && unlockFailures >= policy.maxUnlockFailures {
            transition(to: .expired, .unlockFailures, at: now)
        }
        return unlockFailures
    }

    mutating func end(_ endReason: Reason, now: Int64) throws(InactivityError) {
        guard [.logout, .revoked, .passwordChanged].contains(endReason) else {
            throw InactivityError(.invalidArgument,
                                  "reason (\(endReason.rawValue)) must be LOGOUT, REVOKED or PASSWORD_CHANGED")
        }
        if state == .expired { return }
        transition(to: .expired, endReason, at: now)
    }

    /// Classifies a token refresh (DESIGN.md section 2); only REVOKED changes the session.
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

    mutating func refreshResult(_ outcome: RefreshOutcome, now: Int64) {
        if outcome == .revoked && state != .expired {
            transition(to: .expired, .revoked, at: now)
        }
    }

    mutating func background(now: Int64) {
        if backgroundSince == nil {
            backgroundSince = hiddenSince ?? now
        }
        hiddenSince = nil
    }

    mutating func foreground(now: Int64) {
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

    mutating func windowShown(now: Int64) throws(InactivityError) {
        guard visibleWindows < Int32(maxOpenScopesOrHolds) * 64 else {
            throw InactivityError(.limit, "visible windows: at most \(Int32(maxOpenScopesOrHolds) * 64)")
        }
        visibleWindows += 1
        if visibleWindows == 1 { foreground(now: now) }
    }

    mutating func windowHidden(now: Int64) throws(InactivityError) {
        guard visibleWindows > 0 else {
            throw InactivityError(.invalidState, "window hidden: no window is shown")
        }
        visibleWindows -= 1
        if visibleWindows == 0 && backgroundSince == nil {
            hiddenSince = now
        }
    }

    static func checkScope(idleTimeoutMs: Int64) throws(InactivityError) {
        guard idleTimeoutMs > 0, idleTimeoutMs <= SessionPolicy.maxFiniteMs else {
            throw InactivityError(.invalidArgument,
                                  "idle_timeout_ms (\(idleTimeoutMs)) must be > 0 and at most 100 years")
        }
    }

    mutating func pushScope(idleTimeoutMs: Int64, now: Int64) throws(InactivityError) -> UInt64 {
        try SessionMachine.checkScope(idleTimeoutMs: idleTimeoutMs)
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
        return id
    }

    mutating func popScope(_ id: UInt64, now: Int64) throws(InactivityError) {
        guard let i = scopes.firstIndex(where: { $0.id == id }) else {
            throw InactivityError(.notFound, "scope_id (\(id)) is not an open scope")
        }
        scopes.remove(at: i)
    }

    mutating func acquireHold(now: Int64) throws(InactivityError) -> UInt64 {
        guard holds.count < maxOpenScopesOrHolds else {
            throw InactivityError(.limit, "holds: at most \(maxOpenScopesOrHolds) open at once")
        }
        let id = nextHoldID
        nextHoldID += 1
        holds.append(id)
        return id
    }

    mutating func releaseHold(_ id: UInt64, now: Int64) throws(InactivityError) {
        guard let i = holds.firstIndex(of: id) else {
            throw InactivityError(.notFound, "hold_id (\(id)) is not an open hold")
        }
        holds.remove(at: i)
        if holds.isEmpty && (state == .active || state == .warning) {
            lastActivity = max(lastActivity, now)
        }
    }

    mutating func setPolicy(_ newPolicy: SessionPolicy) throws(InactivityError) {
        try newPolicy.validate()
        if let strictest = scopes.map({ $0.idleMs }).min(), newPolicy.warningMs >= strictest {
            throw InactivityError(.invalidArgument,
                                  "policy.warning_ms (\(newPolicy.warningMs)) must be shorter than every open scope's idle timeout (\(strictest))")
        }
        policy = newPolicy
        if state == .warning && policy.tickMs > 0, let d = idleDeadline {
            tickIndex = ceilDiv(d - cursor, policy.tickMs)
        }
    }

    // MARK: Snapshot and restore

    func snapshot(clock: ClockReading) throws(InactivityError) -> Snapshot {
        guard state != .loading else {
            throw InactivityError(.invalidState, "snapshot: no session in state LOADING")
        }
        // Holds are not kept (their screens push them again), and an open hold means the idle
        // countdown is suspended: it counts from the snapshot, as it would from a release now.
        let live = state == .active || state == .warning
        let activity = live ? (holds.isEmpty ? lastActivity : max(lastActivity, clock.monotonicMs))
            : (startedAt ?? clock.monotonicMs)
        return Snapshot(state: state, reason: reason, unlockFailures: unlockFailures,
                        startedAt: startedAt ?? clock.monotonicMs,
                        lastActivity: activity,
                        backgroundSince: backgroundSince ?? hiddenSince,
                        lockedAt: lockedAt,
                        bootID: clock.bootID, monotonicMs: clock.monotonicMs, wallMs: clock.wallMs)
    }

    /// Restores `s` (already decoded and checked) at `clock` (DESIGN.md section 4).
    mutating func restore(_ s: Snapshot, clock: ClockReading) throws(InactivityError) {
        try require(.restore)
        let now = clock.monotonicMs
        let trusted = s.bootID == clock.bootID && clock.monotonicMs >= s.monotonicMs
        let wallWentBack = !trusted && clock.wallMs < s.wallMs
        // Elapsed time since the snapshot: the continuous clock when trusted, else the wall
        // clock as an estimate that can only make the outcome stricter (see below).
        let elapsed: Int64
        if trusted {
            elapsed = clock.monotonicMs - s.monotonicMs
        } else if wallWentBack {
            elapsed = 0   // no estimate at all: the outcome is EXPIRED (UNTRUSTED_CLOCK) below
        } else {
            let (delta, overflow) = clock.wallMs.subtractingReportingOverflow(s.wallMs)
            elapsed = overflow ? .max : delta
        }
        // Map the snapshot's instants into this clock: the snapshot was taken `elapsed` ago.
        let snapshotInstant = now &- min(elapsed, 1 << 61)
        let (offset, offsetOverflow) = snapshotInstant.subtractingReportingOverflow(s.monotonicMs)
        func map(_ t: Int64) -> Int64 {
            let (r, o) = t.addingReportingOverflow(offset)
            return o || offsetOverflow ? snapshotInstant : min(r, snapshotInstant)
        }

        startedAt = map(s.startedAt)
        lastActivity = map(s.lastActivity)
        unlockFailures = s.unlockFailures
        // The time since the snapshot counts as background time: nothing was on screen.
        backgroundSince = map(s.backgroundSince ?? s.monotonicMs)
        hiddenSince = nil
        state = s.state
        reason = s.reason
        changedAt = snapshotInstant
        lockedAt = s.state == .locked ? map(s.lockedAt ?? s.monotonicMs) : nil
        cursor = snapshotInstant
        tickIndex = nil
        pendingTick = nil
        if state == .warning, policy.tickMs > 0, let d = idleDeadline {
            tickIndex = ceilDiv(d - cursor, policy.tickMs)
        }
        appliedDeadline = false
        evaluate(now: now)
        let deadlineApplied = appliedDeadline
        foreground(now: now)
        normalizeWarning()

        // Unknown elapsed time: never ACTIVE. LOCKED at least, by the clock (a lock is never
        // attributed to a deadline judged on the wall-clock estimate), taking effect now;
        // EXPIRED when the wall clock went back (elapsed cannot even be estimated).
        var overridden = false
        if !trusted {
            if wallWentBack && state != .expired {
                transition(to: .expired, .untrustedClock, at: now)
                overridden = true
            } else if state != .expired {
                transition(to: .locked, .untrustedClock, at: now)
                overridden = true
            }
        }
        // The reason of the deadline that caused the outcome, else RESTORED (also for a restore
        // that lands inside the warning window or returns to ACTIVE).
        if state == .active || state == .warning || (!deadlineApplied && !overridden) {
            reason = .restored
        }
        if !deadlineApplied && !overridden {
            changedAt = now   // restored as it was: that happens now
        }
        checkInvariants()
    }

    /// A snapshot could not be trusted: a full sign-in is the safe outcome.
    mutating func restoreFailed(now: Int64) {
        transition(to: .expired, .restoreFailed, at: now)
    }

    // MARK: Invariants

    private func checkInvariants() {
        assert(Reason.allowed(in: state).contains(reason), "reason \(reason) in state \(state)")
        assert(state != .locked || lockedAt != nil, "LOCKED without locked-at")
        assert(!(state == .active || state == .warning) || startedAt != nil, "session without start")
    }
}

@inline(__always)
func ceilDiv(_ a: Int64, _ b: Int64) -> Int64 {
    precondition(b > 0)
    if a <= 0 { return 0 }
    return (a - 1) / b + 1
}
