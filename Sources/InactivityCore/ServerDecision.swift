// A server's decision over a stored session record, at a given instant (docs/design.md, "The
// server"): one pure function of (policy, record, now, input), with no engine, no registry, no
// lock and no thread. The record is put into a SessionMachine value, the machine catches up to
// the instant, takes the input through its own methods (so the transition and deadline tables
// decide, as on a device), and is written back as a record when it changed.
//
// The record is the snapshot format (Snapshot.swift, version 3, 96 bytes) on the fleet's wall
// clock: every time in it is milliseconds since 1970 on the clocks of the servers that wrote it,
// the boot id is `ServerRecord.fleetClock` (so a device snapshot is never taken for a record, nor
// a record for a device snapshot: restored into an engine it is another boot, LOCKED at least),
// the monotonic and wall slots both hold the record's own instant (the instant of its last
// write), and there is never a background. The slots a server does not use keep what a snapshot
// keeps there (the last server contact reads as the session start).
//
// Time on a server:
// - No background: the time between two requests is the user's idle time, not background; no
//   background, window, device-lock or offline deadline runs (a server is the server contact).
// - The instant decided at is the later of the caller's `now` and the record's own instant: a
//   server whose clock is behind a record judges it at the record's time, so it never undoes a
//   lock or an expiry another server wrote, never moves a stamp back and never sees more time
//   left than the record's own instant shows. A server ahead by e decides at most e later, so
//   every deadline it applies falls at most e early (stricter by e at most), and its record then
//   carries its instant: the fleet judges that record no earlier.
// - Coalescing: counted activity moves the stored last activity only when it is at least
//   `precisionMs` newer, so a request within the precision of the last stored one writes
//   nothing; the stored value lags the truth by less than the precision, which makes every idle
//   deadline earlier (stricter), never later.

/// What a server is deciding on (include/inactivity.h, inact_server_input).
public enum ServerInput: Int32, Sendable, CaseIterable {
    /// A new session starts at now; the record is ignored.
    case signIn = 1
    /// A request of the user's: counted activity.
    case request = 2
    /// Machine traffic or a status read: decided, never extends.
    case machine = 3
    /// Another holder (a keepalive) saw the user's activity `arg` ms ago.
    case holderActivity = 4
    /// A holder locked the session: `arg` is its LOCKED reason.
    case lock = 5
    /// The session ends: `arg` is an EXPIRED reason.
    case end = 6
    /// A credential the server itself verified.
    case unlock = 7
    /// A credential the server refused.
    case unlockFailed = 8
}

/// The outcome of `ServerRecord.decide`. Times are the fleet's wall clock; `SessionPolicy.never`
/// where there is none.
public struct ServerDecision: Sendable, Equatable {
    public var state: SessionState
    public var reason: Reason
    /// What an unlock needs (`.none` unless LOCKED).
    public var requiredAuth: AuthStrength
    public var unlockFailures: UInt32
    /// The instant decided at: the later of the caller's now and the record's instant.
    public var nowMs: Int64
    /// To the next lock or expiry.
    public var remainingMs: Int64
    /// The idle action's instant (ACTIVE and WARNING).
    public var idleDeadlineMs: Int64
    /// The absolute expiry's instant (ACTIVE, WARNING and LOCKED).
    public var absoluteDeadlineMs: Int64
    public var startedAtMs: Int64
    /// The stored (coalesced) last activity, while the session runs (ACTIVE, WARNING): a record
    /// keeps none in LOCKED and EXPIRED (format 3's slot holds the locked-at time there).
    public var lastActivityMs: Int64
    /// The record to store when it changed (then it must be stored); nil when nothing changed.
    public var record: [UInt8]?
}

/// A session record on the fleet's wall clock, and the decision over it.
public enum ServerRecord {
    /// The boot id of every record: "INACTSRV" as little-endian bytes. A device's boot id is the
    /// FNV-1a hash of its boot's id text (Clock.swift), so the two meet only by a 2^-64 chance.
    public static let fleetClock: UInt64 = 0x5652_5354_4341_4E49
    /// The latest instant accepted as now: 1000 years after 1970, as the manual clock's range.
    public static let maxNowMs: Int64 = 10 * SessionPolicy.maxFiniteMs

