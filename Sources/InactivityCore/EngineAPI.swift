// The engine's public API. Every input and query is one `perform` call (Engine.swift) around
// one machine method or read (the names differ where Swift idiom asks: `enterBackground` calls
// `background`), with two exceptions: `recordActivity` first tries the lock-free gate
// (ActivityGate.swift) and takes `perform` only when the gate cannot decide, and the manual-clock
// moves (`advanceClock`, ...) act on the clock, not the machine (a refused move still catches up,
// through `refusing`). Arguments are checked inside `perform`, so that a refused call has first
// caught up like every other call (docs/design.md, "Deadlines, precedence and catch-up"): a
// value's own range here, with the checks the machine exports (`SessionMachine.checkMethod`,
// `checkScope`, `checkInterruption`, `SessionPolicy.validate`, ...); a value against the session
// (a scope against the policy's warning, a cap, a generation, a ceiling) in the machine, whose
// rule table names each such refusal; C pointers, struct sizes and enums in the C shims, before
// the call arrives here. Nothing here decides a state; `info()` only presents the machine's
// fields (times a state does not have read as INACT_NEVER).

extension InactivityEngine {
    /// Starts a session (signed in): LOADING or EXPIRED -> ACTIVE (STARTED).
    public func start() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.start(now: r.monotonicMs) }
    }

    /// Restores a snapshot (LOADING only). Corrupt bytes throw their own error and leave the
    /// engine EXPIRED (RESTORE_FAILED).
    /// `length`: the caller's length when `bytes` holds only its first part (see Snapshot.decode).
    public func restore(_ bytes: [UInt8], length: UInt64? = nil) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.restore(bytes, length: length, clock: r) }
    }

    /// Records activity of one kind. Lock-free on the system clock when nothing is due.
    public func recordActivity(_ kind: ActivityKind = .touchDown) throws(InactivityError) {
        if kind.isSingleKnownKind {
            if gate.pointee.record(kind: kind.rawValue, expectedHandle: handle) == .handled { return }
        }
        try perform { m, r throws(InactivityError) in
            try kind.checkSingleKnownKind()
            try m.activity(kind, now: r.monotonicMs)
        }
    }

    /// WARNING -> ACTIVE (CONTINUED).
    public func continueSession() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.continueSession(now: r.monotonicMs) }
    }

    /// ACTIVE/WARNING -> LOCKED (MANUAL_LOCK); a no-op in LOCKED.
    public func lock() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.lock(now: r.monotonicMs) }
    }

    /// LOCKED -> ACTIVE (UNLOCKED): the host verified the user with `method`. A method weaker
    /// than `requiredAuth()` throws `weakAuth`; past the offline timeout it throws `offline`.
    public func unlock(method: AuthStrength = .credential) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in
            try SessionMachine.checkMethod(method)
            try m.unlock(method: method, now: r.monotonicMs)
        }
    }

    /// A failed re-verification with `method` in LOCKED; returns the failures in a row. A method
    /// weaker than the lock requires throws `weakAuth` and does not count.
    @discardableResult
    public func unlockFailed(method: AuthStrength = .credential) throws(InactivityError) -> UInt32 {
        try perform { m, r throws(InactivityError) in
            try SessionMachine.checkMethod(method)
            return try m.unlockFailed(method: method, now: r.monotonicMs)
        }
    }

    /// The enrolled biometrics changed: a biometric no longer unlocks until the credential is
    /// verified again.
    public func biometricsChanged() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.biometricsChanged(now: r.monotonicMs) }
    }

    /// What an unlock needs now: `.none` unless LOCKED.
    public func requiredAuth() throws(InactivityError) -> AuthStrength {
        try perform { m, r in m.requiredAuth(at: r.monotonicMs) }
    }

    /// Announces the app's own system sheet: a background that begins within `maxMs` from now
    /// and ends by then does not count toward the background timeout. 0 withdraws it.
    public func expectInterruption(maxMs: Int64) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in
            try SessionMachine.checkInterruption(maxMs: maxMs)
            try m.expectInterruption(maxMs: maxMs, now: r.monotonicMs)
        }
    }

    /// The device locked (screen off, keyguard, protected data unavailable): background starts,
    /// and with `policy.lockOnDeviceLock` the session is LOCKED (DEVICE_LOCKED) at once.
    public func deviceLocked() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.deviceLocked(now: r.monotonicMs) }
    }

    /// A successful online check: the offline deadlines restart, and a lock past the offline
    /// timeout may be unlocked again.
    public func serverContact() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.serverContact(now: r.monotonicMs) }
    }

    /// The host stored refresh token `generation` (after a rotation).
    public func tokenRotated(generation: UInt64) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.tokenRotated(generation, now: r.monotonicMs) }
    }

    /// Sets the administrator's limits and makes the current policy as strict as them; every
    /// later policy must be within them (`ceiling` error otherwise).
    public func setCeilings(_ ceilings: PolicyCeilings) throws(InactivityError) {
        try perform { m, _ throws(InactivityError) in
            try ceilings.validate()
            try m.setCeilings(ceilings)
        }
    }

    public func ceilings() throws(InactivityError) -> PolicyCeilings {
        try perform { m, _ in m.ceilings }
    }

    /// Ends the session with `.logout`, `.revoked`, `.passwordChanged` or `.deviceLimit`.
    public func end(reason: Reason = .logout) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in
            _ = try Reason.ending(rawValue: reason.rawValue)
            try m.end(reason, now: r.monotonicMs)
        }
    }

    /// What another holder of the session (a tab, the server) reports, in the C ABI's values
    /// (inact_holder_report): `kind` an inact_holder_kind, `reason` its reason (NONE for
    /// activity and deadlines), `ms` the age of the instant or the time left to the deadline,
    /// relative to now. It only ever makes the session stricter.
    public func holderReport(kind: Int32, reason: Int32, ms: Int64) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in
            let (k, why) = try SessionMachine.checkHolderReport(kind: kind, reason: reason, ms: ms)
            try m.holderReport(k, reason: why, ms: ms, now: r.monotonicMs)
        }
    }

    /// What another holder of the session reports: `.activity` (the user's activity it saw,
    /// `ms` ago), `.locked`/`.expired` with the holder's reason (`ms` ago), `.idleDeadline` /
    /// `.absoluteDeadline` (`ms` from now). Nothing reported unlocks or extends the session.
    public func holderReport(_ kind: HolderKind, reason: Reason = .none, ms: Int64 = 0) throws(InactivityError) {
        try holderReport(kind: kind.rawValue, reason: reason.rawValue, ms: ms)
    }

    /// Reports a token refresh that used refresh token `generation` (0: not tracked). Only a
    /// revoked token changes the session; an `invalid_grant` for a generation older than the
    /// newest one reported by `tokenRotated` is `.stale` and changes nothing; a plain 401 always
    /// revokes; a 2xx is a server contact.
    @discardableResult
    public func refreshResult(httpStatus: Int32, oauthError: String? = nil, generation: UInt64 = 0) throws(InactivityError) -> RefreshOutcome {
        // Byte equality, as RFC 6749 error codes are ASCII tokens (String == would compare by
        // canonical equivalence, which needs the Unicode tables in the C library).
        try refreshResult(httpStatus: httpStatus, invalidGrant: oauthError?.utf8.elementsEqual("invalid_grant".utf8) == true,
                          generation: generation)
    }

    /// `refreshResult` with the OAuth error already compared to `invalid_grant` (the C ABI
    /// compares the C string's bytes: no String in the Embedded builds).
    @discardableResult
    public func refreshResult(httpStatus: Int32, invalidGrant: Bool, generation: UInt64 = 0) throws(InactivityError) -> RefreshOutcome {
        try perform { m, r throws(InactivityError) in
            let outcome = try SessionMachine.classifyRefresh(httpStatus: httpStatus, invalidGrant: invalidGrant)
            return try m.refreshResult(outcome, invalidGrant: invalidGrant, generation: generation, now: r.monotonicMs)
        }
    }

    public func enterBackground() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.background(now: r.monotonicMs) }
    }

    public func enterForeground() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.foreground(now: r.monotonicMs) }
    }

    public func windowShown() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.windowShown(now: r.monotonicMs) }
    }

    public func windowHidden() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.windowHidden(now: r.monotonicMs) }
    }

    /// Opens a stricter idle timeout; returns its id for `popScope`.
    public func pushScope(idleTimeoutMs: Int64) throws(InactivityError) -> UInt64 {
        try perform { m, r throws(InactivityError) in
            try SessionMachine.checkScope(idleTimeoutMs: idleTimeoutMs)
            return try m.pushScope(idleTimeoutMs: idleTimeoutMs, now: r.monotonicMs)
        }
    }

    public func popScope(_ id: UInt64) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.popScope(id, now: r.monotonicMs) }
    }

    /// Suspends the idle countdown until released; returns its id.
    public func acquireHold() throws(InactivityError) -> UInt64 {
        try perform { m, r throws(InactivityError) in try m.acquireHold(now: r.monotonicMs) }
    }

    public func releaseHold(_ id: UInt64) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.releaseHold(id, now: r.monotonicMs) }
    }

    /// Replaces the policy; it must be within the ceilings set on the engine (`ceiling` error).
    public func setPolicy(_ policy: SessionPolicy) throws(InactivityError) {
        try perform { m, _ throws(InactivityError) in
            try policy.validate()
            try m.setPolicy(policy)
        }
    }

    public func policy() throws(InactivityError) -> SessionPolicy {
        try perform { m, _ in m.policy }
    }

    public func state() throws(InactivityError) -> SessionState {
        try perform { m, _ in m.state }
    }

    public func reason() throws(InactivityError) -> Reason {
        try perform { m, _ in m.reason }
    }

    /// Milliseconds to the next lock or expiry; `SessionPolicy.never` if none.
    public func remainingMs() throws(InactivityError) -> Int64 {
        try perform { m, r in m.remaining(at: r.monotonicMs) }
    }

    public func info() throws(InactivityError) -> Info {
        try perform { m, r in
            let never = SessionPolicy.never
            let now = r.monotonicMs
            let live = m.state == .active || m.state == .warning
            return Info(state: m.state, reason: m.reason, delivery: delivery, isManualClock: clock.isManual,
                        inBackground: m.inBackground, visibleWindows: m.visibleWindows,
                        openScopes: Int32(m.scopes.count), openHolds: Int32(m.holds.count),
                        unlockFailures: m.unlockFailures, nowMs: now, remainingMs: m.remaining(at: now),
                        nextDeadlineMs: m.nextWake ?? never, effectiveIdleTimeoutMs: m.effectiveIdleMs,
                        startedAtMs: m.state == .loading ? never : (m.startedAt ?? never),
                        lastActivityMs: live ? m.lastActivity : never,
                        backgroundSinceMs: m.backgroundSince ?? never, lockedAtMs: m.lockedAt ?? never,
                        requiredAuth: m.requiredAuth(at: now),
                        needsServerContact: m.state == .locked && m.offlineBlocked(at: now),
                        lastCredentialMs: m.lastCredentialAt ?? never,
                        strongAuthDeadlineMs: m.strongAuthDeadline ?? never,
                        lastServerContactMs: m.lastContactAt ?? never, tokenGeneration: m.newestGeneration,
                        interruptionUntilMs: m.interruption?.end ?? never)
        }
    }

    /// Host mode: milliseconds until `poll()` is needed; 0 when due; nil when nothing is scheduled.
    public func nextDeadlineDelayMs() throws(InactivityError) -> Int64? {
        try perform { m, r in m.nextWake.map { max(0, $0 - r.monotonicMs) } }
    }

    /// Evaluates deadlines now and delivers due events on the calling thread.
    public func poll() throws(InactivityError) {
        try perform { _, _ in }
    }

    /// The snapshot bytes (not in LOADING).
    public func snapshot() throws(InactivityError) -> [UInt8] {
        try perform { m, r throws(InactivityError) in try m.snapshot(clock: r).encode() }
    }

    public func clockNow() -> ClockReading { clock.now() }

    private func manualClock() throws(InactivityError) -> ManualClock {
        if isClosed { throw InactivityEngine.invalidHandle(handle) }
        guard case .manual(let m) = clock else {
            throw InactivityError(.wrongClock, "engine uses the system clock; only a manual clock can be moved")
        }
        return m
    }

    /// Manual clock: moves time forward as on the real clock; every deadline on the way is
    /// delivered inside the call, in time order.
    public func advanceClock(byMs ms: Int64) throws(InactivityError) {
        do { try manualClock().advance(by: ms) } catch { throw refusing(error) }
    }

    /// Manual clock: moves time forward as for a frozen process; nothing is delivered until the
    /// next call, which catches up with one transition.
    public func freezeClock(forMs ms: Int64) throws(InactivityError) {
        do { try manualClock().freeze(for: ms) } catch { throw refusing(error) }
    }

    public func jumpWallClock(byMs ms: Int64) throws(InactivityError) {
        do { try manualClock().jumpWall(by: ms) } catch { throw refusing(error) }
    }

    public func simulateReboot(downtimeMs: Int64 = 0) throws(InactivityError) {
        do { try manualClock().reboot(downtimeMs: downtimeMs) } catch { throw refusing(error) }
    }

    /// Refuses a call for an argument found bad before it reached the machine (a C shim's
    /// conversion of a struct, an enum or a pointer; a manual-clock move): like every entry
    /// point it first delivers what is due. The refused call itself changes nothing. Returns
    /// `error`, for the caller to throw.
    public func refusing(_ error: InactivityError) -> InactivityError {
        _ = try? perform { _, _ in }
        return error
    }
}

