// The locked path and delivery of an engine (docs/design.md, "Threading and delivery"): every
// call is one `perform` under the engine's lock, in five steps (close the gate and read the
// clock, catch up, the call, settle, publish and queue), then arms the scheduler and delivers
// outside the lock. Delivery runs one callback at a time per thread (`ThreadDelivery`), so a
// call made inside a callback, on any engine, only queues; `close()` waits for a callback
// running on another thread (`CloseWait`). The engine's fields and creation are in Engine.swift.

import CInactivityPlatform
import Synchronization

// MARK: - The locked path and delivery

extension InactivityEngine {

    /// Runs `body` on the engine's fields under its lock.
    @inline(__always)
    func withCore<R, E: Error>(_ body: (inout Core) throws(E) -> R) throws(E) -> R {
        coreLock.lock(ObjectIdentifier(self))
        defer { coreLock.unlock(ObjectIdentifier(self)) }
        return try body(&core)
    }

    /// Publishes the machine's gate view; the gate is closed while this runs. A manual clock
    /// sends every call through the lock: the gate reads the system clock.
    func publishGate(_ m: SessionMachine) {
        var view = m.gateView
        if clock.isManual { view.mode = .slow }
        gate.pointee.publish(view)
    }

    /// Runs one call on the machine under the lock, in five steps: close the gate, read the
    /// clock and catch up on what time made due, run `body` (the call), settle what the call made due, publish the gate view and arm
    /// the scheduler, queue the events. Then, outside the lock, arm and deliver.
    @discardableResult
    func perform<R>(_ body: (inout SessionMachine, ClockReading) throws(InactivityError) -> R) throws(InactivityError) -> R {
        // Only this wrapper is generic: the five steps are one function for every call, not a
        // copy per result type (about 60 KB of the wasm module when they were specialized).
        var result: R? = nil
        try performSteps { (m, reading) throws(InactivityError) in result = try body(&m, reading) }
        return result!
    }

    /// `perform`'s five steps, for a call whose result `body` keeps itself.
    @inline(never)
    private func performSteps(_ body: (inout SessionMachine, ClockReading) throws(InactivityError) -> Void) throws(InactivityError) {
        var outcome: Result<Void, InactivityError>? = nil
        var arm: (at: Int64, seq: UInt64)? = nil
        let deliver = withCore { c -> Bool in
            guard !c.closed else {
                outcome = .failure(InactivityEngine.invalidHandle(handle))
                return false
            }
            // The gate closes before the clock is read, never after: a lock-free stamp read its
            // clock before its compare-and-swap, which comes before this close, so every stamp
            // taken in is at or before `reading`. Read first, the clock could say t while a
            // stamp of t + 1 landed before the close; the merge, which refuses a stamp from the
            // future, dropped it, and a wake-up at the idle deadline then locked an engine whose
            // activity had returned OK (issue 26: the scheduler thread preempted between the two).
            let stamp = gate.pointee.close()
            let reading = clock.now()
            var events: [SessionEvent] = []
            catchUp(&c.machine, stamp: stamp, at: reading, into: &events)
            do throws(InactivityError) {
                outcome = .success(try body(&c.machine, reading))
            } catch {
                // A refused call: the machine is as it was, except after corrupt restore bytes,
                // which leave it EXPIRED (RESTORE_FAILED) on purpose (fail secure); `settle`
                // then collects that change like any other.
                outcome = .failure(error)
            }
            settle(&c.machine, at: reading.monotonicMs, into: &events)
            arm = publish(&c)
            return enqueue(events, in: &c)
        }
        if let arm { Scheduler.shared.arm(handle: handle, at: arm.at, seq: arm.seq) }
        if deliver { ThreadDelivery.deliver(self) }
        try outcome!.get()
    }

    /// Step 1: take in the gate's lock-free stamp (the gate closed before `reading` was taken),
    /// notice a clock discontinuity, apply every deadline due, and collect the result for the host.
    private func catchUp(_ m: inout SessionMachine, stamp: Int64, at reading: ClockReading,
                         into events: inout [SessionEvent]) {
        let now = reading.monotonicMs
        // Never later than `now` (see `perform`); if a platform's clock ever disagreed across
        // CPUs, the activity still counts, at `now`, instead of being dropped as from the future.
        m.mergeGateStamp(min(stamp, now), now: now)
        m.observe(reading)
        m.evaluate(now: now)
        m.collect(now: now, engine: handle, into: &events)
    }

    /// Step 3: apply what the call made due (a scope that brought the idle deadline to now).
    private func settle(_ m: inout SessionMachine, at now: Int64, into events: inout [SessionEvent]) {
        m.evaluate(now: now)
        m.collect(now: now, engine: handle, into: &events)
    }

    /// Step 4: publish the gate view; returns the wake-up to arm when the next deadline came
    /// earlier than the one armed (a later one is found when the armed one fires).
    private func publish(_ c: inout Core) -> (at: Int64, seq: UInt64)? {
        publishGate(c.machine)
        guard usesScheduler, let next = c.machine.nextWake, c.armedAt.map({ next < $0 }) ?? true else { return nil }
        c.armedSeq &+= 1
        c.armedAt = next
        return (next, c.armedSeq)
    }

