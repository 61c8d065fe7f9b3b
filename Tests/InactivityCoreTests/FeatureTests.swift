// Issue 13's capabilities: unlock strength, expected interruptions, device lock, token
// generations, offline limits, managed ceilings, lock on restart, presets. Manual clock, exact.
import Testing
@testable import InactivityCore

@Suite("Unlock strength")
struct UnlockStrengthTests {
    static func locked(_ edit: (inout SessionPolicy) -> Void = { _ in }) -> Rig {
        let rig = Rig(smallPolicy { $0.strongAuthTimeoutMs = 30 * second; edit(&$0) })
        try! rig.engine.start()
        try! rig.engine.lock()
        return rig
    }

    @Test func a_biometric_unlocks_before_the_strong_auth_timeout() throws {
        let rig = UnlockStrengthTests.locked()
        #expect(try rig.engine.requiredAuth() == .biometric)
        #expect(rig.recorder.changes.last?.requiredAuth == .biometric)
        rig.at(29_999)
        try rig.engine.unlock(method: .biometric)
        #expect(rig.state == .active)
        // A biometric is not a credential verification: the strong-auth time still counts from 0.
        #expect(try rig.engine.info().lastCredentialMs == 0)
        #expect(try rig.engine.info().strongAuthDeadlineMs == 30 * second)
    }

    @Test func the_credential_is_required_from_the_strong_auth_timeout_exactly() throws {
        let rig = UnlockStrengthTests.locked()
        rig.at(30 * second)
        #expect(try rig.engine.requiredAuth() == .credential)
        let before = try rig.engine.info()
        #expect(errorCode { try rig.engine.unlock(method: .biometric) } == .weakAuth)
        #expect(errorMessage { try rig.engine.unlock(method: .biometric) }?.contains("policy.strong_auth_timeout_ms (30000)") == true)
        #expect(try rig.engine.info() == before, "a refused unlock changes nothing")
        try rig.engine.unlock(method: .credential)
        #expect(rig.state == .active)
        #expect(try rig.engine.info().lastCredentialMs == 30 * second)
        try rig.engine.lock()
        #expect(try rig.engine.requiredAuth() == .biometric, "a credential unlock restarts the strong-auth time")
    }

    @Test func the_event_carries_the_strength_at_its_evaluation() throws {
        let rig = Rig(smallPolicy { $0.strongAuthTimeoutMs = 8 * second })
        try rig.engine.start()
        rig.at(10 * second)   // idle lock at 10 s, past the strong-auth deadline at 8 s
        let lock = try #require(rig.recorder.changes.last)
        #expect(lock.state == .locked && lock.requiredAuth == .credential)
        #expect(rig.recorder.changes.first?.requiredAuth == AuthStrength.none, "ACTIVE needs nothing")
    }

    @Test func a_failed_weaker_attempt_is_refused_and_not_counted() throws {
        let rig = UnlockStrengthTests.locked { $0.maxUnlockFailures = 2 }
        rig.at(31 * second)
        #expect(errorCode { _ = try rig.engine.unlockFailed(method: .biometric) } == .weakAuth)
        #expect(try rig.engine.info().unlockFailures == 0)
        #expect(try rig.engine.unlockFailed(method: .credential) == 1)
        #expect(try rig.engine.unlockFailed(method: .credential) == 2)
        #expect(rig.state == .expired && rig.reason == .unlockFailures)
    }

    @Test func a_failed_biometric_counts_when_a_biometric_is_enough() throws {
        let rig = UnlockStrengthTests.locked { $0.maxUnlockFailures = 5 }
        #expect(try rig.engine.unlockFailed(method: .biometric) == 1)
    }

