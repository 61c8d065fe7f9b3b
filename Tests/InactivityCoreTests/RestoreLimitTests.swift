import Testing
@testable import InactivityCore

/// Issue 26, "three places where a restore or a limit is laxer than the header": found by an
/// independent model of the 1.1 header driven against the library. Each test failed before
/// its fix.
/// The default policy, edited.
func defaultPolicy(_ edit: (inout SessionPolicy) -> Void) -> SessionPolicy {
    var p = SessionPolicy()
    edit(&p)
    return p
}

@Suite("Restores and limits no laxer than the header")
struct RestoreLimitTests {
    /// A session of `policy` started at 0 and saved at `savedAt` (in foreground, no activity).
    static func saved(_ policy: SessionPolicy, at savedAt: Int64) -> (Rig, [UInt8]) {
        let rig = Rig(policy)
        try! rig.engine.start()
        rig.at(savedAt)
        return (rig, try! rig.engine.snapshot())
    }

    // MARK: A background reported in LOADING survives the restore

    /// The case: default policy (background timeout 60 s), saved after 1 min; a new
    /// engine 10 s later is told it is in background, then restores.
    static func restoredInBackground(_ report: (InactivityEngine) throws -> Void) throws -> Rig {
        let (source, bytes) = saved(SessionPolicy(), at: 1 * minute)
        let rig = SnapshotTests.restarted(from: source, laterMs: 10 * second, policy: SessionPolicy())
        try report(rig.engine)
        try rig.engine.restore(bytes)
        return rig
    }

