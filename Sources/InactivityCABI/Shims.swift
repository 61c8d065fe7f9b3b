// The C ABI: thin shims over InactivityCore, one per function of include/inactivity.h. The shims
// of conventional shape are generated into GeneratedShims.swift (tools/generate); these are the rest.
//
// Each shim converts its C arguments, calls the core, and converts the result; no session
// logic lives here. `@c @implementation` makes the compiler check every shim against its
// declaration in the header (reached through the CInactivity module), so no C type is written
// twice. Nothing thrown in Swift crosses the boundary: errors become status codes and a
// thread-local message.

import CInactivity
#if !hasFeature(Embedded)
import InactivityCore  // the Embedded build compiles the core and these shims as one module
#endif

// MARK: - Conversions

/// Runs `body`, turning a thrown error into its status and the thread's last-error message.
@inline(__always)
private func status(_ body: () throws(InactivityError) -> Void) -> Int32 {
    do {
        try body()
        return INACT_OK.rawValue
    } catch {
        inactivity_set_last_error(error.message)
        return error.code.rawValue
    }
}

/// A C `size_t` as it is: Swift imports `size_t` as `Int`, so SIZE_MAX and every length of
/// 2^63 or more arrive negative. Every size parameter goes through this before any use.
@inline(__always)
private func cSize(_ value: Int) -> UInt { UInt(bitPattern: value) }

func nullPointer(_ name: String) -> InactivityError {
    InactivityError(.nullPointer, "\(name) must not be NULL")
}

/// Runs `body` with the live engine named by `handle`. A call refused here (a NULL pointer, a
/// bad struct or enum) first lets the engine deliver what is due, as every entry point does.
@inline(__always)
func withEngine(_ handle: inact_engine, _ body: (InactivityEngine) throws(InactivityError) -> Void) -> Int32 {
    status { () throws(InactivityError) in
        let engine = try InactivityEngine.find(handle: handle)
        do throws(InactivityError) { try body(engine) } catch { throw error.code == .invalidHandle ? error : engine.refusing(error) }
    }
}

/// The first published (1.0) size of each struct that grew since: a caller built against the
/// 1.0 header keeps working (include/inactivity.h, the struct-size convention). A struct that
/// has not grown, or appeared later, has only its current size as its first one.
private let policySize1_0 = 80
private let infoSize1_0 = 104

/// Checks a caller's struct size and returns it: a published layout (the first one, `first`,
/// or this version's, `known`), or larger than this version's with a zero tail. Sizes between
/// layouts or below the first are refused: they are no struct any header declared. Reads the
/// size field alone, never the caller's whole struct (a 1.0 struct is shorter than ours).
private func checkSize(_ pointer: UnsafeRawPointer, first: Int, known: Int, name: String) throws(InactivityError) -> Int {
    let declared = pointer.load(as: UInt32.self)
    // The upper bound first, on the UInt32: Int(declared) traps above 2^31 on 32-bit CPUs.
    guard declared <= 65_536 else {
        throw InactivityError(.structSize, "\(name)->size (\(declared)) is implausibly large (at most 65536)")
    }
    let size = Int(declared)
    if size == first || size == known { return size }
    guard size > known else {
        let rule = first == known ? "at least sizeof(\(name)) (\(known))"
            : "\(first) (the 1.0 layout), \(known) (sizeof(\(name))) or more"
        throw InactivityError(.structSize, "\(name)->size (\(size)) must be \(rule) for this library")
    }
    for offset in known..<size where pointer.load(fromByteOffset: offset, as: UInt8.self) != 0 {
        throw InactivityError(.structSize,
                              "\(name)->size (\(size)) is larger than this library's \(known) bytes and byte \(offset) is not zero: the caller uses fields this library does not know")
    }
    return size
}

/// An input struct as this version sees it: the caller's first `size` bytes over `defaults`
/// (what the init function fills), so the fields an older caller does not have take defaults.
private func readStruct<T>(_ pointer: UnsafePointer<T>, size: Int, defaults: T) -> T {
    var value = defaults
    withUnsafeMutableBytes(of: &value) { dst in
        dst.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(pointer), count: min(size, dst.count)))
    }
    return value
}

