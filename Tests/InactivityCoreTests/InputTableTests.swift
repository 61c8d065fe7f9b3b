import Testing
@testable import InactivityCore

/// Every row of the transition table (Input.rule), in every state: applied inputs succeed, refused ones
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

    /// Makes `input` through the engine's public API. A switch without a default: a new input
    /// does not compile until it is driven here, so the table test covers it.
    static func make(_ input: Input, on engine: InactivityEngine) throws {
        switch input {
        case .start: try engine.start()
        case .restore: try engine.restore(activeSnapshot)
        case .activity: try engine.recordActivity(.key)
        case .continueSession: try engine.continueSession()
        case .lock: try engine.lock()
        case .unlock: try engine.unlock()
        case .unlockFailed: _ = try engine.unlockFailed()
        case .end: try engine.end(reason: .logout)
        case .refreshResult: _ = try engine.refreshResult(httpStatus: 503)
        case .refreshRevoked: _ = try engine.refreshResult(httpStatus: 401)
        case .background: try engine.enterBackground()
        case .foreground: try engine.enterForeground()
        case .windowShown: try engine.windowShown()
        case .windowHidden: try engine.windowShown(); try engine.windowHidden()
        case .pushScope: _ = try engine.pushScope(idleTimeoutMs: 8 * second)
        case .popScope: try engine.popScope(try engine.pushScope(idleTimeoutMs: 8 * second))
        case .acquireHold: _ = try engine.acquireHold()
        case .releaseHold: try engine.releaseHold(try engine.acquireHold())
        case .setPolicy: try engine.setPolicy(smallPolicy { $0.tickMs = 500 })
        case .expectInterruption: try engine.expectInterruption(maxMs: 1 * second)
        case .deviceLocked: try engine.deviceLocked()
        case .biometricsChanged: try engine.biometricsChanged()
        case .tokenRotated: try engine.tokenRotated(generation: 3)
        case .serverContact: try engine.serverContact()
        case .setCeilings: try engine.setCeilings(PolicyCeilings())
        }
    }

    /// A snapshot of an ACTIVE session taken at 0 ms on the same boot as every rig.
    static let activeSnapshot: [UInt8] = {
        let source = rig(in: .active)
        return try! source.engine.snapshot()
    }()

    /// The transition table is the truth: every input in every state is refused (invalidState,
    /// nothing changes), a no-op (success, nothing changes, no event) or applied, and an applied
    /// input that names a move lands in the state the table names.
    @Test(arguments: SessionState.allCases)
    func every_input_does_what_the_table_says(state: SessionState) throws {
        for input in Input.allCases {
            let rig = InputTableTests.rig(in: state)
            let before = try rig.engine.info()
            let code = errorCode { try InputTableTests.make(input, on: rig.engine) }
            let after = try rig.engine.info()
            switch input.rule[state] {
            case .refused:
                #expect(code == .invalidState, "\(input.name) in \(state)")
                #expect(after == before, "\(input.name) in \(state) changed the engine")
                #expect(rig.recorder.events.isEmpty, "\(input.name) in \(state)")
            case .noOp:
                #expect(code == nil, "\(input.name) in \(state)")
                #expect(after == before, "\(input.name) in \(state) changed the engine")
                #expect(rig.recorder.events.isEmpty, "\(input.name) in \(state)")
            case .applied, .refusedIf:   // the rigs meet no refusing condition
                #expect(code == nil, "\(input.name) in \(state)")
                switch input.rule.move {
                case .stays, .atFailureLimit, .toWhen:   // smallPolicy has no failure limit, no device-lock lock
                    // A scope popped or a hold released moves the idle deadline later: WARNING
                    // then ends by its own rule (ACTIVE, EXTENDED), not by the input's move.
                    let extended = state == .warning && after.state == .active && after.reason == .extended
                    #expect(after.state == state || extended, "\(input.name) in \(state)")
                case .to(let target, let reason):
                    #expect(after.state == target && after.reason == reason, "\(input.name) in \(state)")
                case .toNamedReason(let target):
                    #expect(after.state == target && after.reason == .logout, "\(input.name) in \(state)")
                case .toSnapshot:
                    #expect(after.state == .active && after.reason == .restored, "\(input.name) in \(state)")
                }
            case .appliedIf:
                #expect(code == nil, "\(input.name) in \(state)")
            }
        }
    }

    /// The conditional activity outcomes: counted kinds in foreground stamp ACTIVE; WARNING
    /// returns to ACTIVE only when the policy lets activity dismiss it.
    @Test func activity_applies_only_when_its_condition_holds() throws {
        for dismisses in [false, true] {
            let rig = Rig(smallPolicy { $0.activityDismissesWarning = dismisses })
            try rig.engine.start()
            rig.at(2 * second)
            try rig.engine.recordActivity(.programmatic)   // not counted by default
            #expect(try rig.engine.info().lastActivityMs == 0)
            try rig.engine.recordActivity(.key)
            #expect(try rig.engine.info().lastActivityMs == 2 * second)
            rig.at(9 * second)
            #expect(rig.state == .warning)
            try rig.engine.recordActivity(.key)
            #expect(rig.state == (dismisses ? .active : .warning))
            if dismisses { #expect(rig.reason == .activity) }
            try rig.engine.enterBackground()
            rig.at(9 * second + 1)
            let before = try rig.engine.info()
            try rig.engine.recordActivity(.key)   // background: never counted
            #expect(try rig.engine.info().lastActivityMs == before.lastActivityMs)
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
