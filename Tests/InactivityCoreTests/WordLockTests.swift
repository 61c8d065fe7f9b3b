// The engine's 4-byte lock (Locked.swift, WordLock) under contention: several locks share one
// process-wide parking condition, so a wake-up meant for one lock's sleeper reaches them all and
// each must take its own word or sleep again; none may be lost (the test would hang) and no two
// threads may hold one lock at once (a counter would lose increments).

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
}

private final class Run: @unchecked Sendable {
    let guarded = (0..<3).map { _ in Guarded() }
    let iterations = 2_000
    let threads = 4
}

@Suite("Word lock")
struct WordLockTests {
    @Test func contended_locks_sharing_one_condition_exclude_and_never_lose_a_wake_up() {
        let run = Run()
        let context = Unmanaged.passRetained(run).toOpaque()
        var ids: [pthread_t] = []
        for _ in 0..<run.threads {
            var id = pthread_t()
            let rc = pthread_create(&id, nil, { p in
                let run = Unmanaged<Run>.fromOpaque(p!).takeUnretainedValue()
                for i in 0..<run.iterations {
                    let g = run.guarded[i % run.guarded.count]
                    g.lock.lock()
                    if g.held { g.overlaps.add(1, ordering: .relaxed) }
                    g.held = true
                    let seen = g.count
                    // Hold the lock across a yield so the others spin out and sleep.
                    if i % 4 == 0 { sched_yield() }
                    g.count = seen + 1
                    g.held = false
                    g.lock.unlock()
                }
                return nil
            }, context)
            #expect(rc == 0)
            ids.append(id)
        }
        for id in ids { pthread_join(id, nil) }
        Unmanaged<Run>.fromOpaque(context).release()
        #expect(run.guarded.map(\.count).reduce(0, +) == run.threads * run.iterations)
        #expect(run.guarded.allSatisfy { $0.overlaps.load(ordering: .relaxed) == 0 })
    }
}
