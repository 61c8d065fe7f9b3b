import Testing
@testable import InactivityCore

/// The places where the 1.1 header was silent (issue 22), each answered in inactivity.h with
/// the library's rule: one test per answer, so that the header and the library cannot drift.
@Suite("Header rulings")
struct HeaderRulingTests {
    static func quiet(_ edit: (inout SessionPolicy) -> Void = { _ in }) -> SessionPolicy {
        var p = SessionPolicy()
        p.idleTimeoutMs = SessionPolicy.never
        p.warningMs = 0
        p.absoluteTimeoutMs = SessionPolicy.never
        edit(&p)
        return p
    }

    /// inact_expect_interruption: the window includes its end instant, and at that instant the
    /// lock is due: a background beginning at the end locks at once (timeout 0), and a
    /// foreground at the end is too late.
    @Test func the_interruption_window_ends_at_its_end_instant() throws {
        let policy = Self.quiet { $0.backgroundTimeoutMs = 0; $0.expectedInterruptionMaxMs = minute }
        let late = Rig(policy)
        try late.engine.start()
        try late.engine.expectInterruption(maxMs: 20 * second)
        late.at(20 * second)
        try late.engine.enterBackground()
        #expect(late.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 20 * second))

        let back = Rig(policy)
        try back.engine.start()
        try back.engine.expectInterruption(maxMs: 20 * second)
        back.at(10 * second)
        try back.engine.enterBackground()
        back.at(20 * second - 1)
        try back.engine.enterForeground()   // back before the end: the background did not count
        #expect(back.state == .active)

        let atEnd = Rig(policy)
        try atEnd.engine.start()
        try atEnd.engine.expectInterruption(maxMs: 20 * second)
        atEnd.at(10 * second)
        try atEnd.engine.enterBackground()
        try atEnd.clock.freeze(for: 10 * second)
        try atEnd.engine.enterForeground()   // at the end: the lock due then comes first
        #expect(atEnd.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 20 * second))
    }

