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
        return failed(error)
    }
}

/// The error path of every entry point, out of line: the message's conversion to a C string and
/// its release were copied into each of the ~60 functions (about 9 KB of the wasm module).
@inline(never)
private func failed(_ error: InactivityError) -> Int32 {
    error.text.withCString { inactivity_set_last_error($0, error.errorNumber) }
    return error.code.rawValue
}

/// "80, 120, 128": a list of sizes for a message.
private func list(_ values: [Int]) -> ErrorText {
    var text: ErrorText = ""
    for (i, v) in values.enumerated() { text = i == 0 ? "\(v)" : "\(text), \(v)" }
    return text
}

/// Whether a refresh's OAuth error is exactly `invalid_grant`: a byte comparison of the C
/// string (RFC 6749 error codes are ASCII tokens), with no String made of it.
private func isInvalidGrant(_ error: UnsafePointer<CChar>?) -> Bool {
    guard let error else { return false }
    let token: StaticString = "invalid_grant"
    let bytes = UnsafeRawPointer(error).assumingMemoryBound(to: UInt8.self)
    for i in 0..<token.utf8CodeUnitCount where bytes[i] != token.utf8Start[i] { return false }
    return bytes[token.utf8CodeUnitCount] == 0
}

/// A C `size_t` as it is: Swift imports `size_t` as `Int`, so SIZE_MAX and every length of
/// 2^63 or more arrive negative. Every size parameter goes through this before any use.
@inline(__always)
private func cSize(_ value: Int) -> UInt { UInt(bitPattern: value) }

func nullPointer(_ name: StaticString) -> InactivityError {
    InactivityError(.nullPointer, "\(name) must not be NULL")
}

/// Runs `body` with the live engine named by `handle`. A call refused here (a NULL pointer, a
/// bad struct or enum) first lets the engine deliver what is due, as every entry point does.
@inline(__always)
func withEngine(_ handle: inact_engine, _ body: (InactivityEngine) throws(InactivityError) -> Void) -> Int32 {
    status { () throws(InactivityError) in
        let engine = try InactivityEngine.find(handle: handle)
        do throws(InactivityError) { try body(engine) } catch { throw refused(error, by: engine) }
    }
}

/// A refusal inside `withEngine`, out of line for the reason `failed` is.
@inline(never)
private func refused(_ error: InactivityError, by engine: InactivityEngine) -> InactivityError {
    error.code == .invalidHandle ? error : engine.refusing(error)
}

/// The published layouts of each caller struct, oldest first, this version's last. A layout is
/// never removed or changed once released: a caller built against that header has exactly that
/// many bytes (include/inactivity.h, the struct-size convention). Growing a struct adds its
/// new size here (CONTRIBUTING.md); `layouts` adds this build's size if it was forgotten, so
/// the library never reads its own layout as an older one.
private let policyLayouts = layouts([80, 120, 128], of: inact_policy.self)     // 1.0, 1.1, 1.3
private let infoLayouts = layouts([104, 152], of: inact_info.self)        // 1.0, 1.1
private let configLayouts = layouts([40], of: inact_config.self)          // 1.0
private let ceilingsLayouts = layouts([80], of: inact_ceilings.self)      // 1.1
private let decisionLayouts = layouts([72], of: inact_decision.self)      // 1.3

/// What the plain exported init symbols fill, for ever: the layout of the release that added
/// each one. Never this version's size (that grows): a program that reaches the plain symbol
/// was built against that release's header, or calls it by name knowing that layout.
private let policyInitSize: UInt = 80      // inact_policy_init, inact_policy_preset: 1.0
private let configInitSize: UInt = 40      // inact_config_init: 1.0
private let ceilingsInitSize: UInt = 80    // inact_ceilings_init: 1.1
private let infoInitSize: UInt = 152       // inact_info_init: 1.1
private let decisionInitSize: UInt = 72    // inact_decision_init: 1.3

/// A caller's struct size as this library reads it: `size` bytes are the caller's, `layout`
/// (the largest published layout not above `size`) are the fields; the bytes between are the
/// tail, which must be zero.
private struct StructSize {
    let size: Int
    let layout: Int
}

