// The process-wide scheduler thread (docs/design.md section 5, delivery mode "thread").
//
// One thread serves every engine that uses the system clock in thread mode. It keeps a min-heap
// of (deadline, engine, arm sequence) and sleeps until the earliest deadline, with no periodic
// wake-up. On Linux and Android it sleeps on a timerfd of CLOCK_BOOTTIME with an absolute
// expiry, so the sleep counts deep sleep exactly like the engine's clock; an earlier deadline is
// armed by resetting that timerfd from the arming thread. The thread starts with the first
// engine and exits when the last one is gone.
//
// Timers only wake engines; they never decide. An engine pushes an entry whenever its next
// deadline comes earlier than the one it armed, so the heap can hold several entries of one
// engine: only the latest (by its sequence number) clears the engine's armed time when it fires,
// and a superseded one is a harmless extra wake-up. When activity moved
// the deadline later, the wake-up finds nothing due and the engine re-arms at the new deadline.

import CInactivityPlatform

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
    }

    private let state = Locked(State())

    #if os(Linux) || os(Android)
    private let timerFD: Int32 = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
    #else
    private let waitMutex: UnsafeMutablePointer<pthread_mutex_t>
    private let waitCondition: UnsafeMutablePointer<pthread_cond_t>
    private var signalled = false
    #endif

    private init() {
        #if !(os(Linux) || os(Android))
        waitMutex = .allocate(capacity: 1)
        pthread_mutex_init(waitMutex, nil)
        waitCondition = .allocate(capacity: 1)
        pthread_cond_init(waitCondition, nil)
        #endif
    }

    // MARK: Engines

    func engineAdded() {
        let spawn = state.withLock { s -> Bool in
            s.engines += 1
            if s.running { return false }
            s.running = true
            return true
        }
        if spawn { startThread() }
    }

    func engineRemoved() {
        let wake = state.withLock { s -> Bool in
            s.engines -= 1
            return s.engines == 0 && s.running
        }
        if wake { setTimer(nil, immediately: true) }
    }

    /// Arms a wake-up for `handle` at `at` (system-clock ms).
    func arm(handle: UInt64, at: Int64, seq: UInt64) {
        state.withLock { s in
            heapPush(&s.heap, Entry(at: at, handle: handle, seq: seq))
            if s.timerAt == nil || at < s.timerAt! {
                s.timerAt = at
                setTimer(at, immediately: false)
            }
        }
    }

    var isRunning: Bool { state.withLock { $0.running } }

    // MARK: The thread

    private func startThread() {
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let rc = pthread_create(&thread, &attributes, { _ in
            Scheduler.shared.run()
            return nil
        }, nil)
        pthread_attr_destroy(&attributes)
        if rc != 0 {
            state.withLock { $0.running = false }
        }
    }

    private func run() {
        #if os(Linux)
        _ = pthread_setname_np(pthread_self(), "inactivity")   // visible in top -H, /proc/<pid>/task
        #endif
        while true {
            let due = state.withLock { s -> [Entry]? in
                if s.engines == 0 {
                    s.running = false
                    s.heap.removeAll()
                    s.timerAt = nil
                    setTimer(nil, immediately: false)
                    return nil
                }
                let now = SystemClock.monotonicMs()
                var due: [Entry] = []
                while let top = s.heap.first, top.at <= now {
                    due.append(heapPop(&s.heap))
                }
                s.timerAt = s.heap.first?.at
                setTimer(s.timerAt, immediately: false)
                return due
            }
            guard let due else { return }
            if due.isEmpty {
                sleep()
                continue
            }
            for entry in due {
                Registry.shared.lookup(entry.handle)?.timerFired(seq: entry.seq)
            }
        }
    }

    // MARK: Waiting

    #if os(Linux) || os(Android)
    /// Sets the timerfd to `at` (absolute CLOCK_BOOTTIME ms), to fire at once, or disarms it.
    private func setTimer(_ at: Int64?, immediately: Bool) {
        var spec = itimerspec()
        if immediately {
            spec.it_value.tv_nsec = 1   // an absolute time in the past: fires at once
        } else if let at {
            let ms = max(at, 0)
            spec.it_value.tv_sec = Int(ms / 1000)
            spec.it_value.tv_nsec = Int(ms % 1000) * 1_000_000
            if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }
        }
        timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    private func sleep() {
        var descriptor = pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, -1)
        var expirations: UInt64 = 0
        _ = read(timerFD, &expirations, 8)
    }
    #else
    private var wakeAt: Int64?
    private func setTimer(_ at: Int64?, immediately: Bool) {
        pthread_mutex_lock(waitMutex)
        wakeAt = immediately ? .min : at
        signalled = true
        pthread_cond_signal(waitCondition)
        pthread_mutex_unlock(waitMutex)
    }

    private func sleep() {
        pthread_mutex_lock(waitMutex)
        signalled = false
        while !signalled {
            guard let at = wakeAt else {
                pthread_cond_wait(waitCondition, waitMutex)
                continue
            }
            let delay = at - SystemClock.monotonicMs()
            if delay <= 0 { break }
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            let ns = Int64(ts.tv_nsec) + (delay % 1000) * 1_000_000
            ts.tv_sec += Int(delay / 1000) + Int(ns / 1_000_000_000)
            ts.tv_nsec = Int(ns % 1_000_000_000)
            if pthread_cond_timedwait(waitCondition, waitMutex, &ts) == ETIMEDOUT { break }
        }
        pthread_mutex_unlock(waitMutex)
    }
    #endif
}

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