    @Test func changed_biometrics_require_the_credential_until_it_is_verified() throws {
        let rig = UnlockStrengthTests.locked { $0.strongAuthTimeoutMs = SessionPolicy.never }
        #expect(try rig.engine.requiredAuth() == .biometric)
        try rig.engine.biometricsChanged()
        #expect(try rig.engine.requiredAuth() == .credential)
        #expect(errorMessage { try rig.engine.unlock(method: .biometric) }?.contains("biometrics changed") == true)
        try rig.engine.unlock(method: .credential)
        try rig.engine.lock()
        #expect(try rig.engine.requiredAuth() == .biometric)
    }

    @Test func strong_auth_zero_always_requires_the_credential() throws {
        let rig = UnlockStrengthTests.locked { $0.strongAuthTimeoutMs = 0 }
        #expect(try rig.engine.requiredAuth() == .credential)
    }

    @Test func the_method_must_be_a_method() throws {
        let rig = UnlockStrengthTests.locked()
        #expect(errorCode { try rig.engine.unlock(method: .none) } == .invalidArgument)
        #expect(errorMessage { try rig.engine.unlock(method: .none) }?.hasPrefix("method (0)") == true)
        #expect(rig.state == .locked)
    }

    @Test func not_locked_requires_nothing() throws {
        let rig = Rig(smallPolicy { $0.strongAuthTimeoutMs = 0 })
        #expect(try rig.engine.requiredAuth() == AuthStrength.none)
        try rig.engine.start()
        #expect(try rig.engine.requiredAuth() == AuthStrength.none)
        #expect(errorCode { try rig.engine.unlock(method: .biometric) } == .invalidState)
    }
}

@Suite("Expected interruption")
struct ExpectedInterruptionTests {
    /// Background timeout 0 (lock on entering background), idle 10 s.
    static func rig() -> Rig {
        let rig = Rig(smallPolicy { $0.backgroundTimeoutMs = 0; $0.expectedInterruptionMaxMs = 20 * second })
        try! rig.engine.start()
        return rig
    }