/// Writes an output struct's first `size` bytes only (an older caller's struct is shorter),
/// keeping the caller's size field as given.
private func writeStruct<T>(_ value: T, to pointer: UnsafeMutablePointer<T>, size: Int) {
    let raw = UnsafeMutableRawPointer(pointer)
    let callerSize = raw.load(as: UInt32.self)
    withUnsafeBytes(of: value) { src in
        raw.copyMemory(from: src.baseAddress!, byteCount: min(size, src.count))
    }
    raw.storeBytes(of: callerSize, as: UInt32.self)
}

private func flag(_ value: Int32, _ name: String) throws(InactivityError) -> Bool {
    guard value == 0 || value == 1 else {
        throw InactivityError(.invalidArgument, "policy.\(name) (\(value)) must be 0 or 1")
    }
    return value == 1
}

private func readPolicy(_ pointer: UnsafePointer<inact_policy>?) throws(InactivityError) -> SessionPolicy {
    guard let pointer else { throw nullPointer("policy") }
    let size = try checkSize(UnsafeRawPointer(pointer), first: policySize1_0,
                             known: MemoryLayout<inact_policy>.size, name: "inact_policy")
    let c = readStruct(pointer, size: size, defaults: cPolicy(SessionPolicy()))
    var p = SessionPolicy()
    guard let action = IdleAction(rawValue: c.idle_action) else {
        throw InactivityError(.invalidArgument, "policy.idle_action (\(c.idle_action)) must be INACT_IDLE_ACTION_LOCK (0) or _EXPIRE (1)")
    }
    p.idleAction = action
    p.idleTimeoutMs = c.idle_timeout_ms
    p.warningMs = c.warning_ms
    p.backgroundTimeoutMs = c.background_timeout_ms
    p.absoluteTimeoutMs = c.absolute_timeout_ms
    p.lockedTimeoutMs = c.locked_timeout_ms
    p.tickMs = c.tick_ms
    p.backgroundGraceMs = c.background_grace_ms
    p.activityKinds = ActivityKind(rawValue: c.activity_kinds)
    p.maxUnlockFailures = c.max_unlock_failures
    p.activityDismissesWarning = try flag(c.activity_dismisses_warning, "activity_dismisses_warning")
    p.pauseIdleInBackground = try flag(c.pause_idle_in_background, "pause_idle_in_background")
    p.lockOnDeviceLock = try flag(c.lock_on_device_lock, "lock_on_device_lock")
    p.lockOnRestart = try flag(c.lock_on_restart, "lock_on_restart")
    p.strongAuthTimeoutMs = c.strong_auth_timeout_ms
    p.expectedInterruptionMaxMs = c.expected_interruption_max_ms
    p.offlineTimeoutMs = c.offline_timeout_ms
    p.offlineExpiryMs = c.offline_expiry_ms
    return p   // validated once, by the engine (or inact_policy_validate)
}

private func readCeilings(_ pointer: UnsafePointer<inact_ceilings>?) throws(InactivityError) -> PolicyCeilings {
    guard let pointer else { throw nullPointer("ceilings") }
    let size = try checkSize(UnsafeRawPointer(pointer), first: MemoryLayout<inact_ceilings>.size,
                             known: MemoryLayout<inact_ceilings>.size, name: "inact_ceilings")
    let c = readStruct(pointer, size: size, defaults: cCeilings(PolicyCeilings()))
    var l = PolicyCeilings()
    l.maxUnlockFailures = c.max_unlock_failures
    l.idleTimeoutMs = c.idle_timeout_ms
    l.backgroundTimeoutMs = c.background_timeout_ms
    l.absoluteTimeoutMs = c.absolute_timeout_ms
    l.lockedTimeoutMs = c.locked_timeout_ms
    l.strongAuthTimeoutMs = c.strong_auth_timeout_ms
    l.expectedInterruptionMaxMs = c.expected_interruption_max_ms
    l.offlineTimeoutMs = c.offline_timeout_ms
    l.offlineExpiryMs = c.offline_expiry_ms
    for (name, value) in [("lock_on_device_lock", c.lock_on_device_lock), ("lock_on_restart", c.lock_on_restart)]
    where value != 0 && value != 1 {
        throw InactivityError(.invalidArgument, "ceilings.\(name) (\(value)) must be 0 or 1")
    }
    l.lockOnDeviceLock = c.lock_on_device_lock == 1
    l.lockOnRestart = c.lock_on_restart == 1
    try l.validate()
    return l
}