    /// Decides `input` over `record` (nil only for `.signIn`) at `nowMs` under `policy`.
    /// Arguments are checked first, each error naming the argument and the rule, and nothing is
    /// decided then. A corrupt record, or one that is not a server record, is decided EXPIRED
    /// (RESTORE_FAILED) with that record to store: a session that cannot be trusted needs a
    /// sign-in. An input the state refuses (an unlock of a session that is not LOCKED) or makes
    /// a no-op (a lock of a LOCKED one) changes nothing: the decision is the state at the instant.
    public static func decide(policy: SessionPolicy, record: [UInt8]?, length: UInt64? = nil, nowMs: Int64,
                              input rawInput: Int32, arg: Int64, precisionMs: Int64) throws(InactivityError) -> ServerDecision {
        try policy.validate()
        var out = [UInt8](repeating: 0, count: Snapshot.byteCount)
        // withUnsafe(Mutable)Bytes rethrow untyped: the error comes out as a Result.
        let outcome = out.withUnsafeMutableBytes { o in
            Result { () throws(InactivityError) -> (ServerDecision, written: Bool) in
                guard let record else {
                    return try decide(validated: policy, record: nil, length: length, nowMs: nowMs, input: rawInput,
                                      arg: arg, precisionMs: precisionMs, into: o.baseAddress!)
                }
                return try record.withUnsafeBytes { r in
                    Result { () throws(InactivityError) -> (ServerDecision, written: Bool) in
                        try decide(validated: policy, record: r, length: length, nowMs: nowMs, input: rawInput, arg: arg,
                                   precisionMs: precisionMs, into: o.baseAddress!)
                    }
                }.get()
            }
        }
        let (d, written) = try outcome.get()
        var result = d
        result.record = written ? out : nil
        return result
    }

    /// `decide` under a policy prepared once (`PreparedPolicy`): the block is checked (its magic,
    /// layout and check word), not the policy in it, which was validated when it was prepared.
    /// The decision is the one `decide` gives under that policy, by the same code from here on.
    /// `record` is read where it is and the record to store written into `out`
    /// (`Snapshot.byteCount` bytes) when the decision says so (the Bool); `record` in the result
    /// is nil.
    public static func decide(prepared block: UnsafeRawPointer, record: UnsafeRawBufferPointer?, length: UInt64? = nil,
                              nowMs: Int64, input rawInput: Int32, arg: Int64, precisionMs: Int64,
                              into out: UnsafeMutableRawPointer) throws(InactivityError) -> (ServerDecision, written: Bool) {
        let policy = try PreparedPolicy.read(block)
        return try decide(validated: policy, record: record, length: length, nowMs: nowMs, input: rawInput, arg: arg,
                          precisionMs: precisionMs, into: out)
    }

    /// `decide` with the record read and written in place, as the prepared form; `policy` is
    /// validated first.
    public static func decide(policy: SessionPolicy, record: UnsafeRawBufferPointer?, length: UInt64? = nil,
                              nowMs: Int64, input rawInput: Int32, arg: Int64, precisionMs: Int64,
                              into out: UnsafeMutableRawPointer) throws(InactivityError) -> (ServerDecision, written: Bool) {
        try policy.validate()
        return try decide(validated: policy, record: record, length: length, nowMs: nowMs, input: rawInput, arg: arg,
                          precisionMs: precisionMs, into: out)
    }

    /// The one decision every form above makes, under a policy already validated.
    private static func decide(validated policy: SessionPolicy, record: UnsafeRawBufferPointer?, length: UInt64?,
                               nowMs: Int64, input rawInput: Int32, arg: Int64, precisionMs: Int64,
                               into out: UnsafeMutableRawPointer) throws(InactivityError) -> (ServerDecision, written: Bool) {
        guard let input = ServerInput(rawValue: rawInput) else {
            throw InactivityError(.invalidArgument, "input (\(rawInput)) must be an inact_server_input (1..8)")
        }
        guard nowMs >= 0 && nowMs <= maxNowMs else {
            throw InactivityError(.invalidArgument, "now_ms (\(nowMs)) must be >= 0 (ms since 1970 on the fleet's clock) and at most 1000 years")
        }
        try checkPrecision(precisionMs, policy)
        let named = try checkArg(arg, of: input)
        guard input == .signIn || record != nil else {
            throw InactivityError(.nullPointer, "record must not be NULL (only INACT_SERVER_SIGN_IN ignores it)")
        }
        var machine = SessionMachine(unsharedPolicy: policy, now: nowMs)
        if input == .signIn {
            try machine.start(now: nowMs)
            return decision(machine, at: nowMs, stored: nil, into: out)
        }
        let stored: Snapshot
        do throws(InactivityError) {
            stored = try read(record!, length: length)
        } catch {
            machine.failRestore(at: nowMs)
            return decision(machine, at: nowMs, stored: nil, into: out)
        }
        let now = max(nowMs, stored.monotonicMs)
        try machine.restoreServerRecord(stored, now: now)
        try machine.apply(input, named: named, arg: arg, now: now, precisionMs: precisionMs)
        return decision(machine, at: now, stored: stored, into: out)
    }