    @Test func a_background_within_the_announcement_does_not_lock() throws {
        let rig = ExpectedInterruptionTests.rig()
        try rig.engine.expectInterruption(maxMs: 5 * second)
        #expect(try rig.engine.info().interruptionUntilMs == 5 * second)
        rig.at(1 * second)
        try rig.engine.enterBackground()
        rig.at(4_999)
        #expect(rig.state == .active)
        try rig.engine.enterForeground()
        #expect(rig.state == .active)
        // Used once: the next background locks at once.
        try rig.engine.enterBackground()
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 4_999))
    }

    @Test func a_background_past_the_announcement_locks_at_its_end() throws {
        let rig = ExpectedInterruptionTests.rig()
        try rig.engine.expectInterruption(maxMs: 5 * second)
        rig.at(1 * second)
        try rig.engine.enterBackground()
        rig.at(5 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 5 * second))
    }

    @Test func the_background_timeout_still_counts_from_the_background_start() throws {
        let rig = Rig(smallPolicy { $0.backgroundTimeoutMs = 4 * second })
        try rig.engine.start()
        try rig.engine.expectInterruption(maxMs: 2 * second)
        try rig.engine.enterBackground()
        rig.at(4 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 4 * second))
    }

    @Test func an_unused_announcement_lapses() throws {
        let rig = ExpectedInterruptionTests.rig()
        try rig.engine.expectInterruption(maxMs: 2 * second)
        rig.at(2_001)
        #expect(try rig.engine.info().interruptionUntilMs == SessionPolicy.never)
        try rig.engine.enterBackground()
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 2_001))
    }

    @Test func it_never_suspends_the_idle_timeout() throws {
        let rig = ExpectedInterruptionTests.rig()
        rig.at(5 * second)
        try rig.engine.expectInterruption(maxMs: 20 * second)
        try rig.engine.enterBackground()
        rig.at(10 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .idleTimeout, 10 * second))
        #expect(try rig.engine.info().interruptionUntilMs == SessionPolicy.never, "dropped when the session locks")
    }

    @Test func the_window_grace_path_is_covered_too() throws {
        let rig = ExpectedInterruptionTests.rig()
        try rig.engine.windowShown()
        try rig.engine.expectInterruption(maxMs: 3 * second)
        try rig.engine.windowHidden()
        rig.at(2 * second)
        #expect(rig.state == .active)
        try rig.engine.windowShown()
        rig.at(6 * second)
        #expect(rig.state == .active)
    }

    @Test func bad_announcements_change_nothing() throws {
        let rig = ExpectedInterruptionTests.rig()
        #expect(errorMessage { try rig.engine.expectInterruption(maxMs: -1) }?.hasPrefix("max_ms (-1)") == true)
        #expect(errorMessage { try rig.engine.expectInterruption(maxMs: 20_001) }?.contains("policy.expected_interruption_max_ms (20000)") == true)
        try rig.engine.enterBackground()
        rig.recorder.clear()
        let rig2 = Rig(smallPolicy { $0.backgroundTimeoutMs = SessionPolicy.never })
        try rig2.engine.start()
        try rig2.engine.enterBackground()
        #expect(errorCode { try rig2.engine.expectInterruption(maxMs: 1_000) } == .invalidState)
        #expect(try rig2.engine.info().interruptionUntilMs == SessionPolicy.never)
    }

    @Test func zero_withdraws_and_a_zero_cap_refuses() throws {
        let rig = ExpectedInterruptionTests.rig()
        try rig.engine.expectInterruption(maxMs: 5 * second)
        try rig.engine.expectInterruption(maxMs: 0)
        try rig.engine.enterBackground()
        #expect(rig.state == .locked)
        let off = Rig(smallPolicy { $0.expectedInterruptionMaxMs = 0 })
        try off.engine.start()
        #expect(errorCode { try off.engine.expectInterruption(maxMs: 1) } == .invalidArgument)
    }

    @Test(arguments: SessionState.allCases)
    func allowed_only_in_active_and_warning(state: SessionState) throws {
        let rig = InputTableTests.rig(in: state)
        let before = try rig.engine.info()
        let code = errorCode { try rig.engine.expectInterruption(maxMs: 1_000) }
        if state == .active || state == .warning {
            #expect(code == nil)
        } else {
            #expect(code == .invalidState)
            #expect(try rig.engine.info() == before)
        }
    }
}

@Suite("Device lock")
struct DeviceLockTests {
    @Test func with_the_policy_flag_the_session_locks_at_once() throws {
        let rig = Rig(smallPolicy { $0.lockOnDeviceLock = true })
        try rig.engine.start()
        rig.at(2 * second)
        try rig.engine.deviceLocked()
        #expect(rig.recorder.transitions.last == Transition(.locked, .deviceLocked, 2 * second))
        #expect(try rig.engine.info().inBackground)
    }

    @Test func without_it_background_time_starts() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.at(2 * second)
        try rig.engine.deviceLocked()
        #expect(rig.state == .active)
        #expect(try rig.engine.info().backgroundSinceMs == 2 * second)
        rig.at(7 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 7 * second))
    }

    @Test func it_cancels_an_expected_interruption() throws {
        let rig = Rig(smallPolicy { $0.backgroundTimeoutMs = 0 })
        try rig.engine.start()
        try rig.engine.expectInterruption(maxMs: 5 * second)
        try rig.engine.deviceLocked()
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 0))
    }

    @Test(arguments: SessionState.allCases)
    func allowed_in_every_state(state: SessionState) throws {
        let rig = InputTableTests.rig(in: state)
        try rig.engine.setPolicy(smallPolicy { $0.lockOnDeviceLock = true })
        try rig.engine.deviceLocked()
        let expected: SessionState = state == .active || state == .warning ? .locked : state
        #expect(rig.state == expected)
    }
}

