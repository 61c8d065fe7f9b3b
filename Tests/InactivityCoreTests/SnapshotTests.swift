import Testing
@testable import InactivityCore

@Suite("Snapshot and restore")
struct SnapshotTests {
    /// A rig whose clock continues `source`'s clock `laterMs` later (same boot: a process restart).
    static func restarted(from source: Rig, laterMs: Int64, policy: SessionPolicy = smallPolicy()) -> Rig {
        let r = source.clock.now()
        let clock = try! ManualClock(monotonicMs: r.monotonicMs + laterMs, wallMs: r.wallMs + laterMs, bootID: r.bootID)
        return Rig(policy, clock: clock)
    }

    static func activeSnapshot() -> (Rig, [UInt8]) {
        let rig = Rig(smallPolicy())
        try! rig.engine.start()
        rig.at(2 * second)
        try! rig.engine.recordActivity(.key)
        try! rig.engine.enterBackground()
        return (rig, try! rig.engine.snapshot())
    }

    @Test func snapshot_round_trips_its_fields() throws {
        let (_, bytes) = SnapshotTests.activeSnapshot()
        #expect(bytes.count == Snapshot.byteCount)
        let s = try Snapshot.decode(bytes)
        #expect(s.state == .active && s.reason == .started)
        #expect(s.startedAt == 0 && s.lastActivity == 2 * second && s.backgroundSince == 2 * second)
        #expect(s.encode() == bytes)
    }

    @Test func a_quick_restart_restores_active() throws {
        let (source, bytes) = SnapshotTests.activeSnapshot()
        let rig = SnapshotTests.restarted(from: source, laterMs: 1 * second)
        try rig.engine.restore(bytes)
        #expect(rig.recorder.transitions == [Transition(.active, .restored, 3 * second)])
        #expect(rig.recorder.changes[0].previousState == .loading)
        // Activity was at 2 s: the warning still comes at 9 s.
        rig.at(9 * second)
        #expect(rig.state == .warning)
    }

    @Test func restore_after_a_long_background_is_locked_with_its_reason() throws {
        let (source, bytes) = SnapshotTests.activeSnapshot()
        let rig = SnapshotTests.restarted(from: source, laterMs: 5 * second)
        try rig.engine.restore(bytes)
        #expect(rig.recorder.transitions == [Transition(.locked, .backgroundTimeout, 7 * second)])
    }

    @Test func time_since_the_snapshot_counts_as_background_even_if_taken_in_foreground() throws {
        let rig0 = Rig(smallPolicy { $0.idleTimeoutMs = 1 * hour; $0.warningMs = 0 })
        try rig0.engine.start()
        let bytes = try rig0.engine.snapshot()   // in foreground
        let rig = SnapshotTests.restarted(from: rig0, laterMs: 6 * second, policy: smallPolicy { $0.idleTimeoutMs = 1 * hour; $0.warningMs = 0 })
        try rig.engine.restore(bytes)
        #expect(rig.recorder.transitions == [Transition(.locked, .backgroundTimeout, 5 * second)])
    }

