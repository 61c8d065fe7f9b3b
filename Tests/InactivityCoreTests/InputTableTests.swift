import Testing
@testable import InactivityCore

/// Every row of DESIGN.md's input table, in every state: allowed inputs succeed, refused ones
/// return invalidState and change nothing.
@Suite("Input table")
struct InputTableTests {
    /// Brings a fresh engine to `state`.
    static func rig(in state: SessionState) -> Rig {
        let rig = Rig(smallPolicy())
        switch state {
        case .loading: break
        case .active: try! rig.engine.start()
        case .warning: try! rig.engine.start(); rig.at(7 * second)
        case .locked: try! rig.engine.start(); try! rig.engine.lock()
        case .expired: try! rig.engine.start(); try! rig.engine.end(reason: .logout)
        }
        #expect(rig.state == state)
        rig.recorder.clear()
        return rig
    }

    /// The states the design allows each state-restricted input in.
    static let restricted: [(String, Set<SessionState>, @Sendable (InactivityEngine) throws -> Void)] = [
        ("start", [.loading, .expired], { try $0.start() }),
        ("continue", [.warning], { try $0.continueSession() }),
        ("lock", [.active, .warning, .locked], { try $0.lock() }),
        ("unlock", [.locked], { try $0.unlock() }),
        ("unlock failed", [.locked], { _ = try $0.unlockFailed() }),
    ]

    @Test(arguments: SessionState.allCases)
    func restricted_inputs_follow_the_table(state: SessionState) throws {
        for (name, allowed, call) in InputTableTests.restricted {
            let rig = InputTableTests.rig(in: state)
            let before = try rig.engine.info()
            let code = errorCode { try call(rig.engine) }
            if allowed.contains(state) {
                #expect(code == nil, "\(name) in \(state)")
            } else {
                #expect(code == .invalidState, "\(name) in \(state)")
                #expect(try rig.engine.info() == before, "\(name) in \(state) changed the engine")
                #expect(rig.recorder.events.isEmpty)
            }
        }
    }

    @Test(arguments: SessionState.allCases)
    func inputs_allowed_in_every_state_succeed(state: SessionState) throws {
        let calls: [(String, (InactivityEngine) throws -> Void)] = [
            ("activity", { try $0.recordActivity(.key) }),
            ("refresh", { _ = try $0.refreshResult(httpStatus: 503) }),
            ("background", { try $0.enterBackground() }),
            ("foreground", { try $0.enterForeground() }),
            ("window shown", { try $0.windowShown() }),
            ("window hidden", { try $0.windowShown(); try $0.windowHidden() }),
            ("scope", { let id = try $0.pushScope(idleTimeoutMs: 8 * second); try $0.popScope(id) }),
            ("hold", { let id = try $0.acquireHold(); try $0.releaseHold(id) }),
            ("set policy", { try $0.setPolicy(smallPolicy()) }),
        ]
        for (name, call) in calls {
            let rig = InputTableTests.rig(in: state)
            #expect(errorCode { try call(rig.engine) } == nil, "\(name) in \(state)")
        }
    }

    @Test(arguments: SessionState.allCases)
    func end_expires_every_state_and_is_a_no_op_in_expired(state: SessionState) throws {
        let rig = InputTableTests.rig(in: state)
        try rig.engine.end(reason: .passwordChanged)
        #expect(rig.state == .expired)
        if state == .expired {
            #expect(rig.recorder.events.isEmpty)
            #expect(rig.reason == .logout)
        } else {
            #expect(rig.recorder.transitions == [Transition(.expired, .passwordChanged, rig.now)])
        }
    }

    @Test func end_accepts_only_ending_reasons() throws {
        let rig = InputTableTests.rig(in: .active)
        #expect(errorCode { try rig.engine.end(reason: .idleTimeout) } == .invalidArgument)
        #expect(rig.state == .active)
    }

    @Test func restore_is_allowed_only_in_loading() throws {
        let source = InputTableTests.rig(in: .active)
        let bytes = try source.engine.snapshot()
        for state in SessionState.allCases where state != .loading {
            let rig = InputTableTests.rig(in: state)
            #expect(errorCode { try rig.engine.restore(bytes) } == .invalidState)
            #expect(rig.state == state)
            // Corrupt bytes are not even looked at outside LOADING: nothing changes.
            #expect(errorCode { try rig.engine.restore([1, 2, 3]) } == .invalidState)
            #expect(rig.state == state)
        }
    }