    /// Step 5: queue the events; returns true when this thread is to deliver them (nobody is):
    /// at once, or, when the thread is already delivering (a call from inside a callback), once
    /// the callbacks before them have returned (`ThreadDelivery`).
    private func enqueue(_ events: [SessionEvent], in c: inout Core) -> Bool {
        c.queue.append(contentsOf: events)
        if c.delivering || c.queue.isEmpty { return false }
        c.delivering = true
        c.deliverer = pthread_self()
        c.waitingInRun = ThreadDelivery.isRunning
        return true
    }

    /// Delivers queued events one at a time, never under the lock, until the queue is empty.
    /// Only `ThreadDelivery` calls it, so that no delivery runs inside another.
    fileprivate func deliverQueue() {
        var finalizeNow = false
        var wakeClosers = false
        while true {
            let next = withCore { c -> (SessionEvent, [(id: UInt64, observer: EventObserver)])? in
                if c.closed || c.queue.isEmpty {
                    c.queue = []   // events are rare: give the buffer back
                    c.delivering = false
                    finalizeNow = c.finalizeAfterDelivery
                    c.finalizeAfterDelivery = false
                    wakeClosers = c.closeWaiters > 0
                    return nil
                }
                c.waitingInRun = false
                return (c.queue.removeFirst(), c.observers)
            }
            guard let (event, observers) = next else { break }
            onEvent?(event)
            for o in observers { o.observer.onEvent(event) }
        }
        if wakeClosers { CloseWait.broadcast() }
        if finalizeNow { finalize() }
    }

    /// Called by the scheduler (or a manual clock) when a deadline may be due.
    func timerFired(seq: UInt64? = nil) {
        if let seq {
            withCore { c in if c.armedSeq == seq { c.armedAt = nil } }
        }
        _ = try? perform { _, _ in }
    }

    /// The next instant a manual clock must stop for this engine, as of its last evaluation.
    /// Countdown ticks count only while someone receives this engine's events (its onEvent or
    /// an observer): an advance then stops at each, as the header promises; unobserved, they
    /// would only make a long advance in WARNING cost one stop per tick (30 days of a 1 ms
    /// tick: 2.6e9), and the next stop covers them as the catch-up after a deep sleep does.
    /// Not inlined: ManualClock.advance is its only caller, and the two deadline computations it
    /// would take in (with and without ticks) made advance 7 KB of the wasm module (BENCHMARKS.md).
    @inline(never)
    func peekNextWake() -> Int64? {
        withCore { c in
            if c.closed { return nil }
            return onEvent == nil && c.observers.isEmpty ? c.machine.nextWakeIgnoringTicks : c.machine.nextWake
        }
    }

    /// Frees the handle, stops scheduling, finishes streams and runs `onClose` exactly once.
    func finalize() {
        guard !finalized.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Registry.shared.release(handle)
        if usesScheduler { Scheduler.shared.engineRemoved() }
        if case .manual(let manual) = clock { manual.detach(handle) }
        let observers = withCore { c -> [(id: UInt64, observer: EventObserver)] in
            let o = c.observers
            c.observers = []
            return o
        }
        for o in observers { o.observer.onClose() }
        onClose?()
    }
}

/// Delivery without nesting: a thread delivers one engine's callbacks at a time. A call made
/// inside a callback that gives any engine events, its own or another's, only queues them;
/// the thread's run delivers them after the callback returns, engine after engine in the order
/// they first had events (each engine's own events in their order). So a callback that destroys
/// its engine and creates the next, whose callback does the same, is a loop on the first
/// engine's frame, not a recursion a million deep (the stack overflowed near 10,000 when each
/// engine delivered its own queue wherever its events were caused).
///
/// The run is found through a pthread key (not `_Thread_local`: see library.c's last error).
/// If the key cannot be made, each engine delivers where its events are caused, as before.
enum ThreadDelivery {
    final class Run {
        var pending: [InactivityEngine] = []
    }

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// This thread is delivering (inside a callback, or between two).
    static var isRunning: Bool {
        guard let key else { return false }
        return pthread_getspecific(key) != nil
    }

    /// Delivers `engine`'s queue (this thread owns its delivery), now or after the callbacks
    /// the thread is running.
    static func deliver(_ engine: InactivityEngine) {
        guard let key else { return engine.deliverQueue() }
        if let current = pthread_getspecific(key) {
            Unmanaged<Run>.fromOpaque(current).takeUnretainedValue().pending.append(engine)
            return
        }
        let run = Run()
        _ = pthread_setspecific(key, Unmanaged.passUnretained(run).toOpaque())
        defer { _ = pthread_setspecific(key, nil) }
        engine.deliverQueue()
        while !run.pending.isEmpty {
            let next = run.pending
            run.pending = []
            for e in next { e.deliverQueue() }
        }
    }
}

/// Where `close()` waits for a callback running on another thread. One process-wide condition:
/// closes that wait are rare, and engines stay small.
enum CloseWait {
    static let parking = Parking()

    static func wait(while busy: () -> Bool) {
        pthread_mutex_lock(parking.mutex)
        while busy() { pthread_cond_wait(parking.condition, parking.mutex) }
        pthread_mutex_unlock(parking.mutex)
    }

    static func broadcast() { parking.broadcast() }
}