    @Test func restore_inside_the_warning_window_is_warning_restored() throws {
        let rig0 = Rig(smallPolicy { $0.backgroundTimeoutMs = SessionPolicy.never })
        try rig0.engine.start()
        let bytes = try rig0.engine.snapshot()
        let rig = SnapshotTests.restarted(from: rig0, laterMs: 8 * second, policy: smallPolicy { $0.backgroundTimeoutMs = SessionPolicy.never })
        try rig.engine.restore(bytes)
        #expect(rig.recorder.transitions == [Transition(.warning, .restored, 7 * second)])
        #expect(rig.recorder.changes[0].remainingMs == 2 * second)
        rig.at(10 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .idleTimeout, 10 * second))
    }

    @Test func locked_and_expired_snapshots_restore_as_they_were() throws {
        for end in [SessionState.locked, .expired] {
            let rig0 = Rig(smallPolicy())
            try rig0.engine.start()
            if end == .locked { try rig0.engine.lock() } else { try rig0.engine.end(reason: .logout) }
            let bytes = try rig0.engine.snapshot()
            let rig = SnapshotTests.restarted(from: rig0, laterMs: 100)
            try rig.engine.restore(bytes)
            #expect(rig.state == end)
            #expect(rig.reason == .restored)
        }
    }

    @Test func an_expired_absolute_lifetime_is_applied_on_restore() throws {
        let (source, bytes) = SnapshotTests.activeSnapshot()
        let rig = SnapshotTests.restarted(from: source, laterMs: 2 * hour)
        try rig.engine.restore(bytes)
        #expect(rig.recorder.transitions == [Transition(.expired, .absoluteTimeout, 1 * hour)])
    }

    @Test func restore_after_a_reboot_is_never_active() throws {
        let (source, bytes) = SnapshotTests.activeSnapshot()
        try source.clock.reboot(downtimeMs: 500)
        let r = source.clock.now()
        let rig = Rig(smallPolicy(), clock: try ManualClock(monotonicMs: r.monotonicMs, wallMs: r.wallMs, bootID: r.bootID))
        try rig.engine.restore(bytes)
        #expect(rig.state == .locked)
        #expect(rig.reason == .untrustedClock)
    }

    @Test func restore_with_a_clock_that_went_back_is_untrusted() throws {
        let (source, bytes) = SnapshotTests.activeSnapshot()
        let r = source.clock.now()
        // Same boot id, but the monotonic clock reads earlier than the snapshot.
        let rig = Rig(smallPolicy(), clock: try ManualClock(monotonicMs: 0, wallMs: r.wallMs + 100, bootID: r.bootID))
        try rig.engine.restore(bytes)
        #expect(rig.state == .locked && rig.reason == .untrustedClock)
    }

    @Test func restore_after_a_reboot_with_the_wall_clock_set_back_expires() throws {
        let (source, bytes) = SnapshotTests.activeSnapshot()
        try source.clock.reboot()
        try source.clock.jumpWall(by: -1 * hour)
        let r = source.clock.now()
        let rig = Rig(smallPolicy(), clock: try ManualClock(monotonicMs: r.monotonicMs, wallMs: r.wallMs, bootID: r.bootID))
        try rig.engine.restore(bytes)
        #expect(rig.state == .expired && rig.reason == .untrustedClock)
    }

    @Test func restore_after_a_reboot_past_the_absolute_lifetime_by_the_wall_clock_expires() throws {
        let (source, bytes) = SnapshotTests.activeSnapshot()
        try source.clock.reboot(downtimeMs: 3 * hour)
        let r = source.clock.now()
        let rig = Rig(smallPolicy(), clock: try ManualClock(monotonicMs: r.monotonicMs, wallMs: r.wallMs, bootID: r.bootID))
        try rig.engine.restore(bytes)
        #expect(rig.state == .expired && rig.reason == .absoluteTimeout)
    }

    static func corrupt(_ edit: (inout [UInt8]) -> Void, fixChecksum: Bool) -> [UInt8] {
        var bytes = SnapshotTests.activeSnapshot().1
        edit(&bytes)
        if fixChecksum && bytes.count == Snapshot.byteCount {
            let end = Snapshot.byteCount - 8
            let sum = Snapshot.checksum(bytes[0..<end])
            withUnsafeBytes(of: sum.littleEndian) { for i in 0..<8 { bytes[end + i] = $0[i] } }
        }
        return bytes
    }

    static func put(_ v: Int64, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { for i in 0..<8 { bytes[offset + i] = $0[i] } }
    }

    @Test(arguments: [
        ("empty", corrupt({ $0 = [] }, fixChecksum: false), InactivityError.Code.snapshotTruncated),
        ("truncated", corrupt({ $0.removeLast(10) }, fixChecksum: false), .snapshotTruncated),
        ("one byte short", corrupt({ $0.removeLast() }, fixChecksum: false), .snapshotTruncated),
        ("flipped bit", corrupt({ $0[30] ^= 0x10 }, fixChecksum: false), .snapshotChecksum),
        ("bad checksum", corrupt({ $0[Snapshot.byteCount - 5] ^= 0xFF }, fixChecksum: false), .snapshotChecksum),
        ("unknown version", corrupt({ $0[4] = 4 }, fixChecksum: true), .snapshotVersion),
        ("not a snapshot", corrupt({ $0[0] = 0x58 }, fixChecksum: true), .snapshotInvalid),
        ("trailing bytes", corrupt({ $0.append(0) }, fixChecksum: false), .snapshotInvalid),
        ("state LOADING", corrupt({ $0[6] = 0 }, fixChecksum: true), .snapshotInvalid),
        ("state out of range", corrupt({ $0[6] = 9 }, fixChecksum: true), .snapshotInvalid),
        ("reason not for state", corrupt({ $0[7] = UInt8(Reason.revoked.rawValue) }, fixChecksum: true), .snapshotInvalid),
        ("unknown flags", corrupt({ $0[13] = 1 }, fixChecksum: true), .snapshotInvalid),
        ("activity after snapshot", corrupt({ put(1 << 40, at: 24, in: &$0) }, fixChecksum: true), .snapshotInvalid),
        ("start after activity", corrupt({ put(5_000, at: 16, in: &$0) }, fixChecksum: true), .snapshotInvalid),
        ("negative clock", corrupt({ put(-1, at: 48, in: &$0) }, fixChecksum: true), .snapshotInvalid),
        ("locked-at without LOCKED", corrupt({ $0[12] |= 2 }, fixChecksum: true), .snapshotInvalid),
        ("background time while absent", corrupt({ $0[12] &= ~1; put(1, at: 32, in: &$0) }, fixChecksum: true), .snapshotInvalid),
    ])
    func every_corrupt_form_is_rejected_and_expires(name: String, bytes: [UInt8], code: InactivityError.Code) throws {
        let rig = Rig(smallPolicy())
        #expect(errorCode { try rig.engine.restore(bytes) } == code, "\(name)")
        #expect(rig.recorder.transitions == [Transition(.expired, .restoreFailed, 0)], "\(name)")
    }

    @Test func random_bytes_never_restore_a_session() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0...100, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let rig = Rig(smallPolicy())
            #expect(errorCode { try rig.engine.restore(bytes) } != nil)
            #expect(rig.state == .expired)
        }
    }

    @Test func snapshot_in_loading_is_refused() throws {
        let rig = Rig(smallPolicy())
        #expect(errorCode { _ = try rig.engine.snapshot() } == .invalidState)
    }

    @Test func scopes_and_holds_are_not_kept() throws {
        let rig0 = Rig(smallPolicy())
        try rig0.engine.start()
        _ = try rig0.engine.pushScope(idleTimeoutMs: 5 * second)
        _ = try rig0.engine.acquireHold()
        let bytes = try rig0.engine.snapshot()
        let rig = SnapshotTests.restarted(from: rig0, laterMs: 0)
        try rig.engine.restore(bytes)
        let info = try rig.engine.info()
        #expect(info.openScopes == 0 && info.openHolds == 0 && info.effectiveIdleTimeoutMs == 10 * second)
    }
}

