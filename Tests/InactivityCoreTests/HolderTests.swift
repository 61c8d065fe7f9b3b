// Issue 30: what another holder of the session reports (inact_holder_report), and the keepalive.
// Manual clock, exact times.
import Testing
@testable import InactivityCore

@Suite("Holder reports")
struct HolderTests {
    static func active(_ edit: (inout SessionPolicy) -> Void = { _ in }) -> Rig {
        let rig = Rig(smallPolicy(edit))
        try! rig.engine.start()
        rig.recorder.clear()
        return rig
    }

    @Test func activity_counts_at_its_age_and_is_never_placed_in_the_future_or_before_the_start() throws {
        let rig = HolderTests.active()
        rig.at(5 * second)
        try rig.engine.holderReport(.activity, ms: 2 * second)
        #expect(try rig.engine.info().lastActivityMs == 3 * second)
        #expect(try rig.engine.remainingMs() == 8 * second, "idle counts from the holder's instant")
        // Older than the session: at most the start (here: the own last activity, 3 s).
        rig.at(6 * second)
        try rig.engine.holderReport(.activity, ms: 1 * hour)
        #expect(try rig.engine.info().lastActivityMs == 3 * second)
        // An age of 0 is now; there is no way to claim the future (ms >= 0).
        try rig.engine.holderReport(.activity, ms: 0)
        #expect(try rig.engine.info().lastActivityMs == 6 * second)
        #expect(rig.recorder.events.isEmpty)
    }

    @Test func activity_never_moves_a_deadline_earlier() throws {
        let rig = HolderTests.active()
        rig.at(4 * second)
        try rig.engine.recordActivity(.key)
        rig.at(5 * second)
        try rig.engine.holderReport(.activity, ms: 3 * second)   // 2 s: before the own 4 s
        #expect(try rig.engine.info().lastActivityMs == 4 * second)
    }

    @Test func activity_never_unlocks_and_dismisses_a_warning_only_where_the_policy_lets_it() throws {
        let rig = HolderTests.active()
        try rig.engine.lock()
        try rig.engine.holderReport(.activity, ms: 0)
        #expect(rig.state == .locked)

        let strict = HolderTests.active()
        strict.at(7 * second)
        #expect(strict.state == .warning)
        try strict.engine.holderReport(.activity, ms: 0)
        #expect(strict.state == .warning, "only Continue dismisses this warning")

        let lenient = HolderTests.active { $0.activityDismissesWarning = true }
        lenient.at(7 * second)
        try lenient.engine.holderReport(.activity, ms: 0)
        #expect(lenient.state == .active && lenient.reason == .activity)
        #expect(try lenient.engine.remainingMs() == 10 * second)
    }

    @Test func activity_counts_while_this_engine_is_in_background() throws {
        let rig = HolderTests.active { $0.backgroundTimeoutMs = 1 * hour }
        try rig.engine.enterBackground()
        rig.at(5 * second)
        try rig.engine.recordActivity(.key)
        #expect(try rig.engine.info().lastActivityMs == 0, "local activity in background is ignored")
        try rig.engine.holderReport(.activity, ms: 0)
        #expect(try rig.engine.info().lastActivityMs == 5 * second, "the holder saw the user")
    }