@Suite("Token generations")
struct TokenGenerationTests {
    @Test func invalid_grant_from_an_older_generation_is_stale() throws {
        let rig = InputTableTests.rig(in: .active)
        #expect(try rig.engine.refreshResult(httpStatus: 200, generation: 1) == .ok)
        try rig.engine.tokenRotated(generation: 2)
        let before = try rig.engine.info()
        #expect(try rig.engine.refreshResult(httpStatus: 400, oauthError: "invalid_grant", generation: 1) == .stale)
        #expect(try rig.engine.refreshResult(httpStatus: 401, oauthError: "invalid_grant", generation: 1) == .stale)
        #expect(try rig.engine.info() == before)
        #expect(try rig.engine.refreshResult(httpStatus: 400, oauthError: "invalid_grant", generation: 2) == .revoked)
        #expect(rig.state == .expired && rig.reason == .revoked)
    }

    @Test func a_result_never_moves_the_newest_generation() throws {
        // An uninitialised generation in one result must not make every later revocation STALE.
        let rig = InputTableTests.rig(in: .active)
        #expect(try rig.engine.refreshResult(httpStatus: 200, generation: .max) == .ok)
        #expect(try rig.engine.refreshResult(httpStatus: 503, generation: 7) == .retry)
        #expect(try rig.engine.info().tokenGeneration == 0)
        #expect(try rig.engine.refreshResult(httpStatus: 400, oauthError: "invalid_grant", generation: 6) == .revoked)
        #expect(rig.state == .expired && rig.reason == .revoked)
    }

    @Test func a_plain_401_always_revokes() throws {
        let rig = InputTableTests.rig(in: .active)
        try rig.engine.tokenRotated(generation: 5)
        #expect(try rig.engine.refreshResult(httpStatus: 401, generation: 4) == .revoked)
        #expect(rig.state == .expired && rig.reason == .revoked)
    }

    @Test func generation_zero_is_not_tracked() throws {
        let rig = InputTableTests.rig(in: .active)
        try rig.engine.tokenRotated(generation: 5)
        #expect(try rig.engine.refreshResult(httpStatus: 400, oauthError: "invalid_grant", generation: 0) == .revoked)
    }

    @Test func rotations_never_go_back_and_a_sign_in_starts_a_new_family() throws {
        let rig = InputTableTests.rig(in: .active)
        try rig.engine.tokenRotated(generation: 5)
        #expect(errorMessage { try rig.engine.tokenRotated(generation: 4) } == "generation (4) is older than the newest generation seen (5)")
        #expect(try rig.engine.info().tokenGeneration == 5)
        try rig.engine.end(reason: .logout)
        try rig.engine.start()
        #expect(try rig.engine.info().tokenGeneration == 0)
    }
}

@Suite("Offline limits")
struct OfflineTests {
    static func rig(_ edit: (inout SessionPolicy) -> Void = { _ in }) -> Rig {
        let rig = Rig(smallPolicy {
            $0.idleTimeoutMs = SessionPolicy.never
            $0.warningMs = 0
            $0.absoluteTimeoutMs = SessionPolicy.never
            $0.offlineTimeoutMs = 20 * second
            $0.offlineExpiryMs = 60 * second
            edit(&$0)
        })
        try! rig.engine.start()
        return rig
    }