    /// Decodes a record: a valid snapshot on the fleet's clock, without a background.
    static func read(_ bytes: UnsafeRawBufferPointer, length: UInt64?) throws(InactivityError) -> Snapshot {
        let s = try Snapshot.decode(bytes, length: length)
        guard s.bootID == fleetClock, s.monotonicMs == s.wallMs, s.backgroundSince == nil else {
            throw InactivityError(.snapshotInvalid, "record is not a server record (a device's snapshot, or another clock)")
        }
        return s
    }

    /// The precision: from 0 to below the time an idle session has before the warning (or the
    /// idle action), so that a user active within it is never warned for the lag alone.
    static func checkPrecision(_ precisionMs: Int64, _ policy: SessionPolicy) throws(InactivityError) {
        let window = policy.idleTimeoutMs == SessionPolicy.never ? SessionPolicy.maxFiniteMs + 1 : policy.idleTimeoutMs - policy.warningMs
        guard precisionMs >= 0 && precisionMs < window else {
            throw InactivityError(.invalidArgument,
                                  "precision_ms (\(precisionMs)) must be >= 0 and shorter than policy.idle_timeout_ms - policy.warning_ms (\(window)): the stored last activity lags by up to it")
        }
    }

    /// `arg`'s rule for each input; returns the reason it names (LOCK, END).
    static func checkArg(_ arg: Int64, of input: ServerInput) throws(InactivityError) -> Reason? {
        switch input {
        case .signIn, .request, .machine, .unlock, .unlockFailed:
            guard arg == 0 else { throw InactivityError(.invalidArgument, "arg (\(arg)) must be 0 for \(input.cName)") }
            return nil
        case .holderActivity:
            guard arg >= 0 else {
                throw InactivityError(.invalidArgument, "arg (\(arg)) must be >= 0 for INACT_SERVER_HOLDER_ACTIVITY (the activity's age in ms)")
            }
            return nil
        case .lock:
            guard let r = reason(arg), r != .restored, Input.holderLocked.namedReasons.contains(r) else {
                throw InactivityError(.invalidArgument, "arg (\(arg)) must be a LOCKED reason (not RESTORED) for INACT_SERVER_LOCK")
            }
            return r
        case .end:
            guard let r = reason(arg), r != .restored, Input.holderExpired.namedReasons.contains(r) else {
                throw InactivityError(.invalidArgument, "arg (\(arg)) must be an EXPIRED reason (not RESTORED) for INACT_SERVER_END")
            }
            return r
        }
    }

    private static func reason(_ arg: Int64) -> Reason? {
        guard let raw = Int32(exactly: arg) else { return nil }
        return Reason(rawValue: raw)
    }

    /// The decision, and the record written into `out` when it changed.
    private static func decision(_ m: SessionMachine, at now: Int64, stored: Snapshot?,
                                 into out: UnsafeMutableRawPointer) -> (ServerDecision, written: Bool) {
        let written = m.snapshot(serverAt: now)
        let changed = stored.map { !$0.sameSession(as: written) } ?? true
        if changed { written.encode(into: out) }
        let never = SessionPolicy.never
        let live = m.state == .active || m.state == .warning
        return (ServerDecision(
            state: m.state, reason: m.reason, requiredAuth: m.requiredAuth(at: now), unlockFailures: m.unlockFailures,
            nowMs: now, remainingMs: m.remaining(at: now), idleDeadlineMs: m.idleDeadline ?? never,
            absoluteDeadlineMs: m.absoluteDeadline ?? never, startedAtMs: m.startedAt ?? never,
            lastActivityMs: live ? m.lastActivity : never, record: nil), changed)
    }
}