private func cCeilings(_ l: PolicyCeilings) -> inact_ceilings {
    inact_ceilings(
        size: UInt32(MemoryLayout<inact_ceilings>.size), max_unlock_failures: l.maxUnlockFailures,
        idle_timeout_ms: l.idleTimeoutMs, background_timeout_ms: l.backgroundTimeoutMs,
        absolute_timeout_ms: l.absoluteTimeoutMs, locked_timeout_ms: l.lockedTimeoutMs,
        strong_auth_timeout_ms: l.strongAuthTimeoutMs, expected_interruption_max_ms: l.expectedInterruptionMaxMs,
        offline_timeout_ms: l.offlineTimeoutMs, offline_expiry_ms: l.offlineExpiryMs,
        lock_on_device_lock: l.lockOnDeviceLock ? 1 : 0, lock_on_restart: l.lockOnRestart ? 1 : 0)
}

private func authMethod(_ method: Int32) throws(InactivityError) -> AuthStrength {
    guard let m = AuthStrength(rawValue: method), m != .none else {
        throw InactivityError(.invalidArgument, "method (\(method)) must be INACT_AUTH_BIOMETRIC (1) or INACT_AUTH_CREDENTIAL (2)")
    }
    return m
}

private func cPolicy(_ p: SessionPolicy) -> inact_policy {
    inact_policy(
        size: UInt32(MemoryLayout<inact_policy>.size), idle_action: p.idleAction.rawValue,
        idle_timeout_ms: p.idleTimeoutMs, warning_ms: p.warningMs,
        background_timeout_ms: p.backgroundTimeoutMs, absolute_timeout_ms: p.absoluteTimeoutMs,
        locked_timeout_ms: p.lockedTimeoutMs, tick_ms: p.tickMs,
        background_grace_ms: p.backgroundGraceMs, activity_kinds: p.activityKinds.rawValue,
        max_unlock_failures: p.maxUnlockFailures,
        activity_dismisses_warning: p.activityDismissesWarning ? 1 : 0,
        pause_idle_in_background: p.pauseIdleInBackground ? 1 : 0,
        lock_on_device_lock: p.lockOnDeviceLock ? 1 : 0, lock_on_restart: p.lockOnRestart ? 1 : 0,
        strong_auth_timeout_ms: p.strongAuthTimeoutMs, expected_interruption_max_ms: p.expectedInterruptionMaxMs,
        offline_timeout_ms: p.offlineTimeoutMs, offline_expiry_ms: p.offlineExpiryMs)
}

/// The host's callback and its data, carried into the engine's closures.
private struct HostCallback: @unchecked Sendable {
    let function: inact_callback?
    let userData: UnsafeMutableRawPointer?
    let free: inact_user_data_free?
}

private func cEvent(_ e: SessionEvent) -> inact_event {
    inact_event(size: UInt32(MemoryLayout<inact_event>.size), kind: e.kind.rawValue, state: e.state.rawValue,
                previous_state: e.previousState.rawValue, reason: e.reason.rawValue, required_auth: e.requiredAuth.rawValue,
                remaining_ms: e.remainingMs, time_ms: e.timeMs, now_ms: e.nowMs, engine: e.engine)
}

// MARK: - Policy and configuration

@c @implementation
public func inact_policy_init(_ policy: UnsafeMutablePointer<inact_policy>?) -> Int32 {
    status { () throws(InactivityError) in
        guard let policy else { throw nullPointer("policy") }
        policy.pointee = cPolicy(SessionPolicy())
    }
}