    @Test func no_contact_for_the_offline_timeout_locks_and_unlock_waits_for_contact() throws {
        let rig = OfflineTests.rig()
        rig.at(20 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .offlineTimeout, 20 * second))
        #expect(try rig.engine.info().needsServerContact)
        let before = try rig.engine.info()
        #expect(errorCode { try rig.engine.unlock() } == .offline)
        #expect(try rig.engine.info() == before)
        try rig.engine.serverContact()
        #expect(rig.state == .locked, "a contact does not unlock by itself")
        try rig.engine.unlock()
        #expect(rig.state == .active)
    }

    @Test func contact_restarts_both_deadlines() throws {
        let rig = OfflineTests.rig()
        rig.at(15 * second)
        #expect(try rig.engine.refreshResult(httpStatus: 204) == .ok)
        #expect(try rig.engine.info().lastServerContactMs == 15 * second)
        rig.at(34_999)
        #expect(rig.state == .active)
        try rig.engine.serverContact()
        rig.at(54_998)
        #expect(rig.state == .active)
        rig.at(54_999)
        #expect(rig.recorder.transitions.last == Transition(.locked, .offlineTimeout, 54_999))
    }

    @Test func a_failed_refresh_is_not_contact() throws {
        let rig = OfflineTests.rig()
        rig.at(10 * second)
        _ = try rig.engine.refreshResult(httpStatus: 503)
        _ = try rig.engine.refreshResult(httpStatus: 403)
        rig.at(20 * second)
        #expect(rig.state == .locked)
    }

    @Test func the_offline_expiry_ends_the_session_also_when_locked() throws {
        let rig = OfflineTests.rig()
        rig.at(60 * second)
        #expect(rig.recorder.transitions.last == Transition(.expired, .offlineExpiry, 60 * second))
    }

    @Test func a_frozen_process_catches_up_in_order() throws {
        let rig = OfflineTests.rig()
        rig.freezeThenPoll(2 * 60 * second)
        #expect(rig.recorder.transitions == [Transition(.active, .started, 0), Transition(.expired, .offlineExpiry, 60 * second)])
    }

    @Test func a_lock_for_another_reason_also_waits_for_contact_past_the_timeout() throws {
        let rig = OfflineTests.rig()
        try rig.engine.lock()
        rig.at(25 * second)
        #expect(rig.reason == .manualLock)
        #expect(errorCode { try rig.engine.unlock(method: .biometric) } == .offline)
        // A wrong PIN is still a wrong PIN.
        #expect(try rig.engine.unlockFailed() == 1)
    }

    @Test func zero_is_not_an_offline_timeout() throws {
        var p = SessionPolicy()
        p.offlineTimeoutMs = 0
        #expect(errorMessage { try p.validate() } == "policy.offline_timeout_ms (0) must be > 0")
        p = SessionPolicy()
        p.offlineExpiryMs = -5
        #expect(errorMessage { try p.validate() } == "policy.offline_expiry_ms (-5) must be >= 0")
    }
}

@Suite("Managed ceilings")
struct CeilingTests {
    static func ceilings() -> PolicyCeilings {
        var c = PolicyCeilings()
        c.idleTimeoutMs = 5 * minute
        c.maxUnlockFailures = 5
        c.lockOnRestart = true
        return c
    }

    @Test func a_laxer_policy_is_refused_naming_the_field_and_the_limit() throws {
        let rig = InputTableTests.rig(in: .active)
        try rig.engine.setCeilings(CeilingTests.ceilings())
        var p = try rig.engine.policy()
        let before = try rig.engine.info()
        p.idleTimeoutMs = 6 * minute
        #expect(errorCode { try rig.engine.setPolicy(p) } == .ceiling)
        #expect(errorMessage { try rig.engine.setPolicy(p) } == "policy.idle_timeout_ms (360000) exceeds the managed ceiling (300000)")
        p.idleTimeoutMs = 5 * minute
        p.maxUnlockFailures = 0
        #expect(errorMessage { try rig.engine.setPolicy(p) }?.hasPrefix("policy.max_unlock_failures (0) exceeds the managed ceiling (5") == true)
        p.maxUnlockFailures = 3
        p.lockOnRestart = false
        #expect(errorMessage { try rig.engine.setPolicy(p) }?.hasPrefix("policy.lock_on_restart (0) must be 1") == true)
        #expect(try rig.engine.info() == before)
        p.lockOnRestart = true
        try rig.engine.setPolicy(p)
    }

    @Test func presets_are_held_to_them_too() throws {
        let rig = InputTableTests.rig(in: .active)
        var c = PolicyCeilings()
        c.idleTimeoutMs = 10 * minute
        try rig.engine.setCeilings(c)
        #expect(errorCode { try rig.engine.setPolicy(SessionPolicy(preset: .enterprise)) } == .ceiling)
        try rig.engine.setPolicy(SessionPolicy(preset: .psd2))
    }

