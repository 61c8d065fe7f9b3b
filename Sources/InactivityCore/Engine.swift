// The engine's delivery core: a SessionMachine with a clock, a lock, an event queue and
// delivery (docs/design.md, "Threading and delivery"). It decides nothing about sessions: it
// serializes access to the machine, executes what the machine publishes (the gate view, the
// next wake-up) and delivers what the machine reports. The public inputs and queries are in
// EngineAPI.swift; each is one `perform` call (activity first tries the lock-free gate).
//
// Ownership and concurrency guarantees
// - Every method may be called from any thread. `recordActivity` is lock-free on the system
//   clock when nothing is due; everything else takes the engine's short lock.
// - Callbacks never run under the lock, are serialized per engine and arrive in order. The
//   thread that queues events delivers the queue unless another thread is delivering it.
//
// Reentrance
// - A callback may call any method of any engine, its own included: the events it causes, on
//   any engine, are queued and delivered after it returns, by the thread's one delivery loop
//   (`ThreadDelivery`: no recursion, whatever the engines). `close()` from inside a callback
//   takes effect when the callback returns; from another thread it waits for the running
//   callback to return, after which no callback of this engine runs again. An engine whose
//   events only wait in a thread's loop has no callback running: its close takes effect at once.

import CInactivityPlatform
import Synchronization

public final class InactivityEngine: @unchecked Sendable {
    /// How timer-caused events are delivered.
    public enum Delivery: Int32, Sendable, CaseIterable {
        /// One process-wide scheduler thread serves every engine.
        case thread = 0
        /// No thread: the host asks `nextDeadlineDelayMs()` and calls `poll()`.
        case host = 1
    }

    /// A full view of the engine at one instant.
    public struct Info: Sendable, Equatable {
        public var state: SessionState
        public var reason: Reason
        public var delivery: Delivery
        public var isManualClock: Bool
        public var inBackground: Bool
        public var visibleWindows: Int32
        public var openScopes: Int32
        public var openHolds: Int32
        public var unlockFailures: UInt32
        public var nowMs: Int64
        /// To the next lock or expiry; `SessionPolicy.never` if none.
        public var remainingMs: Int64
        /// The next instant the engine must be evaluated; `SessionPolicy.never` if none.
        public var nextDeadlineMs: Int64
        public var effectiveIdleTimeoutMs: Int64
        public var startedAtMs: Int64
        public var lastActivityMs: Int64
        public var backgroundSinceMs: Int64
        public var lockedAtMs: Int64
        /// What an unlock needs now (`.none` unless LOCKED).
        public var requiredAuth: AuthStrength
        /// True while the offline timeout has passed: unlock waits for a server contact.
        public var needsServerContact: Bool
        /// The last credential verification; `SessionPolicy.never` if none.
        public var lastCredentialMs: Int64
        /// From when a biometric no longer unlocks; `SessionPolicy.never` if it always does.
        public var strongAuthDeadlineMs: Int64
        /// The last successful server contact; `SessionPolicy.never` if none.
        public var lastServerContactMs: Int64
        /// The newest refresh-token generation seen; 0 if none.
        public var tokenGeneration: UInt64
        /// The end of an announced expected interruption; `SessionPolicy.never` if none.
        public var interruptionUntilMs: Int64
    }

    /// The engine's handle (the C ABI's `inact_engine`). Set once, during init.
    public private(set) var handle: UInt64 = 0
    /// The system clock unless `hooks` names a manual one (tests, simulations).
    public var clock: EngineClock { hooks?.clock ?? .system }