// MARK: - Handles (for the C ABI and other hosts that hold ids, not objects)

extension InactivityEngine {
    /// The live engine with this handle; `invalidHandle` for 0, destroyed, stale or forged ones.
    public static func find(handle: UInt64) throws(InactivityError) -> InactivityEngine {
        guard let engine = Registry.shared.lookup(handle) else { throw invalidHandle(handle) }
        return engine
    }

    /// Activity by handle: lock-free when nothing is due, without retaining the engine.
    @inline(__always)
    public static func recordActivity(handle: UInt64, kind: UInt32) throws(InactivityError) {
        let k = ActivityKind(rawValue: kind)
        guard k.isSingleKnownKind else {
            // The engine, if the handle names one, catches up before refusing the kind.
            try Registry.shared.lookup(handle)?.recordActivity(k)
            try k.checkSingleKnownKind()
            return
        }
        try Registry.shared.activity(handle, kind: kind)
    }

    /// Whether the process-wide scheduler thread is running.
    public static var schedulerIsRunning: Bool { Scheduler.shared.isRunning }

    /// A platform fault the scheduler survives (inact_scheduler_faults): after the thread had its
    /// timer, setting it failed. `degraded` while the last attempt failed: THREAD engines' deadlines
    /// may then fire up to 1 s late (never early, never lost); `failures` since the process
    /// started; `lastErrno` of the most recent failure, 0 if none.
    public static var schedulerTimerFaults: (degraded: Bool, failures: UInt64, lastErrno: Int32) {
        Scheduler.shared.timerFaults
    }
}
