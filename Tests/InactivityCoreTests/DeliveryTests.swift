#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import InactivityAsync
import Testing
@testable import InactivityCore

/// A place to put the engine a callback needs, after the engine exists.
final class EngineBox: @unchecked Sendable {
    var engine: InactivityEngine?
}

final class Counter: Sendable {
    let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

@Suite("Callbacks, delivery and handles")
struct DeliveryTests {
    @Test func events_arrive_in_order_on_the_calling_thread() throws {
        let rig = Rig(smallPolicy())
        let caller = pthread_self()
        let sameThread = Atomic<Bool>(true)
        let engine = try InactivityEngine(policy: smallPolicy(), clock: .manual(rig.clock), delivery: .host,
                                          onEvent: { _ in if pthread_equal(pthread_self(), caller) == 0 { sameThread.store(false, ordering: .relaxed) } })
        try engine.start()
        try rig.engine.start()
        rig.at(20 * second)
        let onCallerThread = sameThread.load(ordering: .relaxed)
        #expect(onCallerThread)
        let times = rig.recorder.events.map(\.timeMs)
        #expect(times == times.sorted())
        #expect(rig.recorder.events.allSatisfy { $0.engine == rig.engine.handle })
        engine.close()
    }

    @Test func a_reentrant_call_is_delivered_after_the_callback_returns() throws {
        let clock = try ManualClock()
        let box = EngineBox()
        let log = Mutex<[String]>([])
        let engine = try InactivityEngine(policy: smallPolicy(), clock: .manual(clock), delivery: .host, onEvent: { e in
            log.withLock { $0.append("begin \(e.state)") }
            if e.state == .warning {
                try? box.engine!.continueSession()   // re-enters its own engine
            }
            log.withLock { $0.append("end \(e.state)") }
        })
        box.engine = engine
        try engine.start()
        try clock.advance(by: 7 * second)
        #expect(log.withLock { $0 } == ["begin ACTIVE", "end ACTIVE", "begin WARNING", "end WARNING", "begin ACTIVE", "end ACTIVE"])
        #expect(try engine.reason() == .continued)
        engine.close()
    }

    @Test func close_from_inside_a_callback_takes_effect_when_it_returns() throws {
        let clock = try ManualClock()
        let box = EngineBox()
        let closes = Counter()
        let seen = Mutex<[SessionState]>([])
        let engine = try InactivityEngine(policy: smallPolicy { $0.warningMs = 0 }, clock: .manual(clock), delivery: .host, onEvent: { e in
            seen.withLock { $0.append(e.state) }
            if e.state == .locked {
                #expect(box.engine!.close())
                #expect(closes.count == 0, "onClose ran before the callback returned")
                try? box.engine!.end(reason: .logout)   // refused: the handle is dead
            }
        }, onClose: { closes.increment() })
        box.engine = engine
        try engine.start()
        try clock.advance(by: 10 * second)
        #expect(closes.count == 1)
        #expect(seen.withLock { $0 } == [.active, .locked])
        #expect(errorCode { try engine.start() } == .invalidHandle)
        #expect(engine.close() == false)
        #expect(closes.count == 1)
    }

