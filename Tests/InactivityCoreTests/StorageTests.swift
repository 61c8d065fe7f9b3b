// The engine's compact storage (SharedPolicies.swift, RareFields.swift) keeps value semantics and every value: what the
// machine stores in a shared box, in presence bits or in a side allocation reads back as it was
// written, and a copy of a machine never sees the other copy's changes.

import Testing
@testable import InactivityCore

@Suite("Compact storage")
struct StorageTests {
    @Test func a_copied_machine_does_not_share_its_side_fields() throws {
        var a = SessionMachine(policy: SessionPolicy(), now: 0)
        try a.start(now: 0)
        let first = try a.pushScope(idleTimeoutMs: 60_000, now: 1)
        var b = a   // shares a's side allocation until one of them changes it
        let second = try b.pushScope(idleTimeoutMs: 90_000, now: 2)
        let hold = try b.acquireHold(now: 2)
        #expect(a.scopes.map(\.id) == [first])
        #expect(b.scopes.map(\.id) == [first, second])
        #expect(a.holds.isEmpty && b.holds == [hold])
        // The id counters are per copy as well.
        #expect(try a.pushScope(idleTimeoutMs: 90_000, now: 3) == second)
    }

    @Test func optional_instants_keep_every_value_including_the_extremes() throws {
        var m = SessionMachine(policy: SessionPolicy(), now: 0)
        #expect(m.startedAt == nil && m.lockedAt == nil && m.backgroundSince == nil)
        try m.start(now: 0)
        #expect(m.startedAt == 0)   // 0 is a value, not "none"
        try m.lock(now: Int64.max - 1)
        #expect(m.lockedAt == Int64.max - 1)
        try m.unlock(now: Int64.max - 1)
        #expect(m.lockedAt == nil && m.startedAt == 0)
    }

    @Test func a_policy_reads_back_as_set_and_a_new_one_gets_its_own_box() throws {
        var p = SessionPolicy()
        p.idleTimeoutMs = 123_456
        let a = SessionMachine(policy: p, now: 0)
        let b = SessionMachine(policy: p, now: 0)
        #expect(a.policy == p && b.policy == p)
        // Whether a and b share a box depends on what other tests create meanwhile (the cache
        // keeps the last policy); that they share at 10^6 engines is what bench_scale measures.
        var c = b
        var q = p
        q.warningMs = 1_000
        try c.setPolicy(q)
        #expect(c.policy == q && b.policy == p && a.policy == p)
        #expect(c.sharedPolicy !== b.sharedPolicy)
    }
}
