// The engine's 4-byte lock (EngineLock.swift, WordLock) under contention. Contended locks sleep in
// process-wide parking buckets chosen by their owner's address: a wake-up for one lock reaches
// every sleeper of its bucket, and each must take its own word or sleep again. The tests run the
// same contention on locks that share one bucket and on locks that each have their own: no
// wake-up may be lost (the test would hang) and no two threads may hold one lock at once (a
// counter would lose increments).

import Glibc
import Synchronization
import Testing
@testable import InactivityCore

private final class Guarded: @unchecked Sendable {
    let lock = WordLock()
    var count = 0
    /// Set while a thread holds `lock`: a second holder finds it set.
    var held = false
    let overlaps = Atomic<Int>(0)

    var bucket: Int { LockParking.index(of: ObjectIdentifier(self)) }
}

private final class Run: @unchecked Sendable {
    let guarded: [Guarded]
    let iterations = 2_000
    let threads = 4

    init(_ guarded: [Guarded]) { self.guarded = guarded }
}

/// `count` locks whose owners hash to one bucket (`sameBucket`) or each to a bucket of its own.
/// The objects passed over stay alive until the choice is made, so that no address comes back.
private func locks(_ count: Int, sameBucket: Bool) -> [Guarded] {
    var passedOver: [Guarded] = []
    var byBucket: [Int: [Guarded]] = [:]
    while true {
        let g = Guarded()
        if sameBucket {
            byBucket[g.bucket, default: []].append(g)
            if byBucket[g.bucket]!.count == count { return byBucket[g.bucket]! }
        } else if byBucket[g.bucket] == nil {
            byBucket[g.bucket] = [g]
            if byBucket.count == count { return byBucket.values.map { $0[0] } }
        } else {
            passedOver.append(g)
        }
    }
}

/// Four threads take the locks in turn, holding each across a yield every fourth time so that
/// the others spin out and sleep.
private func contend(_ run: Run) {
    let context = Unmanaged.passRetained(run).toOpaque()
    var ids: [pthread_t] = []
    for _ in 0..<run.threads {
        var id = pthread_t()
        let rc = pthread_create(&id, nil, { p in
            let run = Unmanaged<Run>.fromOpaque(p!).takeUnretainedValue()
            for i in 0..<run.iterations {
                let g = run.guarded[i % run.guarded.count]
                g.lock.lock(ObjectIdentifier(g))
                if g.held { g.overlaps.add(1, ordering: .relaxed) }
                g.held = true
                let seen = g.count
                if i % 4 == 0 { sched_yield() }
                g.count = seen + 1
                g.held = false
                g.lock.unlock(ObjectIdentifier(g))
            }
            return nil
        }, context)
        #expect(rc == 0)
        ids.append(id)
    }
    for id in ids { pthread_join(id, nil) }
    Unmanaged<Run>.fromOpaque(context).release()
}

@Suite("Word lock")
struct WordLockTests {
    @Test func contended_locks_sharing_one_bucket_exclude_and_never_lose_a_wake_up() {
        let run = Run(locks(3, sameBucket: true))
        #expect(Set(run.guarded.map(\.bucket)).count == 1)
        contend(run)
        #expect(run.guarded.map(\.count).reduce(0, +) == run.threads * run.iterations)
        #expect(run.guarded.allSatisfy { $0.overlaps.load(ordering: .relaxed) == 0 })
    }

    @Test func contended_locks_in_different_buckets_exclude_and_never_lose_a_wake_up() {
        let run = Run(locks(3, sameBucket: false))
        #expect(Set(run.guarded.map(\.bucket)).count == 3)
        contend(run)
        #expect(run.guarded.map(\.count).reduce(0, +) == run.threads * run.iterations)
        #expect(run.guarded.allSatisfy { $0.overlaps.load(ordering: .relaxed) == 0 })
    }

    @Test func bucket_index_is_in_range_and_spreads_engines_allocated_in_a_row() {
        let objects = (0..<256).map { _ in Guarded() }
        let buckets = objects.map(\.bucket)
        #expect(buckets.allSatisfy { (0..<LockParking.bucketCount).contains($0) })
        // 256 objects over 64 buckets: a uniform hash fills about 63 of them; one that mapped
        // nearby addresses together would fill far fewer.
        #expect(Set(buckets).count >= 48)
    }
}