    @Test func close_from_another_thread_waits_for_a_running_callback() throws {
        let clock = try ManualClock()
        let flags = Flags()
        let engine = try InactivityEngine(policy: smallPolicy(), clock: .manual(clock), delivery: .host, onEvent: { _ in
            if flags.closed.load(ordering: .acquiring) { flags.afterClose.add(1, ordering: .relaxed) }
            flags.inCallback.store(true, ordering: .releasing)
            while !flags.release.load(ordering: .acquiring) { sched_yield() }
        })
        flags.engine = engine
        var starter = pthread_t()
        pthread_create(&starter, nil, { p in
            let f = Unmanaged<Flags>.fromOpaque(p!).takeUnretainedValue()
            try? f.engine!.start()   // its callback blocks until released
            return nil
        }, Unmanaged.passUnretained(flags).toOpaque())
        while !flags.inCallback.load(ordering: .acquiring) { sched_yield() }
        var releaser = pthread_t()
        pthread_create(&releaser, nil, { p in
            let f = Unmanaged<Flags>.fromOpaque(p!).takeUnretainedValue()
            usleep(50_000)
            f.release.store(true, ordering: .releasing)
            return nil
        }, Unmanaged.passUnretained(flags).toOpaque())
        engine.close()
        flags.closed.store(true, ordering: .releasing)
        let released = flags.release.load(ordering: .acquiring)
        #expect(released, "close returned while the callback was still running")
        pthread_join(starter, nil)
        pthread_join(releaser, nil)
        let callbacksAfterClose = flags.afterClose.load(ordering: .relaxed)
        #expect(callbacksAfterClose == 0)
        flags.engine = nil
    }

    @Test func on_close_runs_exactly_once() throws {
        let closes = Counter()
        do {
            let engine = try InactivityEngine(policy: smallPolicy(), clock: .manual(ManualClock()), delivery: .host,
                                              onClose: { closes.increment() })
            #expect(engine.close())
            #expect(!engine.close())
        }
        #expect(closes.count == 1)
        do {
            _ = try InactivityEngine(policy: smallPolicy(), clock: .manual(ManualClock()), delivery: .host,
                                     onClose: { closes.increment() })
        }   // dropped without close: deinit closes
        #expect(closes.count == 2)
    }

    @Test func a_failed_creation_never_runs_on_close() {
        let closes = Counter()
        var bad = smallPolicy()
        bad.idleTimeoutMs = 0
        #expect(throws: InactivityError.self) {
            _ = try InactivityEngine(policy: bad, onClose: { closes.increment() })
        }
        #expect(closes.count == 0)
    }

    @Test func handles_are_checked() throws {
        let rig = Rig(smallPolicy())
        let h = rig.engine.handle
        #expect(h != 0)
        #expect(try InactivityEngine.find(handle: h) === rig.engine)
        #expect(errorCode { _ = try InactivityEngine.find(handle: 0) } == .invalidHandle)
        #expect(errorCode { _ = try InactivityEngine.find(handle: h ^ (1 << 40)) } == .invalidHandle)   // forged generation
        #expect(errorCode { _ = try InactivityEngine.find(handle: 0xFFFF_FFFF) } == .invalidHandle)      // forged index
        #expect(errorCode { try InactivityEngine.recordActivity(handle: 0xDEAD_BEEF_0000_0001, kind: 1) } == .invalidHandle)
        rig.engine.close()
        #expect(errorCode { _ = try InactivityEngine.find(handle: h) } == .invalidHandle)
        #expect(errorCode { try InactivityEngine.recordActivity(handle: h, kind: 1) } == .invalidHandle)
        // The slot is reused with a new generation: the old handle stays dead.
        let other = Rig(smallPolicy())
        #expect(other.engine.handle != h)
        #expect(errorCode { try InactivityEngine.recordActivity(handle: h, kind: 1) } == .invalidHandle)
    }