    /// This engine's slot in the registry's gate memory, found from the handle (registered
    /// engines only: the gate is first used after registration).
    var gate: UnsafeMutablePointer<ActivityGate> { Registry.shared.gate(handle) }
    /// The host's callbacks and a manual clock, in their own allocation only when there is one
    /// (most engines of a process with many have neither: 8 bytes here instead of two closures'
    /// 32 and the clock's 8).
    private let hooks: Hooks?
    private var onEvent: (@Sendable (SessionEvent) -> Void)? { hooks?.onEvent }
    private var onClose: (@Sendable () -> Void)? { hooks?.onClose }
    /// The engine's fields, inside the object (one allocation per engine): touched only under
    /// `coreLock`, through `withCore`. Exclusivity is the lock's job, so no run-time access check.
    @exclusivity(unchecked) private var core: Core
    private let coreLock = WordLock()
    private let finalized = Atomic<Bool>(false)
    /// Timer-caused events come from the scheduler thread (system clock, thread delivery).
    private let usesScheduler: Bool
    // Here rather than first: the one-byte fields together, after the lock word (no padding).
    public let delivery: Delivery

    // Fields in this order on purpose: the flags byte fills the tail of the machine's last 8
    // bytes (its own one-byte fields end it), and no Optional pays 7 bytes of padding for its
    // 1-byte tag: `armedAt`'s presence is a flag beside the others.
    private struct Core {
        var machine: SessionMachine
        var flags = CoreFlags()
        var queue: [SessionEvent] = []
        var armedSeq: UInt64 = 0
        var armedAtValue: Int64 = 0
        /// The thread delivering the queue; meaningful only while `delivering` (set with it).
        var deliverer: pthread_t
        /// Observers and waiting closes, in a side allocation made at the first (Storage.swift).
        var rare = Side<CoreRare>()

        init(machine: SessionMachine) {
            self.machine = machine
            deliverer = pthread_self()   // any thread: read only while `delivering`
        }

        /// The scheduler's armed wake-up (no sentinel for nil: any instant is possible).
        var armedAt: Int64? {
            get { flags.contains(.armed) ? armedAtValue : nil }
            set { armedAtValue = flags.store(newValue, .armed) ?? 0 }
        }
        var delivering: Bool {
            get { flags.contains(.delivering) }
            set { flags.set(.delivering, newValue) }
        }
        var closed: Bool {
            get { flags.contains(.closed) }
            set { flags.set(.closed, newValue) }
        }
        var finalizeAfterDelivery: Bool {
            get { flags.contains(.finalizeAfterDelivery) }
            set { flags.set(.finalizeAfterDelivery, newValue) }
        }
        /// `delivering`, but only waiting in its thread's run (`ThreadDelivery`): none of its
        /// callbacks is on that thread's stack yet.
        var waitingInRun: Bool {
            get { flags.contains(.waitingInRun) }
            set { flags.set(.waitingInRun, newValue) }
        }
        var observers: [(id: UInt64, observer: EventObserver)] {
            get { rare.value.observers }
            // In place: an add or remove must not copy the array. Emptying it before the side
            // allocation exists allocates nothing.
            _modify {
                if rare.isAllocated {
                    yield &rare.value.observers
                } else {
                    var none: [(id: UInt64, observer: EventObserver)] = []
                    yield &none
                    if !none.isEmpty { rare.value.observers = none }
                }
            }
        }
        var nextObserver: UInt64 {
            get { rare.value.nextObserver }
            _modify { yield &rare.value.nextObserver }
        }
        var closeWaiters: Int {
            get { rare.value.closeWaiters }
            set { if newValue != 0 || rare.isAllocated { rare.value.closeWaiters = newValue } }
        }
    }

    private struct CoreFlags: OptionSet {
        let rawValue: UInt8
        static let delivering = CoreFlags(rawValue: 1 << 0)
        static let closed = CoreFlags(rawValue: 1 << 1)
        static let finalizeAfterDelivery = CoreFlags(rawValue: 1 << 2)
        /// `armedAtValue` holds the armed wake-up.
        static let armed = CoreFlags(rawValue: 1 << 3)
        static let waitingInRun = CoreFlags(rawValue: 1 << 4)
    }

    fileprivate struct CoreRare: SideFields {
        static var defaults: SideBox<CoreRare> { coreRareDefaults }

        var observers: [(id: UInt64, observer: EventObserver)] = []
        var nextObserver: UInt64 = 1
        var closeWaiters = 0
    }

