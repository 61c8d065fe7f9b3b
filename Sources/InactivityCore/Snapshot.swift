// The snapshot: versioned bytes with a checksum (docs/design.md, "Snapshot and restore").
//
// Every snapshot fits INACT_SNAPSHOT_MAX_SIZE (96) bytes, the bound 1.0's header gave its hosts
// to size their buffers with; it never grows within a major version, so a host built against
// any 1.x header can save every session (a buffer sized by 1.1's header, which said 128, holds
// it too).
//
// Format version 3, 96 bytes, little-endian (written by this library):
//    0  magic "INAS"           4
//    4  version (3)            u16
//    6  state                  u8      ACTIVE..EXPIRED
//    7  reason                 u8      allowed in that state
//    8  unlock failures        u32
//   12  flags                  u32     bit 0 background start present, bit 1 locked-at present
//                                      (exactly in LOCKED), bit 2 the credential is required
//   16  session start          i64     ms, snapshot's monotonic clock
//   24  last activity, or      i64     in LOCKED the last activity is the session start (the
//       locked-at in LOCKED            writer's rule since format 1), so this slot holds locked-at
//   32  background start       i64     (0 when absent)
//   40  boot id                u64
//   48  monotonic clock now    i64
//   56  wall clock now         i64     ms since 1970
//   64  last credential verification  i64   session start <= it <= snapshot clock
//   72  last server contact    i64     session start <= it <= snapshot clock
//   80  newest token generation u64    0 = none seen
//   88  checksum               u64     FNV-1a 64 of bytes 0..<88
//
// Read only:
// - Version 2 (104 bytes, written by 1.1): the same fields with their own slots: 0..<24 as
//   above, last activity at 24, background start 32, locked-at 40 (0 when absent), boot id 48,
//   monotonic clock 56, wall clock 64, last credential verification 72, last server contact
//   80, newest token generation 88, checksum at 96 of bytes 0..<96.
// - Version 1 (80 bytes, written by 1.0) is bytes 0..<72 of version 2's layout (flags bits 0
//   and 1) and its checksum at 72. It did not keep the three later fields; a restore reads them
//   as the strictest values the snapshot allows: the credential and the server last seen at the
//   session start, no token generation.
// A version this library does not know is refused (INACT_E_SNAPSHOT_VERSION, the engine
// EXPIRED), as 1.0 and 1.1 refuse version 3: giving a newer snapshot to an older library signs
// the user out, it never unlocks.
// A session that never started (EXPIRED from LOADING: an end, a revocation or a failed restore
// before any sign-in) has no start and no credential verification, and the format has no
// "none" for them: it is written EXPIRED with the session start, the last activity and the
// last credential verification at the snapshot's own clock. A restore reads exactly that as
// "never started" (`neverStarted`). A session that signed in, ended and was saved within one
// millisecond reads the same: no credential time is the stricter reading, and an EXPIRED
// session needs a sign-in, which sets them anew.
// Scopes and holds are not kept: the screens that own them push them again.

public struct Snapshot: Sendable, Equatable {
    public static let formatVersion: UInt16 = 3
    /// The size of every snapshot this library writes: INACT_SNAPSHOT_MAX_SIZE.
    public static let byteCount = 96
    /// The sizes of the versions still restored.
    static let version1ByteCount = 80
    static let version2ByteCount = 104
    /// The longest snapshot a restore reads (version 2): the C ABI copies one byte more.
    public static let longestReadable = version2ByteCount

    static func size(ofVersion version: UInt16) -> Int {
        switch version {
        case 1: version1ByteCount
        case 2: version2ByteCount
        default: byteCount
        }
    }
    static let magic: [UInt8] = [0x49, 0x4E, 0x41, 0x53] // "INAS" (bytes: no String view in the module)

    public var state: SessionState
    public var reason: Reason
    public var unlockFailures: UInt32
    public var startedAt: Int64
    public var lastActivity: Int64
    public var backgroundSince: Int64?
    public var lockedAt: Int64?
    public var bootID: UInt64
    public var monotonicMs: Int64
    public var wallMs: Int64
    public var lastCredentialAt: Int64
    public var credentialRequired: Bool
    public var lastContactAt: Int64
    public var newestGeneration: UInt64