    @Test func a_lock_is_followed_with_its_reason_at_its_instant() throws {
        let rig = HolderTests.active { $0.lockedTimeoutMs = 20 * second }
        rig.at(5 * second)
        try rig.engine.holderReport(.locked, reason: .backgroundTimeout, ms: 2 * second)
        #expect(rig.recorder.transitions == [Transition(.locked, .backgroundTimeout, 3 * second)])
        #expect(try rig.engine.info().lockedAtMs == 3 * second)
        rig.at(23 * second)
        #expect(rig.recorder.transitions.last == Transition(.expired, .lockedTimeout, 23 * second),
                "the locked timeout counts from the holder's lock")
    }

    @Test func a_lock_is_placed_no_earlier_than_the_start_or_the_last_change() throws {
        let rig = HolderTests.active()
        rig.at(7 * second)   // WARNING at 7 s
        try rig.engine.holderReport(.locked, reason: .idleTimeout, ms: 1 * hour)
        #expect(rig.recorder.transitions.last == Transition(.locked, .idleTimeout, 7 * second))
    }

    @Test func the_strictest_state_wins_and_keeps_its_reason() throws {
        let rig = HolderTests.active()
        try rig.engine.lock()
        rig.recorder.clear()
        try rig.engine.holderReport(.locked, reason: .idleTimeout, ms: 0)
        #expect(rig.state == .locked && rig.reason == .manualLock)
        try rig.engine.holderReport(.expired, reason: .deviceLimit, ms: 0)
        #expect(rig.state == .expired && rig.reason == .deviceLimit)
        try rig.engine.holderReport(.expired, reason: .revoked, ms: 0)
        try rig.engine.holderReport(.locked, reason: .manualLock, ms: 0)
        #expect(rig.state == .expired && rig.reason == .deviceLimit, "EXPIRED keeps its own reason")
        #expect(rig.recorder.transitions == [Transition(.expired, .deviceLimit, 0)])
    }

    @Test func in_loading_an_expiry_is_followed_now_and_a_lock_or_deadline_is_refused() throws {
        let rig = Rig(smallPolicy())
        rig.at(3 * second)
        for kind in [HolderKind.locked, .idleDeadline, .absoluteDeadline] {
            let reason: Reason = kind == .locked ? .manualLock : .none
            #expect(errorCode { try rig.engine.holderReport(kind, reason: reason, ms: 0) } == .invalidState)
        }
        try rig.engine.holderReport(.activity, ms: 0)   // a no-op
        #expect(rig.state == .loading)
        try rig.engine.holderReport(.expired, reason: .deviceLimit, ms: 1 * second)
        #expect(rig.recorder.transitions == [Transition(.expired, .deviceLimit, 3 * second)])
    }

    @Test func an_earlier_idle_deadline_is_adopted_and_a_later_one_changes_nothing() throws {
        let rig = HolderTests.active()
        rig.at(1 * second)
        try rig.engine.holderReport(.idleDeadline, ms: 60 * second)   // later than 10 s: nothing
        #expect(try rig.engine.remainingMs() == 9 * second)
        try rig.engine.holderReport(.idleDeadline, ms: 5 * second)    // 6 s
        #expect(try rig.engine.remainingMs() == 5 * second)
        rig.at(6 * second)
        #expect(rig.recorder.transitions == [Transition(.warning, .idle, 3 * second),
                                             Transition(.locked, .idleTimeout, 6 * second)])
    }

    @Test func a_passed_deadline_applies_at_once() throws {
        let rig = HolderTests.active { $0.idleAction = .expire }
        rig.at(1 * second)
        try rig.engine.holderReport(.idleDeadline, ms: 0)
        #expect(rig.recorder.transitions == [Transition(.expired, .idleTimeout, 1 * second)])
    }

    @Test func counted_activity_after_the_report_supersedes_an_adopted_idle_deadline() throws {
        let rig = HolderTests.active()
        rig.at(1 * second)
        try rig.engine.holderReport(.idleDeadline, ms: 5 * second)
        rig.at(2 * second)
        try rig.engine.recordActivity(.key)
        #expect(try rig.engine.remainingMs() == 10 * second)
        // A holder's activity older than the report does not.
        let other = HolderTests.active()
        other.at(2 * second)
        try other.engine.holderReport(.idleDeadline, ms: 5 * second)
        try other.engine.holderReport(.activity, ms: 0)   // the same instant: not after it
        #expect(try other.engine.remainingMs() == 5 * second)
    }

    @Test func a_hold_does_not_suspend_a_holders_idle_deadline() throws {
        let rig = HolderTests.active()
        _ = try rig.engine.acquireHold()
        try rig.engine.holderReport(.idleDeadline, ms: 5 * second)
        rig.at(5 * second)
        #expect(rig.state == .locked && rig.reason == .idleTimeout)
    }

    @Test func an_idle_deadline_is_a_no_op_in_locked_and_an_unlock_counts_idle_afresh() throws {
        let rig = HolderTests.active()
        try rig.engine.lock()
        try rig.engine.holderReport(.idleDeadline, ms: 1 * second)
        rig.at(2 * second)
        try rig.engine.unlock()
        #expect(try rig.engine.remainingMs() == 10 * second)
    }

    @Test func an_earlier_absolute_deadline_is_adopted_for_the_session() throws {
        let rig = HolderTests.active()
        try rig.engine.holderReport(.absoluteDeadline, ms: 2 * hour)   // later than 1 h: nothing
        rig.at(1 * second)
        try rig.engine.holderReport(.absoluteDeadline, ms: 30 * second)
        try rig.engine.lock()   // runs in LOCKED too
        try rig.engine.unlock()
        rig.at(25 * second)
        try rig.engine.recordActivity(.key)   // activity never moves it
        rig.at(31 * second)
        #expect(rig.recorder.transitions.last == Transition(.expired, .absoluteTimeout, 31 * second))
        // A new session has its own.
        try rig.engine.start()
        #expect(try rig.engine.remainingMs() == 10 * second)
        rig.at(31 * second + hour - 1)
        #expect(rig.state != .expired || rig.reason != .absoluteTimeout)
    }

    @Test func bad_reports_are_refused_naming_the_argument_and_change_nothing() throws {
        let rig = HolderTests.active()
        rig.at(1 * second)
        let before = try rig.engine.info()
        let cases: [(Int32, Int32, Int64, String)] = [
            (0, 0, 0, "kind (0)"), (6, 0, 0, "kind (6)"), (-1, 0, 0, "kind (-1)"),
            (1, 0, -1, "ms (-1)"), (4, 0, SessionPolicy.maxFiniteMs + 1, "ms ("), (5, 0, .max, "ms ("),
            (1, Reason.manualLock.rawValue, 0, "reason (10)"),
            (2, Reason.none.rawValue, 0, "reason (0)"), (2, Reason.deviceLimit.rawValue, 0, "reason (23)"),
            (3, Reason.manualLock.rawValue, 0, "reason (10)"), (3, 99, 0, "reason (99)"),
            (4, Reason.idleTimeout.rawValue, 0, "reason (8)"),
        ]
        for (kind, reason, ms, named) in cases {
            let message = errorMessage { try rig.engine.holderReport(kind: kind, reason: reason, ms: ms) }
            #expect(message?.contains(named) == true, "\(kind) \(reason) \(ms): \(message ?? "accepted")")
            #expect(errorCode { try rig.engine.holderReport(kind: kind, reason: reason, ms: ms) } == .invalidArgument)
        }
        #expect(try rig.engine.info() == before)
        #expect(rig.recorder.events.isEmpty)
    }

    @Test func a_snapshot_keeps_the_adopted_deadlines_no_later() throws {
        // Absolute: written as an earlier start.
        let rig = HolderTests.active()
        rig.at(1 * second)
        try rig.engine.holderReport(.absoluteDeadline, ms: 30 * second)
        let restored = Rig(smallPolicy(), clock: rig.clock)
        try restored.engine.restore(try rig.engine.snapshot())
        try restored.engine.enterForeground()
        restored.at(5 * second)
        try restored.engine.recordActivity(.key)
        restored.at(31 * second)
        #expect(restored.recorder.transitions.last == Transition(.expired, .absoluteTimeout, 31 * second))

        // Idle: written as an earlier last activity (and a start no later).
        let idle = HolderTests.active()
        idle.at(1 * second)
        try idle.engine.holderReport(.idleDeadline, ms: 4 * second)   // 5 s, before the own 10 s
        let again = Rig(smallPolicy(), clock: idle.clock)
        try again.engine.restore(try idle.engine.snapshot())
        #expect(try again.engine.remainingMs() == 4 * second)
        #expect(try again.engine.info().startedAtMs == -5 * second, "the start moved back with it: stricter")
    }

    @Test func a_holders_idle_deadline_sends_the_next_activity_through_the_lock_once() throws {
        var m = SessionMachine(policy: smallPolicy(), now: 0)
        try m.start(now: 0)
        #expect(m.gateView.mode == .accept)
        try m.holderReport(.idleDeadline, reason: .none, ms: 5 * second, now: 1 * second)
        #expect(m.gateView.mode == .slow, "the first activity must supersede it under the lock")
        try m.activity(.key, now: 2 * second)
        #expect(m.gateView.mode == .accept)
    }
}