@c @implementation
public func inact_policy_preset(_ policy: UnsafeMutablePointer<inact_policy>?, _ preset: Int32) -> Int32 {
    status { () throws(InactivityError) in
        guard let policy else { throw nullPointer("policy") }
        guard let p = SessionPolicy.Preset(rawValue: preset) else {
            throw InactivityError(.invalidArgument, "preset (\(preset)) must be an inact_preset (0..\(SessionPolicy.Preset.allCases.count - 1))")
        }
        policy.pointee = cPolicy(SessionPolicy(preset: p))
    }
}

@c @implementation
public func inact_policy_validate(_ policy: UnsafePointer<inact_policy>?) -> Int32 {
    status { () throws(InactivityError) in try readPolicy(policy).validate() }
}

@c @implementation
public func inact_ceilings_init(_ ceilings: UnsafeMutablePointer<inact_ceilings>?) -> Int32 {
    status { () throws(InactivityError) in
        guard let ceilings else { throw nullPointer("ceilings") }
        ceilings.pointee = cCeilings(PolicyCeilings())
    }
}

@c @implementation
public func inact_config_init(_ config: UnsafeMutablePointer<inact_config>?) -> Int32 {
    status { () throws(InactivityError) in
        guard let config else { throw nullPointer("config") }
        config.pointee = inact_config(size: UInt32(MemoryLayout<inact_config>.size),
                                      delivery: INACT_DELIVERY_THREAD.rawValue.int32,
                                      clock: INACT_CLOCK_SYSTEM.rawValue.int32, reserved0: 0,
                                      manual_start_ms: 0, manual_wall_ms: ManualClock.defaultWallMs,
                                      manual_boot_id: ManualClock.defaultBootID)
    }
}

@c @implementation
public func inact_info_init(_ info: UnsafeMutablePointer<inact_info>?) -> Int32 {
    status { () throws(InactivityError) in
        guard let info else { throw nullPointer("info") }
        let never = SessionPolicy.never
        info.pointee = inact_info(
            size: UInt32(MemoryLayout<inact_info>.size), state: SessionState.loading.rawValue,
            reason: Reason.none.rawValue, delivery: INACT_DELIVERY_THREAD.rawValue.int32,
            clock: INACT_CLOCK_SYSTEM.rawValue.int32, in_background: 0, visible_windows: 0,
            open_scopes: 0, open_holds: 0, unlock_failures: 0, now_ms: never, remaining_ms: never,
            next_deadline_ms: never, effective_idle_timeout_ms: never, started_at_ms: never,
            last_activity_ms: never, background_since_ms: never, locked_at_ms: never,
            required_auth: 0, needs_server_contact: 0, last_credential_ms: never,
            strong_auth_deadline_ms: never, last_server_contact_ms: never, token_generation: 0,
            interruption_until_ms: never)
    }
}

private extension UInt32 {
    var int32: Int32 { Int32(bitPattern: self) }
}

// MARK: - Lifecycle

private func engineOptions(_ config: UnsafePointer<inact_config>?) throws(InactivityError) -> (InactivityEngine.Delivery, EngineClock) {
    guard let config else { return (.thread, .system) }
    // inact_config has not grown since 1.0: its first size is its current one
    _ = try checkSize(UnsafeRawPointer(config), first: MemoryLayout<inact_config>.size,
                      known: MemoryLayout<inact_config>.size, name: "inact_config")
    let c = config.pointee
    guard let delivery = InactivityEngine.Delivery(rawValue: c.delivery) else {
        throw InactivityError(.invalidArgument, "config.delivery (\(c.delivery)) must be INACT_DELIVERY_THREAD (0) or _HOST (1)")
    }
    guard c.reserved0 == 0 else {
        throw InactivityError(.invalidArgument, "config.reserved0 (\(c.reserved0)) must be 0")
    }
    switch c.clock {
    case INACT_CLOCK_SYSTEM.rawValue.int32:
        return (delivery, .system)
    case INACT_CLOCK_MANUAL.rawValue.int32:
        let manual = try ManualClock(monotonicMs: c.manual_start_ms, wallMs: c.manual_wall_ms, bootID: c.manual_boot_id)
        return (delivery, .manual(manual))
    default:
        throw InactivityError(.invalidArgument, "config.clock (\(c.clock)) must be INACT_CLOCK_SYSTEM (0) or _MANUAL (1)")
    }
}

