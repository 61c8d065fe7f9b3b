// The process-wide scheduler thread (docs/design.md section 5, delivery mode "thread").
//
// One thread serves every engine that uses the system clock in thread mode. It keeps a min-heap
// of (deadline, engine, arm sequence) and sleeps until the earliest deadline, with no periodic
// wake-up. The thread starts with the first engine and exits when the last one is gone.
//
// Timers only wake engines; they never decide. An engine pushes an entry whenever its next
// deadline comes earlier than the one it armed, so the heap can hold several entries of one
// engine: only the latest (by its sequence number) clears the engine's armed time when it fires,
// and a superseded one is a harmless extra wake-up. When activity moved
// the deadline later, the wake-up finds nothing due and the engine re-arms at the new deadline.
//
// Platform faults. Everything the thread needs (its timer, its wake-up channel, the thread
// itself) is obtained when a THREAD engine is created and the thread is not running; if any of
// it fails, that creation fails with INACT_E_SYSTEM naming the call and errno, no engine is
// half-created, the engines that exist are untouched, and the next creation tries again. A timer
// that cannot be set later (it never happens with a valid timerfd, but the result is checked)
// does not lose deadlines: the thread is woken and waits with a poll timeout instead, at most
// one second at a time, until the timer can be set again. That fault is not silent: the engine
// survives it, so no call fails, but `timerFaults` (inact_scheduler_faults) says that deadlines
// may now fire up to a second late, how often setting the timer failed and the last errno.
// A child made by fork() has the
// scheduler's memory but not its thread, and shares the parent's timerfd: it forgets both and
// starts its own at its first THREAD engine or deadline. It knows it is a child by a counter
// that a pthread_atfork child handler increments (no getpid system call on every engine
// creation and arm). fork() runs that handler; a child made with _Fork() or a raw clone does
// not, and like any child of a multithreaded process it may call only async-signal-safe
// functions (not this library) until it execs.
//
// Waiting (the only platform-specific part, `Waiter` below) never depends on the wall clock:
//   Linux, Android  a timerfd of CLOCK_BOOTTIME with an absolute expiry (the sleep counts deep
//                   sleep exactly like the engine's clock) and an eventfd for wake-ups;
//   Apple           a condition variable with a relative wait (pthread_cond_timedwait_relative_np);
//   other POSIX     a condition variable on CLOCK_MONOTONIC (pthread_condattr_setclock).
// After every wake the thread reads the continuous clock (SystemClock) to decide what is due,
// so a wait that ends early or late only costs a loop turn or a delay, never a wrong decision.

import CInactivityPlatform
import Synchronization

final class Scheduler: @unchecked Sendable {
    static let shared = Scheduler()

    struct Entry {
        var at: Int64
        var handle: UInt64
        var seq: UInt64
    }

    private struct State {
        var heap: [Entry] = []
        var engines = 0
        var running = false
        var timerAt: Int64?
        /// The last attempt to set the timer failed: the thread waits with a bounded timeout.
        var timerFailed = false
        /// Failed attempts to set the timer since the process started, and the last one's errno.
        var timerFailures: UInt64 = 0
        var timerLastErrno: Int32 = 0
        /// The fork generation (`Scheduler.forks`) of the process that started the thread and
        /// owns the waiter's resources. A child made by fork() has this memory (and the parent's
        /// engines) but not the thread, and shares the parent's timerfd: it starts its own at its
        /// first engine or arm.
        var owner: UInt32 = 0
        /// The fork handler is registered (once per process; a forked child inherits it).
        var watchingForks = false
    }

    /// How many fork()s led to this process: incremented in the child by the pthread_atfork
    /// handler, so that the scheduler learns it runs in a child without asking the kernel.
    private static let forks = Atomic<UInt32>(0)

    private let state = Locked(State())
    /// Touched only under `state`'s lock, except `wait` (by the scheduler thread alone).
    private let waiter = Waiter()

    private init() {}

    // MARK: Engines