extension ServerInput {
    var cName: StaticString {
        switch self {
        case .signIn: "INACT_SERVER_SIGN_IN"
        case .request: "INACT_SERVER_REQUEST"
        case .machine: "INACT_SERVER_MACHINE"
        case .holderActivity: "INACT_SERVER_HOLDER_ACTIVITY"
        case .lock: "INACT_SERVER_LOCK"
        case .end: "INACT_SERVER_END"
        case .unlock: "INACT_SERVER_UNLOCK"
        case .unlockFailed: "INACT_SERVER_UNLOCK_FAILED"
        }
    }
}

extension Snapshot {
    /// The same session as `other`: every field a server reads, the record's instant (and the
    /// unread last server contact) aside. A decision that leaves them all as stored writes nothing.
    func sameSession(as other: Snapshot) -> Bool {
        // A session that never started has its start at the record's instant: no other time.
        if neverStarted && other.neverStarted { return state == other.state && reason == other.reason }
        return state == other.state && reason == other.reason && unlockFailures == other.unlockFailures
            && startedAt == other.startedAt && lastActivity == other.lastActivity && lockedAt == other.lockedAt
            && lastCredentialAt == other.lastCredentialAt && credentialRequired == other.credentialRequired
            && newestGeneration == other.newestGeneration
    }
}

extension SessionMachine {
    /// The machine's record at `now` on the fleet's clock.
    func snapshot(serverAt now: Int64) -> Snapshot {
        // Never refused: a decision always has a session (LOADING only before a sign-in or a
        // record is put in place, and both leave it).
        (try? snapshot(clock: ClockReading(monotonicMs: now, wallMs: now, bootID: ServerRecord.fleetClock)))!
    }

    /// A corrupt record: `RestoreRule.corrupt`, as a restore of corrupt bytes.
    mutating func failRestore(at now: Int64) {
        transition(to: RestoreRule.corrupt.state, RestoreRule.corrupt.reason, at: now)
    }

    /// Puts a server record in place (the restore's cell) and catches up to `now` (at or after
    /// its instant). Its times are on this clock as they are; no background, and no server
    /// contact to miss (a server is the contact: no offline deadline runs). A failure limit of
    /// `policy` at or below the failures counted expires a LOCKED record, as a restore does.
    mutating func restoreServerRecord(_ s: Snapshot, now: Int64) throws(InactivityError) {
        guard try admits(.restore) else { return }
        startedAt = s.neverStarted ? nil : s.startedAt
        lastActivity = s.lastActivity
        unlockFailures = s.unlockFailures
        lastCredentialAt = s.neverStarted ? nil : s.lastCredentialAt
        credentialRequired = s.credentialRequired
        lastContactAt = nil
        newestGeneration = s.newestGeneration
        state = s.state
        reason = s.reason
        seenState = s.state
        changedAt = s.monotonicMs
        lockedAt = s.lockedAt
        cursor = s.monotonicMs
        if state == .warning, policy.tickMs > 0, let d = idleDeadline {
            tickIndex = ceilDiv(d - cursor, policy.tickMs)
        }
        evaluate(now: now)
        _ = expireIfFailuresSpent(at: now)
        checkInvariants()
    }

    /// Applies a server input at `now` (the machine caught up to it) through the machine's own
    /// inputs: a request is the activity row, a keepalive and a holder's lock or expiry the
    /// holder rows (`holderReport`: stricter only, the instant clamped to the session), an end
    /// the end row, an unlock the unlock rows with the credential. A refusal by the state changes
    /// nothing and is not an error here: the decision reports the state.
    mutating func apply(_ input: ServerInput, named: Reason?, arg: Int64, now: Int64, precisionMs: Int64) throws(InactivityError) {
        let stamp = lastActivity
        let before = (state, reason)
        do throws(InactivityError) {
            switch input {
            case .signIn: assertionFailure("a sign-in ignores the record")
            case .machine: break
            case .request: try activity(serverActivityKind, now: now)
            // Any age: one beyond the longest duration places the activity at the session's
            // start or the stored activity all the same.
            case .holderActivity: try holderReport(.activity, reason: .none, ms: min(arg, SessionPolicy.maxFiniteMs), now: now)
            case .lock: try holderReport(.locked, reason: named!, ms: 0, now: now)
            case .end:
                if named!.isEnding { try end(named!, now: now) } else { try holderReport(.expired, reason: named!, ms: 0, now: now) }
            case .unlock: try unlock(method: .credential, now: now)
            case .unlockFailed: _ = try unlockFailed(method: .credential, now: now)
            }
        } catch where error.code == .invalidState {
            return
        }
        evaluate(now: now)   // what the input made due (a keepalive's activity in WARNING)
        coalesce(stored: stamp, before: before, precisionMs: precisionMs, now: now)
    }

