import Testing
@testable import InactivityCore

@Suite("Background, windows, scopes and holds")
struct LifecycleTests {
    // MARK: Background

    @Test func background_locks_on_time_while_the_process_lives() throws {
        let rig = Rig(smallPolicy { $0.idleTimeoutMs = 1 * hour; $0.warningMs = 0 })
        try rig.engine.start()
        rig.at(1 * second)
        try rig.engine.enterBackground()
        rig.at(6 * second - 1)
        #expect(rig.state == .active)
        rig.at(6 * second)   // delivered by the clock's wake-up, before any foreground
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 6 * second))
        try rig.engine.enterForeground()
        #expect(rig.recorder.changes.count == 2)
    }

    @Test func foreground_after_a_frozen_background_delivers_the_lock_before_it_returns() throws {
        let rig = Rig(smallPolicy { $0.idleTimeoutMs = 1 * hour; $0.warningMs = 0 })
        try rig.engine.start()
        try rig.engine.enterBackground()
        try rig.clock.freeze(for: 2 * minute)   // the process was frozen
        rig.recorder.clear()
        try rig.engine.enterForeground()
        #expect(rig.recorder.transitions == [Transition(.locked, .backgroundTimeout, 5 * second)])
        #expect(try rig.engine.info().inBackground == false)
    }

    @Test func a_short_background_does_not_lock() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        try rig.engine.enterBackground()
        rig.at(4 * second)
        try rig.engine.enterForeground()
        rig.at(6 * second)
        #expect(rig.state == .active)
    }

    @Test func background_timeout_zero_locks_on_entering_background() throws {
        let rig = Rig(smallPolicy { $0.backgroundTimeoutMs = 0 })
        try rig.engine.start()
        rig.at(2 * second)
        try rig.engine.enterBackground()
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 2 * second))
    }

    @Test func activity_is_ignored_in_background() throws {
        let rig = Rig(smallPolicy { $0.backgroundTimeoutMs = SessionPolicy.never })
        try rig.engine.start()
        try rig.engine.enterBackground()
        rig.at(5 * second)
        try rig.engine.recordActivity(.key)
        rig.at(7 * second)
        #expect(rig.state == .warning)
    }

    @Test func idle_keeps_running_in_background_by_default() throws {
        let rig = Rig(smallPolicy { $0.backgroundTimeoutMs = SessionPolicy.never })
        try rig.engine.start()
        try rig.engine.enterBackground()
        rig.at(10 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .idleTimeout, 10 * second))
    }

    @Test func pause_idle_in_background_resumes_the_countdown_where_it_was() throws {
        let rig = Rig(smallPolicy {
            $0.backgroundTimeoutMs = SessionPolicy.never
            $0.absoluteTimeoutMs = SessionPolicy.never
            $0.pauseIdleInBackground = true
        })
        try rig.engine.start()
        rig.at(4 * second)
        try rig.engine.enterBackground()
        rig.at(1 * hour)
        #expect(rig.state == .active)
        try rig.engine.enterForeground()
        // 4 s of the 10 s were used before background: the warning comes 3 s after foreground.
        rig.at(1 * hour + 3 * second - 1)
        #expect(rig.state == .active)
        rig.at(1 * hour + 3 * second)
        #expect(rig.state == .warning)
    }

    @Test func pause_idle_in_background_does_not_pause_the_absolute_lifetime() throws {
        let rig = Rig(smallPolicy { $0.backgroundTimeoutMs = SessionPolicy.never; $0.pauseIdleInBackground = true })
        try rig.engine.start()
        try rig.engine.enterBackground()
        rig.at(1 * hour)
        #expect(rig.recorder.transitions.last == Transition(.expired, .absoluteTimeout, 1 * hour))
    }

    // MARK: Windows

    @Test func rotation_within_the_grace_is_not_background() throws {
        let rig = Rig(smallPolicy { $0.backgroundTimeoutMs = 0 })
        try rig.engine.start()
        try rig.engine.windowShown()
        rig.at(1 * second)
        try rig.engine.windowHidden()        // the activity is destroyed for rotation...
        rig.at(1 * second + 300)
        try rig.engine.windowShown()         // ...and recreated within the grace
        rig.at(5 * second)
        #expect(rig.state == .active)
        #expect(try rig.engine.info().inBackground == false)
    }

    @Test func a_to_b_transition_is_not_background() throws {
        let rig = Rig(smallPolicy { $0.backgroundTimeoutMs = 0 })
        try rig.engine.start()
        try rig.engine.windowShown()         // A
        rig.at(1 * second)
        try rig.engine.windowShown()         // B starts before A stops
        try rig.engine.windowHidden()        // A stops
        rig.at(4 * second)
        #expect(rig.state == .active)
        #expect(try rig.engine.info().visibleWindows == 1)
    }

    @Test func all_windows_hidden_past_the_grace_is_background_from_the_hide() throws {
        let rig = Rig(smallPolicy())   // background 5 s, grace 700 ms
        try rig.engine.start()
        try rig.engine.windowShown()
        rig.at(1 * second)
        try rig.engine.windowHidden()
        rig.at(1_699)
        #expect(try rig.engine.info().inBackground == false)
        rig.at(1_700)
        let info = try rig.engine.info()
        #expect(info.inBackground && info.backgroundSinceMs == 1 * second)
        rig.at(6 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 6 * second))
    }

    @Test func a_background_timeout_shorter_than_the_grace_acts_at_the_end_of_the_grace() throws {
        let rig = Rig(smallPolicy { $0.backgroundTimeoutMs = 0 })
        try rig.engine.start()
        try rig.engine.windowShown()
        rig.at(1 * second)
        try rig.engine.windowHidden()
        rig.at(1_699)
        #expect(rig.state == .active)
        rig.at(1_700)
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 1_700))
    }

    @Test func showing_a_window_is_foreground() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        try rig.engine.enterBackground()
        rig.at(2 * second)
        try rig.engine.windowShown()
        #expect(try rig.engine.info().inBackground == false)
        rig.at(8 * second)
        #expect(rig.state == .warning)   // idle, not background
    }

    @Test func hiding_more_windows_than_shown_is_refused() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        #expect(errorCode { try rig.engine.windowHidden() } == .invalidState)
        try rig.engine.windowShown()
        try rig.engine.windowHidden()
        #expect(errorCode { try rig.engine.windowHidden() } == .invalidState)
        #expect(try rig.engine.info().visibleWindows == 0)
    }

    // MARK: Scopes

    @Test func the_strictest_scope_wins() throws {
        let rig = Rig(smallPolicy { $0.idleTimeoutMs = 60 * second })
        try rig.engine.start()
        let a = try rig.engine.pushScope(idleTimeoutMs: 20 * second)
        let b = try rig.engine.pushScope(idleTimeoutMs: 10 * second)
        let c = try rig.engine.pushScope(idleTimeoutMs: 30 * second)
        #expect(try rig.engine.info().effectiveIdleTimeoutMs == 10 * second)
        try rig.engine.popScope(b)            // pop in any order
        #expect(try rig.engine.info().effectiveIdleTimeoutMs == 20 * second)
        try rig.engine.popScope(a)
        #expect(try rig.engine.info().effectiveIdleTimeoutMs == 30 * second)
        try rig.engine.popScope(c)
        #expect(try rig.engine.info().effectiveIdleTimeoutMs == 60 * second)
        #expect(errorCode { try rig.engine.popScope(c) } == .notFound)
    }

    @Test func a_payment_scope_locks_sooner() throws {
        let rig = Rig(smallPolicy { $0.idleTimeoutMs = 60 * second; $0.warningMs = 0 })
        try rig.engine.start()
        _ = try rig.engine.pushScope(idleTimeoutMs: 5 * second)
        rig.at(5 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .idleTimeout, 5 * second))
    }

    @Test func pushing_a_scope_whose_deadline_passed_acts_now() throws {
        let rig = Rig(smallPolicy { $0.idleTimeoutMs = 60 * second; $0.warningMs = 0 })
        try rig.engine.start()
        rig.at(20 * second)
        _ = try rig.engine.pushScope(idleTimeoutMs: 5 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .idleTimeout, 20 * second))
    }

    @Test func popping_a_scope_in_warning_extends() throws {
        let rig = Rig(smallPolicy { $0.idleTimeoutMs = 60 * second })
        try rig.engine.start()
        let s = try rig.engine.pushScope(idleTimeoutMs: 10 * second)
        rig.at(8 * second)
        #expect(rig.state == .warning)
        try rig.engine.popScope(s)
        #expect(rig.recorder.transitions.last == Transition(.active, .extended, 8 * second))
    }

    @Test func scope_arguments_are_checked() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        #expect(errorCode { _ = try rig.engine.pushScope(idleTimeoutMs: 0) } == .invalidArgument)
        #expect(errorCode { _ = try rig.engine.pushScope(idleTimeoutMs: -1) } == .invalidArgument)
        #expect(errorMessage { _ = try rig.engine.pushScope(idleTimeoutMs: 3 * second) }?.contains("longer than policy.warning_ms") == true)
        #expect(try rig.engine.info().openScopes == 0)
    }

    // MARK: Holds

    @Test func a_hold_suspends_idle_only() throws {
        let rig = Rig(smallPolicy { $0.absoluteTimeoutMs = 2 * minute })
        try rig.engine.start()
        let h = try rig.engine.acquireHold()
        rig.at(1 * minute)
        #expect(rig.state == .active)
        try rig.engine.releaseHold(h)
        // On the last release, activity dates from now.
        rig.at(1 * minute + 7 * second - 1)
        #expect(rig.state == .active)
        rig.at(1 * minute + 7 * second)
        #expect(rig.state == .warning)
        // Holds never suspend the absolute lifetime...
        _ = try rig.engine.acquireHold()
        rig.at(2 * minute)
        #expect(rig.recorder.transitions.last == Transition(.expired, .absoluteTimeout, 2 * minute))
    }

    @Test func a_hold_does_not_suspend_the_background_timeout() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        _ = try rig.engine.acquireHold()
        try rig.engine.enterBackground()
        rig.at(5 * second)
        #expect(rig.recorder.transitions.last == Transition(.locked, .backgroundTimeout, 5 * second))
    }

    @Test func a_hold_in_warning_extends() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.at(8 * second)
        _ = try rig.engine.acquireHold()
        #expect(rig.recorder.transitions.last == Transition(.active, .extended, 8 * second))
    }

    @Test func holds_are_released_by_id_and_nested() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        let a = try rig.engine.acquireHold()
        let b = try rig.engine.acquireHold()
        try rig.engine.releaseHold(a)
        rig.at(30 * second)
        #expect(rig.state == .active)   // b still open
        try rig.engine.releaseHold(b)
        #expect(errorCode { try rig.engine.releaseHold(b) } == .notFound)
        rig.at(37 * second)
        #expect(rig.state == .warning)
    }
}

@Suite("Clock discontinuities")
struct ClockDiscontinuityTests {
    @Test func a_running_session_whose_manual_clock_reboots_fails_secure() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.at(2 * second)
        try rig.clock.reboot(downtimeMs: 1 * hour)
        try rig.engine.poll()
        #expect(rig.recorder.transitions.last == Transition(.locked, .untrustedClock, 0))
        #expect(rig.recorder.events.allSatisfy { $0.timeMs <= $0.nowMs })
    }

    @Test func ignored_activity_on_the_system_clock_still_evaluates_deadlines() throws {
        // The fast path drops ignored activity only when nothing is due (see RegressionTests for
        // the manual-clock forms): in LOCKED with nothing due it is a no-op.
        let engine = try InactivityEngine(policy: SessionPolicy(), clock: .system, delivery: .host)
        defer { engine.close() }
        try engine.start()
        try engine.lock()
        for _ in 0..<100 { try engine.recordActivity(.touchDown) }
        #expect(try engine.state() == .locked)
    }
}