    #if !hasFeature(Embedded)
    /// Creates an engine in LOADING, owned by its Swift references: dropping the last one closes it.
    /// (Not in the Embedded build, which has no weak references: see Registry.Owner.)
    /// - Parameters:
    ///   - onEvent: receives every event (see the class notes for threading).
    ///   - onClose: runs exactly once, when the engine is closed (or deinitialized).
    public convenience init(policy: SessionPolicy = SessionPolicy(), clock: EngineClock = .system,
                            delivery: Delivery = .thread,
                            onEvent: (@Sendable (SessionEvent) -> Void)? = nil,
                            onClose: (@Sendable () -> Void)? = nil) throws(InactivityError) {
        try policy.validate()   // before the object exists (see init)
        try self.init(policy: policy, clock: clock, delivery: delivery, onEvent: onEvent, onClose: onClose,
                      ownedByHandle: false)
    }
    #endif

    /// Creates an engine that lives until `close()` whatever references remain, for hosts that
    /// hold its handle rather than the object (the C ABI). Returns the handle.
    public static func createOwnedByHandle(policy: SessionPolicy, clock: EngineClock, delivery: Delivery,
                                           onEvent: (@Sendable (SessionEvent) -> Void)?,
                                           onClose: (@Sendable () -> Void)?) throws(InactivityError) -> UInt64 {
        try policy.validate()   // before the object exists (see init)
        return try InactivityEngine(policy: policy, clock: clock, delivery: delivery, onEvent: onEvent,
                             onClose: onClose, ownedByHandle: true).handle
    }

    private init(policy: SessionPolicy, clock: EngineClock, delivery: Delivery,
                 onEvent: (@Sendable (SessionEvent) -> Void)?, onClose: (@Sendable () -> Void)?,
                 ownedByHandle: Bool) throws(InactivityError) {
        // Throws only once every stored property is set: the Embedded Swift runtime does not free
        // an object whose designated initializer throws earlier (a leak per failed create).
        let now = clock.monotonicMs()
        self.delivery = delivery
        self.hooks = onEvent == nil && onClose == nil && !clock.isManual
            ? nil : Hooks(clock: clock, onEvent: onEvent, onClose: onClose)
        self.usesScheduler = delivery == .thread && !clock.isManual
        self.core = Core(machine: SessionMachine(policy: policy, now: now))
        // The scheduler first: an engine that cannot get its thread is never created. Then the
        // registration, which needs `self`, so the handle is assigned after it.
        do throws(InactivityError) {
            if usesScheduler { try Scheduler.shared.engineAdded() }
            do throws(InactivityError) {
                handle = try Registry.shared.register(self, now: now, ownedByHandle: ownedByHandle)
            } catch {
                if usesScheduler { Scheduler.shared.engineRemoved() }
                throw error
            }
        } catch {
            finalized.store(true, ordering: .releasing)   // a failed init never runs onClose
            throw error
        }
        withCore { c in publishGate(c.machine) }
        if case .manual(let manual) = clock { manual.attach(handle) }
    }

    deinit {
        if !finalized.load(ordering: .acquiring) {
            finalize()
        }
    }

    static func invalidHandle(_ handle: UInt64) -> InactivityError {
        handle == 0
            ? InactivityError(.invalidHandle, "engine (0) is not a valid handle")
            : InactivityError(.invalidHandle, "engine (0x\(String(handle, radix: 16))) is destroyed, stale or forged")
    }
}

// MARK: - The locked path and delivery

extension InactivityEngine {

    /// Runs `body` on the engine's fields under its lock.
    @inline(__always)
    private func withCore<R, E: Error>(_ body: (inout Core) throws(E) -> R) throws(E) -> R {
        coreLock.lock(ObjectIdentifier(self))
        defer { coreLock.unlock(ObjectIdentifier(self)) }
        return try body(&core)
    }

    /// Publishes the machine's gate view; the gate is closed while this runs. A manual clock
    /// sends every call through the lock: the gate reads the system clock.
    private func publishGate(_ m: SessionMachine) {
        var view = m.gateView
        if clock.isManual { view.mode = .slow }
        gate.pointee.publish(view)
    }