@Suite("Keepalive")
struct KeepaliveTests {
    static func active(_ edit: (inout SessionPolicy) -> Void = { _ in }) -> Rig {
        let rig = Rig(smallPolicy { $0.keepaliveIntervalMs = 2 * second; edit(&$0) })
        try! rig.engine.start()
        rig.recorder.clear()
        return rig
    }

    static func pings(_ rig: Rig) -> [(at: Int64, activity: Int64)] {
        rig.recorder.events.filter { $0.kind == .keepalive }.map { ($0.nowMs, $0.timeMs) }
    }

    @Test func off_by_default_and_validated() throws {
        #expect(SessionPolicy().keepaliveIntervalMs == 0)
        for bad: Int64 in [-1, 999, 10 * second, SessionPolicy.never, SessionPolicy.maxFiniteMs + 1] {
            let message = errorMessage { try smallPolicy { $0.keepaliveIntervalMs = bad }.validate() }
            #expect(message?.contains("policy.keepalive_interval_ms") == true, "\(bad): \(message ?? "accepted")")
        }
        try smallPolicy { $0.keepaliveIntervalMs = 1000 }.validate()
        try smallPolicy { $0.keepaliveIntervalMs = 9999 }.validate()
        let off = HolderTests.active()
        try off.engine.recordActivity(.key)
        off.at(9 * second)
        #expect(KeepaliveTests.pings(off).isEmpty)
    }