    @Test func setting_them_tightens_the_current_policy_at_once() throws {
        let rig = Rig(smallPolicy { $0.idleTimeoutMs = 60 * second; $0.warningMs = 0 })
        try rig.engine.start()
        rig.at(10 * second)
        var c = PolicyCeilings()
        c.idleTimeoutMs = 10 * second
        try rig.engine.setCeilings(c)
        #expect(try rig.engine.policy().idleTimeoutMs == 10 * second)
        #expect(try rig.engine.ceilings() == c)
        #expect(rig.recorder.transitions.last == Transition(.locked, .idleTimeout, 10 * second))
    }

    @Test func ceilings_that_would_make_the_policy_invalid_change_nothing() throws {
        let rig = InputTableTests.rig(in: .active)   // warning 3 s
        var c = PolicyCeilings()
        c.idleTimeoutMs = 2 * second
        #expect(errorMessage { try rig.engine.setCeilings(c) }?.contains("policy.warning_ms (3000) must be shorter") == true)
        #expect(try rig.engine.ceilings() == PolicyCeilings())
        #expect(try rig.engine.policy() == smallPolicy())
        c.idleTimeoutMs = -1
        #expect(errorMessage { try rig.engine.setCeilings(c) }?.hasPrefix("ceilings.idle_timeout_ms (-1)") == true)
    }

    @Test func never_exceeds_every_finite_limit() throws {
        var c = PolicyCeilings()
        c.offlineTimeoutMs = 720 * minute
        #expect(errorMessage { try c.check(SessionPolicy()) } == "policy.offline_timeout_ms (INACT_NEVER) exceeds the managed ceiling (43200000)")
        try c.check(SessionPolicy(preset: .enterprise))
    }

    @Test func snapshots_do_not_carry_them() throws {
        let rig = InputTableTests.rig(in: .active)
        try rig.engine.setCeilings(CeilingTests.ceilings())
        let bytes = try rig.engine.snapshot()
        let other = Rig(smallPolicy())
        try other.engine.restore(bytes)
        #expect(try other.engine.ceilings() == PolicyCeilings())
    }
}

@Suite("Lock on restart and snapshot format 2")
struct RestartTests {
    static func snapshot(_ policy: SessionPolicy, _ body: (Rig) throws -> Void = { _ in }) throws -> [UInt8] {
        let rig = Rig(policy)
        try rig.engine.start()
        try body(rig)
        return try rig.engine.snapshot()
    }

    @Test func every_cold_start_is_locked_at_least() throws {
        let policy = smallPolicy { $0.lockOnRestart = true }
        let bytes = try RestartTests.snapshot(policy)
        let rig = Rig(policy)
        try rig.engine.restore(bytes)
        #expect(rig.recorder.transitions == [Transition(.locked, .restart, 0)])
        // An expired snapshot stays expired.
        let ended = try RestartTests.snapshot(policy) { try $0.engine.end(reason: .logout) }
        let rig2 = Rig(policy)
        try rig2.engine.restore(ended)
        #expect(rig2.state == .expired && rig2.reason == .restored)
    }

    @Test func a_locked_snapshot_keeps_its_reason() throws {
        let policy = smallPolicy { $0.lockOnRestart = true }
        let bytes = try RestartTests.snapshot(policy) { try $0.engine.lock() }
        let rig = Rig(policy)
        try rig.engine.restore(bytes)
        #expect(rig.state == .locked && rig.reason == .restored)
    }