private func createEngine(_ config: UnsafePointer<inact_config>?, _ policy: UnsafePointer<inact_policy>?,
                          _ host: HostCallback) throws(InactivityError) -> inact_engine {
    let (delivery, clock) = try engineOptions(config)
    let sessionPolicy: SessionPolicy
    if policy == nil {
        sessionPolicy = SessionPolicy()
    } else {
        sessionPolicy = try readPolicy(policy)
    }
    var onEvent: (@Sendable (SessionEvent) -> Void)? = nil
    if host.function != nil {
        onEvent = { event in
            var c = cEvent(event)
            host.function?(&c, host.userData)
        }
    }
    var onClose: (@Sendable () -> Void)? = nil
    if host.free != nil {
        onClose = { host.free?(host.userData) }
    }
    // The engine owns user_data only once creation succeeded (a failed init never calls onClose).
    return try InactivityEngine.createOwnedByHandle(policy: sessionPolicy, clock: clock, delivery: delivery,
                                                    onEvent: onEvent, onClose: onClose)
}

@c @implementation
public func inact_engine_create(_ config: UnsafePointer<inact_config>?, _ policy: UnsafePointer<inact_policy>?,
                                _ callback: inact_callback?, _ userData: UnsafeMutableRawPointer?,
                                _ userDataFree: inact_user_data_free?,
                                _ outEngine: UnsafeMutablePointer<inact_engine>?) -> Int32 {
    status { () throws(InactivityError) in
        guard let outEngine else { throw nullPointer("out_engine") }
        let host = HostCallback(function: callback, userData: userData, free: userDataFree)
        outEngine.pointee = try createEngine(config, policy, host)
    }
}

@c @implementation
public func inact_destroy(_ engine: inact_engine) -> Int32 {
    if engine == 0 { return INACT_OK.rawValue }
    return withEngine(engine) { e in e.close() }
}

// MARK: - Inputs


@c @implementation
public func inact_restore(_ engine: inact_engine, _ bytes: UnsafePointer<UInt8>?, _ length: Int) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        let length = cSize(length)
        guard bytes != nil || length == 0 else { throw nullPointer("bytes") }
        // A snapshot is at most INACT_SNAPSHOT_MAX_SIZE bytes: one byte more is enough for the
        // core to see that a longer one is too long, so no more of the caller's buffer is read.
        let count = Int(min(length, UInt(INACT_SNAPSHOT_MAX_SIZE) + 1))
        let copied = bytes.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        try e.restore(copied, length: UInt64(length))
    }
}

@c @implementation
public func inact_activity(_ engine: inact_engine, _ kind: UInt32) -> Int32 {
    do {
        try InactivityEngine.recordActivity(handle: engine, kind: kind)
        return INACT_OK.rawValue
    } catch {
        inactivity_set_last_error(error.message)
        return error.code.rawValue
    }
}

@c @implementation
public func inact_continue(_ engine: inact_engine) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.continueSession() }
}



@c @implementation
public func inact_unlock_with(_ engine: inact_engine, _ method: Int32) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.unlock(method: authMethod(method)) }
}


@c @implementation
public func inact_unlock_failed_with(_ engine: inact_engine, _ method: Int32, _ outFailures: UnsafeMutablePointer<UInt32>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        let n = try e.unlockFailed(method: authMethod(method))
        outFailures?.pointee = n
    }
}


@c @implementation
public func inact_get_required_auth(_ engine: inact_engine, _ outAuth: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let outAuth else { throw nullPointer("out_auth") }
        outAuth.pointee = try e.requiredAuth().rawValue
    }
}





@c @implementation
public func inact_end(_ engine: inact_engine, _ reason: Int32) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        try e.end(reason: Reason.ending(rawValue: reason))
    }
}

@c @implementation
public func inact_refresh_result(_ engine: inact_engine, _ httpStatus: Int32, _ oauthError: UnsafePointer<CChar>?,
                                 _ outOutcome: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        let error = oauthError.map { String(cString: $0) }
        let outcome = try e.refreshResult(httpStatus: httpStatus, oauthError: error)
        outOutcome?.pointee = outcome.rawValue
    }
}