    @Test func at_once_after_a_quiet_interval_then_at_most_once_per_interval() throws {
        let rig = KeepaliveTests.active()
        // The sign-in counts as one: activity within its interval waits for its end.
        rig.at(500)
        try rig.engine.recordActivity(.key)
        #expect(KeepaliveTests.pings(rig).isEmpty)
        rig.at(1500)
        try rig.engine.recordActivity(.pointer)
        rig.at(2 * second)
        #expect(KeepaliveTests.pings(rig).map(\.activity) == [1500])
        // Nothing in the next interval: quiet from 4 s.
        rig.at(7 * second)
        #expect(KeepaliveTests.pings(rig).count == 1)
        rig.recorder.clear()
        try rig.engine.recordActivity(.key)
        #expect(KeepaliveTests.pings(rig).map(\.at) == [7 * second], "at once, inside the activity call")
        // A stream of activity: one per interval, carrying the latest.
        for t in stride(from: 7_100 as Int64, through: 9_900, by: 100) {
            rig.at(t)
            try rig.engine.recordActivity(.touchMove)
        }
        rig.at(11 * second)
        #expect(KeepaliveTests.pings(rig).map(\.at) == [7 * second, 9 * second, 11 * second])
        // The wake-up at 9 s comes before the activity of that instant.
        #expect(KeepaliveTests.pings(rig).map(\.activity) == [7 * second, 8_900, 9_900])
    }

    @Test func programmatic_activity_and_holds_never_ping() throws {
        let rig = KeepaliveTests.active { $0.activityKinds = .all }
        rig.at(5 * second)
        try rig.engine.recordActivity(.programmatic)
        #expect(try rig.engine.info().lastActivityMs == 5 * second, "counted for idle")
        try rig.engine.releaseHold(try rig.engine.acquireHold())
        rig.at(9 * second)
        #expect(KeepaliveTests.pings(rig).isEmpty)
    }

