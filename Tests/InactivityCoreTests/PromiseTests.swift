// Regression tests for behaviour that differed from the design (an acceptance run against
// docs/design.md). Each failed before its fix.

import Testing
@testable import InactivityCore

@Suite("Promises kept")
struct PromiseTests {
    // A restore that lands inside the warning window is WARNING (RESTORED). With
    // pause_idle_in_background the time since the snapshot is paused background time: the
    // catch-up first ended the warning (the countdown looked suspended) and the next call
    // re-entered it, so the host saw WARNING (IDLE).
    @Test(arguments: [false, true])
    func a_restore_inside_the_warning_window_is_warning_restored(pause: Bool) throws {
        let policy = smallPolicy { $0.pauseIdleInBackground = pause; $0.backgroundTimeoutMs = SessionPolicy.never }
        let source = Rig(policy)
        try source.engine.start()
        source.at(8 * second)   // WARNING since 7 s, lock at 10 s
        #expect(source.state == .warning)
        let bytes = try source.engine.snapshot()

        let clock = try ManualClock(monotonicMs: 8 * second)
        let rig = Rig(policy, clock: clock)
        try rig.engine.restore(bytes)
        #expect(rig.recorder.transitions == [Transition(.warning, .restored, 8 * second)])
        try rig.engine.poll()
        #expect(rig.recorder.transitions == [Transition(.warning, .restored, 8 * second)])
        #expect(try rig.engine.remainingMs() == 2 * second)
    }

    // Countdown ticks stay on the grid of the remaining time when a scope moves the idle
    // deadline and WARNING stays (set_policy already realigned).
    @Test func a_scope_pushed_in_warning_keeps_ticks_on_the_grid() throws {
        let rig = Rig(smallPolicy { $0.idleTimeoutMs = 60 * second; $0.warningMs = 30 * second })
        try rig.engine.start()
        rig.at(35_500)   // WARNING at 30 s; ticks up to remaining 25 s
        rig.recorder.clear()
        _ = try rig.engine.pushScope(idleTimeoutMs: 50 * second)   // remaining 14.5 s, still WARNING
        rig.at(38 * second)
        #expect(rig.state == .warning)
        #expect(rig.recorder.ticks.map(\.remainingMs) == [14_000, 13_000, 12_000])
        #expect(rig.recorder.ticks.map(\.timeMs) == [36_000, 37_000, 38_000])
    }

    @Test func a_scope_popped_in_warning_skips_no_tick() throws {
        let rig = Rig(smallPolicy { $0.idleTimeoutMs = 60 * second; $0.warningMs = 30 * second })
        try rig.engine.start()
        let strict = try rig.engine.pushScope(idleTimeoutMs: 40 * second)
        _ = try rig.engine.pushScope(idleTimeoutMs: 45 * second)
        rig.at(15_500)   // WARNING at 10 s; ticks up to remaining 25 s
        rig.recorder.clear()
        try rig.engine.popScope(strict)   // idle at 45 s: remaining 29.5 s, still WARNING
        rig.at(19 * second)
        #expect(rig.state == .warning)
        #expect(rig.recorder.ticks.map(\.remainingMs) == [29_000, 28_000, 27_000, 26_000])
        #expect(rig.recorder.ticks.map(\.timeMs) == [16_000, 17_000, 18_000, 19_000])
    }

    // Every entry point first evaluates the deadlines, also a call refused for a bad argument;
    // the refused call itself changes nothing.
    static let badArgumentCalls: [(String, @Sendable (InactivityEngine) throws -> Void)] = [
        ("activity kind 0", { try $0.recordActivity(ActivityKind(rawValue: 0)) }),
        ("activity by handle, kind 0", { try InactivityEngine.recordActivity(handle: $0.handle, kind: 0) }),
        ("push scope 0", { _ = try $0.pushScope(idleTimeoutMs: 0) }),
        ("refresh status 99", { _ = try $0.refreshResult(httpStatus: 99) }),
        ("invalid policy", { try $0.setPolicy(smallPolicy { $0.idleTimeoutMs = 0 }) }),
        ("end with a reason that does not end", { try $0.end(reason: .idleTimeout) }),
    ]