    /// Counts a new THREAD engine; starts the thread when it is not running. Throws (and counts
    /// nothing) when the timer, the wake-up channel or the thread cannot be had.
    func engineAdded() throws(InactivityError) {
        try state.withLock { (s: inout State) throws(InactivityError) in
            forgetIfForked(&s)
            if !s.running { try start(&s) }
            s.engines += 1
        }
    }

    func engineRemoved() {
        state.withLock { s in
            forgetIfForked(&s)
            s.engines -= 1
            if s.engines == 0 && s.running { waiter.wakeNow() }
        }
    }

    /// Arms a wake-up for `handle` at `at` (system-clock ms).
    func arm(handle: UInt64, at: Int64, seq: UInt64) {
        state.withLock { s in
            heapPush(&s.heap, Entry(at: at, handle: handle, seq: seq))
            if forgetIfForked(&s) {
                // The parent's engines live on in a forked child: give them a thread. If the
                // child cannot have one, its engines still decide at every call (catch-up).
                do throws(InactivityError) { try start(&s) } catch { return }
            }
            if s.timerAt == nil || at < s.timerAt! {
                s.timerAt = at
                if !setTimer(&s, at) {
                    // The thread may be asleep with no timeout: wake it so it waits bounded.
                    waiter.wakeNow()
                }
            }
        }
    }

    var isRunning: Bool { state.withLock { $0.running } }

    /// Whether the last attempt to set the timer failed, how many failed since the process
    /// started, and the last failure's errno (0 if none).
    var timerFaults: (degraded: Bool, failures: UInt64, lastErrno: Int32) {
        state.withLock { s in (s.timerFailed, s.timerFailures, s.timerLastErrno) }
    }

    /// Sets (or, for nil, disarms) the timer and records the outcome; false when it failed.
    private func setTimer(_ s: inout State, _ at: Int64?) -> Bool {
        let code = waiter.setDeadline(at)
        s.timerFailed = code != 0
        if code != 0 {
            s.timerFailures &+= 1
            s.timerLastErrno = code
        }
        return code == 0
    }

    private func start(_ s: inout State) throws(InactivityError) {
        if !s.watchingForks {
            let rc = pthread_atfork(nil, nil, { Scheduler.forks.wrappingAdd(1, ordering: .relaxed) })
            guard rc == 0 else { throw systemError("pthread_atfork", rc) }
            s.watchingForks = true
        }
        // The registry's one mapping before the thread exists: mmap holds the address space's
        // lock for writing, which would stall the new thread faulting in its stack on the other
        // CPU (the registry is needed by this very creation anyway).
        _ = Registry.shared
        try waiter.prepare()
        try startThread()
        s.running = true
        s.owner = Scheduler.forks.load(ordering: .relaxed)
    }

    /// In a child made by fork() while the thread ran: forgets the thread (it is not in this
    /// process) and the inherited timer and wake-up descriptors. True when it did.
    @discardableResult
    private func forgetIfForked(_ s: inout State) -> Bool {
        guard s.running, s.owner != Scheduler.forks.load(ordering: .relaxed) else { return false }
        s.running = false
        s.timerAt = nil
        waiter.forgetInheritedResources()
        return true
    }

    // MARK: The thread

    /// Starts the detached scheduler thread (called under the state lock; the thread's first
    /// step waits for that lock).
    private func startThread() throws(InactivityError) {
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        var rc = pthread_attr_init(&attributes)
        guard rc == 0 else { throw systemError("pthread_attr_init", rc) }
        defer { pthread_attr_destroy(&attributes) }
        rc = pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        guard rc == 0 else { throw systemError("pthread_attr_setdetachstate", rc) }
        rc = pthread_create(&thread, &attributes, { _ in
            Scheduler.shared.run()
            return nil
        }, nil)
        guard rc == 0 else {
            #if arch(wasm32)
            // The rule, not only errno's text: the platform has no threads (inactivity_wasm.h).
            throw InactivityError(.system, "scheduler thread: pthread_create failed: wasm32 has no threads, so THREAD delivery on the SYSTEM clock cannot run: create the engine with config.delivery = INACT_DELIVERY_HOST and call inact_next_deadline / inact_poll (errno \(rc))", errorNumber: rc)
            #else
            throw systemError("pthread_create", rc)
            #endif
        }
    }