    @Test func a_holders_activity_pings() throws {
        let rig = KeepaliveTests.active()
        rig.at(5 * second)
        try rig.engine.holderReport(.activity, ms: 1 * second)
        #expect(KeepaliveTests.pings(rig).map(\.activity) == [4 * second])
    }

    @Test func continue_and_unlock_are_the_users_activity() throws {
        let rig = KeepaliveTests.active()
        rig.at(7 * second)
        try rig.engine.continueSession()
        #expect(KeepaliveTests.pings(rig).map(\.at) == [7 * second])
        try rig.engine.lock()
        rig.at(20 * second)
        try rig.engine.unlock()
        #expect(KeepaliveTests.pings(rig).map(\.at) == [7 * second, 20 * second])
    }

    @Test func never_outside_a_live_session_and_a_due_one_is_dropped_by_a_lock() throws {
        let rig = KeepaliveTests.active()
        rig.at(1 * second)
        try rig.engine.recordActivity(.key)      // due at 2 s
        try rig.engine.lock()
        rig.at(5 * second)
        try rig.engine.recordActivity(.key)
        try rig.engine.holderReport(.activity, ms: 0)
        #expect(KeepaliveTests.pings(rig).isEmpty)
        try rig.engine.end(reason: .logout)
        rig.at(9 * second)
        #expect(KeepaliveTests.pings(rig).isEmpty)
    }

    @Test func after_a_sleep_the_catch_up_comes_first() throws {
        // Due at 2 s, then the idle lock at 11 s: a process frozen through both sends nothing.
        let rig = KeepaliveTests.active()
        rig.at(1 * second)
        try rig.engine.recordActivity(.key)
        rig.freezeThenPoll(20 * second)
        #expect(rig.recorder.transitions == [Transition(.locked, .idleTimeout, 11 * second)])
        #expect(KeepaliveTests.pings(rig).isEmpty)
        // Frozen past the keepalive only: the catch-up's event first, then the ping, carrying
        // the activity's instant (its age is the sleep).
        let awake = KeepaliveTests.active()
        awake.at(1 * second)
        try awake.engine.recordActivity(.key)
        awake.freezeThenPoll(7 * second)
        #expect(awake.recorder.events.map(\.kind) == [.stateChanged, .keepalive])
        #expect(KeepaliveTests.pings(awake).map(\.activity) == [1 * second])
        #expect(KeepaliveTests.pings(awake).map(\.at) == [8 * second])
    }

    @Test func the_keepalive_wakes_a_host_at_the_interval_end() throws {
        let rig = KeepaliveTests.active()
        rig.at(500)
        try rig.engine.recordActivity(.key)
        #expect(try rig.engine.nextDeadlineDelayMs() == 1500)
        rig.at(2 * second)
        // Nothing carried in this interval: it ends at 4 s, and then the keepalive is quiet.
        #expect(try rig.engine.nextDeadlineDelayMs() == 2 * second)
        rig.at(4 * second)
        #expect(try rig.engine.nextDeadlineDelayMs() == 3_500, "the warning at 7.5 s, no keepalive")
    }