    /// Runs one call on the machine under the lock, in five steps: close the gate, read the
    /// clock and catch up on what time made due, run `body` (the call), settle what the call made due, publish the gate view and arm
    /// the scheduler, queue the events. Then, outside the lock, arm and deliver.
    @discardableResult
    func perform<R>(_ body: (inout SessionMachine, ClockReading) throws(InactivityError) -> R) throws(InactivityError) -> R {
        var outcome: Result<R, InactivityError>? = nil
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
        return try outcome!.get()
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
    func peekNextWake() -> Int64? {
        withCore { c in
            if c.closed { return nil }
            return onEvent == nil && c.observers.isEmpty ? c.machine.nextWakeIgnoringTicks : c.machine.nextWake
        }
    }

    /// Frees the handle, stops scheduling, finishes streams and runs `onClose` exactly once.
    private func finalize() {
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

// MARK: - Lifecycle and observers

extension InactivityEngine {
    /// Closes the engine: no callback runs after this returns (from inside a callback: after
    /// it returns), and `onClose` runs exactly once. Returns false if it was already closed.
    @discardableResult
    public func close() -> Bool {
        enum Action { case already, deferred, wait, now }
        let action = withCore { c -> Action in
            if c.closed { return .already }
            c.closed = true
            // The lock-free activity path must see the close now, not when a wait for a running
            // callback is over: from here on every call answers "invalid handle".
            gate.pointee.retire()
            if c.delivering {
                // Queued in a thread's run and not started: no callback of it is running, and
                // none will (the run finds it closed). Finalized now, wherever it is called from.
                if c.waitingInRun { return .now }
                if pthread_equal(c.deliverer, pthread_self()) != 0 {
                    c.finalizeAfterDelivery = true
                    return .deferred
                }
                c.closeWaiters += 1
                return .wait
            }
            return .now
        }
        switch action {
        case .already:
            return false
        case .deferred:
            // The handle dies now; onClose runs when the callback returns.
            Registry.shared.release(handle)
            return true
        case .wait:
            CloseWait.wait { withCore { $0.delivering } }
            withCore { $0.closeWaiters -= 1 }
            finalize()
            return true
        case .now:
            finalize()
            return true
        }
    }

    public var isClosed: Bool { withCore { $0.closed } }

    /// Adds an observer that receives every event after the engine's own `onEvent` (same thread,
    /// same order, never under the lock) and `onClose` once when the engine closes. Returns its
    /// id for `removeObserver`, or nil (and calls `onClose` at once) if the engine is closed.
    /// The AsyncStream adapter (`events()`, module InactivityAsync) is built on this.
    @discardableResult
    public func addObserver(onEvent: @escaping @Sendable (SessionEvent) -> Void,
                            onClose: @escaping @Sendable () -> Void = {}) -> UInt64? {
        let id = withCore { c -> UInt64? in
            if c.closed { return nil }
            let id = c.nextObserver
            c.nextObserver += 1
            c.observers.append((id, EventObserver(onEvent: onEvent, onClose: onClose)))
            return id
        }
        if id == nil { onClose() }
        return id
    }

    public func removeObserver(_ id: UInt64) {
        withCore { c in c.observers.removeAll { $0.id == id } }
    }
}

private let coreRareDefaults = SideBox(InactivityEngine.CoreRare())

final class Hooks: Sendable {
    let clock: EngineClock
    let onEvent: (@Sendable (SessionEvent) -> Void)?
    let onClose: (@Sendable () -> Void)?

    init(clock: EngineClock, onEvent: (@Sendable (SessionEvent) -> Void)?, onClose: (@Sendable () -> Void)?) {
        self.clock = clock
        self.onEvent = onEvent
        self.onClose = onClose
    }
}

struct EventObserver: Sendable {
    let onEvent: @Sendable (SessionEvent) -> Void
    let onClose: @Sendable () -> Void
}
