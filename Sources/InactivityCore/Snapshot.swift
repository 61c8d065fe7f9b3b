// The snapshot: versioned bytes with a checksum (docs/design.md, "Snapshot and restore").
//
// Format version 1, 80 bytes, little-endian:
//    0  magic "INAS"           4
//    4  version (1)            u16
//    6  state                  u8      ACTIVE..EXPIRED
//    7  reason                 u8      allowed in that state
//    8  unlock failures        u32
//   12  flags                  u32     bit 0 background start present, bit 1 locked-at present
//   16  session start          i64     ms, snapshot's monotonic clock
//   24  last activity          i64
//   32  background start       i64     (0 when absent)
//   40  locked at              i64     (0 when absent)
//   48  boot id                u64
//   56  monotonic clock now    i64
//   64  wall clock now         i64     ms since 1970
//   72  checksum               u64     FNV-1a 64 of bytes 0..<72
// Scopes and holds are not kept: the screens that own them push them again.

public struct Snapshot: Sendable, Equatable {
    public static let formatVersion: UInt16 = 1
    public static let byteCount = 80
    static let magic: [UInt8] = Array("INAS".utf8)

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

    public func encode() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(Snapshot.byteCount)
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        out.append(contentsOf: Snapshot.magic)
        put(Snapshot.formatVersion)
        put(UInt8(state.rawValue))
        put(UInt8(reason.rawValue))
        put(unlockFailures)
        put(UInt32((backgroundSince != nil ? 1 : 0) | (lockedAt != nil ? 2 : 0)))
        put(startedAt)
        put(lastActivity)
        put(backgroundSince ?? 0)
        put(lockedAt ?? 0)
        put(bootID)
        put(monotonicMs)
        put(wallMs)
        put(Snapshot.checksum(out[...]))
        assert(out.count == Snapshot.byteCount)
        return out
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash = FNV1a64()
        for b in bytes { hash.mix(b) }
        return hash.value
    }

    /// Decodes and checks `bytes`. Each corrupt form has its own error code.
    /// `length`: the caller's length when `bytes` is only its first part (the C ABI copies at
    /// most one byte more than any snapshot, whatever size_t length it is given); messages
    /// name it.
    public static func decode(_ bytes: [UInt8], length: UInt64? = nil) throws(InactivityError) -> Snapshot {
        try checkFrame(bytes, length: length ?? UInt64(bytes.count))
        let snapshot = try readFields(bytes)
        try snapshot.checkTimes()
        return snapshot
    }

    /// Reads a little-endian integer at `offset` (the frame is checked: it is in bounds).
    private static func read<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], _ offset: Int) -> T {
        var v: T = 0
        withUnsafeMutableBytes(of: &v) { dst in
            for i in 0..<MemoryLayout<T>.size { dst[i] = bytes[offset + i] }
        }
        return T(littleEndian: v)
    }

    private static func invalid(_ why: String) -> InactivityError {
        InactivityError(.snapshotInvalid, "snapshot \(why)")
    }

    /// The frame: the header, a version this library reads, exactly its length, the checksum.
    private static func checkFrame(_ bytes: [UInt8], length: UInt64) throws(InactivityError) {
        guard bytes.count >= 6 else {
            throw InactivityError(.snapshotTruncated, "snapshot length (\(length)) is shorter than its header (6 bytes)")
        }
        guard Array(bytes[0..<4]) == magic else {
            throw InactivityError(.snapshotInvalid, "snapshot does not start with the magic \"INAS\"")
        }
        let version = read(UInt16.self, bytes, 4)
        guard version == formatVersion else {
            throw InactivityError(.snapshotVersion, "snapshot version (\(version)) is not supported (this library reads version \(formatVersion))")
        }
        guard bytes.count >= byteCount else {
            throw InactivityError(.snapshotTruncated, "snapshot length (\(length)) is shorter than version 1's \(byteCount) bytes")
        }
        guard bytes.count == byteCount else {
            throw invalid("length (\(length)) is longer than version 1's \(byteCount) bytes")
        }
        guard read(UInt64.self, bytes, 72) == checksum(bytes[0..<72]) else {
            throw InactivityError(.snapshotChecksum, "snapshot checksum does not match its contents")
        }
    }

    /// The fields, each within its own range: a state and a reason that goes with it, known
    /// flags, no time for an absent field.
    private static func readFields(_ bytes: [UInt8]) throws(InactivityError) -> Snapshot {
        guard let state = SessionState(rawValue: Int32(bytes[6])), state != .loading else {
            throw invalid("state (\(bytes[6])) must be ACTIVE, WARNING, LOCKED or EXPIRED")
        }
        guard let reason = Reason(rawValue: Int32(bytes[7])), Reason.allowed(in: state).contains(reason) else {
            throw invalid("reason (\(bytes[7])) is not a reason for state \(state)")
        }
        let flags = read(UInt32.self, bytes, 12)
        guard flags & ~3 == 0 else { throw invalid("flags (0x\(String(flags, radix: 16))) has unknown bits") }
        guard flags & 1 != 0 || read(Int64.self, bytes, 32) == 0, flags & 2 != 0 || read(Int64.self, bytes, 40) == 0 else {
            throw invalid("has a time for an absent field")
        }
        return Snapshot(
            state: state, reason: reason, unlockFailures: read(UInt32.self, bytes, 8),
            startedAt: read(Int64.self, bytes, 16), lastActivity: read(Int64.self, bytes, 24),
            backgroundSince: flags & 1 != 0 ? read(Int64.self, bytes, 32) : nil,
            lockedAt: flags & 2 != 0 ? read(Int64.self, bytes, 40) : nil,
            bootID: read(UInt64.self, bytes, 48), monotonicMs: read(Int64.self, bytes, 56),
            wallMs: read(Int64.self, bytes, 64))
    }

    /// The times agree with one another and with the snapshot's own clock.
    private func checkTimes() throws(InactivityError) {
        typealias S = Snapshot
        guard monotonicMs >= 0 else { throw S.invalid("clock (\(monotonicMs)) must be >= 0") }
        guard bootID != 0 else { throw S.invalid("boot id must not be 0") }
        guard startedAt <= lastActivity, lastActivity <= monotonicMs else {
            throw S.invalid("times must satisfy start (\(startedAt)) <= last activity (\(lastActivity)) <= snapshot clock (\(monotonicMs))")
        }
        if let b = backgroundSince, b > monotonicMs {
            throw S.invalid("background start (\(b)) is after the snapshot clock (\(monotonicMs))")
        }
        guard (state == .locked) == (lockedAt != nil) else {
            throw S.invalid("locked-at must be present exactly when the state is LOCKED")
        }
        if let l = lockedAt, !(startedAt...monotonicMs).contains(l) {
            throw S.invalid("locked-at (\(l)) must lie between start (\(startedAt)) and the snapshot clock (\(monotonicMs))")
        }
    }
}

/// FNV-1a, 64 bits: the snapshot's checksum and the boot id's hash. It detects corruption; it
/// does not authenticate (the snapshot is not a secret, docs/design.md section 4).
struct FNV1a64 {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func mix(_ byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
}
