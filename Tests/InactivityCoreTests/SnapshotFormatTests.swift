import Testing
@testable import InactivityCore

/// Issue 26 item 2: a host built against 1.0 sizes its snapshot buffer with 1.0's
/// INACT_SNAPSHOT_MAX_SIZE (96). Every session it can produce must fit, and the restore of the
/// 96 bytes must be no laxer than the restore of the full (1.1, format 2) snapshot.
@Suite("Snapshot formats: every session fits 1.0's 96 bytes")
struct SnapshotFormatTests {
    /// 1.0's INACT_SNAPSHOT_MAX_SIZE, as 1.0's header (commit 2a2c26e) gives it.
    static let maxSize10 = 96

    /// The session `s` in format 2 (1.1's 104-byte layout, locked-at in a slot of its own),
    /// written here from the layout at the top of Snapshot.swift, not by the library's encoder:
    /// the full snapshot that the 96 bytes must restore no laxer than.
    static func format2(_ s: Snapshot) -> [UInt8] {
        var out = [UInt8]()
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        out += Array("INAS".utf8)
        put(UInt16(2)); put(UInt8(s.state.rawValue)); put(UInt8(s.reason.rawValue))
        put(s.unlockFailures)
        put(UInt32((s.backgroundSince != nil ? 1 : 0) | (s.lockedAt != nil ? 2 : 0) | (s.credentialRequired ? 4 : 0)))
        put(s.startedAt); put(s.lastActivity); put(s.backgroundSince ?? 0); put(s.lockedAt ?? 0)
        put(s.bootID); put(s.monotonicMs); put(s.wallMs)
        put(s.lastCredentialAt); put(s.lastContactAt); put(s.newestGeneration)
        var hash = FNV1a64()
        for b in out { hash.mix(b) }
        put(hash.value)
        return out
    }

    /// The engine's session as a snapshot holds it, before any encoding.
    static func session(_ engine: InactivityEngine) -> Snapshot {
        try! engine.perform { m, r throws(InactivityError) in try m.snapshot(clock: r) }
    }

