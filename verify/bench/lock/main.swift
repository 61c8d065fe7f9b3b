// The engine's word lock (Sources/InactivityCore/EngineLock.swift, Locked.swift before 1.2,
// compiled into this program with it) under contention, against a pthread mutex (glibc: futex
// on its own address, wakes one waiter) under the same load in the same process. scripts/bench
// lock builds it once per lock file it compares (this checkout's and those of BENCH_LOCK_AGAINST,
// copied as Locked.swift) and runs them in
// turn; verify/bench/report.py takes the medians and ratios.
//
//   bench_lock RUN_MS
//
// Loads, each run for RUN_MS by every lock kind in turn (word, then pthread):
//   one_T   T threads (1, 2, 4) on one lock: a short critical section (32 dependent steps,
//           some 40 ns: what an engine query does under its lock), as much work outside it,
//           so that threads running at once collide and spin.
//   cross   4 locks hammered by 2 threads each, the holder sleeping 20 us inside its critical
//           section every 8th time (the other spins out and sleeps: what a preempted holder
//           causes), and 2 threads each on a lock of its own (engines nobody else uses). The 4
//           contended locks are in different parking buckets when the lock has buckets.
// Per load and kind, summed over its threads (for cross the contended and the solo ones apart):
// operations per second, CPU ns per operation (thread CPU time: it does not depend on the share
// of the machine the run got) and voluntary context switches per 1000 operations (each is a
// sleep that ended: the wake-ups, useful or not; cross's holders add their own 125 per 1000).
// Prints one JSON object.

import Glibc
import Synchronization

/// A lock and what it guards, padded to its own cache lines (engines are separate objects).
final class Box: @unchecked Sendable {
    let word = WordLock()
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    var value: UInt64 = 1
    /// Operations made under the lock: a lost increment means two holders at once.
    var count = 0
    var padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }
}

enum Kind: String, CaseIterable { case word, pthread }

/// `body` under the box's lock of this kind.
@inline(__always)
func withLock(_ box: Box, _ kind: Kind, _ body: () -> Void) {
    switch kind {
    case .word:
        #if WORDLOCK_KEYED
        box.word.lock(ObjectIdentifier(box))
        body()
        box.word.unlock(ObjectIdentifier(box))
        #else
        box.word.lock()
        body()
        box.word.unlock()
        #endif
    case .pthread:
        pthread_mutex_lock(box.mutex)
        body()
        pthread_mutex_unlock(box.mutex)
    }
}

@inline(__always)
/// `n` dependent steps of a multiply and an xor-shift (not affine: the optimizer cannot fold the
/// loop into one step, as it can a linear congruential one).
func work(_ x: UInt64, _ n: Int) -> UInt64 {
    var x = x
    for _ in 0..<n { x = (x &* 6_364_136_223_846_793_005) ^ (x >> 29) }
    return x
}

/// One thread's job: its lock, whether it yields inside, and what it counted.
final class Worker: @unchecked Sendable {
    let box: Box
    let kind: Kind
    let holdEvery: Int   // 0: never
    let steps: Int       // dependent multiplies inside the lock, and as many outside
    let run: Shared
    var ops = 0
    var cpuNs: Int64 = 0
    var switches = 0

    init(box: Box, kind: Kind, holdEvery: Int, steps: Int, run: Shared) {
        self.box = box; self.kind = kind; self.holdEvery = holdEvery; self.steps = steps; self.run = run
    }
}

final class Shared: @unchecked Sendable {
    let go = Atomic<Bool>(false)
    let stop = Atomic<Bool>(false)
    let ready = Atomic<Int>(0)
}

func body(_ w: Worker) {
    var local: UInt64 = 7
    var n = 0
    w.run.ready.add(1, ordering: .releasing)
    while !w.run.go.load(ordering: .acquiring) { sched_yield() }
    let cpu0 = threadCPUNs(), switches0 = threadSwitches()
    while !w.run.stop.load(ordering: .relaxed) {
        for _ in 0..<64 {
            withLock(w.box, w.kind) {
                w.box.value = work(w.box.value, w.steps) | 1
                w.box.count += 1
                if w.holdEvery != 0, n % w.holdEvery == 0 { sleepUs(20) }
            }
            local = work(local, w.steps)
            n += 1
        }
    }
    w.ops = n
    w.cpuNs = threadCPUNs() - cpu0
    w.switches = threadSwitches() - switches0
    if local == 0 { print("") } // keeps the outside work
}

/// This thread's voluntary context switches: each is a sleep that ended (a wake-up).
func threadSwitches() -> Int {
    var u = rusage()
    getrusage(1, &u) // RUSAGE_THREAD (Linux), which Glibc's module leaves out (a _GNU_SOURCE name)
    return u.ru_nvcsw
}