@c @implementation
public func inact_refresh_result_gen(_ engine: inact_engine, _ httpStatus: Int32, _ oauthError: UnsafePointer<CChar>?,
                                     _ generation: UInt64, _ outOutcome: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        let error = oauthError.map { String(cString: $0) }
        let outcome = try e.refreshResult(httpStatus: httpStatus, oauthError: error, generation: generation)
        outOutcome?.pointee = outcome.rawValue
    }
}

@c @implementation
public func inact_background(_ engine: inact_engine) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.enterBackground() }
}

@c @implementation
public func inact_foreground(_ engine: inact_engine) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.enterForeground() }
}



@c @implementation
public func inact_scope_push(_ engine: inact_engine, _ idleTimeoutMs: Int64, _ outScopeID: UnsafeMutablePointer<UInt64>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let outScopeID else { throw nullPointer("out_scope_id") }
        outScopeID.pointee = try e.pushScope(idleTimeoutMs: idleTimeoutMs)
    }
}

@c @implementation
public func inact_scope_pop(_ engine: inact_engine, _ scopeID: UInt64) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.popScope(scopeID) }
}

@c @implementation
public func inact_hold_acquire(_ engine: inact_engine, _ outHoldID: UnsafeMutablePointer<UInt64>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let outHoldID else { throw nullPointer("out_hold_id") }
        outHoldID.pointee = try e.acquireHold()
    }
}

@c @implementation
public func inact_hold_release(_ engine: inact_engine, _ holdID: UInt64) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.releaseHold(holdID) }
}

@c @implementation
public func inact_set_policy(_ engine: inact_engine, _ policy: UnsafePointer<inact_policy>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.setPolicy(readPolicy(policy)) }
}

@c @implementation
public func inact_set_ceilings(_ engine: inact_engine, _ ceilings: UnsafePointer<inact_ceilings>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.setCeilings(readCeilings(ceilings)) }
}

@c @implementation
public func inact_get_ceilings(_ engine: inact_engine, _ ceilings: UnsafeMutablePointer<inact_ceilings>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let ceilings else { throw nullPointer("ceilings") }
        let size = try checkSize(UnsafeRawPointer(ceilings), first: MemoryLayout<inact_ceilings>.size,
                                 known: MemoryLayout<inact_ceilings>.size, name: "inact_ceilings")
        writeStruct(cCeilings(try e.ceilings()), to: ceilings, size: size)
    }
}

// MARK: - Queries

@c @implementation
public func inact_get_state(_ engine: inact_engine, _ outState: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let outState else { throw nullPointer("out_state") }
        outState.pointee = try e.state().rawValue
    }
}

@c @implementation
public func inact_get_reason(_ engine: inact_engine, _ outReason: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let outReason else { throw nullPointer("out_reason") }
        outReason.pointee = try e.reason().rawValue
    }
}

@c @implementation
public func inact_get_remaining(_ engine: inact_engine, _ outRemainingMs: UnsafeMutablePointer<Int64>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let outRemainingMs else { throw nullPointer("out_remaining_ms") }
        outRemainingMs.pointee = try e.remainingMs()
    }
}

@c @implementation
public func inact_get_info(_ engine: inact_engine, _ info: UnsafeMutablePointer<inact_info>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let info else { throw nullPointer("info") }
        let size = try checkSize(UnsafeRawPointer(info), first: infoSize1_0,
                                 known: MemoryLayout<inact_info>.size, name: "inact_info")
        let i = try e.info()
        writeStruct(inact_info(
            size: UInt32(size), state: i.state.rawValue, reason: i.reason.rawValue, delivery: i.delivery.rawValue,
            clock: i.isManualClock ? INACT_CLOCK_MANUAL.rawValue.int32 : INACT_CLOCK_SYSTEM.rawValue.int32,
            in_background: i.inBackground ? 1 : 0, visible_windows: i.visibleWindows,
            open_scopes: i.openScopes, open_holds: i.openHolds, unlock_failures: i.unlockFailures,
            now_ms: i.nowMs, remaining_ms: i.remainingMs, next_deadline_ms: i.nextDeadlineMs,
            effective_idle_timeout_ms: i.effectiveIdleTimeoutMs, started_at_ms: i.startedAtMs,
            last_activity_ms: i.lastActivityMs, background_since_ms: i.backgroundSinceMs,
            locked_at_ms: i.lockedAtMs, required_auth: i.requiredAuth.rawValue,
            needs_server_contact: i.needsServerContact ? 1 : 0, last_credential_ms: i.lastCredentialMs,
            strong_auth_deadline_ms: i.strongAuthDeadlineMs, last_server_contact_ms: i.lastServerContactMs,
            token_generation: i.tokenGeneration, interruption_until_ms: i.interruptionUntilMs),
            to: info, size: size)
    }
}