    @Test func format_2_keeps_credential_contact_generation_and_the_biometrics_flag() throws {
        let policy = smallPolicy { $0.strongAuthTimeoutMs = 30 * second; $0.offlineTimeoutMs = 40 * second }
        let bytes = try RestartTests.snapshot(policy) { rig in
            rig.at(2 * second)
            try rig.engine.lock()
            try rig.engine.unlock(method: .credential)
            rig.at(3 * second)
            try rig.engine.serverContact()
            try rig.engine.tokenRotated(generation: 9)
            try rig.engine.biometricsChanged()
            try rig.engine.enterBackground()
        }
        #expect(bytes.count == 96)
        let decoded = try Snapshot.decode(bytes)
        #expect(decoded.lastCredentialAt == 2 * second && decoded.lastContactAt == 3 * second)
        #expect(decoded.newestGeneration == 9 && decoded.credentialRequired)
        let rig = Rig(policy, clock: try ManualClock(monotonicMs: 3 * second))
        try rig.engine.restore(bytes)
        let info = try rig.engine.info()
        #expect(info.lastCredentialMs == 2 * second && info.lastServerContactMs == 3 * second)
        #expect(info.tokenGeneration == 9)
        try rig.engine.lock()
        #expect(try rig.engine.requiredAuth() == .credential)
    }

    /// A format-1 snapshot as the previous library wrote it: ACTIVE, started at 1 s, last
    /// activity 2 s, taken at 2 s.
    static func version1() -> [UInt8] {
        var out = [UInt8]()
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        out.append(contentsOf: Array("INAS".utf8))
        put(UInt16(1)); put(UInt8(1)); put(UInt8(Reason.started.rawValue)); put(UInt32(0)); put(UInt32(0))
        put(Int64(1_000)); put(Int64(2_000)); put(Int64(0)); put(Int64(0))
        put(UInt64(1)); put(Int64(2_000)); put(Int64(1_700_000_002_000))
        put(Snapshot.checksum(out[...]))
        return out
    }

    @Test func format_1_still_restores_with_the_strictest_missing_fields() throws {
        let bytes = RestartTests.version1()
        #expect(bytes.count == 80)
        let rig = Rig(smallPolicy { $0.strongAuthTimeoutMs = 1_500; $0.backgroundTimeoutMs = SessionPolicy.never },
                      clock: try ManualClock(monotonicMs: 2_000, wallMs: 1_700_000_002_000))
        try rig.engine.restore(bytes)
        #expect(rig.state == .active && rig.reason == .restored)
        let info = try rig.engine.info()
        #expect(info.lastCredentialMs == 1_000 && info.lastServerContactMs == 1_000 && info.tokenGeneration == 0)
        try rig.engine.lock()
        #expect(try rig.engine.requiredAuth() == .biometric)
        rig.at(2_500)
        #expect(try rig.engine.requiredAuth() == .credential, "the credential counts from the session start")
        // Version 1 knows no flag bit 2.
        var flagged = bytes
        flagged[12] = 4
        let sum = Snapshot.checksum(flagged[0..<72])
        withUnsafeBytes(of: sum.littleEndian) { for i in 0..<8 { flagged[72 + i] = $0[i] } }
        #expect(errorCode { _ = try Snapshot.decode(flagged) } == .snapshotInvalid)
    }

    @Test func an_untrusted_restore_requires_the_credential_when_strength_is_limited() throws {
        let policy = smallPolicy { $0.strongAuthTimeoutMs = 1 * hour }
        let source = Rig(policy)
        try source.engine.start()
        let bytes = try source.engine.snapshot()
        try source.clock.reboot(downtimeMs: 1 * second)
        let r = source.clock.now()
        let rig = Rig(policy, clock: try ManualClock(monotonicMs: r.monotonicMs, wallMs: r.wallMs, bootID: r.bootID))
        try rig.engine.restore(bytes)
        #expect(rig.state == .locked && rig.reason == .untrustedClock)
        #expect(try rig.engine.requiredAuth() == .credential)
    }