    /// A request counts as the user's activity: of the first kind a person produces that the
    /// policy counts (none counted: the request counts no more than the device's input would).
    var serverActivityKind: ActivityKind {
        let counted = policy.activityKinds.rawValue & ActivityKind.user.rawValue
        return counted == 0 ? .touchDown : ActivityKind(rawValue: counted & (~counted &+ 1))
    }

    /// Keeps the stored last activity when an input moved only it, and by less than the
    /// precision: the lag makes the idle deadline earlier, never later. The input did not change
    /// the state, so no deadline of the stored value is due (the machine was caught up with it).
    mutating func coalesce(stored: Int64, before: (SessionState, Reason), precisionMs: Int64, now: Int64) {
        guard state == before.0, reason == before.1, lastActivity > stored, lastActivity - stored < precisionMs else { return }
        lastActivity = stored
        evaluate(now: now)
    }
}

/// A policy validated once and kept in a caller's block of `size` bytes
/// (inact_server_policy_prepare), so that a server deciding request after request under one
/// policy does not validate and convert it on every call (inact_server_decide_prepared). The
/// block is plain bytes the caller owns and may copy; nothing in it points anywhere.
///
/// Layout `layoutVersion` (little-endian):
///    0  magic "INACTSPP"                          u64
///    8  layout version (1)                        u32
///   12  0                                         u32
///   16  the policy's fields in `SessionPolicy`'s  19 x i64 (enums, flags and the failure
///       declaration order                                   limit as their integers)
///  168  0 up to the check word
///  248  check word                                u64   `checkWord` of bytes 0..<248
///
/// The check word finds a corrupted block (a flipped bit, a block written over, a block of
/// another layout): it is not a signature. A block is checked on every use: magic, layout and
/// check word, then each enum and flag read back and the policy's ranges checked again (a
/// block resealed by hand must not reach the decision's arithmetic); a block that fails is
/// refused, never decided on. What the block saves is the C struct's conversion and the size
/// handling, not the comparisons.
public enum PreparedPolicy {
    /// INACT_SERVER_POLICY_SIZE.
    public static let size = 256
    static let magic: UInt64 = 0x5050_5354_4341_4E49   // "INACTSPP"
    /// Bumped whenever a field's place or meaning changes, so that a block kept across library
    /// versions is refused rather than read with another meaning (fieldCount alone would see
    /// only a field added or removed).
    static let layoutVersion: UInt32 = 1
    static let fieldsAt = 16
    /// The policy's fields the block carries: every one of `SessionPolicy`'s (PreparedPolicyTests
    /// counts them, so a field added to the policy and not here fails the suite).
    static let fieldCount = 19
    static let checkAt = size - 8

