import Testing
@testable import InactivityCore

@Suite("Policy")
struct PolicyTests {
    @Test func defaults_match_the_design_table() {
        let p = SessionPolicy()
        #expect(p.idleTimeoutMs == 15 * minute)
        #expect(p.warningMs == 30 * second)
        #expect(p.idleAction == .lock)
        #expect(p.backgroundTimeoutMs == 60 * second)
        #expect(p.absoluteTimeoutMs == 12 * hour)
        #expect(p.lockedTimeoutMs == SessionPolicy.never)
        #expect(p.maxUnlockFailures == 0)
        #expect(p.tickMs == 1 * second)
        #expect(p.backgroundGraceMs == 700)
        #expect(p.activityKinds == .user)
        #expect(!p.activityKinds.contains(.programmatic))
        #expect(!p.activityDismissesWarning)
        #expect(!p.pauseIdleInBackground)
        #expect(throws: Never.self) { try p.validate() }
    }

    @Test func presets_fill_the_named_standards() throws {
        let aal2 = SessionPolicy(preset: .nistAAL2)
        #expect(aal2.idleTimeoutMs == 30 * minute && aal2.absoluteTimeoutMs == 12 * hour)
        let aal3 = SessionPolicy(preset: .nistAAL3)
        #expect(aal3.idleTimeoutMs == 15 * minute && aal3.absoluteTimeoutMs == 12 * hour)
        let pci = SessionPolicy(preset: .pciDSS)
        #expect(pci.idleTimeoutMs == 15 * minute)
        let bank = SessionPolicy(preset: .banking)
        #expect(bank.idleTimeoutMs == 5 * minute && bank.backgroundTimeoutMs == 30 * second)
        #expect(bank.lockedTimeoutMs == 15 * minute && bank.maxUnlockFailures == 5)
        #expect(bank.warningMs == 30 * second && !bank.activityDismissesWarning && bank.absoluteTimeoutMs == 8 * hour)
        #expect(SessionPolicy(preset: .default) == SessionPolicy())
        for preset in SessionPolicy.Preset.allCases { try SessionPolicy(preset: preset).validate() }
    }

    @Test func validation_names_the_field_and_the_rule() {
        let cases: [((inout SessionPolicy) -> Void, String)] = [
        ({ (p: inout SessionPolicy) in p.idleTimeoutMs = 0 }, "policy.idle_timeout_ms (0) must be > 0"),
        ({ (p: inout SessionPolicy) in p.idleTimeoutMs = -5 }, "policy.idle_timeout_ms (-5) must be >= 0"),
        ({ (p: inout SessionPolicy) in p.warningMs = -1 }, "policy.warning_ms (-1) must be >= 0"),
        ({ (p: inout SessionPolicy) in p.warningMs = 15 * minute }, "policy.warning_ms (900000) must be shorter than policy.idle_timeout_ms (900000)"),
        ({ (p: inout SessionPolicy) in p.backgroundTimeoutMs = -1 }, "policy.background_timeout_ms (-1) must be >= 0"),
        ({ (p: inout SessionPolicy) in p.absoluteTimeoutMs = 0 }, "policy.absolute_timeout_ms (0) must be > 0"),
        ({ (p: inout SessionPolicy) in p.lockedTimeoutMs = -7 }, "policy.locked_timeout_ms (-7) must be >= 0"),
        ({ (p: inout SessionPolicy) in p.tickMs = SessionPolicy.never }, "policy.tick_ms cannot be INACT_NEVER"),
        ({ (p: inout SessionPolicy) in p.backgroundGraceMs = -2 }, "policy.background_grace_ms (-2) must be >= 0"),
        ({ (p: inout SessionPolicy) in p.absoluteTimeoutMs = SessionPolicy.never - 1 }, "policy.absolute_timeout_ms (9223372036854775806) must be at most 100 years"),
        ({ (p: inout SessionPolicy) in p.activityKinds = ActivityKind(rawValue: 0x180) }, "policy.activity_kinds (0x180) has unknown bits 0x180"),
        ]
        for (edit, expected) in cases {
            var p = SessionPolicy()
            edit(&p)
            do {
                try p.validate()
                Issue.record("accepted an invalid policy: \(expected)")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.message.hasPrefix(expected), "\(error.message)")
            }
        }
    }

    @Test func never_turns_timeouts_off() throws {
        var p = smallPolicy()
        p.idleTimeoutMs = SessionPolicy.never
        p.backgroundTimeoutMs = SessionPolicy.never
        p.absoluteTimeoutMs = SessionPolicy.never
        try p.validate()
        let rig = Rig(p)
        try rig.engine.start()
        try rig.engine.enterBackground()
        rig.advance(1000 * 24 * hour)
        #expect(rig.state == .active)
        #expect(try rig.engine.remainingMs() == SessionPolicy.never)
        #expect(try rig.engine.nextDeadlineDelayMs() == nil)
    }

    @Test func deadline_arithmetic_saturates() {
        #expect(deadline(.max - 5, plus: 10) == SessionPolicy.never)
        #expect(deadline(5, plus: SessionPolicy.never) == SessionPolicy.never)
        #expect(deadline(SessionPolicy.never, plus: 1) == SessionPolicy.never)
        #expect(deadline(100, plus: 20) == 120)
    }

    @Test func a_failed_set_policy_changes_nothing() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        var bad = smallPolicy()
        bad.warningMs = 20 * second
        #expect(errorCode { try rig.engine.setPolicy(bad) } == .invalidArgument)
        #expect(try rig.engine.policy() == smallPolicy())
        rig.at(7 * second)
        #expect(rig.state == .warning)
    }

    @Test func set_policy_rejects_a_warning_longer_than_an_open_scope() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        _ = try rig.engine.pushScope(idleTimeoutMs: 5 * second)
        var p = smallPolicy()
        p.warningMs = 6 * second
        #expect(errorMessage { try rig.engine.setPolicy(p) }?.contains("open scope") == true)
    }

    @Test func set_policy_recomputes_deadlines_at_once() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.at(6 * second)
        try rig.engine.setPolicy(smallPolicy { $0.idleTimeoutMs = 5 * second })
        // The new idle deadline (5 s) has passed: lock applies now, not at 5 s.
        #expect(rig.recorder.transitions.last == Transition(.locked, .idleTimeout, 6 * second))
    }
}