    @Test func a_contact_reported_in_loading_survives_the_restore() throws {
        let policy = smallPolicy { $0.offlineTimeoutMs = 10 * second; $0.backgroundTimeoutMs = SessionPolicy.never;
                                    $0.idleTimeoutMs = SessionPolicy.never; $0.warningMs = 0 }
        let bytes = try RestartTests.snapshot(policy)
        let rig = Rig(policy, clock: try ManualClock(monotonicMs: 0))
        rig.at(9 * second)
        try rig.engine.serverContact()
        try rig.engine.restore(bytes)
        #expect(try rig.engine.info().lastServerContactMs == 9 * second)
    }

    // Found by verify/fuzz/inact_fuzz.c (model reading of "as if the process had been awake"): a
    // contact reported in LOADING counted before the catch-up, so an offline expiry (or lock)
    // that fell due while the process was dead never applied: "restore: LOADING -> LOCKED
    // (IDLE_TIMEOUT) time 10000; the model expects LOADING -> EXPIRED (OFFLINE_EXPIRY) time 10000".
    @Test func a_contact_in_loading_does_not_undo_an_offline_deadline_that_fell_due_before_it() throws {
        let policy = smallPolicy { $0.offlineExpiryMs = 10 * second; $0.backgroundTimeoutMs = SessionPolicy.never }
        let bytes = try RestartTests.snapshot(policy)   // started and taken at 0
        for contactFirst in [true, false] {
            let rig = Rig(policy, clock: try ManualClock(monotonicMs: 20 * second))
            if contactFirst { try rig.engine.serverContact() }
            try rig.engine.restore(bytes)
            if !contactFirst { try rig.engine.serverContact() }
            #expect(rig.state == .expired && rig.reason == .offlineExpiry, "contact first: \(contactFirst)")
            #expect(rig.recorder.transitions.last == Transition(.expired, .offlineExpiry, 10 * second))
        }
        // A contact before the deadline still counts from its instant: no offline lock at 5 s.
        let locking = smallPolicy { $0.offlineTimeoutMs = 5 * second; $0.backgroundTimeoutMs = SessionPolicy.never;
                                     $0.idleTimeoutMs = SessionPolicy.never; $0.warningMs = 0 }
        let snap = try RestartTests.snapshot(locking)
        let rig = Rig(locking, clock: try ManualClock(monotonicMs: 4 * second))
        try rig.engine.serverContact()
        rig.at(8 * second)
        try rig.engine.restore(snap)
        #expect(rig.state == .active && rig.reason == .restored)
        rig.at(9 * second)
        #expect(rig.state == .locked && rig.reason == .offlineTimeout)
        #expect(rig.recorder.transitions.last == Transition(.locked, .offlineTimeout, 9 * second))
    }

    @Test func times_outside_the_session_are_invalid() throws {
        var bytes = try RestartTests.snapshot(smallPolicy())
        SnapshotTests.put(5_000, at: 64, in: &bytes)   // credential after the snapshot clock (0)
        let sum = Snapshot.checksum(bytes[0..<88])
        withUnsafeBytes(of: sum.littleEndian) { for i in 0..<8 { bytes[88 + i] = $0[i] } }
        #expect(errorMessage { _ = try Snapshot.decode(bytes) }?.hasPrefix("snapshot last credential verification (5000)") == true)
    }
}

@Suite("Presets with sources")
struct FeaturePresetTests {
    @Test func psd2() throws {
        let p = SessionPolicy(preset: .psd2)
        #expect(p.idleTimeoutMs == 5 * minute && p.maxUnlockFailures == 5)
        #expect(p.backgroundTimeoutMs <= p.idleTimeoutMs)
        try p.validate()
    }

    @Test func enterprise() throws {
        let p = SessionPolicy(preset: .enterprise)
        #expect(p.idleTimeoutMs == 30 * minute && p.strongAuthTimeoutMs == 30 * minute)
        #expect(p.offlineTimeoutMs == 720 * minute && p.offlineExpiryMs == 90 * 24 * hour)
        #expect(p.maxUnlockFailures == 5)
        try p.validate()
    }
}