@Suite("Untrusted restores")
struct UntrustedRestoreTests {
    @Test func a_lock_after_a_reboot_is_attributed_to_the_clock_not_to_a_wall_clock_estimate() throws {
        let (source, bytes) = SnapshotTests.activeSnapshot()
        try source.clock.reboot(downtimeMs: 2 * minute)   // longer than the background timeout
        let r = source.clock.now()
        let rig = Rig(smallPolicy(), clock: try ManualClock(monotonicMs: r.monotonicMs, wallMs: r.wallMs, bootID: r.bootID))
        try rig.engine.restore(bytes)
        #expect(rig.recorder.transitions == [Transition(.locked, .untrustedClock, r.monotonicMs)])
    }
}

@Suite("Snapshot details")
struct SnapshotDetailTests {
    @Test func an_untrusted_lock_takes_effect_at_the_restore() throws {
        let (source, bytes) = SnapshotTests.activeSnapshot()
        try source.clock.reboot(downtimeMs: 2 * minute)
        let r = source.clock.now()
        let rig = Rig(smallPolicy(), clock: try ManualClock(monotonicMs: r.monotonicMs, wallMs: r.wallMs, bootID: r.bootID))
        try rig.engine.restore(bytes)
        let info = try rig.engine.info()
        #expect(rig.recorder.changes.last?.timeMs == r.monotonicMs)
        // The lock itself dates from the background deadline on the estimate (5 s into the two
        // minutes): the locked timeout counts from there, as it would have without the reboot.
        #expect(info.lockedAtMs == r.monotonicMs - 2 * minute + 5 * second)
    }

