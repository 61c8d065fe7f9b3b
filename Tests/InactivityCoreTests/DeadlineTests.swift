import Testing
@testable import InactivityCore

@Suite("Deadlines, precedence and catch-up")
struct DeadlineTests {
    @Test func idle_session_warns_then_locks_exactly_on_time() throws {
        let rig = Rig(smallPolicy { $0.tickMs = 0 })
        try rig.engine.start()
        rig.at(7 * second - 1)
        #expect(rig.state == .active)
        rig.at(7 * second)
        #expect(rig.recorder.transitions.last == Transition(.warning, .idle, 7 * second))
        #expect(rig.recorder.changes.last?.remainingMs == 3 * second)
        rig.at(10 * second - 1)
        #expect(rig.state == .warning)
        rig.at(10 * second)
        #expect(rig.recorder.transitions == [
            Transition(.active, .started, 0), Transition(.warning, .idle, 7 * second),
            Transition(.locked, .idleTimeout, 10 * second),
        ])
    }

    @Test func idle_action_expire_expires() throws {
        let rig = Rig(smallPolicy { $0.idleAction = .expire; $0.warningMs = 0 })
        try rig.engine.start()
        rig.at(10 * second)
        #expect(rig.recorder.transitions.last == Transition(.expired, .idleTimeout, 10 * second))
    }

    @Test func one_advance_delivers_every_deadline_on_the_way_in_time_order() throws {
        let rig = Rig(smallPolicy { $0.lockedTimeoutMs = 20 * second })
        try rig.engine.start()
        rig.recorder.clear()
        rig.advance(1 * minute)
        #expect(rig.recorder.events.map { "\($0.kind == .tick ? "tick" : $0.state.description)@\($0.timeMs)" } == [
            "WARNING@7000", "tick@8000", "tick@9000", "LOCKED@10000", "EXPIRED@30000",
        ])
        #expect(rig.recorder.events.allSatisfy { $0.nowMs == $0.timeMs })
    }

    @Test func an_unobserved_countdown_costs_no_stop_per_tick() throws {
        // A minute of WARNING with a 1 ms tick is 60 000 stops when each tick is one (30 days
        // would be 2.6e9). Nobody receives this engine's events, so the advance stops only at
        // WARNING and LOCKED, however long the countdown.
        let policy = smallPolicy {
            $0.idleTimeoutMs = 2 * minute; $0.warningMs = 1 * minute; $0.tickMs = 1
            $0.absoluteTimeoutMs = SessionPolicy.never
        }
        let clock = try ManualClock()
        let silent = try InactivityEngine(policy: policy, clock: .manual(clock), delivery: .host)
        defer { silent.close() }
        try silent.start()
        let before = clock.stops
        try clock.advance(by: 3 * minute)
        #expect(clock.stops - before <= 4)
        #expect(try silent.state() == .locked)
        #expect(try silent.info().lockedAtMs == 2 * minute)
    }

    @Test func unobserved_ticks_end_the_same_and_an_observer_gets_every_tick_again() throws {
        // Two engines on one clock, one recorded, one not: after an advance into WARNING they
        // are in the same state; an observer added to the silent one then receives the same
        // ticks, one by one at their times, as the recorded one (the header's advance rule).
        let policy = smallPolicy { $0.tickMs = 1 }
        let clock = try ManualClock()
        let rig = Rig(policy, clock: clock)
        let silent = try InactivityEngine(policy: policy, clock: .manual(clock), delivery: .host)
        defer { silent.close() }
        try rig.engine.start()
        try silent.start()
        let before = clock.stops
        rig.at(8 * second + 500)
        #expect(clock.stops - before >= 1_500)   // the recorded engine's ticks are each a stop
        #expect(rig.recorder.ticks.count == 1_500)
        #expect(try silent.info() == (try rig.engine.info()))
        let observed = Recorder()
        silent.addObserver(onEvent: { observed.record($0) })
        rig.recorder.clear()
        rig.at(10 * second)
        #expect(observed.ticks.count == 1_499)
        #expect(observed.events == rig.recorder.events.map { event in
            var e = event
            e.engine = silent.handle
            return e
        })
        #expect(try silent.info() == (try rig.engine.info()))
    }

    @Test func manual_clock_moves_are_checked() throws {
        let rig = Rig(smallPolicy())
        #expect(errorCode { try rig.clock.advance(by: -1) } == .invalidArgument)
        #expect(errorCode { try rig.clock.advance(by: .max) } == .invalidArgument)
        #expect(errorCode { try rig.clock.freeze(for: -5) } == .invalidArgument)
        #expect(errorCode { try rig.clock.reboot(downtimeMs: .max) } == .invalidArgument)
        #expect(errorCode { try rig.clock.jumpWall(by: .max) } == .invalidArgument)
        #expect(rig.clock.now() == ClockReading(monotonicMs: 0, wallMs: 1_700_000_000_000, bootID: 1))
        let system = try InactivityEngine(policy: smallPolicy(), clock: .system, delivery: .host)
        #expect(errorCode { try system.advanceClock(byMs: 1) } == .wrongClock)
        system.close()
    }

    @Test func countdown_ticks_are_aligned_to_the_remaining_time() throws {
        let rig = Rig(smallPolicy { $0.warningMs = 3_500 })
        try rig.engine.start()
        for t in stride(from: Int64(0), through: 10 * second, by: 250) { rig.at(t) }
        let ticks = rig.recorder.ticks
        #expect(ticks.map(\.remainingMs) == [3_000, 2_000, 1_000])
        #expect(ticks.map(\.timeMs) == [7_000, 8_000, 9_000])
        #expect(rig.recorder.changes.map(\.remainingMs).dropFirst().first == 3_500)
    }

    @Test func ticks_for_a_minute_count_down_60_to_1() throws {
        let rig = Rig(smallPolicy { $0.idleTimeoutMs = 2 * minute; $0.warningMs = 1 * minute })
        try rig.engine.start()
        for t in stride(from: Int64(0), through: 2 * minute, by: Int(second)) { rig.at(t) }
        #expect(rig.recorder.ticks.map(\.remainingMs) == (1...59).reversed().map { Int64($0) * second })
        #expect(rig.recorder.changes[1].remainingMs == 60 * second)
        #expect(rig.state == .locked)
    }

    @Test func past_ticks_are_not_replayed() throws {
        let rig = Rig(smallPolicy { $0.idleTimeoutMs = 2 * minute; $0.warningMs = 1 * minute })
        try rig.engine.start()
        rig.at(60 * second)   // WARNING at 60 s
        rig.recorder.clear()
        rig.freezeThenPoll(30 * second)   // 30 ticks came due while frozen: only the latest is delivered
        #expect(rig.recorder.events.count == 1)
        #expect(rig.recorder.ticks.first?.remainingMs == 30 * second)
        #expect(rig.recorder.ticks.first?.timeMs == 90 * second)
    }

    @Test func a_two_hour_freeze_delivers_one_transition_to_the_final_state() throws {
        let rig = Rig(SessionPolicy())
        try rig.engine.start()
        rig.recorder.clear()
        rig.freezeThenPoll(2 * hour)
        #expect(rig.recorder.events.count == 1)
        // No stale WARNING, the lock carries its own time.
        #expect(rig.recorder.transitions == [Transition(.locked, .idleTimeout, 15 * minute)])
        #expect(rig.recorder.changes[0].previousState == .active)
        #expect(rig.recorder.changes[0].nowMs == 2 * hour)
    }

    @Test func catch_up_applies_deadlines_in_time_order() throws {
        // Locked at 15 min, then the locked timeout (1 h) runs from the lock, not from now.
        let rig = Rig(SessionPolicy { $0.lockedTimeoutMs = 1 * hour })
        try rig.engine.start()
        rig.recorder.clear()
        rig.freezeThenPoll(75 * minute - 1)
        #expect(rig.recorder.transitions == [Transition(.locked, .idleTimeout, 15 * minute)])
        rig.recorder.clear()
        rig.at(75 * minute)
        #expect(rig.recorder.transitions == [Transition(.expired, .lockedTimeout, 75 * minute)])
    }

    @Test func locked_is_not_shown_on_the_way_to_expired() throws {
        let rig = Rig(SessionPolicy { $0.lockedTimeoutMs = 1 * hour })
        try rig.engine.start()
        rig.recorder.clear()
        rig.freezeThenPoll(3 * hour)
        #expect(rig.recorder.changes.count == 1)
        #expect(rig.recorder.changes[0].previousState == .active)
        #expect(rig.recorder.transitions == [Transition(.expired, .lockedTimeout, 75 * minute)])
    }

    @Test func simultaneous_idle_lock_and_absolute_expiry_expire() throws {
        let rig = Rig(smallPolicy { $0.absoluteTimeoutMs = 10 * second })
        try rig.engine.start()
        rig.recorder.clear()
        rig.freezeThenPoll(10 * second)
        #expect(rig.recorder.transitions == [Transition(.expired, .absoluteTimeout, 10 * second)])
    }

    @Test func absolute_expiry_applies_in_locked_and_whatever_the_activity() throws {
        let rig = Rig(smallPolicy { $0.absoluteTimeoutMs = 60 * second })
        try rig.engine.start()
        for t in stride(from: Int64(1_000), to: 40 * second, by: 2_000) {
            rig.at(t)
            try rig.engine.recordActivity(.touchDown)
        }
        try rig.engine.lock()
        rig.at(60 * second)
        #expect(rig.recorder.transitions.last == Transition(.expired, .absoluteTimeout, 60 * second))
    }

    @Test func the_most_severe_due_outcome_wins() throws {
        // Background lock due at 5 s, idle lock at 10 s, absolute at 12 s: after 20 s, EXPIRED.
        let rig = Rig(smallPolicy { $0.absoluteTimeoutMs = 12 * second })
        try rig.engine.start()
        try rig.engine.enterBackground()
        rig.recorder.clear()
        rig.freezeThenPoll(20 * second)
        #expect(rig.recorder.transitions == [Transition(.expired, .absoluteTimeout, 12 * second)])
    }

    @Test func activity_moves_the_idle_deadline() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.at(5 * second)
        try rig.engine.recordActivity(.touchMove)
        rig.at(12 * second - 1)
        #expect(rig.state == .active)
        rig.at(12 * second)
        #expect(rig.state == .warning)
    }

    @Test func activity_after_the_deadline_does_not_rescue_the_session() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        // The clock passed the lock while nothing looked (a frozen process, a timer that did not fire).
        try rig.clock.freeze(for: 11 * second)
        try rig.engine.recordActivity(.key)
        #expect(rig.state == .locked)
    }

    @Test func activity_kinds_not_counted_are_ignored() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.at(5 * second)
        try rig.engine.recordActivity(.programmatic)
        rig.at(7 * second)
        #expect(rig.state == .warning)
    }

    @Test func activity_must_name_one_known_kind() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        for raw: UInt32 in [0, 3, 0x80, 0xFFFF_FFFF] {
            #expect(errorCode { try rig.engine.recordActivity(ActivityKind(rawValue: raw)) } == .invalidArgument)
        }
    }

    @Test func activity_in_warning_is_not_recorded_unless_the_policy_says_so() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.at(8 * second)
        try rig.engine.recordActivity(.touchDown)
        #expect(rig.state == .warning)
        // Not recorded: continuing later does not date activity from the touch.
        #expect(try rig.engine.info().lastActivityMs == 0)
        rig.at(10 * second)
        #expect(rig.state == .locked)
    }

    @Test func activity_dismisses_the_warning_when_the_policy_says_so() throws {
        let rig = Rig(smallPolicy { $0.activityDismissesWarning = true })
        try rig.engine.start()
        rig.at(8 * second)
        try rig.engine.recordActivity(.touchDown)
        #expect(rig.recorder.transitions.last == Transition(.active, .activity, 8 * second))
        rig.at(15 * second - 1)
        #expect(rig.state == .active)
    }

    @Test func continue_returns_to_active_and_restarts_the_countdown() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.at(8 * second)
        try rig.engine.continueSession()
        #expect(rig.recorder.transitions.last == Transition(.active, .continued, 8 * second))
        rig.at(15 * second)
        #expect(rig.recorder.transitions.last == Transition(.warning, .idle, 15 * second))
    }

    @Test func no_warning_when_warning_is_zero() throws {
        let rig = Rig(smallPolicy { $0.warningMs = 0 })
        try rig.engine.start()
        rig.at(10 * second)
        #expect(rig.recorder.transitions.map(\.state) == [.active, .locked])
    }

    @Test func catch_up_is_delivered_before_the_input_that_woke_it() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.recorder.clear()
        // A host that missed the timer calls continue 8 s in: WARNING is applied first, then continue.
        try rig.clock.freeze(for: 8 * second)
        try rig.engine.continueSession()
        #expect(rig.recorder.transitions == [Transition(.warning, .idle, 7 * second),
                                              Transition(.active, .continued, 8 * second)])
    }

    @Test func remaining_time_counts_to_the_next_lock_or_expiry() throws {
        let rig = Rig(smallPolicy())
        try rig.engine.start()
        rig.at(4 * second)
        #expect(try rig.engine.remainingMs() == 6 * second)
        #expect(try rig.engine.nextDeadlineDelayMs() == 3 * second)   // the warning
        try rig.engine.lock()
        #expect(try rig.engine.remainingMs() == 1 * hour - 4 * second)   // absolute expiry
        try rig.engine.end(reason: .logout)
        #expect(try rig.engine.remainingMs() == SessionPolicy.never)
    }

    @Test(arguments: [1 * hour, -1 * hour, 24 * hour, -24 * hour, -1_700_000_000_000, 4_102_444_800_000 - 1_700_000_000_000] as [Int64])
    func wall_clock_jumps_change_nothing(jump: Int64) throws {
        let reference = Rig(smallPolicy())
        let jumped = Rig(smallPolicy())
        for rig in [reference, jumped] { try rig.engine.start() }
        for t in stride(from: Int64(500), through: 20 * second, by: 500) {
            if t == 3 * second { try jumped.engine.jumpWallClock(byMs: jump) }
            reference.at(t)
            jumped.at(t)
        }
        #expect(jumped.recorder.events == reference.recorder.events.map { e in var e = e; e.engine = jumped.engine.handle; return e })
        #expect(jumped.recorder.transitions.last == Transition(.locked, .idleTimeout, 10 * second))
    }

    @Test func locked_timeout_expires_from_the_lock() throws {
        let rig = Rig(smallPolicy { $0.lockedTimeoutMs = 30 * second })
        try rig.engine.start()
        rig.at(2 * second)
        try rig.engine.lock()
        rig.at(32 * second - 1)
        #expect(rig.state == .locked)
        rig.at(32 * second)
        #expect(rig.recorder.transitions.last == Transition(.expired, .lockedTimeout, 32 * second))
    }
}

extension SessionPolicy {
    init(_ edit: (inout SessionPolicy) -> Void) {
        self.init()
        edit(&self)
    }
}
