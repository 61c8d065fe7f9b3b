import Testing
@testable import InactivityCore

/// `ServerRecord.decide`: the server's decision over a stored record (the C suite's
/// test_server.c drives it through the ABI, against an engine, and with two servers' clocks).
@Suite("Server decision")
struct ServerDecisionTests {
    static let t0: Int64 = 1_700_000_000_000

    static func decide(_ record: [UInt8]?, at now: Int64, _ input: ServerInput, _ arg: Int64 = 0,
                       policy: SessionPolicy = smallPolicy(), precision: Int64 = 0) throws -> ServerDecision {
        try ServerRecord.decide(policy: policy, record: record, nowMs: now, input: input.rawValue, arg: arg, precisionMs: precision)
    }

    static func signedIn(_ policy: SessionPolicy = smallPolicy(), at now: Int64 = t0) throws -> [UInt8] {
        try #require(try decide(nil, at: now, .signIn, policy: policy).record)
    }

    @Test func a_record_is_a_snapshot_on_the_fleet_clock_and_never_a_device_snapshot() throws {
        let record = try ServerDecisionTests.signedIn()
        let s = try Snapshot.decode(record)
        #expect(s.bootID == ServerRecord.fleetClock && s.monotonicMs == s.wallMs && s.monotonicMs == ServerDecisionTests.t0)
        #expect(s.backgroundSince == nil && s.state == .active && s.reason == .started)
        // A device's snapshot (another boot id) is not a record: EXPIRED (RESTORE_FAILED).
        var device = s
        device.bootID = 42
        let d = try ServerDecisionTests.decide(device.encode(), at: ServerDecisionTests.t0 + second, .request)
        #expect(d.state == .expired && d.reason == .restoreFailed && d.record != nil)
        // Nor one whose wall and monotonic clocks differ, nor one with a background.
        var skewed = s
        skewed.wallMs += 1
        #expect(try ServerDecisionTests.decide(skewed.encode(), at: ServerDecisionTests.t0, .machine).reason == .restoreFailed)
        var background = s
        background.backgroundSince = s.startedAt
        #expect(try ServerDecisionTests.decide(background.encode(), at: ServerDecisionTests.t0, .machine).reason == .restoreFailed)
    }

    /// The stored last activity lags the last request by less than the precision, for every
    /// precision and spacing of requests, and writes happen only when it moves.
    @Test func coalescing_lags_by_less_than_the_precision_and_writes_only_when_it_moves() throws {
        let policy = smallPolicy { $0.idleTimeoutMs = 10 * minute; $0.warningMs = 0 }
        for precision: Int64 in [0, 1, 250, 999, 5 * second] {
            var record = try ServerDecisionTests.signedIn(policy)
            var t = ServerDecisionTests.t0
            var seed: UInt64 = 7
            for _ in 0..<300 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                t += Int64(seed >> 33) % (2 * precision + 3)
                let stored = try Snapshot.decode(record).lastActivity
                let d = try ServerDecisionTests.decide(record, at: t, .request, policy: policy, precision: precision)
                #expect(d.state == .active)
                #expect(t - d.lastActivityMs < max(precision, 1), "precision \(precision): lag \(t - d.lastActivityMs)")
                #expect((d.record != nil) == (d.lastActivityMs != stored))
                #expect(d.lastActivityMs == stored || d.lastActivityMs == t)
                #expect(d.idleDeadlineMs == d.lastActivityMs + policy.idleTimeoutMs)
                if let r = d.record { record = r }
            }
        }
    }

    @Test func a_keepalive_counts_its_activity_at_its_age_clamped_between_the_stored_one_and_now() throws {
        let t0 = ServerDecisionTests.t0
        let record = try #require(try ServerDecisionTests.decide(try ServerDecisionTests.signedIn(), at: t0 + 4 * second, .request).record)
        #expect(try ServerDecisionTests.decide(record, at: t0 + 6 * second, .holderActivity, 1 * second).lastActivityMs == t0 + 5 * second)
        #expect(try ServerDecisionTests.decide(record, at: t0 + 6 * second, .holderActivity, 0).lastActivityMs == t0 + 6 * second)
        // Older than the stored activity, or an age of any size: the stored activity stands.
        for age in [3 * second, Int64.max] {
            let d = try ServerDecisionTests.decide(record, at: t0 + 6 * second, .holderActivity, age)
            #expect(d.lastActivityMs == t0 + 4 * second && d.record == nil)
        }
    }

    @Test func end_takes_every_expired_reason_but_restored_and_lock_stays_on_a_locked_record() throws {
        let record = try ServerDecisionTests.signedIn()
        for reason in Reason.allowed(in: .expired) {
            if reason == .restored {
                #expect(throws: InactivityError.self) { try ServerDecisionTests.decide(record, at: ServerDecisionTests.t0, .end, Int64(reason.rawValue)) }
                continue
            }
            let d = try ServerDecisionTests.decide(record, at: ServerDecisionTests.t0, .end, Int64(reason.rawValue))
            #expect(d.state == .expired && d.reason == reason && d.record != nil)
        }
        let locked = try #require(try ServerDecisionTests.decide(record, at: ServerDecisionTests.t0, .lock, Int64(Reason.manualLock.rawValue)).record)
        let again = try ServerDecisionTests.decide(locked, at: ServerDecisionTests.t0 + second, .lock, Int64(Reason.manualLock.rawValue))
        #expect(again.state == .locked && again.record == nil)
    }

    @Test func an_argument_error_names_the_argument_and_decides_nothing() throws {
        let record = try ServerDecisionTests.signedIn()
        func message(_ input: Int32, _ arg: Int64 = 0, now: Int64 = ServerDecisionTests.t0, precision: Int64 = 0,
                     record: [UInt8]? = record) -> String {
            do {
                _ = try ServerRecord.decide(policy: smallPolicy(), record: record, nowMs: now, input: input, arg: arg, precisionMs: precision)
                return "decided"
            } catch {
                #expect(error.code == .invalidArgument || error.code == .nullPointer)
                return error.message
            }
        }
        #expect(message(0).hasPrefix("input (0)"))
        #expect(message(2, 3).hasPrefix("arg (3) must be 0 for INACT_SERVER_REQUEST"))
        #expect(message(2, now: -1).hasPrefix("now_ms (-1)"))
        #expect(message(2, precision: 7 * second).hasPrefix("precision_ms (7000) must be >= 0 and shorter than"))
        #expect(message(6, 1 << 40).hasPrefix("arg (1099511627776) must be an EXPIRED reason"))
        #expect(message(2, record: nil).hasPrefix("record must not be NULL"))
    }

    @Test func idle_never_accepts_any_precision_up_to_the_longest_duration() throws {
        let policy = smallPolicy { $0.idleTimeoutMs = SessionPolicy.never }
        let record = try ServerDecisionTests.signedIn(policy)
        let d = try ServerDecisionTests.decide(record, at: ServerDecisionTests.t0 + hour / 2, .request, policy: policy, precision: SessionPolicy.maxFiniteMs)
        #expect(d.state == .active && d.record == nil && d.idleDeadlineMs == SessionPolicy.never)
    }
}