    /// Validates `policy` and writes its block into `block` (at least `size` bytes). On an error
    /// nothing is written.
    public static func prepare(_ policy: SessionPolicy, into block: UnsafeMutableRawPointer) throws(InactivityError) {
        try policy.validate()
        block.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        block.storeBytes(of: magic.littleEndian, as: UInt64.self)
        block.storeBytes(of: layoutVersion.littleEndian, toByteOffset: 8, as: UInt32.self)
        var at = fieldsAt
        func put(_ v: Int64) {
            block.storeBytes(of: v.littleEndian, toByteOffset: at, as: Int64.self)
            at += 8
        }
        put(policy.idleTimeoutMs)
        put(policy.warningMs)
        put(Int64(policy.idleAction.rawValue))
        put(policy.backgroundTimeoutMs)
        put(policy.absoluteTimeoutMs)
        put(policy.lockedTimeoutMs)
        put(Int64(policy.maxUnlockFailures))
        put(policy.tickMs)
        put(policy.backgroundGraceMs)
        put(Int64(policy.activityKinds.rawValue))
        put(policy.activityDismissesWarning ? 1 : 0)
        put(policy.pauseIdleInBackground ? 1 : 0)
        put(policy.strongAuthTimeoutMs)
        put(policy.expectedInterruptionMaxMs)
        put(policy.lockOnDeviceLock ? 1 : 0)
        put(policy.offlineTimeoutMs)
        put(policy.offlineExpiryMs)
        put(policy.lockOnRestart ? 1 : 0)
        put(policy.keepaliveIntervalMs)
        assert(at == fieldsAt + 8 * fieldCount && at <= checkAt)
        block.storeBytes(of: checkWord(UnsafeRawPointer(block)).littleEndian, toByteOffset: checkAt, as: UInt64.self)
    }

    /// The policy in a block `prepare` wrote; a block it did not write (or one changed since) is
    /// refused, naming `prepared`.
    public static func read(_ block: UnsafeRawPointer) throws(InactivityError) -> SessionPolicy {
        func word<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T { T(littleEndian: block.loadUnaligned(fromByteOffset: at, as: T.self)) }
        guard word(0, UInt64.self) == magic else {
            throw InactivityError(.invalidArgument, "prepared is not a prepared policy (no magic: fill it with inact_server_policy_prepare)")
        }
        guard word(8, UInt32.self) == layoutVersion else {
            throw InactivityError(.invalidArgument, "prepared has layout \(word(8, UInt32.self)), this library's is \(layoutVersion): prepare it again with this library")
        }
        guard word(checkAt, UInt64.self) == checkWord(block) else {
            throw InactivityError(.invalidArgument, "prepared is corrupt (its check word does not match): prepare it again")
        }
        func field(_ i: Int) -> Int64 { word(fieldsAt + 8 * i, Int64.self) }
        func flag(_ i: Int) throws(InactivityError) -> Bool {
            guard (0...1).contains(field(i)) else { throw corrupt() }
            return field(i) == 1
        }
        guard let action = Int32(exactly: field(2)).flatMap(IdleAction.init(rawValue:)),
              let failures = UInt32(exactly: field(6)), let kinds = UInt32(exactly: field(9)) else { throw corrupt() }
        var p = SessionPolicy()
        p.idleTimeoutMs = field(0)
        p.warningMs = field(1)
        p.idleAction = action
        p.backgroundTimeoutMs = field(3)
        p.absoluteTimeoutMs = field(4)
        p.lockedTimeoutMs = field(5)
        p.maxUnlockFailures = failures
        p.tickMs = field(7)
        p.backgroundGraceMs = field(8)
        p.activityKinds = ActivityKind(rawValue: kinds)
        p.activityDismissesWarning = try flag(10)
        p.pauseIdleInBackground = try flag(11)
        p.strongAuthTimeoutMs = field(12)
        p.expectedInterruptionMaxMs = field(13)
        p.lockOnDeviceLock = try flag(14)
        p.offlineTimeoutMs = field(15)
        p.offlineExpiryMs = field(16)
        p.lockOnRestart = try flag(17)
        p.keepaliveIntervalMs = field(18)
        // The durations' ranges too (a few comparisons): the check word is no signature, and a
        // block resealed with a duration `prepare` would have refused (a negative one, one past
        // 100 years) must be refused, not decided on with arithmetic that could trap the host.
        do {
            try p.validate()
        } catch {
            throw corrupt()
        }
        return p
    }

    private static func corrupt() -> InactivityError {
        InactivityError(.invalidArgument, "prepared is corrupt (a field out of its range): prepare it again")
    }

    /// Bytes 0..<checkAt as words, each mixed in by xor and a multiplication by an odd
    /// constant (FNV-1a's prime, over words instead of bytes): both steps are one-to-one, so a
    /// change within any one word always changes the result; a fraction of the cost of a byte
    /// hash, which a decision pays on every call.
    static func checkWord(_ block: UnsafeRawPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for i in 0..<(checkAt / 8) {
            h = (h ^ UInt64(littleEndian: block.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self))) &* 0x100_0000_01b3
        }
        return h
    }
}