    public init(state: SessionState, reason: Reason, unlockFailures: UInt32, startedAt: Int64,
                lastActivity: Int64, backgroundSince: Int64?, lockedAt: Int64?, bootID: UInt64,
                monotonicMs: Int64, wallMs: Int64, lastCredentialAt: Int64? = nil,
                credentialRequired: Bool = false, lastContactAt: Int64? = nil, newestGeneration: UInt64 = 0) {
        self.state = state
        self.reason = reason
        self.unlockFailures = unlockFailures
        self.startedAt = startedAt
        self.lastActivity = lastActivity
        self.backgroundSince = backgroundSince
        self.lockedAt = lockedAt
        self.bootID = bootID
        self.monotonicMs = monotonicMs
        self.wallMs = wallMs
        self.lastCredentialAt = lastCredentialAt ?? startedAt
        self.credentialRequired = credentialRequired
        self.lastContactAt = lastContactAt ?? startedAt
        self.newestGeneration = newestGeneration
    }

    /// The snapshot of a session that never started (the top of this file): its restore has
    /// no session start and no credential verification.
    var neverStarted: Bool {
        state == .expired && startedAt == monotonicMs && lastActivity == startedAt && lastCredentialAt == startedAt
    }

    /// The version-3 bytes. In LOCKED the last activity is not written (its slot holds
    /// locked-at) and reads back as the session start, which is what the engine's snapshot
    /// holds there (an unlock counts idle afresh, so nothing in LOCKED reads it).
    public func encode() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Snapshot.byteCount) { buffer, count in
            encode(into: UnsafeMutableRawPointer(buffer.baseAddress!))
            count = Snapshot.byteCount
        }
    }

    /// The version-3 bytes written in place: `out` must hold `byteCount` bytes (a server's
    /// record is written straight into its caller's buffer, with no array in between).
    func encode(into out: UnsafeMutableRawPointer) {
        var at = 0
        func put<T: FixedWidthInteger>(_ v: T) {
            out.storeBytes(of: v.littleEndian, toByteOffset: at, as: T.self)
            at += MemoryLayout<T>.size
        }
        for b in Snapshot.magic { put(b) }
        put(Snapshot.formatVersion)
        put(UInt8(state.rawValue))
        put(UInt8(reason.rawValue))
        put(unlockFailures)
        put(UInt32((backgroundSince != nil ? 1 : 0) | (lockedAt != nil ? 2 : 0) | (credentialRequired ? 4 : 0)))
        put(startedAt)
        put(lockedAt ?? lastActivity)
        put(backgroundSince ?? 0)
        put(bootID)
        put(monotonicMs)
        put(wallMs)
        put(lastCredentialAt)
        put(lastContactAt)
        put(newestGeneration)
        put(Snapshot.checksum(UnsafeRawBufferPointer(start: out, count: at)))
        assert(at == Snapshot.byteCount)
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.withUnsafeBytes { checksum($0) } }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = FNV1a64()
        for b in bytes { hash.mix(b) }
        return hash.value
    }

    /// Decodes and checks `bytes`, in the order of the steps below: the first failed check is
    /// the error. Truncated bytes, an unknown version and a bad checksum have their own codes;
    /// every other corrupt form is `snapshotInvalid`, its message naming the rule.
    /// `length`: the caller's length when `bytes` is only its first part (the C ABI copies at
    /// most one byte more than any snapshot, whatever size_t length it is given); messages
    /// name it.
    public static func decode(_ bytes: [UInt8], length: UInt64? = nil) throws(InactivityError) -> Snapshot {
        // withUnsafeBytes rethrows untyped: the error comes out as a Result.
        try bytes.withUnsafeBytes { raw in
            Result { () throws(InactivityError) -> Snapshot in try decode(raw, length: length) }
        }.get()
    }

    /// `decode` of bytes read where they are (a server's record in its caller's buffer).
    static func decode(_ raw: UnsafeRawBufferPointer, length: UInt64? = nil) throws(InactivityError) -> Snapshot {
        let bytes = LittleEndianBytes(raw, length: length ?? UInt64(raw.count))
        let version = try checkLengthAndHeader(bytes)
        try verifyChecksum(bytes, size: size(ofVersion: version))
        var s = version == 3 ? try readVersion3(bytes) : try readVersion1Fields(bytes, knownFlags: version == 1 ? 3 : 7)
        if version == 2 { readVersion2Fields(bytes, into: &s) }
        try s.checkPossible()
        return s
    }

    /// The magic, a supported version and exactly that version's size. Returns the version.
    private static func checkLengthAndHeader(_ bytes: LittleEndianBytes) throws(InactivityError) -> UInt16 {
        let length = bytes.length
        guard bytes.count >= 6 else {
            throw InactivityError(.snapshotTruncated, "snapshot length (\(length)) is shorter than its header (6 bytes)")
        }
        guard bytes.bytes.prefix(4).elementsEqual(magic) else {
            throw InactivityError(.snapshotInvalid, "snapshot does not start with the magic \"INAS\"")
        }
        let version = bytes.read(UInt16.self, 4)
        guard (1...formatVersion).contains(version) else {
            throw InactivityError(.snapshotVersion, "snapshot version (\(version)) is not supported (this library reads versions 1 to \(formatVersion))")
        }
        let size = size(ofVersion: version)
        guard bytes.count >= size else {
            throw InactivityError(.snapshotTruncated, "snapshot length (\(length)) is shorter than version \(version)'s \(size) bytes")
        }
        guard bytes.count == size else {
            throw InactivityError(.snapshotInvalid, "snapshot length (\(length)) is longer than version \(version)'s \(size) bytes")
        }
        return version
    }

    /// The last 8 of `size` bytes are the FNV-1a 64 of the ones before them.
    private static func verifyChecksum(_ bytes: LittleEndianBytes, size: Int) throws(InactivityError) {
        guard bytes.read(UInt64.self, size - 8) == checksum(UnsafeRawBufferPointer(rebasing: bytes.bytes[0..<(size - 8)])) else {
            throw InactivityError(.snapshotChecksum, "snapshot checksum does not match its contents")
        }
    }

    /// State, reason and flags (bytes 6..<16, the same in every version), checked.
    private static func readHeader(_ bytes: LittleEndianBytes, knownFlags: UInt32) throws(InactivityError)
        -> (state: SessionState, reason: Reason, flags: UInt32) {
        guard let state = SessionState(rawValue: Int32(bytes.bytes[6])), state != .loading else {
            throw invalid("state (\(bytes.bytes[6])) must be ACTIVE, WARNING, LOCKED or EXPIRED")
        }
        guard let reason = Reason(rawValue: Int32(bytes.bytes[7])), Reason.allowed(in: state).contains(reason) else {
            throw invalid("reason (\(bytes.bytes[7])) is not a reason for state \(state)")
        }
        let flags = bytes.read(UInt32.self, 12)
        guard flags & ~knownFlags == 0 else { throw invalid("flags (0x\(hex: UInt64(flags))) has unknown bits") }
        return (state, reason, flags)
    }

    /// Version 3 (the layout at the top of this file).
    private static func readVersion3(_ bytes: LittleEndianBytes) throws(InactivityError) -> Snapshot {
        let (state, reason, flags) = try readHeader(bytes, knownFlags: 7)
        guard flags & 1 != 0 || bytes.read(Int64.self, 32) == 0 else { throw invalid("has a time for an absent field") }
        let startedAt = bytes.read(Int64.self, 16), slot = bytes.read(Int64.self, 24)
        let locked = flags & 2 != 0
        return Snapshot(
            state: state, reason: reason, unlockFailures: bytes.read(UInt32.self, 8),
            startedAt: startedAt, lastActivity: locked ? startedAt : slot,
            backgroundSince: flags & 1 != 0 ? bytes.read(Int64.self, 32) : nil,
            lockedAt: locked ? slot : nil,
            bootID: bytes.read(UInt64.self, 40), monotonicMs: bytes.read(Int64.self, 48),
            wallMs: bytes.read(Int64.self, 56), lastCredentialAt: bytes.read(Int64.self, 64),
            credentialRequired: flags & 4 != 0, lastContactAt: bytes.read(Int64.self, 72),
            newestGeneration: bytes.read(UInt64.self, 80))
    }

    /// Bytes 0..<72 of versions 1 and 2. The fields after them keep the initialiser's
    /// defaults, which are version 1's reading (the top of this file).
    private static func readVersion1Fields(_ bytes: LittleEndianBytes, knownFlags: UInt32) throws(InactivityError) -> Snapshot {
        let (state, reason, flags) = try readHeader(bytes, knownFlags: knownFlags)
        // An absent time is written as 0; anything else is corruption, not a value to drop.
        guard flags & 1 != 0 || bytes.read(Int64.self, 32) == 0, flags & 2 != 0 || bytes.read(Int64.self, 40) == 0 else {
            throw invalid("has a time for an absent field")
        }
        return Snapshot(
            state: state, reason: reason, unlockFailures: bytes.read(UInt32.self, 8),
            startedAt: bytes.read(Int64.self, 16), lastActivity: bytes.read(Int64.self, 24),
            backgroundSince: flags & 1 != 0 ? bytes.read(Int64.self, 32) : nil,
            lockedAt: flags & 2 != 0 ? bytes.read(Int64.self, 40) : nil,
            bootID: bytes.read(UInt64.self, 48), monotonicMs: bytes.read(Int64.self, 56),
            wallMs: bytes.read(Int64.self, 64), credentialRequired: flags & 4 != 0)
    }

    /// Bytes 72..<96 of version 2, the fields it added.
    private static func readVersion2Fields(_ bytes: LittleEndianBytes, into s: inout Snapshot) {
        s.lastCredentialAt = bytes.read(Int64.self, 72)
        s.lastContactAt = bytes.read(Int64.self, 80)
        s.newestGeneration = bytes.read(UInt64.self, 88)
    }

    /// Values a session can have had: the times in order on the snapshot's clock, a boot id,
    /// locked-at exactly in LOCKED.
    private func checkPossible() throws(InactivityError) {
        let invalid = Snapshot.invalid
        guard monotonicMs >= 0 else { throw invalid("clock (\(monotonicMs)) must be >= 0") }
        guard bootID != 0 else { throw invalid("boot id must not be 0") }
        guard startedAt <= lastActivity, lastActivity <= monotonicMs else {
            throw invalid("times must satisfy start (\(startedAt)) <= last activity (\(lastActivity)) <= snapshot clock (\(monotonicMs))")
        }
        if let b = backgroundSince, b > monotonicMs {
            throw invalid("background start (\(b)) is after the snapshot clock (\(monotonicMs))")
        }
        guard (state == .locked) == (lockedAt != nil) else {
            throw invalid("locked-at must be present exactly when the state is LOCKED")
        }
        if let l = lockedAt, !(startedAt...monotonicMs).contains(l) {
            throw invalid("locked-at (\(l)) must lie between start (\(startedAt)) and the snapshot clock (\(monotonicMs))")
        }
        // Two checks, not a loop over an array of the two: the array was an allocation per restore.
        try checkSessionTime("last credential verification", lastCredentialAt)
        try checkSessionTime("last server contact", lastContactAt)
    }

    private func checkSessionTime(_ name: StaticString, _ t: Int64) throws(InactivityError) {
        guard (startedAt...monotonicMs).contains(t) else {
            throw Snapshot.invalid("\(name) (\(t)) must lie between start (\(startedAt)) and the snapshot clock (\(monotonicMs))")
        }
    }

    private static func invalid(_ why: ErrorText) -> InactivityError { InactivityError(.snapshotInvalid, "snapshot \(why)") }
}

/// Snapshot bytes being decoded (read where they are, borrowed for the decode), and the
/// caller's length that messages name.
private struct LittleEndianBytes {
    let bytes: UnsafeRawBufferPointer
    let length: UInt64

    init(_ bytes: UnsafeRawBufferPointer, length: UInt64) {
        self.bytes = bytes
        self.length = length
    }

    var count: Int { bytes.count }

    /// The little-endian integer at `offset`; the caller has checked that it is in bounds.
    func read<T: FixedWidthInteger>(_: T.Type, _ offset: Int) -> T {
        precondition(offset >= 0 && offset + MemoryLayout<T>.size <= bytes.count)
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

/// FNV-1a, 64 bits: the snapshot's checksum and the boot id's hash. It detects corruption; it
/// does not authenticate (the snapshot is not a secret, docs/design.md section 4).
struct FNV1a64 {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func mix(_ byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
}
