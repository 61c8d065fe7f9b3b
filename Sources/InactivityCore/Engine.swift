// The engine's delivery core: a SessionMachine with a clock, a lock, an event queue and
// delivery (docs/design.md, "Threading and delivery"). It decides nothing about sessions: it
// serializes access to the machine, executes what the machine publishes (the gate view, the
// next wake-up) and delivers what the machine reports. The public inputs and queries are in
// EngineAPI.swift; each is one `perform` call (activity first tries the lock-free gate). The
// locked path (`perform`) and delivery are in EngineDelivery.swift.
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

    /// The engine's handle (the C ABI's `inact_engine`). Set once, during init, before any other
    /// thread can know the engine: no run-time exclusivity check on its every read.
    @exclusivity(unchecked) public private(set) var handle: UInt64 = 0
    /// The system clock unless `hooks` names a manual one (tests, simulations).
    public var clock: EngineClock { hooks?.clock ?? .system }

    /// This engine's slot in the registry's gate memory, found from the handle (registered
    /// engines only: the gate is first used after registration).
    var gate: UnsafeMutablePointer<ActivityGate> { Registry.shared.gate(handle) }
    /// The host's callbacks and a manual clock, in their own allocation only when there is one
    /// (most engines of a process with many have neither: 8 bytes here instead of two closures'
    /// 32 and the clock's 8).
    private let hooks: Hooks?
    var onEvent: (@Sendable (SessionEvent) -> Void)? { hooks?.onEvent }
    var onClose: (@Sendable () -> Void)? { hooks?.onClose }
    /// The engine's fields, inside the object (one allocation per engine): touched only under
    /// `coreLock`, through `withCore`. Exclusivity is the lock's job, so no run-time access check.
    @exclusivity(unchecked) var core: Core
    let coreLock = WordLock()
    let finalized = Atomic<Bool>(false)
    /// Timer-caused events come from the scheduler thread (system clock, thread delivery).
    let usesScheduler: Bool
    // Here rather than first: the one-byte fields together, after the lock word (no padding).
    public let delivery: Delivery

    // Fields in this order on purpose: the flags byte fills the tail of the machine's last 8
    // bytes (its own one-byte fields end it), and no Optional pays 7 bytes of padding for its
    // 1-byte tag: `armedAt`'s presence is a flag beside the others.
    struct Core {
        var machine: SessionMachine
        var flags = CoreFlags()
        var queue: [SessionEvent] = []
        var armedSeq: UInt64 = 0
        var armedAtValue: Int64 = 0
        /// The thread delivering the queue; meaningful only while `delivering` (set with it).
        var deliverer: pthread_t
        /// Observers and waiting closes, in a side allocation made at the first (RareFields.swift).
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

    struct CoreFlags: OptionSet {
        let rawValue: UInt8
        static let delivering = CoreFlags(rawValue: 1 << 0)
        static let closed = CoreFlags(rawValue: 1 << 1)
        static let finalizeAfterDelivery = CoreFlags(rawValue: 1 << 2)
        /// `armedAtValue` holds the armed wake-up.
        static let armed = CoreFlags(rawValue: 1 << 3)
        static let waitingInRun = CoreFlags(rawValue: 1 << 4)
    }

    struct CoreRare: SideFields {
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
        if handle == 0 { return InactivityError(.invalidHandle, "engine (0) is not a valid handle") }
        // A destroyed engine's handle: the words every binding uses for a closed engine (issue 32).
        if Registry.shared.wasDestroyed(handle) { return InactivityError(.invalidHandle, "\(closedText)") }
        return InactivityError(.invalidHandle, "engine (0x\(hex: UInt64(handle))) is destroyed, stale or forged")
    }

    /// The one wording of a call on a closed (destroyed) engine, in C and every binding.
    static let closedText: StaticString = "the engine is closed"
#if !hasFeature(Embedded)
    public static let closedMessage = closedText.description
#endif
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