    @Test func the_gate_takes_the_lock_only_for_the_first_activity_after_a_quiet_interval() throws {
        var m = SessionMachine(policy: smallPolicy { $0.keepaliveIntervalMs = 2 * second }, now: 0)
        try m.start(now: 0)
        #expect(m.gateView.mode == .accept)
        #expect(m.gateView.horizon == 2 * second, "the interval's end takes the gate's stamps in")
        m.evaluate(now: 3 * second)
        #expect(m.gateView.mode == .slow, "quiet: the next activity pings at once")
        try m.activity(.key, now: 3 * second)
        m.evaluate(now: 3 * second)
        #expect(m.gateView.mode == .accept)
        #expect(m.gateView.horizon == 5 * second)
        // Activity the gate stamped meanwhile is the user's: carried at the interval's end.
        m.mergeGateStamp(4 * second, now: 5 * second)
        m.evaluate(now: 5 * second)
        var events: [SessionEvent] = []
        m.collect(now: 5 * second, engine: 1, into: &events)
        let pings = events.filter { $0.kind == .keepalive }
        #expect(pings.count == 1 && pings.first?.timeMs == 4 * second)
        // PROGRAMMATIC counted: the gate stamps only the user's kinds.
        var p = SessionMachine(policy: smallPolicy { $0.keepaliveIntervalMs = 2 * second; $0.activityKinds = .all }, now: 0)
        try p.start(now: 0)
        #expect(p.gateView.mode == .acceptListed && !p.gateView.kinds.contains(.programmatic))
    }

    @Test func turning_it_on_starts_quiet_and_off_drops_a_due_one() throws {
        let rig = HolderTests.active()
        rig.at(1 * second)
        try rig.engine.recordActivity(.key)
        try rig.engine.setPolicy(smallPolicy { $0.keepaliveIntervalMs = 2 * second })
        #expect(KeepaliveTests.pings(rig).isEmpty, "activity before it was on is not carried")
        rig.at(1500)
        try rig.engine.recordActivity(.key)
        #expect(KeepaliveTests.pings(rig).map(\.at) == [1500])
        rig.at(2 * second)
        try rig.engine.recordActivity(.key)   // due at 3.5 s
        try rig.engine.setPolicy(smallPolicy())
        rig.at(5 * second)
        #expect(KeepaliveTests.pings(rig).count == 1)
    }

    /// The bound of docs/design.md ("Keepalive"): a server that takes every keepalive in (its
    /// holder activity, with the age the event carries) knows every user activity at most the
    /// interval after it happened: its last activity at any instant is at least the client's
    /// as it was one interval before, and once the user stops both agree within the interval.
    /// Here with no transit time (a transit adds itself to the bound).
    @Test(arguments: [1_000 as Int64, 2_500, 4_000])
    func the_server_lags_by_at_most_the_interval(interval: Int64) throws {
        let policy = smallPolicy { $0.idleTimeoutMs = 20 * second; $0.keepaliveIntervalMs = interval }
        let client = Rig(policy)
        let server = Rig(smallPolicy { $0.idleTimeoutMs = 20 * second }, clock: client.clock)
        try client.engine.start()
        try server.engine.start()
        var seen = 0
        var activity: [Int64] = [0]   // the client's activity instants (the sign-in first)
        var worst: Int64 = 0
        var random = SplitMix(seed: UInt64(interval))
        func deliver() throws {
            let pings = client.recorder.events.filter { $0.kind == .keepalive }
            for ping in pings[seen...] {
                try server.engine.holderReport(.activity, ms: ping.nowMs - ping.timeMs)
            }
            seen = pings.count
        }
        for step in 0..<600 {
            // Bursts and pauses longer than the interval, so that both rules run.
            client.advance(step % 50 < 40 ? Int64(random.next() % 300) : Int64(random.next() % UInt64(3 * interval)))
            if random.next() % 3 != 0 {
                try client.engine.recordActivity(.pointer)
                activity.append(client.now)
            }
            try deliver()
            let serverLast = try server.engine.info().lastActivityMs
            let known = activity.last { $0 <= client.now - interval } ?? 0
            #expect(serverLast >= known, "at \(client.now): the server's \(serverLast), the client's \(known) one interval ago")
            worst = max(worst, client.now - (activity.first { $0 > serverLast } ?? client.now))
        }
        #expect(worst > interval / 2, "the walk came near the bound (the oldest unknown activity: \(worst) ms)")
        // The user stops: one interval later both ends agree.
        client.advance(interval)
        try deliver()
        #expect(try server.engine.info().lastActivityMs == client.engine.info().lastActivityMs)
    }
}

/// A small deterministic generator for the walk above.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