    @Test func start_begins_the_absolute_lifetime_now() throws {
        let rig = Rig(smallPolicy { $0.absoluteTimeoutMs = 20 * second; $0.idleTimeoutMs = SessionPolicy.never })
        rig.at(5 * second)
        try rig.engine.start()
        rig.at(24_999)
        #expect(rig.state == .active)
        rig.at(25 * second)
        #expect(rig.recorder.transitions.last == Transition(.expired, .absoluteTimeout, 25 * second))
    }

    @Test func lock_in_locked_is_a_silent_success() throws {
        let rig = InputTableTests.rig(in: .locked)
        try rig.engine.lock()
        #expect(rig.recorder.events.isEmpty)
        #expect(rig.reason == .manualLock)
    }

    @Test func unlock_resets_failures_and_activity_but_not_the_absolute_lifetime() throws {
        let rig = Rig(smallPolicy { $0.absoluteTimeoutMs = 30 * second; $0.maxUnlockFailures = 3 })
        try rig.engine.start()
        try rig.engine.lock()
        #expect(try rig.engine.unlockFailed() == 1)
        #expect(try rig.engine.unlockFailed() == 2)
        rig.at(25 * second)
        try rig.engine.unlock()
        #expect(try rig.engine.info().unlockFailures == 0)
        #expect(try rig.engine.info().lastActivityMs == 25 * second)
        rig.at(30 * second)
        #expect(rig.recorder.transitions.last == Transition(.expired, .absoluteTimeout, 30 * second))
    }

    @Test func unlock_failures_at_the_limit_expire() throws {
        let rig = Rig(smallPolicy { $0.maxUnlockFailures = 3 })
        try rig.engine.start()
        try rig.engine.lock()
        _ = try rig.engine.unlockFailed()
        _ = try rig.engine.unlockFailed()
        #expect(rig.state == .locked)
        #expect(try rig.engine.unlockFailed() == 3)
        #expect(rig.recorder.transitions.last == Transition(.expired, .unlockFailures, 0))
    }

    @Test func unlimited_unlock_failures_never_expire() throws {
        let rig = InputTableTests.rig(in: .locked)
        for _ in 0..<100 { _ = try rig.engine.unlockFailed() }
        #expect(rig.state == .locked)
    }

    @Test(arguments: [
        (Int32(200), nil as String?, RefreshOutcome.ok), (204, nil, .ok),
        (401, nil, .revoked), (400, "invalid_grant", .revoked), (400, "invalid_request", .failed),
        (0, nil, .retry), (408, nil, .retry), (429, nil, .retry), (500, nil, .retry), (503, nil, .retry),
        (599, nil, .retry), (403, nil, .failed), (404, nil, .failed), (302, nil, .failed),
    ])
    func refresh_results_are_classified(status: Int32, oauthError: String?, expected: RefreshOutcome) throws {
        let rig = InputTableTests.rig(in: .active)
        #expect(try rig.engine.refreshResult(httpStatus: status, oauthError: oauthError) == expected)
        #expect(rig.state == (expected == .revoked ? .expired : .active))
        if expected == .revoked { #expect(rig.reason == .revoked) }
    }

    @Test func a_network_error_never_ends_a_session() throws {
        for state in SessionState.allCases {
            let rig = InputTableTests.rig(in: state)
            #expect(try rig.engine.refreshResult(httpStatus: 0) == .retry)
            #expect(rig.state == state)
        }
    }

    @Test func refresh_rejects_impossible_statuses() throws {
        let rig = InputTableTests.rig(in: .active)
        for status: Int32 in [-1, 1, 99, 600, 1000] {
            #expect(errorMessage { _ = try rig.engine.refreshResult(httpStatus: status) }?.hasPrefix("http_status (\(status))") == true)
        }
        #expect(rig.state == .active)
    }

    @Test func revoked_in_loading_expires() throws {
        let rig = InputTableTests.rig(in: .loading)
        #expect(try rig.engine.refreshResult(httpStatus: 401) == .revoked)
        #expect(rig.recorder.transitions == [Transition(.expired, .revoked, 0)])
    }

    @Test func start_again_after_expiry() throws {
        let rig = InputTableTests.rig(in: .expired)
        rig.at(3 * second)
        try rig.engine.start()
        #expect(rig.recorder.transitions == [Transition(.active, .started, 3 * second)])
        #expect(try rig.engine.info().startedAtMs == 3 * second)
    }
}