/// This thread's CPU time: a figure per operation that does not depend on how much of the
/// shared machine the run got.
func threadCPUNs() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

func sleepUs(_ us: Int) {
    var left = timespec(tv_sec: us / 1_000_000, tv_nsec: (us % 1_000_000) * 1000), rest = timespec()
    while nanosleep(&left, &rest) != 0 { left = rest }
}

func nowNs() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Runs the workers for `ms`; returns the seconds it took.
func runAll(_ workers: [Worker], _ run: Shared, ms: Int) -> Double {
    var ids: [pthread_t] = []
    for w in workers {
        var id = pthread_t()
        let rc = pthread_create(&id, nil, { p in
            body(Unmanaged<Worker>.fromOpaque(p!).takeUnretainedValue())
            return nil
        }, Unmanaged.passUnretained(w).toOpaque())
        if rc != 0 { fatal("pthread_create failed: \(rc)") }
        ids.append(id)
    }
    while run.ready.load(ordering: .acquiring) != workers.count { sched_yield() }
    let t0 = nowNs()
    run.go.store(true, ordering: .releasing)
    sleepUs(ms * 1000)
    run.stop.store(true, ordering: .relaxed)
    for id in ids { pthread_join(id, nil) }
    return Double(nowNs() - t0) / 1e9
}

/// Operations per second, CPU ns and wake-ups per 1000 operations of these workers.
func figures(_ workers: [Worker], seconds: Double, prefix: String = "") -> String {
    let ops = workers.reduce(0) { $0 + $1.ops }
    let cpu = workers.reduce(0) { $0 + $1.cpuNs }
    let switches = workers.reduce(0) { $0 + $1.switches }
    let n = Double(max(ops, 1))
    return "\"\(prefix)ops_per_s\": \(Double(ops) / seconds), \"\(prefix)cpu_ns_per_op\": \(Double(cpu) / n), "
        + "\"\(prefix)wakeups_per_1k\": \(Double(switches) * 1000 / n)"
}

func fatal(_ message: String) -> Never {
    fputs("bench_lock: \(message)\n", stderr)
    exit(2)
}

/// `count` boxes; with `distinctBuckets`, each in a parking bucket of its own (boxes in one
/// bucket would share wake-ups, which is what the one-condition lock did for all).
func boxes(_ count: Int, distinctBuckets: Bool) -> [Box] {
    #if WORDLOCK_KEYED
    if distinctBuckets {
        var kept: [Box] = [], seen: Set<Int> = [], spare: [Box] = []
        while kept.count < count {
            let b = Box()
            if seen.insert(LockParking.index(of: ObjectIdentifier(b))).inserted { kept.append(b) } else { spare.append(b) }
        }
        return kept
    }
    #endif
    return (0..<count).map { _ in Box() }
}

/// The lock's premise after a run: each box counted under its lock exactly the operations its
/// threads made.
func checkExclusion(_ workers: [Worker]) {
    var byBox: [ObjectIdentifier: (box: Box, ops: Int)] = [:]
    for w in workers { byBox[ObjectIdentifier(w.box), default: (w.box, 0)].ops += w.ops }
    for (_, e) in byBox where e.box.count != e.ops {
        fatal("the lock lost an increment: \(e.box.count) counted under it, \(e.ops) made")
    }
}

let runMs = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200 : 200
var out: [String] = []

for threads in [1, 2, 4] {
    for kind in Kind.allCases {
        let run = Shared()
        let box = Box()
        let workers = (0..<threads).map { _ in Worker(box: box, kind: kind, holdEvery: 0, steps: 32, run: run) }
        let s = runAll(workers, run, ms: runMs)
        checkExclusion(workers)
        out.append("\"one_\(threads)_\(kind)\": {\(figures(workers, seconds: s))}")
    }
}

for kind in Kind.allCases {
    let run = Shared()
    var workers: [Worker] = []
    for b in boxes(4, distinctBuckets: true) {
        for _ in 0..<2 { workers.append(Worker(box: b, kind: kind, holdEvery: 8, steps: 4, run: run)) }
    }
    let solo = boxes(2, distinctBuckets: false).map { Worker(box: $0, kind: kind, holdEvery: 0, steps: 4, run: run) }
    let s = runAll(workers + solo, run, ms: runMs)
    checkExclusion(workers + solo)
    out.append("\"cross_\(kind)\": {\(figures(workers, seconds: s)), \(figures(solo, seconds: s, prefix: "solo_"))}")
}

var load = [Double](repeating: 0, count: 3)
_ = getloadavg(&load, 3)
out.append("\"run_ms\": \(runMs)")
out.append("\"load\": [\(load[0]), \(load[1]), \(load[2])]")
print("{" + out.joined(separator: ", ") + "}")