    /// A Swift host may keep calling a closed engine object, or drop an engine without closing
    /// it, while its slot serves the next engine. The system clock, so that the calls take the
    /// lock-free path, which finds its gate from the handle's slot.
    @Test func a_closed_or_dropped_engine_never_reaches_the_engine_that_reused_its_slot() throws {
        let old = try InactivityEngine(policy: smallPolicy(), delivery: .host)
        try old.start()
        let slot = old.handle & 0xFFFF_FFFF
        old.close()
        // The next creation in the process takes the freed slot; tests running in parallel may
        // take it first, so create (and keep) engines until one has it.
        var made: [InactivityEngine] = []
        defer { for e in made { e.close() } }
        var reused: InactivityEngine? = nil
        for _ in 0..<10_000 where reused == nil {
            let e = try InactivityEngine(policy: smallPolicy(), delivery: .host)
            made.append(e)
            if e.handle & 0xFFFF_FFFF == slot { reused = e }
        }
        let next = try #require(reused, "no engine got the closed engine's slot back")
        #expect(next.handle != old.handle)
        try next.start()
        #expect(errorCode { try old.recordActivity() } == .invalidHandle)
        #expect(errorCode { try old.recordActivity(.key) } == .invalidHandle)
        #expect(errorCode { try InactivityEngine.recordActivity(handle: old.handle, kind: 1) } == .invalidHandle)
        #expect(errorCode { _ = try old.state() } == .invalidHandle)
        #expect(try InactivityEngine.find(handle: next.handle) === next)
        try next.recordActivity()
        #expect(try next.state() == .active)

        // Dropped without close (Swift-owned, held by nothing else): its handle dies with it.
        var dropped: InactivityEngine? = try InactivityEngine(policy: smallPolicy(), delivery: .host)
        try dropped!.start()
        let droppedHandle = dropped!.handle
        dropped = nil
        #expect(errorCode { _ = try InactivityEngine.find(handle: droppedHandle) } == .invalidHandle)
        #expect(errorCode { try InactivityEngine.recordActivity(handle: droppedHandle, kind: 1) } == .invalidHandle)
        #expect(try next.state() == .active)
    }

    @Test func the_event_stream_yields_events_and_finishes_on_close() async throws {
        let rig = Rig(smallPolicy())
        let stream = rig.engine.events()
        try rig.engine.start()
        for t in stride(from: Int64(0), through: 10 * second, by: Int(second)) { rig.at(t) }
        rig.engine.close()
        var states: [SessionState] = []
        for await e in stream where e.kind == .stateChanged { states.append(e.state) }
        #expect(states == [.active, .warning, .locked])
    }

    @Test func activity_on_the_system_clock_is_recorded_without_the_lock() throws {
        let engine = try InactivityEngine(policy: SessionPolicy(), clock: .system, delivery: .host)
        defer { engine.close() }
        try engine.start()
        let before = try engine.info().lastActivityMs
        usleep(20_000)
        for _ in 0..<1000 { try engine.recordActivity(.touchMove) }
        try InactivityEngine.recordActivity(handle: engine.handle, kind: ActivityKind.key.rawValue)
        let after = try engine.info().lastActivityMs
        #expect(after >= before + 15)
        #expect(try engine.state() == .active)
    }

    @Test func the_scheduler_thread_delivers_on_the_real_clock() throws {
        let done = Atomic<Int>(0)
        let fromOtherThread = Atomic<Bool>(true)
        let caller = pthread_self()
        let lockedAt = Atomic<Int64>(0)
        var p = SessionPolicy()
        p.idleTimeoutMs = 300
        p.warningMs = 100
        p.tickMs = 0
        let engine = try InactivityEngine(policy: p, clock: .system, delivery: .thread, onEvent: { e in
            if e.state == .locked {
                if pthread_equal(pthread_self(), caller) != 0 { fromOtherThread.store(false, ordering: .relaxed) }
                lockedAt.store(SystemClock.monotonicMs(), ordering: .relaxed)
                done.add(1, ordering: .releasing)
            }
        })
        let started = SystemClock.monotonicMs()
        try engine.start()
        #expect(InactivityEngine.schedulerIsRunning)
        while done.load(ordering: .acquiring) == 0 && SystemClock.monotonicMs() - started < 10_000 { usleep(5_000) }
        let locks = done.load(ordering: .acquiring)
        let onSchedulerThread = fromOtherThread.load(ordering: .relaxed)
        #expect(locks == 1)
        #expect(onSchedulerThread)
        let elapsed = lockedAt.load(ordering: .relaxed) - started
        #expect(elapsed >= 300 && elapsed < 5_000, "locked after \(elapsed) ms")
        engine.close()
    }