    @Test func a_reboot_does_not_stretch_the_locked_timeout() throws {
        let policy = smallPolicy { $0.lockedTimeoutMs = 10 * minute }
        let rig0 = Rig(policy)
        try rig0.engine.start()
        rig0.at(2 * second)
        try rig0.engine.lock()
        let bytes = try rig0.engine.snapshot()
        try rig0.clock.reboot(downtimeMs: 6 * minute)
        let r = rig0.clock.now()
        let rig = Rig(policy, clock: try ManualClock(monotonicMs: r.monotonicMs, wallMs: r.wallMs, bootID: r.bootID))
        try rig.engine.restore(bytes)
        #expect(rig.state == .locked && rig.reason == .untrustedClock)
        #expect(try rig.engine.remainingMs() == 4 * minute)   // not a fresh 10 minutes
        rig.at(r.monotonicMs + 4 * minute)
        #expect(rig.state == .expired && rig.reason == .lockedTimeout)
    }

    @Test func a_lock_due_on_the_estimate_counts_its_locked_timeout_from_that_lock() throws {
        let policy = smallPolicy { $0.lockedTimeoutMs = 10 * minute }
        let (source, bytes) = SnapshotTests.activeSnapshot()   // background at 2 s, 5 s timeout
        try source.clock.reboot(downtimeMs: 3 * minute)
        let r = source.clock.now()
        let rig = Rig(policy, clock: try ManualClock(monotonicMs: r.monotonicMs, wallMs: r.wallMs, bootID: r.bootID))
        try rig.engine.restore(bytes)
        #expect(rig.state == .locked && rig.reason == .untrustedClock)
        #expect(try rig.engine.remainingMs() == 10 * minute - 3 * minute + 5 * second)
    }

    @Test func a_wall_clock_behind_the_snapshot_still_expires_a_locked_session() throws {
        let policy = smallPolicy { $0.lockedTimeoutMs = 10 * minute }
        let rig0 = Rig(policy)
        try rig0.engine.start()
        try rig0.engine.lock()
        let bytes = try rig0.engine.snapshot()
        try rig0.clock.reboot()
        try rig0.clock.jumpWall(by: -1 * hour)
        let r = rig0.clock.now()
        let rig = Rig(policy, clock: try ManualClock(monotonicMs: r.monotonicMs, wallMs: r.wallMs, bootID: r.bootID))
        try rig.engine.restore(bytes)
        #expect(rig.state == .expired && rig.reason == .untrustedClock)
    }

    @Test func a_snapshot_with_an_open_hold_counts_idle_from_the_snapshot() throws {
        let rig0 = Rig(smallPolicy { $0.backgroundTimeoutMs = SessionPolicy.never })
        try rig0.engine.start()
        _ = try rig0.engine.acquireHold()        // a video plays for a minute
        rig0.at(1 * minute)
        let bytes = try rig0.engine.snapshot()
        let rig = SnapshotTests.restarted(from: rig0, laterMs: 1 * second,
                                          policy: smallPolicy { $0.backgroundTimeoutMs = SessionPolicy.never })
        try rig.engine.restore(bytes)
        #expect(rig.state == .active)            // not locked at once for the video's minute
        #expect(try rig.engine.remainingMs() == 9 * second)
    }