    static func expectBackgroundKept(_ rig: Rig) throws {
        // ACTIVE (RESTORED) and still in background: the time since the snapshot and the time
        // after the restore are one background, from the snapshot's instant (1 min).
        #expect(rig.recorder.transitions == [Transition(.active, .restored, 70 * second)])
        #expect(try rig.engine.info().inBackground)
        #expect(try rig.engine.info().backgroundSinceMs == 1 * minute)
        rig.at(2 * minute)
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 2 * minute))
        // Activity in background does not count, and LOCKED is not undone by it.
        rig.at(6 * minute)
        try rig.engine.recordActivity(.touchDown)
        #expect(rig.state == .locked && rig.reason == .backgroundTimeout)
    }

    @Test func a_background_reported_in_loading_survives_the_restore() throws {
        try RestoreLimitTests.expectBackgroundKept(try RestoreLimitTests.restoredInBackground { try $0.enterBackground() })
    }

    @Test func a_device_lock_reported_in_loading_keeps_the_background_through_the_restore() throws {
        try RestoreLimitTests.expectBackgroundKept(try RestoreLimitTests.restoredInBackground { try $0.deviceLocked() })
    }

    @Test func a_window_grace_running_at_the_restore_keeps_the_background() throws {
        // Every window hidden 100 ms before the restore, its grace (700 ms) still running: the
        // app is not on screen, so the restore keeps the background the time since the snapshot
        // was (stricter than restarting a grace: the background timeout counts from the snapshot).
        try RestoreLimitTests.expectBackgroundKept(try RestoreLimitTests.restoredInBackground { engine in
            try engine.windowShown()
            try engine.windowHidden()
        })
    }

    @Test func a_window_shown_in_loading_is_foreground_after_the_restore() throws {
        // The other side of the rule: a window on screen at the restore ends the background.
        let rig = try RestoreLimitTests.restoredInBackground { try $0.windowShown() }
        #expect(rig.recorder.transitions == [Transition(.active, .restored, 70 * second)])
        #expect(try !rig.engine.info().inBackground)
        rig.at(5 * minute)
        try rig.engine.recordActivity(.touchDown)
        #expect(try rig.engine.info().lastActivityMs == 5 * minute)
    }

    @Test func a_foreground_after_the_restore_ends_the_kept_background() throws {
        let rig = try RestoreLimitTests.restoredInBackground { try $0.enterBackground() }
        rig.at(90 * second)
        try rig.engine.enterForeground()
        #expect(try !rig.engine.info().inBackground)
        rig.at(5 * minute)
        #expect(rig.state == .active)
    }

    // MARK: A server contact at the snapshot's instant does not cancel an offline expiry due then

    static func offlineExpiryAtTheSnapshot(contact: (Rig) throws -> Void, restore: (Rig, [UInt8]) throws -> Void) throws -> Rig {
        // A: saved 1,386 ms after the sign-in. B: offline expiry 1,386 ms, on A's clock at the
        // snapshot's own instant (elapsed 0): the expiry falls due exactly at the restore.
        let (source, bytes) = saved(SessionPolicy(), at: 1_386)
        let policy = defaultPolicy { $0.offlineExpiryMs = 1_386 }
        let rig = SnapshotTests.restarted(from: source, laterMs: 0, policy: policy)
        try contact(rig)
        try restore(rig, bytes)
        return rig
    }

    @Test func a_contact_reported_in_loading_at_the_snapshots_instant_does_not_cancel_the_offline_expiry() throws {
        let rig = try RestoreLimitTests.offlineExpiryAtTheSnapshot(contact: { try $0.engine.serverContact() },
                                                                 restore: { try $0.engine.restore($1) })
        #expect(rig.recorder.transitions == [Transition(.expired, .offlineExpiry, 1_386)])
    }

    @Test func a_contact_right_after_the_restore_does_not_cancel_the_offline_expiry() throws {
        let rig = try RestoreLimitTests.offlineExpiryAtTheSnapshot(contact: { _ in }, restore: { rig, bytes in
            try rig.engine.restore(bytes)
            try rig.engine.serverContact()
        })
        #expect(rig.recorder.transitions == [Transition(.expired, .offlineExpiry, 1_386)])
    }

    @Test func a_contact_in_loading_after_the_expiry_was_due_still_expires() throws {
        let (source, bytes) = RestoreLimitTests.saved(SessionPolicy(), at: 1_386)
        let rig = SnapshotTests.restarted(from: source, laterMs: 1, policy: defaultPolicy { $0.offlineExpiryMs = 1_386 })
        try rig.engine.serverContact()
        try rig.engine.restore(bytes)
        #expect(rig.recorder.transitions == [Transition(.expired, .offlineExpiry, 1_386)])
    }

    // MARK: A limit lowered to or below the failures counted expires the session at once

    /// LOCKED at 1 s with `failures` failed unlocks, under a policy with no limit.
    static func lockedWithFailures(_ failures: Int) throws -> Rig {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.at(1 * second)
        try rig.engine.lock()
        for _ in 0..<failures { _ = try rig.engine.unlockFailed() }
        rig.at(2 * second)
        return rig
    }

    @Test(arguments: [UInt32(1), 2])
    func a_policy_lowering_the_limit_to_or_below_the_failures_counted_expires_at_once(limit: UInt32) throws {
        let rig = try RestoreLimitTests.lockedWithFailures(2)
        try rig.engine.setPolicy(smallPolicy { $0.maxUnlockFailures = limit })
        #expect(rig.recorder.transitions.last == Transition(.expired, .unlockFailures, 2 * second))
        // The attempts allowed are spent: a correct unlock no longer succeeds.
        #expect(errorCode { try rig.engine.unlock() } == .invalidState)
    }

    @Test func a_limit_above_the_failures_counted_leaves_the_lock_alone() throws {
        let rig = try RestoreLimitTests.lockedWithFailures(2)
        try rig.engine.setPolicy(smallPolicy { $0.maxUnlockFailures = 3 })
        #expect(rig.state == .locked && rig.reason == .manualLock)
        _ = try rig.engine.unlockFailed()
        #expect(rig.state == .expired && rig.reason == .unlockFailures)
    }

    @Test func ceilings_lowering_the_limit_to_the_failures_counted_expire_at_once() throws {
        let rig = try RestoreLimitTests.lockedWithFailures(2)
        var ceilings = PolicyCeilings()
        ceilings.maxUnlockFailures = 2
        try rig.engine.setCeilings(ceilings)
        #expect(rig.recorder.transitions.last == Transition(.expired, .unlockFailures, 2 * second))
        #expect(errorCode { try rig.engine.unlock() } == .invalidState)
    }

    @Test func a_restore_under_a_limit_at_or_below_the_failures_counted_expires() throws {
        let source = try RestoreLimitTests.lockedWithFailures(3)
        let bytes = try source.engine.snapshot()
        let rig = SnapshotTests.restarted(from: source, laterMs: 1 * second, policy: smallPolicy { $0.maxUnlockFailures = 3 })
        try rig.engine.restore(bytes)
        #expect(rig.recorder.transitions == [Transition(.expired, .unlockFailures, 3 * second)])
    }

    @Test func a_limit_in_a_state_where_failures_do_not_count_changes_nothing() throws {
        // ACTIVE (the failures reset by the unlock) and EXPIRED keep their state and reason.
        let rig = try RestoreLimitTests.lockedWithFailures(2)
        try rig.engine.end(reason: .logout)
        try rig.engine.setPolicy(smallPolicy { $0.maxUnlockFailures = 1 })
        #expect(rig.state == .expired && rig.reason == .logout)
    }
}