    private func run() {
        #if os(Linux) || INACTIVITY_LINUX
        _ = pthread_setname_np(pthread_self(), "inactivity")   // visible in top -H, /proc/<pid>/task
        #endif
        while true {
            let step = state.withLock { s -> (due: [Entry], timeoutMs: Int32)? in
                if s.engines == 0 {
                    s.running = false
                    s.heap.removeAll()
                    s.timerAt = nil
                    _ = setTimer(&s, nil)
                    return nil
                }
                let now = SystemClock.monotonicMs()
                var due: [Entry] = []
                while let top = s.heap.first, top.at <= now {
                    due.append(heapPop(&s.heap))
                }
                s.timerAt = s.heap.first?.at
                guard !setTimer(&s, s.timerAt), let at = s.timerAt else { return (due, -1) }
                return (due, Int32(min(max(at - now, 1), 1000)))
            }
            guard let step else { return }
            if step.due.isEmpty {
                waiter.wait(timeoutMs: step.timeoutMs)
                continue
            }
            for entry in step.due {
                Registry.shared.lookup(entry.handle)?.timerFired(seq: entry.seq)
            }
        }
    }
}

/// The error of a failed system call: which call, and errno's text and number.
private func systemError(_ call: StaticString, _ code: Int32) -> InactivityError {
    InactivityError(.system, "scheduler thread: \(call) failed: \(cString: strerror(code)) (errno \(code))",
                    errorNumber: code)
}

// MARK: - Waiting

#if os(Linux) || os(Android) || INACTIVITY_LINUX
/// A timerfd of CLOCK_BOOTTIME (deadlines, absolute) and an eventfd (wake now), polled together.
/// Both are created once and kept for the life of the process.
private final class Waiter {
    private var timerFD: Int32 = -1
    private var wakeFD: Int32 = -1
    /// The timer is known to be disarmed (the last setting that succeeded was a disarm), so that
    /// disarming it again is no system call: the new thread's first turn, and its last when the
    /// last engine leaves, find nothing to wait for.
    private var disarmed = false

    func prepare() throws(InactivityError) {
        if timerFD >= 0 { return }
        let timer = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard timer >= 0 else { throw systemError("timerfd_create(CLOCK_BOOTTIME)", inactivity_errno()) }
        // A new timerfd is disarmed already; this setting (a disarm) is the check that the timer
        // can be set at all, so that a platform refusing it fails the creation (INACT_E_SYSTEM)
        // instead of leaving a scheduler that degrades at its first deadline.
        let code = inactivity_timerfd_set_abs_ms(timer, -1)   // disarmed
        guard code == 0 else {
            close(timer)
            throw systemError("timerfd_settime", code)
        }
        let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            let code = inactivity_errno()
            close(timer)
            throw systemError("eventfd", code)
        }
        timerFD = timer
        wakeFD = wake
        disarmed = true
    }

    /// Arms the timer at `at` (absolute CLOCK_BOOTTIME ms), or disarms it. 0, or the errno of
    /// the failure.
    func setDeadline(_ at: Int64?) -> Int32 {
        if at == nil && disarmed { return 0 }
        // 64-bit seconds on every target (CInactivityPlatform's time helpers); -1 disarms.
        let code = inactivity_timerfd_set_abs_ms(timerFD, at.map { max($0, 0) } ?? -1)
        disarmed = code == 0 && at == nil   // after a failure the timer's state is not known
        return code
    }

    /// In a forked child: the descriptors are the parent's timer and channel (closing this
    /// process's copies leaves the parent's alone); the next `prepare` makes new ones.
    func forgetInheritedResources() {
        if timerFD >= 0 { close(timerFD) }
        if wakeFD >= 0 { close(wakeFD) }
        timerFD = -1
        wakeFD = -1
        disarmed = false
    }

    func wakeNow() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)   // fails only when the counter is full: a wake is pending
    }

    /// The two pollfds, allocated once (no allocation per wait).
    private let fds = UnsafeMutablePointer<pollfd>.allocate(capacity: 2)

    func wait(timeoutMs: Int32) {
        fds[0] = pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0)
        fds[1] = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
        _ = poll(fds, 2, timeoutMs)   // EINTR or a timeout: the caller reads the clock anyway
        var count: UInt64 = 0
        _ = read(timerFD, &count, 8)   // non-blocking: clears what fired
        _ = read(wakeFD, &count, 8)
    }
}
#else
/// A condition variable: `wakeNow` and new deadlines signal it; the wait itself is relative
/// (Apple) or on CLOCK_MONOTONIC (other POSIX), never on the wall clock.
private final class Waiter {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var ready = false
    /// Guarded by `mutex`. Int64.min: wake now.
    private var deadline: Int64?
    private var changed = false