/// `table`, ending with this build's size of `T`. (test_compat.c pins the sizes: a struct that
/// grows fails it until the tables and the header's list name the new size.)
private func layouts<T>(_ table: [Int], of _: T.Type) -> [Int] {
    table.last == MemoryLayout<T>.size ? table : table + [MemoryLayout<T>.size]
}

/// Checks a caller's struct size (the struct's own `size` field, or a _sized function's
/// argument): from the first layout to 65536. Between two layouts it is the older layout
/// with a tail, exactly as the library of that layout read it (1.0 accepted any larger size
/// with a zero tail), so no field that straddles the size is read or written.
/// `subject` names the size in messages: the struct's field, or a _sized function's argument.
private func structSize(_ declared: UInt, layouts: [Int], name: StaticString,
                        subject: StaticString? = nil) throws(InactivityError) -> StructSize {
    // Named only on a refusal: the message is built on the error path, never per call.
    func subjectText() -> ErrorText { subject.map { "\($0)" } ?? "\(name)->size" }
    // The upper bound first, on the unsigned value: Int(declared) traps above 2^31 on 32-bit CPUs.
    guard declared <= 65_536 else {
        throw InactivityError(.structSize, "\(subjectText()) (\(declared)) is implausibly large (at most 65536)")
    }
    let size = Int(declared)
    guard let layout = layouts.last(where: { $0 <= size }) else {
        let rule: ErrorText = layouts.count == 1 ? "at least sizeof(\(name)) (\(layouts[0]))"
            : "at least \(layouts[0]) (the 1.0 layout; sizeof(\(name)) is \(layouts[layouts.count - 1]))"
        throw InactivityError(.structSize, "\(subjectText()) (\(size)) must be \(rule) for this library")
    }
    return StructSize(size: size, layout: layout)
}

/// Checks the caller's own size field and its zero tail, reading nothing beyond `size`.
private func checkSize(_ pointer: UnsafeRawPointer, layouts: [Int], name: StaticString) throws(InactivityError) -> StructSize {
    let s = try structSize(UInt(pointer.load(as: UInt32.self)), layouts: layouts, name: name)
    for offset in s.layout..<s.size where pointer.load(fromByteOffset: offset, as: UInt8.self) != 0 {
        let known = layouts[layouts.count - 1]
        let why: ErrorText = s.layout == known ? "is larger than this library's \(known) bytes"
            : "is read as the \(s.layout)-byte layout (published sizes: \(list(layouts)))"
        throw InactivityError(.structSize,
                              "\(name)->size (\(s.size)) \(why) and byte \(offset) is not zero: the caller uses fields this library does not know")
    }
    return s
}

/// An input struct as this version sees it: the caller's first `layout` bytes over `defaults`
/// (what the init function fills), so the fields an older caller does not have take defaults.
private func readStruct<T>(_ pointer: UnsafePointer<T>, _ s: StructSize, defaults: T) -> T {
    var value = defaults
    withUnsafeMutableBytes(of: &value) { dst in
        dst.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(pointer), count: min(s.layout, dst.count)))
    }
    return value
}

/// Writes an output struct's fields up to its layout only (an older caller's struct is
/// shorter; a tail stays as it is, zero), keeping the caller's size field as given.
private func writeStruct<T>(_ value: T, to pointer: UnsafeMutablePointer<T>, _ s: StructSize) {
    let raw = UnsafeMutableRawPointer(pointer)
    withUnsafeBytes(of: value) { src in
        let count = min(s.layout, src.count)
        (raw + 4).copyMemory(from: src.baseAddress! + 4, byteCount: count - 4)
    }
}

/// What an init function does for a struct of `size` bytes: its layout filled with `value`,
/// the tail zeroed, `size` stored. Nothing is written when the size is refused.
private func initStruct<T>(_ pointer: UnsafeMutablePointer<T>?, size: UInt, layouts: [Int], name: StaticString,
                           type: StaticString, _ value: T) throws(InactivityError) {
    guard let pointer else { throw nullPointer(name) }
    let s = try structSize(size, layouts: layouts, name: type, subject: "size")
    fill(pointer, s, value)
}