    /// A deterministic generator (SplitMix64), so a failure names a seed that replays it.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1330_11EB
            return z ^ (z >> 31)
        }
    }

    /// A policy made of 1.0's fields only (the 1.1 fields keep their defaults), within 1.0's rules.
    static func policy10(_ g: inout SplitMix) -> SessionPolicy {
        var p = SessionPolicy()
        p.idleTimeoutMs = [2, 10, 60].randomElement(using: &g)! * second
        p.warningMs = [0, 1 * second].randomElement(using: &g)!
        p.tickMs = [0, 500, 1_000].randomElement(using: &g)!
        p.backgroundTimeoutMs = [0, 3 * second, 30 * second, SessionPolicy.never].randomElement(using: &g)!
        p.absoluteTimeoutMs = [20 * second, 5 * minute, SessionPolicy.never].randomElement(using: &g)!
        p.lockedTimeoutMs = [4 * second, 40 * second, SessionPolicy.never].randomElement(using: &g)!
        p.backgroundGraceMs = [0, 700].randomElement(using: &g)!
        p.idleAction = Bool.random(using: &g) ? .lock : .expire
        p.maxUnlockFailures = [0, 1, 3].randomElement(using: &g)!
        p.activityDismissesWarning = Bool.random(using: &g)
        p.pauseIdleInBackground = Bool.random(using: &g)
        return p
    }

    /// One random input of 1.0's (with `all`, of every release), or time passing. Refusals are
    /// part of the sequence: they change nothing.
    static func step(_ rig: Rig, _ g: inout SplitMix, scopes: inout [UInt64], holds: inout [UInt64], all: Bool) {
        let e = rig.engine
        let choices = all ? 22 : 17
        switch Int.random(in: 0..<choices, using: &g) {
        case 0: _ = try? e.start()
        case 1, 2: _ = try? e.recordActivity([.touchDown, .key, .programmatic].randomElement(using: &g)!)
        case 3: _ = try? e.continueSession()
        case 4: _ = try? e.lock()
        case 5: _ = try? e.unlock()
        case 6: _ = try? e.unlockFailed()
        case 7: if Int.random(in: 0..<4, using: &g) == 0 { _ = try? e.end(reason: .logout) }
        case 8: _ = try? e.refreshResult(httpStatus: [200, 401, 503].randomElement(using: &g)!)
        case 9: _ = try? e.enterBackground()
        case 10: _ = try? e.enterForeground()
        case 11: _ = try? e.windowShown()
        case 12: _ = try? e.windowHidden()
        case 13:
            if let id = try? e.pushScope(idleTimeoutMs: 1 * second) { scopes.append(id) }
            else if let id = scopes.popLast() { _ = try? e.popScope(id) }
        case 14:
            if Bool.random(using: &g), let id = try? e.acquireHold() { holds.append(id) }
            else if let id = holds.popLast() { _ = try? e.releaseHold(id) }
        case 15: _ = try? e.setPolicy(policy10(&g))
        case 16: rig.advance(Int64.random(in: 0...5_000, using: &g))
        // 1.1's inputs
        case 17: _ = try? e.biometricsChanged()
        case 18: _ = try? e.serverContact()
        case 19: _ = try? e.tokenRotated(generation: UInt64.random(in: 1...UInt64.max, using: &g))
        case 20: _ = try? e.deviceLocked()
        default: _ = try? e.expectInterruption(maxMs: 10 * second)
        }
    }

    /// Restores `bytes` on a fresh engine whose clock reads `reading`, then lets `laterMs` pass.
    static func restored(_ bytes: [UInt8], policy: SessionPolicy, at reading: ClockReading, laterMs: Int64)
        -> (status: InactivityError.Code?, info: [InactivityEngine.Info], transitions: [Transition]) {
        let rig = Rig(policy, clock: try! ManualClock(monotonicMs: reading.monotonicMs, wallMs: reading.wallMs,
                                                      bootID: reading.bootID))
        let status = errorCode { try rig.engine.restore(bytes) }
        let first = try! rig.engine.info()
        rig.advance(laterMs)
        try! rig.engine.poll()
        return (status, [first, try! rig.engine.info()], rig.recorder.transitions)
    }

    static func check(sequences: Int, steps: Int, all: Bool, seed: UInt64) {
        for n in 0..<sequences {
            var g = SplitMix(state: seed &+ UInt64(n))
            let policy = policy10(&g)
            let rig = Rig(policy, clock: try! ManualClock(monotonicMs: 1_000, wallMs: 1_700_000_000_000, bootID: 7))
            var scopes: [UInt64] = [], holds: [UInt64] = []
            for i in 0..<steps {
                step(rig, &g, scopes: &scopes, holds: &holds, all: all)
                guard rig.state != .loading else { continue }
                // What a 1.0 host does: its buffer is 96 bytes.
                let bytes = try! rig.engine.snapshot()
                #expect(bytes.count <= maxSize10, "seed \(seed &+ UInt64(n)) step \(i): \(bytes.count) bytes")
                guard i % 5 == 0 || i == steps - 1 else { continue }
                // The same session in the full format restores no stricter and no laxer: the
                // same outcome, the same info, the same events, on the same boot or after a reboot.
                let now = rig.clock.now()
                let later = Int64.random(in: 0...20_000, using: &g)
                let reboot = Int.random(in: 0..<4, using: &g) == 0
                let at = ClockReading(monotonicMs: reboot ? 500 : now.monotonicMs + later,
                                      wallMs: now.wallMs + later, bootID: reboot ? 8 : now.bootID)
                let v3 = restored(bytes, policy: policy, at: at, laterMs: later)
                let v2 = restored(format2(session(rig.engine)), policy: policy, at: at, laterMs: later)
                #expect(v3.status == nil, "seed \(seed &+ UInt64(n)) step \(i): \(String(describing: v3.status))")
                #expect(v3.info == v2.info && v3.transitions == v2.transitions,
                        "seed \(seed &+ UInt64(n)) step \(i): format 3 \(v3.transitions) \(v3.info), format 2 \(v2.transitions) \(v2.info)")
            }
        }
    }

    @Test func every_session_of_1_0_inputs_fits_96_bytes_and_restores_as_the_full_snapshot() {
        SnapshotFormatTests.check(sequences: 120, steps: 40, all: false, seed: 0x1_0000)
    }

    @Test func every_session_of_every_input_fits_96_bytes_and_restores_as_the_full_snapshot() {
        SnapshotFormatTests.check(sequences: 60, steps: 40, all: true, seed: 0x2_0000)
    }

    @Test func the_written_format_is_3_and_fills_the_bound() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.at(2 * second)
        try rig.engine.recordActivity(.key)
        rig.at(3 * second)
        try rig.engine.lock()
        let bytes = try rig.engine.snapshot()
        #expect(bytes.count == SnapshotFormatTests.maxSize10 && bytes.count == Snapshot.byteCount)
        #expect(bytes[4] == 3 && bytes[5] == 0)
        // In LOCKED the slot at 24 is locked-at; the last activity reads as the start.
        let s = try Snapshot.decode(bytes)
        #expect(s.lockedAt == 3 * second && s.startedAt == 0 && s.lastActivity == 0)
        #expect(try Snapshot.decode(SnapshotFormatTests.format2(SnapshotFormatTests.session(rig.engine))) == s)
    }
}