    func prepare() throws(InactivityError) {
        if ready { return }
        var rc = pthread_mutex_init(mutex, nil)
        guard rc == 0 else { throw systemError("pthread_mutex_init", rc) }
        #if canImport(Darwin)
        rc = pthread_cond_init(condition, nil)
        #else
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        rc = pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        if rc == 0 { rc = pthread_cond_init(condition, &attributes) }
        pthread_condattr_destroy(&attributes)
        #endif
        guard rc == 0 else {
            pthread_mutex_destroy(mutex)
            throw systemError("pthread_cond_init", rc)
        }
        ready = true
    }

    /// A condition variable's deadline cannot fail to be set: always 0.
    func setDeadline(_ at: Int64?) -> Int32 {
        update(at)
        return 0
    }

    /// In a forked child the mutex may have been copied locked: initialize both again.
    func forgetInheritedResources() { ready = false }

    func wakeNow() { update(.min) }

    private func update(_ at: Int64?) {
        pthread_mutex_lock(mutex)
        deadline = at
        changed = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    func wait(timeoutMs: Int32) {
        pthread_mutex_lock(mutex)
        changed = false
        while !changed {
            guard let at = deadline else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            let delay = at == .min ? 0 : at - SystemClock.monotonicMs()
            if delay <= 0 || waitTimedOut(ms: delay) { break }
        }
        pthread_mutex_unlock(mutex)
    }

    /// Waits at most `ms` for a signal; true when the time ran out.
    private func waitTimedOut(ms: Int64) -> Bool {
        let ms = min(ms, 365 * 86_400_000)   // no timespec overflow; the loop waits again
        #if canImport(Darwin)
        var relative = timespec(tv_sec: Int(ms / 1000), tv_nsec: Int(ms % 1000) * 1_000_000)
        return pthread_cond_timedwait_relative_np(condition, mutex, &relative) == ETIMEDOUT
        #else
        var until = timespec()
        clock_gettime(CLOCK_MONOTONIC, &until)
        let ns = Int64(until.tv_nsec) + (ms % 1000) * 1_000_000
        until.tv_sec += .init(ms / 1000 + ns / 1_000_000_000)
        until.tv_nsec = .init(ns % 1_000_000_000)
        return pthread_cond_timedwait(condition, mutex, &until) == ETIMEDOUT
        #endif
    }
}
#endif

// A binary min-heap on `at`.
private func heapPush(_ heap: inout [Scheduler.Entry], _ e: Scheduler.Entry) {
    heap.append(e)
    var i = heap.count - 1
    while i > 0 {
        let parent = (i - 1) / 2
        if heap[parent].at <= heap[i].at { break }
        heap.swapAt(parent, i)
        i = parent
    }
}

private func heapPop(_ heap: inout [Scheduler.Entry]) -> Scheduler.Entry {
    let top = heap[0]
    let last = heap.removeLast()
    if !heap.isEmpty {
        heap[0] = last
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count && heap[l].at < heap[m].at { m = l }
            if r < heap.count && heap[r].at < heap[m].at { m = r }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
    }
    return top
}