    /// Regression (fuzz): a session that never started (EXPIRED from LOADING) restored with its
    /// snapshot's instant as session start and last credential verification, where its info
    /// said INACT_NEVER before the snapshot. A session that signed in keeps both.
    @Test func a_session_that_never_started_restores_with_no_start_and_no_credential_time() throws {
        let source = Rig(smallPolicy())
        source.at(1 * second)
        try source.engine.end(reason: .revoked)
        #expect(try source.engine.info().startedAtMs == SessionPolicy.never)
        #expect(try source.engine.info().lastCredentialMs == SessionPolicy.never)
        let bytes = try source.engine.snapshot()
        #expect(try Snapshot.decode(bytes).neverStarted)
        let rig = SnapshotTests.restarted(from: source, laterMs: 2 * second)
        try rig.engine.restore(bytes)
        #expect(rig.state == .expired && rig.reason == .restored)
        var info = try rig.engine.info()
        #expect(info.startedAtMs == SessionPolicy.never && info.lastCredentialMs == SessionPolicy.never)
        // Its own snapshot is again one of a session that never started.
        #expect(try Snapshot.decode(try rig.engine.snapshot()).neverStarted)

        // Format 1 the same: EXPIRED (REVOKED), start, activity at the snapshot's clock (5 s).
        var v1 = [UInt8]()
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { v1.append(contentsOf: $0) } }
        v1.append(contentsOf: Array("INAS".utf8))
        put(UInt16(1)); put(UInt8(SessionState.expired.rawValue)); put(UInt8(Reason.revoked.rawValue))
        put(UInt32(0)); put(UInt32(0))
        put(Int64(5_000)); put(Int64(5_000)); put(Int64(0)); put(Int64(0))
        put(UInt64(1)); put(Int64(5_000)); put(Int64(1_700_000_005_000))
        put(Snapshot.checksum(v1[...]))
        let rig1 = Rig(smallPolicy(), clock: try ManualClock(monotonicMs: 6_000, wallMs: 1_700_000_006_000))
        try rig1.engine.restore(v1)
        info = try rig1.engine.info()
        #expect(rig1.state == .expired && info.startedAtMs == SessionPolicy.never && info.lastCredentialMs == SessionPolicy.never)

        // A session that signed in at 0 and ended at 1 s keeps its start and verification.
        let started = Rig(smallPolicy())
        try started.engine.start()
        started.at(1 * second)
        try started.engine.end(reason: .logout)
        let kept = try started.engine.snapshot()
        #expect(try !Snapshot.decode(kept).neverStarted)
        let rig2 = SnapshotTests.restarted(from: started, laterMs: 2 * second)
        try rig2.engine.restore(kept)
        info = try rig2.engine.info()
        #expect(rig2.state == .expired && info.startedAtMs == 0 && info.lastCredentialMs == 0)
    }

    /// Regression (fuzz): a snapshot time whose age at the snapshot does not fit in Int64
    /// (forged bytes: a start at Int64.min + 1 under a snapshot clock at Int64.max - 1) was
    /// placed at the snapshot's instant, a session 10 ms old instead of one far past its
    /// absolute lifetime: LOCKED (UNTRUSTED_CLOCK) where the wall-clock estimate expires it.
    @Test func a_time_too_old_for_int64_is_the_oldest_not_the_snapshot_instant() throws {
        let forged = Snapshot(state: .active, reason: .started, unlockFailures: 0, startedAt: .min + 1,
                              lastActivity: 0, backgroundSince: nil, lockedAt: nil, bootID: 1,
                              monotonicMs: .max - 1, wallMs: 1_700_000_001_000, lastCredentialAt: 0,
                              lastContactAt: 0).encode()
        let rig = Rig(smallPolicy(), clock: try ManualClock(monotonicMs: 1_010, wallMs: 1_700_000_001_010))
        try rig.engine.restore(forged)
        #expect(rig.recorder.transitions == [Transition(.expired, .absoluteTimeout, 1_000)])
    }
}