    /// Four threads run random inputs on one engine while an observer watches every event.
    /// Invariants, checked on every info() a thread reads, on every event, and at the end: the
    /// reason is one the state allows (`Reason.allowed(in:)`, the table docs/design.md's
    /// reasons come from), the remaining time is never negative, and no hold is left open
    /// (each thread releases every hold it acquires).
    @Test func many_threads_hammering_one_engine_keep_it_consistent() throws {
        let engine = try InactivityEngine(policy: SessionPolicy(), clock: .system, delivery: .thread)
        let box = EngineBox()
        box.engine = engine
        let broken = Broken()
        engine.addObserver(onEvent: { e in broken.check(e.state, e.reason, remaining: e.remainingMs, holds: 0) })
        try engine.start()
        var threads: [pthread_t] = []
        for i in 0..<4 {
            var t = pthread_t()
            let arg = Unmanaged.passRetained(StressArg(box: box, seed: UInt64(i), broken: broken)).toOpaque()
            pthread_create(&t, nil, { p in
                let a = Unmanaged<StressArg>.fromOpaque(p!).takeRetainedValue()
                let e = a.box.engine!
                var x = a.seed &+ 1
                for _ in 0..<20_000 {
                    x = x &* 6364136223846793005 &+ 1442695040888963407
                    switch x >> 60 {
                    case 0: try? e.lock()
                    case 1: try? e.unlock()
                    case 2: try? e.enterBackground()
                    case 3: try? e.enterForeground()
                    case 4: _ = try? e.snapshot()
                    case 5: if let id = try? e.acquireHold() { try? e.releaseHold(id) }
                    case 6, 7:
                        if let info = try? e.info() {
                            a.broken.check(info.state, info.reason, remaining: info.remainingMs, holds: info.openHolds)
                        }
                    default: try? e.recordActivity(.touchMove)
                    }
                }
                return nil
            }, arg)
            threads.append(t)
        }
        for t in threads { pthread_join(t, nil) }
        let info = try engine.info()
        broken.check(info.state, info.reason, remaining: info.remainingMs, holds: info.openHolds)
        #expect(info.state == .active || info.state == .locked)
        #expect(info.openHolds == 0, "holds left open: \(info.openHolds)")
        #expect(broken.checks.load(ordering: .relaxed) > 1_000, "too few checks to mean anything")
        #expect(broken.first.withLock { $0 } == nil, "\(broken.count.load(ordering: .relaxed)) broken: \(broken.first.withLock { $0 } ?? "")")
        engine.close()
    }
}

/// The invariants the hammering test checks, and the first one broken.
final class Broken: Sendable {
    let checks = Atomic<Int>(0)
    let count = Atomic<Int>(0)
    let first = Mutex<String?>(nil)

    func check(_ state: SessionState, _ reason: Reason, remaining: Int64, holds: Int32) {
        checks.add(1, ordering: .relaxed)
        var why: String?
        if !Reason.allowed(in: state).contains(reason) { why = "reason \(reason) in \(state)" }
        if remaining < 0 { why = "remaining \(remaining) ms in \(state)" }
        if holds < 0 { why = "\(holds) holds" }
        guard let why else { return }
        count.add(1, ordering: .relaxed)
        first.withLock { if $0 == nil { $0 = why } }
    }
}

final class Flags: @unchecked Sendable {
    let inCallback = Atomic<Bool>(false)
    let release = Atomic<Bool>(false)
    let closed = Atomic<Bool>(false)
    let afterClose = Atomic<Int>(0)
    var engine: InactivityEngine?
}

final class StressArg: @unchecked Sendable {
    let box: EngineBox
    let seed: UInt64
    let broken: Broken
    init(box: EngineBox, seed: UInt64, broken: Broken = Broken()) { self.box = box; self.seed = seed; self.broken = broken }
}