    /// inact_device_locked: during a covered background the cover ends; a timeout already
    /// passed locks at the device lock, with BACKGROUND_TIMEOUT (DEVICE_LOCKED with the flag).
    @Test(arguments: [false, true])
    func a_device_lock_ends_the_cover_of_a_background(lockOnDeviceLock: Bool) throws {
        let rig = Rig(Self.quiet { $0.backgroundTimeoutMs = 5 * second; $0.lockOnDeviceLock = lockOnDeviceLock })
        try rig.engine.start()
        try rig.engine.expectInterruption(maxMs: 30 * second)
        try rig.engine.enterBackground()
        rig.at(10 * second)
        #expect(rig.state == .active)   // covered until 30 s
        try rig.engine.deviceLocked()
        #expect(rig.recorder.transitions.last
                == Transition(.locked, lockOnDeviceLock ? .deviceLocked : .backgroundTimeout, 10 * second))
    }

    /// inact_set_policy: a lower cap shortens a pending announcement at once, also one that
    /// covers a background: the lock it held back past the new end takes effect at the call.
    @Test func a_lower_cap_shortens_a_pending_announcement() throws {
        let rig = Rig(Self.quiet { $0.backgroundTimeoutMs = 0; $0.expectedInterruptionMaxMs = minute })
        try rig.engine.start()
        try rig.engine.expectInterruption(maxMs: 40 * second)
        #expect(try rig.engine.info().interruptionUntilMs == 40 * second)
        rig.at(5 * second)
        try rig.engine.enterBackground()
        rig.at(8 * second)
        #expect(rig.state == .active)
        try rig.engine.setPolicy(Self.quiet { $0.backgroundTimeoutMs = 0; $0.expectedInterruptionMaxMs = 6 * second })
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 8 * second))
    }

    /// Conventions: deadlines at one instant, the most severe first; an expiry wins.
    @Test func at_one_instant_the_table_order_decides_the_reason() throws {
        let rig = Rig(Self.quiet { $0.idleTimeoutMs = minute; $0.absoluteTimeoutMs = minute; $0.offlineTimeoutMs = minute })
        try rig.engine.start()
        rig.at(minute)
        #expect(rig.recorder.transitions.last == Transition(.expired, .absoluteTimeout, minute))
        let lock = Rig(Self.quiet { $0.idleTimeoutMs = minute; $0.offlineTimeoutMs = minute; $0.backgroundTimeoutMs = minute })
        try lock.engine.start()
        try lock.engine.enterBackground()
        lock.at(minute)
        #expect(lock.recorder.transitions.last == Transition(.locked, .offlineTimeout, minute))
    }

    /// inact_unlock_with: offline and too weak at once is OFFLINE; a failed unlock offline counts.
    @Test func offline_comes_before_weak_and_a_failure_offline_counts() throws {
        let rig = Rig(Self.quiet { $0.offlineTimeoutMs = hour; $0.strongAuthTimeoutMs = 0; $0.maxUnlockFailures = 2 })
        try rig.engine.start()
        try rig.engine.lock()
        rig.at(2 * hour)
        #expect(errorCode { try rig.engine.unlock(method: .biometric) } == .offline)
        #expect(errorCode { _ = try rig.engine.unlockFailed(method: .biometric) } == .weakAuth)
        #expect(try rig.engine.unlockFailed(method: .credential) == 1)
        #expect(try rig.engine.unlockFailed(method: .credential) == 2)
        #expect(rig.recorder.transitions.last == Transition(.expired, .unlockFailures, 2 * hour))
    }

    /// inact_start: a credential verification, a server contact, a new token family.
    @Test func a_sign_in_is_a_contact_and_a_credential_verification() throws {
        let rig = Rig(Self.quiet { $0.offlineTimeoutMs = hour; $0.strongAuthTimeoutMs = 10 * minute })
        try rig.engine.start()
        try rig.engine.tokenRotated(generation: 7)
        try rig.engine.biometricsChanged()
        rig.at(30 * minute)
        try rig.engine.end(reason: .logout)
        try rig.engine.start()
        let info = try rig.engine.info()
        #expect(info.lastServerContactMs == 30 * minute && info.lastCredentialMs == 30 * minute)
        #expect(info.strongAuthDeadlineMs == 40 * minute && info.tokenGeneration == 0)
    }

    /// inact_biometrics_changed: strong_auth_deadline_ms reads the last credential verification.
    @Test func after_a_biometrics_change_the_strong_auth_deadline_is_the_last_verification() throws {
        let rig = Rig(Self.quiet { $0.strongAuthTimeoutMs = SessionPolicy.never })
        #expect(try rig.engine.info().strongAuthDeadlineMs == SessionPolicy.never)
        try rig.engine.biometricsChanged()
        #expect(try rig.engine.info().strongAuthDeadlineMs == SessionPolicy.never)   // LOADING: none
        rig.at(5 * second)
        try rig.engine.start()
        rig.at(20 * second)
        try rig.engine.biometricsChanged()
        #expect(try rig.engine.info().strongAuthDeadlineMs == 5 * second)
        try rig.engine.lock()
        #expect(try rig.engine.requiredAuth() == .credential)
    }

    /// inact_restore: after an untrusted restore the reason is UNTRUSTED_CLOCK, never RESTART;
    /// and the offline expiry is judged on the wall-clock estimate like every expiry.
    @Test func an_untrusted_restore_keeps_its_reason_and_judges_the_offline_expiry() throws {
        let policy = Self.quiet { $0.lockOnRestart = true; $0.offlineExpiryMs = hour }
        let source = Rig(policy)
        try source.engine.start()
        let bytes = try source.engine.snapshot()
        let r = source.clock.now()
        let soon = Rig(policy, clock: try ManualClock(monotonicMs: 0, wallMs: r.wallMs + minute, bootID: r.bootID + 1))
        try soon.engine.restore(bytes)
        #expect(soon.state == .locked && soon.reason == .untrustedClock)
        let late = Rig(policy, clock: try ManualClock(monotonicMs: 0, wallMs: r.wallMs + 2 * hour, bootID: r.bootID + 1))
        try late.engine.restore(bytes)
        #expect(late.state == .expired && late.reason == .offlineExpiry)
    }
}