    @Test func a_call_refused_for_a_bad_argument_first_delivers_what_is_due() throws {
        for (name, call) in PromiseTests.badArgumentCalls {
            let rig = Rig(smallPolicy())
            try rig.engine.start()
            try rig.clock.freeze(for: 20 * second)   // the idle lock (10 s) is overdue
            rig.recorder.clear()
            #expect(errorCode { try call(rig.engine) } == .invalidArgument, "\(name)")
            #expect(rig.recorder.transitions == [Transition(.locked, .idleTimeout, 10 * second)], "\(name)")
            let info = try rig.engine.info()
            #expect(info.state == .locked && info.openScopes == 0, "\(name)")
            #expect(try rig.engine.policy() == smallPolicy(), "\(name)")
        }
    }

    // An unlock in background once the background timeout has passed would make the session
    // ACTIVE and lock it again at once, LOCKED to LOCKED with no event (and a new reason,
    // locked-at and failure count). It is refused: the host calls foreground first.
    @Test func unlock_in_background_after_the_background_timeout_is_refused() throws {
        let rig = Rig(smallPolicy { $0.maxUnlockFailures = 5 })   // background timeout 5 s
        try rig.engine.start()
        try rig.engine.lock()
        _ = try rig.engine.unlockFailed()
        try rig.engine.enterBackground()
        rig.at(6 * second)
        rig.recorder.clear()
        let before = try rig.engine.info()
        #expect(errorMessage { try rig.engine.unlock() }?.contains("background timeout") == true)
        #expect(try rig.engine.info() == before)
        #expect(rig.recorder.events.isEmpty)
        // In foreground the unlock is accepted.
        try rig.engine.enterForeground()
        try rig.engine.unlock()
        #expect(rig.recorder.transitions == [Transition(.active, .unlocked, 6 * second)])
    }

    @Test func unlock_in_background_before_the_background_timeout_is_accepted() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        try rig.engine.enterBackground()
        try rig.engine.lock()
        rig.at(3 * second)
        try rig.engine.unlock()
        rig.at(5 * second)
        #expect(rig.recorder.transitions.suffix(2) == [Transition(.active, .unlocked, 3 * second),
                                                         Transition(.locked, .backgroundTimeout, 5 * second)])
    }

    // Rulings written down in docs/design.md section 7.

    @Test func advance_returns_normally_when_a_callback_destroyed_the_engine() throws {
        let clock = try ManualClock()
        let box = EngineBox()
        let engine = try InactivityEngine(policy: smallPolicy(), clock: .manual(clock), delivery: .host,
                                          onEvent: { event in if event.state == .warning { box.engine?.close() } })
        box.engine = engine
        try engine.start()
        try engine.advanceClock(byMs: 20 * second)   // WARNING at 7 s destroys it: no error
        #expect(engine.isClosed)
        #expect(errorCode { try engine.advanceClock(byMs: 1) } == .invalidHandle)
        #expect(clock.now().monotonicMs == 20 * second)
    }

    @Test func window_hidden_with_no_window_shown_names_the_count() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        let message = errorMessage { try rig.engine.windowHidden() }
        #expect(message == "window hidden: visible windows (0) must be > 0 (every window hidden needs a window shown before it)")
        #expect(errorCode { try rig.engine.windowHidden() } == .invalidState)
    }

    @Test func background_during_a_window_grace_dates_from_the_hide() throws {
        let rig = Rig(smallPolicy())   // background timeout 5 s, grace 700 ms
        try rig.engine.start()
        try rig.engine.windowShown()
        rig.at(1 * second)
        try rig.engine.windowHidden()
        rig.at(1_300)
        try rig.engine.enterBackground()
        #expect(try rig.engine.info().backgroundSinceMs == 1 * second)
        rig.at(6 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 6 * second))
    }

    @Test func set_policy_in_warning_stays_warning_while_the_warning_is_still_due() throws {
        let rig = Rig(smallPolicy())   // idle 10 s, warning 3 s
        try rig.engine.start()
        rig.at(8 * second)
        try rig.engine.setPolicy(smallPolicy { $0.warningMs = 4 * second })
        #expect(rig.state == .warning)
        try rig.engine.setPolicy(smallPolicy { $0.warningMs = 1 * second })   // due at 9 s: not yet
        #expect(rig.recorder.transitions.last == Transition(.active, .extended, 8 * second))
    }
}