private func fill<T>(_ pointer: UnsafeMutablePointer<T>, _ s: StructSize, _ value: T) {
    let raw = UnsafeMutableRawPointer(pointer)
    withUnsafeBytes(of: value) { src in
        raw.copyMemory(from: src.baseAddress!, byteCount: min(s.layout, src.count))
    }
    (raw + s.layout).initializeMemory(as: UInt8.self, repeating: 0, count: s.size - s.layout)
    raw.storeBytes(of: UInt32(s.size), as: UInt32.self)
}

private func flag(_ value: Int32, _ name: StaticString) throws(InactivityError) -> Bool {
    guard value == 0 || value == 1 else {
        throw InactivityError(.invalidArgument, "policy.\(name) (\(value)) must be 0 or 1")
    }
    return value == 1
}

private func readPolicy(_ pointer: UnsafePointer<inact_policy>?) throws(InactivityError) -> SessionPolicy {
    guard let pointer else { throw nullPointer("policy") }
    let size = try checkSize(UnsafeRawPointer(pointer), layouts: policyLayouts, name: "inact_policy")
    let c = readStruct(pointer, size, defaults: cPolicy(SessionPolicy()))
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
    p.keepaliveIntervalMs = c.keepalive_interval_ms
    return p   // validated once, by the engine (or inact_policy_validate)
}

private func readCeilings(_ pointer: UnsafePointer<inact_ceilings>?) throws(InactivityError) -> PolicyCeilings {
    guard let pointer else { throw nullPointer("ceilings") }
    let size = try checkSize(UnsafeRawPointer(pointer), layouts: ceilingsLayouts, name: "inact_ceilings")
    let c = readStruct(pointer, size, defaults: cCeilings(PolicyCeilings()))
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
    for (name, value) in [("lock_on_device_lock" as StaticString, c.lock_on_device_lock), ("lock_on_restart", c.lock_on_restart)]
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
        offline_timeout_ms: p.offlineTimeoutMs, offline_expiry_ms: p.offlineExpiryMs,
        keepalive_interval_ms: p.keepaliveIntervalMs)
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
    status { () throws(InactivityError) in try initPolicy(policy, size: policyInitSize, preset: nil) }
}

@c @implementation
public func inact_policy_init_sized(_ policy: UnsafeMutablePointer<inact_policy>?, _ size: Int) -> Int32 {
    status { () throws(InactivityError) in try initPolicy(policy, size: cSize(size), preset: nil) }
}

@c @implementation
public func inact_policy_preset(_ policy: UnsafeMutablePointer<inact_policy>?, _ preset: Int32) -> Int32 {
    status { () throws(InactivityError) in try initPolicy(policy, size: policyInitSize, preset: preset) }
}

@c @implementation
public func inact_policy_preset_sized(_ policy: UnsafeMutablePointer<inact_policy>?, _ size: Int, _ preset: Int32) -> Int32 {
    status { () throws(InactivityError) in try initPolicy(policy, size: cSize(size), preset: preset) }
}

/// The defaults (preset nil) or a preset into a policy of `size` bytes. A preset is refused
/// when it sets a field beyond the caller's layout: that layout reads those fields as the
/// defaults, so the caller would get a laxer policy than the preset's name says.
private func initPolicy(_ policy: UnsafeMutablePointer<inact_policy>?, size: UInt, preset: Int32?) throws(InactivityError) {
    guard let policy else { throw nullPointer("policy") }
    var value = SessionPolicy()
    if let preset {
        guard let p = SessionPolicy.Preset(rawValue: preset) else {
            throw InactivityError(.invalidArgument, "preset (\(preset)) must be an inact_preset (0..\(SessionPolicy.Preset.allCases.count - 1))")
        }
        value = SessionPolicy(preset: p)
    }
    let s = try structSize(size, layouts: policyLayouts, name: "inact_policy", subject: "size")
    let c = cPolicy(value)
    let known = MemoryLayout<inact_policy>.size
    if s.layout < known, let preset {
        let defaults = cPolicy(SessionPolicy())
        // The smallest published layout beyond which the preset leaves every field at its default.
        let needed = withUnsafeBytes(of: c) { a in
            withUnsafeBytes(of: defaults) { b in
                policyLayouts.first { l in !(l..<known).contains { a[$0] != b[$0] } } ?? known
            }
        }
        if needed > s.layout {
            throw InactivityError(.structSize,
                                  "preset (\(preset)) sets fields beyond the \(s.layout)-byte layout of inact_policy (size \(s.size)): it needs a struct of at least \(needed) bytes (sizeof(inact_policy) is \(known))")
        }
    }
    fill(policy, s, c)
}

