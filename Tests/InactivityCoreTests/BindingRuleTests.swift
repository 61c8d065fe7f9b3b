import Testing
@testable import InactivityCore

/// The rules the bindings rely on, as include/inactivity.h states them (Conventions, "Rules a
/// host may rely on"): one test each, so that a binding's shortcut cannot outlive its rule.
@Suite("Rules the bindings rely on")
struct BindingRuleTests {
    /// A small deterministic generator (the walk must be the same on every run).
    struct Walk {
        var seed: UInt64
        mutating func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
    }

    static let policies: [SessionPolicy] = [
        smallPolicy(),
        smallPolicy { $0.activityDismissesWarning = true },
        smallPolicy { $0.activityDismissesWarning = true; $0.tickMs = 0 },
        smallPolicy { $0.warningMs = 0; $0.idleAction = .expire },
        smallPolicy { $0.pauseIdleInBackground = true; $0.activityDismissesWarning = true },
        smallPolicy { $0.offlineTimeoutMs = 20 * second; $0.strongAuthTimeoutMs = 15 * second },
        smallPolicy { $0.absoluteTimeoutMs = 25 * second; $0.activityDismissesWarning = true },
    ]

    static let kinds: [ActivityKind] = [.touchDown, .touchUp, .touchMove, .key, .scroll, .pointer, .programmatic]

    /// inact_activity never moves a deadline earlier: at the same instant, the next instant the
    /// engine must be evaluated (inact_next_deadline) and the time to the next lock or expiry
    /// are never earlier after an activity than before it, and the state is never stricter. The
    /// Python (engine.py) and JavaScript (index.js) bindings rely on it: their activity path
    /// does not re-arm the host's timer, which therefore fires at worst early (a harmless poll).
    @Test(arguments: 0..<policies.count)
    func activity_never_moves_a_deadline_earlier(policyIndex: Int) throws {
        let rig = Rig(Self.policies[policyIndex])
        var walk = Walk(seed: UInt64(policyIndex) + 1)
        var holds: [UInt64] = []
        var scopes: [UInt64] = []
        var checked = 0
        func check() throws {
            try rig.engine.poll()   // what was due is applied: the activity below applies only itself
            let before = try rig.engine.info()
            let kind = Self.kinds[walk.next(Self.kinds.count)]
            try rig.engine.recordActivity(kind)
            let after = try rig.engine.info()
            Self.expectNothingEarlier(before, after, kind)
            checked += 1
        }
        while checked < 200 {
            // An input of the session's life (each may be refused in the state it meets), time
            // passing in short steps (so that WARNING is met, not jumped over), or the check.
            switch walk.next(30) {
            case 0: _ = errorCode { try rig.engine.start() }
            case 1: _ = errorCode { try rig.engine.lock() }
            case 2: _ = errorCode { try rig.engine.unlock() }
            case 3: _ = errorCode { try rig.engine.enterBackground() }
            case 4: _ = errorCode { try rig.engine.enterForeground() }
            case 5: _ = errorCode { try rig.engine.windowShown() }
            case 6: _ = errorCode { try rig.engine.windowHidden() }
            case 7: if let id = try? rig.engine.acquireHold() { holds.append(id) }
            case 8: if let id = holds.popLast() { _ = errorCode { try rig.engine.releaseHold(id) } }
            case 9: if let id = try? rig.engine.pushScope(idleTimeoutMs: 5 * second) { scopes.append(id) }
            case 10: if let id = scopes.popLast() { _ = errorCode { try rig.engine.popScope(id) } }
            case 11: _ = errorCode { try rig.engine.serverContact() }
            case 12: _ = errorCode { try rig.engine.continueSession() }
            case 13..<28: rig.advance(Int64(walk.next(2_000)))
            default: try check()
            }
        }
        #expect(rig.recorder.transitions.contains { $0.state == .locked })
        // And in WARNING (which a random walk rarely meets: its activity keeps the session
        // ACTIVE), where activity may end the warning, with every kind.
        let policy = Self.policies[policyIndex]
        guard policy.warningMs > 0 else { return }
        for kind in Self.kinds {
            let warned = Rig(policy)
            try warned.engine.start()
            warned.at(policy.idleTimeoutMs - policy.warningMs)
            #expect(warned.state == .warning)
            let before = try warned.engine.info()
            try warned.engine.recordActivity(kind)
            Self.expectNothingEarlier(before, try warned.engine.info(), kind)
        }
    }

    static func expectNothingEarlier(_ before: InactivityEngine.Info, _ after: InactivityEngine.Info, _ kind: ActivityKind) {
        #expect(after.nowMs == before.nowMs)
        #expect(after.nextDeadlineMs >= before.nextDeadlineMs,
                "activity (\(kind.rawValue)) in \(before.state) moved the next deadline from \(before.nextDeadlineMs) to \(after.nextDeadlineMs)")
        #expect(after.remainingMs >= before.remainingMs,
                "activity (\(kind.rawValue)) in \(before.state) moved the next lock or expiry from \(before.remainingMs) to \(after.remainingMs) ms")
        #expect(Self.strictness(after.state) <= Self.strictness(before.state),
                "activity made \(before.state) into \(after.state)")
    }

    static func strictness(_ s: SessionState) -> Int {
        switch s {
        case .loading, .active: return 0
        case .warning: return 1
        case .locked: return 2
        case .expired: return 3
        }
    }
}
