import Testing
@testable import InactivityCore

/// Every cell of the transition table (Input.cell(in:)), in every state, with its conditions off
/// and on: applied inputs succeed, refused ones return invalidState and change nothing.
@Suite("Input table")
struct InputTableTests {
    /// Brings a fresh engine to `state`.
    static func rig(in state: SessionState, conditionsOn: Bool = false) -> Rig {
        let rig = Rig(conditionsOn ? conditionPolicy() : smallPolicy())
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
    static func make(_ input: Input, on engine: InactivityEngine, conditionsOn: Bool = false) throws {
        if input == .setPolicy || input == .setCeilings, conditionsOn, try engine.state() == .locked {
            // One failure counted under no limit, so that the limit of 1 the input brings (its
            // condition on) is spent.
            try engine.setPolicy(smallPolicy())
            _ = try engine.unlockFailed()
        }
        switch input {
        case .start: try engine.start()
        case .restore: try engine.restore(activeSnapshot)
        case .activity: try engine.recordActivity(conditionsOn ? .key : .programmatic)
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
        case .setPolicy: try engine.setPolicy((conditionsOn ? conditionPolicy() : smallPolicy()).with { $0.tickMs = 500 })
        case .expectInterruption: try engine.expectInterruption(maxMs: 1 * second)
        case .deviceLocked: try engine.deviceLocked()
        case .biometricsChanged: try engine.biometricsChanged()
        case .tokenRotated: try engine.tokenRotated(generation: 3)
        case .serverContact: try engine.serverContact()
        case .setCeilings: try engine.setCeilings(PolicyCeilings().with { $0.maxUnlockFailures = conditionsOn ? 1 : 0 })
        case .snapshot: _ = try engine.snapshot()
        case .holderActivity: try engine.holderReport(.activity, ms: 0)
        case .holderLocked: try engine.holderReport(.locked, reason: namedReason(input), ms: 0)
        case .holderExpired: try engine.holderReport(.expired, reason: namedReason(input), ms: 0)
        case .holderIdleDeadline: try engine.holderReport(.idleDeadline, ms: 4 * second)
        case .holderAbsoluteDeadline: try engine.holderReport(.absoluteDeadline, ms: 30 * minute)
        }
    }

    /// The reason `make` names for an input whose cell moves to the reason given.
    static func namedReason(_ input: Input) -> Reason {
        switch input {
        case .holderLocked: .backgroundTimeout
        case .holderExpired: .deviceLimit
        default: .logout
        }
    }

    /// `smallPolicy` with every condition of the table on: activity may dismiss the warning, a
    /// device lock locks, one failed unlock expires.
    static func conditionPolicy() -> SessionPolicy {
        smallPolicy {
            $0.activityDismissesWarning = true
            $0.lockOnDeviceLock = true
            $0.maxUnlockFailures = 1
        }
    }

    /// A snapshot of an ACTIVE session taken at 0 ms on the same boot as every rig.
    static let activeSnapshot: [UInt8] = {
        let source = rig(in: .active)
        return try! source.engine.snapshot()
    }()

    /// The transition table is the truth: every input in every state is refused (invalidState,
    /// nothing changes), a no-op (success, nothing changes, no event) or applied, and an applied
    /// input lands where its cell's move says: with the conditions off, a conditional cell is a
    /// no-op or stays; with them on, it moves.
    @Test(arguments: SessionState.allCases, [false, true])
    func every_input_does_what_the_table_says(state: SessionState, conditionsOn: Bool) throws {
        for input in Input.allCases {
            let rig = InputTableTests.rig(in: state, conditionsOn: conditionsOn)
            let before = try rig.engine.info()
            let code = errorCode { try InputTableTests.make(input, on: rig.engine, conditionsOn: conditionsOn) }
            let after = try rig.engine.info()
            let cell = input.cell(in: state)
            let what = "\(input.name) in \(state), conditions \(conditionsOn ? "on" : "off")"
            // A scope popped or a hold released moves the idle deadline later: WARNING then ends
            // by its own rule (ACTIVE, EXTENDED), not by the input's move.
            let extended = state == .warning && after.state == .active && after.reason == .extended
            switch cell.outcome {
            case .refused:
                #expect(code == .invalidState, "\(what)")
                #expect(after == before, "\(what) changed the engine")
                #expect(rig.recorder.events.isEmpty, "\(what)")
                continue
            case .noOp:
                #expect(code == nil, "\(what)")
                #expect(after == before, "\(what) changed the engine")
                #expect(rig.recorder.events.isEmpty, "\(what)")
                continue
            case .appliedIf:
                #expect(code == nil, "\(what)")
                if !conditionsOn {
                    #expect(after.state == state && after.lastActivityMs == before.lastActivityMs, "\(what): applied with its condition off")
                    continue
                }
            case .applied:
                #expect(code == nil, "\(what)")   // the rigs meet no refusal
            }
            switch cell.move {
            case .stays:
                #expect(after.state == state || extended, "\(what)")
            case .to(let target, let reason):
                #expect(after.state == target && after.reason == reason, "\(what)")
            case .toIf(_, let target, let reason):
                if conditionsOn {
                    #expect(after.state == target && after.reason == reason, "\(what)")
                } else {
                    #expect(after.state == state, "\(what): moved with its condition off")
                }
            case .toNamedReason(let target):
                #expect(after.state == target && after.reason == InputTableTests.namedReason(input), "\(what)")
            case .toSnapshot:
                #expect(after.state == .active && after.reason == .restored, "\(what)")
            }
        }
    }

    /// Every refusal a cell lists is one the machine can raise there, with the cell's status,
    /// and changes nothing; the refusals are checked in the cell's order.
    @Test func each_refusal_of_the_table_refuses_with_its_status() throws {
        // Unlock in LOCKED, in the cell's order: background past its timeout, offline, weak.
        let rig = Rig(smallPolicy { $0.offlineTimeoutMs = 2 * second; $0.strongAuthTimeoutMs = 0; $0.backgroundTimeoutMs = 1 * second })
        try rig.engine.start()
        try rig.engine.lock()
        try rig.engine.enterBackground()
        rig.at(3 * second)
        let order = Input.unlock.cell(in: .locked).refusals
        #expect(order == [.backgroundTimeoutPassed, .offline, .weakMethod])
        for refusal in order {
            let before = try rig.engine.info()
            let code = errorCode { try rig.engine.unlock(method: .biometric) }
            #expect(code == refusal.status, "unlock: \(refusal)")
            #expect(try rig.engine.info() == before)
            switch refusal {   // lift it: the next one in the order shows
            case .backgroundTimeoutPassed: try rig.engine.enterForeground()
            case .offline: try rig.engine.serverContact()
            default: break
            }
        }
        try rig.engine.unlock(method: .credential)
        #expect(rig.state == .active)
        // The others, one each.
        let a = InputTableTests.rig(in: .active)
        #expect(errorCode { try a.engine.windowHidden() } == Refusal.noWindowShown.status)
        #expect(errorCode { _ = try a.engine.pushScope(idleTimeoutMs: 3 * second) } == Refusal.scopeNotAboveWarning.status)
        #expect(errorCode { try a.engine.popScope(99) } == Refusal.scopeNotOpen.status)
        #expect(errorCode { try a.engine.releaseHold(99) } == Refusal.holdNotOpen.status)
        try a.engine.tokenRotated(generation: 5)
        #expect(errorCode { try a.engine.tokenRotated(generation: 4) } == Refusal.olderGeneration.status)
        #expect(errorCode { try a.engine.expectInterruption(maxMs: SessionPolicy.maxFiniteMs) } == Refusal.overInterruptionCap.status)
        try a.engine.enterBackground()
        #expect(errorCode { try a.engine.expectInterruption(maxMs: 1) } == Refusal.announcedInBackground.status)
        try a.engine.enterForeground()
        _ = try a.engine.pushScope(idleTimeoutMs: 5 * second)
        #expect(errorCode { try a.engine.setPolicy(smallPolicy { $0.warningMs = 5 * second; $0.idleTimeoutMs = 20 * second }) }
                == Refusal.warningNotBelowScopes.status)
        try a.engine.setCeilings(PolicyCeilings().with { $0.idleTimeoutMs = 20 * second })
        #expect(errorCode { try a.engine.setPolicy(smallPolicy { $0.idleTimeoutMs = 30 * second }) } == Refusal.laxerThanCeiling.status)
        #expect(errorCode { try a.engine.setCeilings(PolicyCeilings().with { $0.idleTimeoutMs = 1 }) } == Refusal.tightenedPolicyInvalid.status)
        #expect(a.state == .active)
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

private extension SessionPolicy {
    func with(_ edit: (inout SessionPolicy) -> Void) -> SessionPolicy {
        var copy = self
        edit(&copy)
        return copy
    }
}

private extension PolicyCeilings {
    func with(_ edit: (inout PolicyCeilings) -> Void) -> PolicyCeilings {
        var copy = self
        edit(&copy)
        return copy
    }
}