@c @implementation
public func inact_get_policy(_ engine: inact_engine, _ policy: UnsafeMutablePointer<inact_policy>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let policy else { throw nullPointer("policy") }
        let size = try checkSize(UnsafeRawPointer(policy), first: policySize1_0,
                                 known: MemoryLayout<inact_policy>.size, name: "inact_policy")
        writeStruct(cPolicy(try e.policy()), to: policy, size: size)
    }
}

// MARK: - Host mode

@c @implementation
public func inact_next_deadline(_ engine: inact_engine, _ outDelayMs: UnsafeMutablePointer<Int64>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let outDelayMs else { throw nullPointer("out_delay_ms") }
        outDelayMs.pointee = try e.nextDeadlineDelayMs() ?? SessionPolicy.never
    }
}


// MARK: - Manual clock

@c @implementation
public func inact_clock_advance(_ engine: inact_engine, _ ms: Int64) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.advanceClock(byMs: ms) }
}

@c @implementation
public func inact_clock_freeze(_ engine: inact_engine, _ ms: Int64) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.freezeClock(forMs: ms) }
}

@c @implementation
public func inact_clock_jump_wall(_ engine: inact_engine, _ deltaMs: Int64) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.jumpWallClock(byMs: deltaMs) }
}

@c @implementation
public func inact_clock_reboot(_ engine: inact_engine, _ downtimeMs: Int64) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in try e.simulateReboot(downtimeMs: downtimeMs) }
}

@c @implementation
public func inact_clock_now(_ engine: inact_engine, _ outMonotonicMs: UnsafeMutablePointer<Int64>?,
                            _ outWallMs: UnsafeMutablePointer<Int64>?, _ outBootID: UnsafeMutablePointer<UInt64>?) -> Int32 {
    withEngine(engine) { e in
        let now = e.clockNow()
        outMonotonicMs?.pointee = now.monotonicMs
        outWallMs?.pointee = now.wallMs
        outBootID?.pointee = now.bootID
    }
}

@c @implementation
public func inact_scheduler_faults(_ outDegraded: UnsafeMutablePointer<Int32>?, _ outFailures: UnsafeMutablePointer<UInt64>?,
                                   _ outLastErrno: UnsafeMutablePointer<Int32>?) -> Int32 {
    let faults = InactivityEngine.schedulerTimerFaults
    outDegraded?.pointee = faults.degraded ? 1 : 0
    outFailures?.pointee = faults.failures
    outLastErrno?.pointee = faults.lastErrno
    return INACT_OK.rawValue
}

// MARK: - Snapshot

@c @implementation
public func inact_snapshot_size(_ engine: inact_engine, _ outSize: UnsafeMutablePointer<Int>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let outSize else { throw nullPointer("out_size") }
        outSize.pointee = try e.snapshot().count
    }
}

@c @implementation
public func inact_snapshot_write(_ engine: inact_engine, _ buffer: UnsafeMutablePointer<UInt8>?, _ capacity: Int,
                                 _ outWritten: UnsafeMutablePointer<Int>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let buffer else { throw nullPointer("buffer") }
        guard let outWritten else { throw nullPointer("out_written") }
        let bytes = try e.snapshot()
        let capacity = cSize(capacity)
        guard capacity >= UInt(bytes.count) else {
            throw InactivityError(.bufferTooSmall, "capacity (\(capacity)) must be at least the snapshot size (\(bytes.count))")
        }
        buffer.update(from: bytes, count: bytes.count)
        outWritten.pointee = bytes.count
    }
}