@c @implementation
public func inact_policy_validate(_ policy: UnsafePointer<inact_policy>?) -> Int32 {
    status { () throws(InactivityError) in try readPolicy(policy).validate() }
}

@c @implementation
public func inact_ceilings_init(_ ceilings: UnsafeMutablePointer<inact_ceilings>?) -> Int32 {
    status { () throws(InactivityError) in
        try initStruct(ceilings, size: ceilingsInitSize, layouts: ceilingsLayouts, name: "ceilings", type: "inact_ceilings", cCeilings(PolicyCeilings()))
    }
}

@c @implementation
public func inact_ceilings_init_sized(_ ceilings: UnsafeMutablePointer<inact_ceilings>?, _ size: Int) -> Int32 {
    status { () throws(InactivityError) in
        try initStruct(ceilings, size: cSize(size), layouts: ceilingsLayouts, name: "ceilings", type: "inact_ceilings", cCeilings(PolicyCeilings()))
    }
}

private func cConfigDefaults() -> inact_config {
    inact_config(size: UInt32(MemoryLayout<inact_config>.size),
                 delivery: INACT_DELIVERY_THREAD.rawValue.int32,
                 clock: INACT_CLOCK_SYSTEM.rawValue.int32, reserved0: 0,
                 manual_start_ms: 0, manual_wall_ms: ManualClock.defaultWallMs,
                 manual_boot_id: ManualClock.defaultBootID)
}

@c @implementation
public func inact_config_init(_ config: UnsafeMutablePointer<inact_config>?) -> Int32 {
    status { () throws(InactivityError) in
        try initStruct(config, size: configInitSize, layouts: configLayouts, name: "config", type: "inact_config", cConfigDefaults())
    }
}

@c @implementation
public func inact_config_init_sized(_ config: UnsafeMutablePointer<inact_config>?, _ size: Int) -> Int32 {
    status { () throws(InactivityError) in
        try initStruct(config, size: cSize(size), layouts: configLayouts, name: "config", type: "inact_config", cConfigDefaults())
    }
}

private func cInfoDefaults() -> inact_info {
    let never = SessionPolicy.never
    return inact_info(
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

@c @implementation
public func inact_info_init(_ info: UnsafeMutablePointer<inact_info>?) -> Int32 {
    status { () throws(InactivityError) in
        try initStruct(info, size: infoInitSize, layouts: infoLayouts, name: "info", type: "inact_info", cInfoDefaults())
    }
}

@c @implementation
public func inact_info_init_sized(_ info: UnsafeMutablePointer<inact_info>?, _ size: Int) -> Int32 {
    status { () throws(InactivityError) in
        try initStruct(info, size: cSize(size), layouts: infoLayouts, name: "info", type: "inact_info", cInfoDefaults())
    }
}

private extension UInt32 {
    var int32: Int32 { Int32(bitPattern: self) }
}

// MARK: - Lifecycle

private func engineOptions(_ config: UnsafePointer<inact_config>?) throws(InactivityError) -> (InactivityEngine.Delivery, EngineClock) {
    guard let config else { return (.thread, .system) }
    let size = try checkSize(UnsafeRawPointer(config), layouts: configLayouts, name: "inact_config")
    let c = readStruct(config, size, defaults: cConfigDefaults())
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
        // The longest snapshot a restore reads is format 2's (104 bytes, more than the 96 of
        // INACT_SNAPSHOT_MAX_SIZE that every snapshot written now fits): one byte more is enough
        // for the core to see that a longer one is too long, so no more of the caller's buffer
        // is read.
        let count = Int(min(length, UInt(Snapshot.longestReadable) + 1))
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
        error.text.withCString { inactivity_set_last_error($0, error.errorNumber) }
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
        let outcome = try e.refreshResult(httpStatus: httpStatus, invalidGrant: isInvalidGrant(oauthError))
        outOutcome?.pointee = outcome.rawValue
    }
}

@c @implementation
public func inact_refresh_result_gen(_ engine: inact_engine, _ httpStatus: Int32, _ oauthError: UnsafePointer<CChar>?,
                                     _ generation: UInt64, _ outOutcome: UnsafeMutablePointer<Int32>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        let outcome = try e.refreshResult(httpStatus: httpStatus, invalidGrant: isInvalidGrant(oauthError), generation: generation)
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
        let size = try checkSize(UnsafeRawPointer(ceilings), layouts: ceilingsLayouts, name: "inact_ceilings")
        writeStruct(cCeilings(try e.ceilings()), to: ceilings, size)
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
        let size = try checkSize(UnsafeRawPointer(info), layouts: infoLayouts, name: "inact_info")
        let i = try e.info()
        writeStruct(inact_info(
            size: UInt32(size.size), state: i.state.rawValue, reason: i.reason.rawValue, delivery: i.delivery.rawValue,
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
            to: info, size)
    }
}

@c @implementation
public func inact_get_policy(_ engine: inact_engine, _ policy: UnsafeMutablePointer<inact_policy>?) -> Int32 {
    withEngine(engine) { e throws(InactivityError) in
        guard let policy else { throw nullPointer("policy") }
        let size = try checkSize(UnsafeRawPointer(policy), layouts: policyLayouts, name: "inact_policy")
        writeStruct(cPolicy(try e.policy()), to: policy, size)
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

// MARK: - Server

private func cDecisionDefaults() -> inact_decision {
    let never = SessionPolicy.never
    return inact_decision(
        size: UInt32(MemoryLayout<inact_decision>.size), state: SessionState.loading.rawValue, reason: Reason.none.rawValue,
        required_auth: 0, write: 0, unlock_failures: 0, now_ms: never, remaining_ms: never, idle_deadline_ms: never,
        absolute_deadline_ms: never, started_at_ms: never, last_activity_ms: never)
}

@c @implementation
public func inact_decision_init(_ decision: UnsafeMutablePointer<inact_decision>?) -> Int32 {
    status { () throws(InactivityError) in
        try initStruct(decision, size: decisionInitSize, layouts: decisionLayouts, name: "decision", type: "inact_decision", cDecisionDefaults())
    }
}

@c @implementation
public func inact_decision_init_sized(_ decision: UnsafeMutablePointer<inact_decision>?, _ size: Int) -> Int32 {
    status { () throws(InactivityError) in
        try initStruct(decision, size: cSize(size), layouts: decisionLayouts, name: "decision", type: "inact_decision", cDecisionDefaults())
    }
}

@c @implementation
public func inact_server_decide(_ policy: UnsafePointer<inact_policy>?, _ record: UnsafePointer<UInt8>?, _ length: Int,
                                _ nowMs: Int64, _ input: Int32, _ arg: Int64, _ precisionMs: Int64,
                                _ decision: UnsafeMutablePointer<inact_decision>?, _ outRecord: UnsafeMutablePointer<UInt8>?,
                                _ capacity: Int, _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    status { () throws(InactivityError) in
        let p = try readPolicy(policy)
        try serverDecide(record, length, input, decision, outRecord, capacity, outLength) { (r, l, out) throws(InactivityError) in
            try ServerRecord.decide(policy: p, record: r, length: l, nowMs: nowMs, input: input, arg: arg,
                                    precisionMs: precisionMs, into: out)
        }
    }
}

@c @implementation
public func inact_server_policy_prepare(_ policy: UnsafePointer<inact_policy>?, _ prepared: UnsafeMutableRawPointer?,
                                        _ capacity: Int) -> Int32 {
    status { () throws(InactivityError) in
        let p = try readPolicy(policy)
        guard let prepared else { throw nullPointer("prepared") }
        let capacity = cSize(capacity)
        guard capacity >= UInt(PreparedPolicy.size) else {
            throw InactivityError(.invalidArgument,
                                  "prepared is too small: capacity (\(capacity)) must be at least INACT_SERVER_POLICY_SIZE (\(PreparedPolicy.size))")
        }
        try PreparedPolicy.prepare(p, into: prepared)
    }
}

@c @implementation
public func inact_server_decide_prepared(_ prepared: UnsafeRawPointer?, _ record: UnsafePointer<UInt8>?, _ length: Int,
                                         _ nowMs: Int64, _ input: Int32, _ arg: Int64, _ precisionMs: Int64,
                                         _ decision: UnsafeMutablePointer<inact_decision>?,
                                         _ outRecord: UnsafeMutablePointer<UInt8>?, _ capacity: Int,
                                         _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    status { () throws(InactivityError) in
        guard let prepared else { throw nullPointer("prepared") }
        try serverDecide(record, length, input, decision, outRecord, capacity, outLength) { (r, l, out) throws(InactivityError) in
            try ServerRecord.decide(prepared: prepared, record: r, length: l, nowMs: nowMs, input: input, arg: arg,
                                    precisionMs: precisionMs, into: out)
        }
    }
}

/// What both forms of the decision check and write besides the policy: the out-pointers and
/// sizes first, then `decide` (the core's, with the policy) over the record where it lies,
/// writing the record to store straight into `out_record`.
@inline(__always)
private func serverDecide(_ record: UnsafePointer<UInt8>?, _ length: Int, _ input: Int32,
                          _ decision: UnsafeMutablePointer<inact_decision>?, _ outRecord: UnsafeMutablePointer<UInt8>?,
                          _ capacity: Int, _ outLength: UnsafeMutablePointer<Int>?,
                          _ decide: (UnsafeRawBufferPointer?, UInt64, UnsafeMutableRawPointer) throws(InactivityError)
                              -> (ServerDecision, written: Bool)) throws(InactivityError) {
    guard let decision else { throw nullPointer("decision") }
    guard let outRecord else { throw nullPointer("out_record") }
    guard let outLength else { throw nullPointer("out_length") }
    let size = try checkSize(UnsafeRawPointer(decision), layouts: decisionLayouts, name: "inact_decision")
    let capacity = cSize(capacity)
    guard capacity >= UInt(Snapshot.byteCount) else {
        throw InactivityError(.bufferTooSmall, "capacity (\(capacity)) must be at least INACT_SNAPSHOT_MAX_SIZE (\(Snapshot.byteCount))")
    }
    // As inact_restore: one byte more than the longest format read shows a longer record is
    // too long, and no more of the caller's buffer is read. SIGN_IN ignores the record.
    let length = cSize(length)
    let bytes = input == ServerInput.signIn.rawValue ? nil : record.map {
        UnsafeRawBufferPointer(start: $0, count: Int(min(length, UInt(Snapshot.longestReadable) + 1)))
    }
    let (d, written) = try decide(bytes, UInt64(length), UnsafeMutableRawPointer(outRecord))
    writeStruct(inact_decision(
        size: UInt32(size.size), state: d.state.rawValue, reason: d.reason.rawValue, required_auth: d.requiredAuth.rawValue,
        write: written ? 1 : 0, unlock_failures: d.unlockFailures, now_ms: d.nowMs, remaining_ms: d.remainingMs,
        idle_deadline_ms: d.idleDeadlineMs, absolute_deadline_ms: d.absoluteDeadlineMs, started_at_ms: d.startedAtMs,
        last_activity_ms: d.lastActivityMs), to: decision, size)
    outLength.pointee = written ? Snapshot.byteCount : 0
}
