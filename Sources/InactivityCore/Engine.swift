// The engine: a SessionMachine with a clock, a lock, an event queue and delivery
// (DESIGN.md section 5). This file decides nothing about sessions; it serializes access to the
// machine and delivers what the machine reports.
//
// Ownership and concurrency guarantees
// - Every method may be called from any thread. `recordActivity` is lock-free on the system
//   clock when nothing is due; everything else takes the engine's short lock.
// - Callbacks never run under the lock, are serialized per engine and arrive in order. The
//   thread that queues events delivers the queue unless another thread is delivering it.
//
// Reentrance
// - A callback may call any method of any engine, its own included: its events are queued and
//   delivered after it returns, by the same loop (no recursion). `close()` from inside a
//   callback takes effect when the callback returns; from another thread it waits for the
//   running callback to return, after which no callback of this engine runs again.

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
    public let delivery: Delivery
    public let clock: EngineClock

    /// This engine's slot in the registry's gate memory. Set once, during init.
    private var gate: UnsafeMutablePointer<ActivityGate> = InactivityEngine.placeholderGate
    private let core: Locked<Core>
    private let onEvent: (@Sendable (SessionEvent) -> Void)?
    private let onClose: (@Sendable () -> Void)?
    private let finalized = Atomic<Bool>(false)
    /// Timer-caused events come from the scheduler thread (system clock, thread delivery).
    private let usesScheduler: Bool

    private struct Core {
        var machine: SessionMachine
        var queue: [SessionEvent] = []
        var delivering = false
        var deliverer: pthread_t?
        var closed = false
        var closeWaiters = 0
        var finalizeAfterDelivery = false
        var armedAt: Int64?
        var armedSeq: UInt64 = 0
        var observers: [(id: UInt64, observer: EventObserver)] = []
        var nextObserver: UInt64 = 1
    }

    #if !hasFeature(Embedded)
    /// Creates an engine in LOADING, owned by its Swift references: dropping the last one closes it.
    /// (Not in the Embedded build, which has no weak references: see Registry.Entry.)
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
        self.clock = clock
        self.onEvent = onEvent
        self.onClose = onClose
        self.usesScheduler = delivery == .thread && !clock.isManual
        self.core = Locked(Core(machine: SessionMachine(policy: policy, now: now)))
        // The scheduler first: an engine that cannot get its thread is never created. Then the
        // registration, which needs `self`, so the handle and gate are assigned after it.
        do throws(InactivityError) {
            if usesScheduler { try Scheduler.shared.engineAdded() }
            do throws(InactivityError) {
                (handle, gate) = try Registry.shared.register(self, now: now, ownedByHandle: ownedByHandle)
            } catch {
                if usesScheduler { Scheduler.shared.engineRemoved() }
                throw error
            }
        } catch {
            finalized.store(true, ordering: .releasing)   // a failed init never runs onClose
            throw error
        }
        core.withLock { c in publishGate(c.machine) }
        if case .manual(let manual) = clock { manual.attach(handle) }
    }

    /// A gate that belongs to no engine, for the instant before registration.
    nonisolated(unsafe) private static let placeholderGate: UnsafeMutablePointer<ActivityGate> = {
        let p = UnsafeMutablePointer<ActivityGate>.allocate(capacity: 1)
        p.initialize(to: ActivityGate())
        return p
    }()

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

    /// Publishes the machine's gate view; the gate is closed while this runs. A manual clock
    /// sends every call through the lock: the gate reads the system clock.
    private func publishGate(_ m: SessionMachine) {
        var view = m.gateView
        if clock.isManual { view.mode = .slow }
        gate.pointee.publish(view)
    }

    /// Runs `body` on the machine under the lock: evaluate deadlines, apply, evaluate again,
    /// queue the events, then deliver them (outside the lock) and arm the scheduler.
    @discardableResult
    func perform<R>(_ body: (inout SessionMachine, ClockReading) throws(InactivityError) -> R) throws(InactivityError) -> R {
        var outcome: Result<R, InactivityError>? = nil
        var arm: (Int64, UInt64)? = nil
        let deliver = core.withLock { c -> Bool in
            if c.closed {
                outcome = .failure(InactivityEngine.invalidHandle(handle))
                return false
            }
            let reading = clock.now()
            let now = reading.monotonicMs
            c.machine.mergeGateStamp(gate.pointee.close(), now: now)
            var events: [SessionEvent] = []
            c.machine.observe(reading)
            c.machine.evaluate(now: now)
            c.machine.collect(now: now, engine: handle, into: &events)
            do throws(InactivityError) {
                outcome = .success(try body(&c.machine, reading))
            } catch {
                outcome = .failure(error)
            }
            c.machine.evaluate(now: now)
            c.machine.collect(now: now, engine: handle, into: &events)
            publishGate(c.machine)
            if usesScheduler, let next = c.machine.nextWake, c.armedAt == nil || next < c.armedAt! {
                c.armedSeq &+= 1
                c.armedAt = next
                arm = (next, c.armedSeq)
            }
            c.queue.append(contentsOf: events)
            if c.delivering || c.queue.isEmpty { return false }
            c.delivering = true
            c.deliverer = pthread_self()
            return true
        }
        if let (at, seq) = arm { Scheduler.shared.arm(handle: handle, at: at, seq: seq) }
        if deliver { deliverQueue() }
        return try outcome!.get()
    }

    /// Delivers queued events one at a time, never under the lock, until the queue is empty.
    private func deliverQueue() {
        var finalizeNow = false
        var wakeClosers = false
        while true {
            let next = core.withLock { c -> (SessionEvent, [(id: UInt64, observer: EventObserver)])? in
                if c.closed || c.queue.isEmpty {
                    c.queue = []   // events are rare: give the buffer back
                    c.delivering = false
                    c.deliverer = nil
                    finalizeNow = c.finalizeAfterDelivery
                    c.finalizeAfterDelivery = false
                    wakeClosers = c.closeWaiters > 0
                    return nil
                }
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
            core.withLock { c in if c.armedSeq == seq { c.armedAt = nil } }
        }
        _ = try? perform { _, _ in }
    }

    /// The next instant this engine must be evaluated, as of its last evaluation.
    func peekNextWake() -> Int64? {
        core.withLock { c in c.closed ? nil : c.machine.nextWake }
    }

    /// Frees the handle, stops scheduling, finishes streams and runs `onClose` exactly once.
    private func finalize() {
        guard !finalized.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Registry.shared.release(handle)
        if usesScheduler { Scheduler.shared.engineRemoved() }
        if case .manual(let manual) = clock { manual.detach(handle) }
        let observers = core.withLock { c -> [(id: UInt64, observer: EventObserver)] in
            let o = c.observers
            c.observers = []
            return o
        }
        for o in observers { o.observer.onClose() }
        onClose?()
    }
}

/// Where `close()` waits for a callback running on another thread. One process-wide condition:
/// closes that wait are rare, and engines stay small.
enum CloseWait {
    nonisolated(unsafe) static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(m, nil)
        return m
    }()
    nonisolated(unsafe) static let condition: UnsafeMutablePointer<pthread_cond_t> = {
        let c = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        pthread_cond_init(c, nil)
        return c
    }()

    static func wait(while busy: () -> Bool) {
        pthread_mutex_lock(mutex)
        while busy() { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    static func broadcast() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}

// MARK: - The public API

extension InactivityEngine {
    /// Closes the engine: no callback runs after this returns (from inside a callback: after
    /// it returns), and `onClose` runs exactly once. Returns false if it was already closed.
    @discardableResult
    public func close() -> Bool {
        enum Action { case already, deferred, wait, now }
        let action = core.withLock { c -> Action in
            if c.closed { return .already }
            c.closed = true
            // The lock-free activity path must see the close now, not when a wait for a running
            // callback is over: from here on every call answers "invalid handle".
            gate.pointee.retire()
            if c.delivering {
                if let d = c.deliverer, pthread_equal(d, pthread_self()) != 0 {
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
            CloseWait.wait { core.withLock { $0.delivering } }
            core.withLock { $0.closeWaiters -= 1 }
            finalize()
            return true
        case .now:
            finalize()
            return true
        }
    }

    public var isClosed: Bool { core.withLock { $0.closed } }

    /// Starts a session (signed in): LOADING or EXPIRED -> ACTIVE (STARTED).
    public func start() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.start(now: r.monotonicMs) }
    }

    /// Restores a snapshot (LOADING only). Corrupt bytes throw their own error and leave the
    /// engine EXPIRED (RESTORE_FAILED).
    /// `length`: the caller's length when `bytes` holds only its first part (see Snapshot.decode).
    public func restore(_ bytes: [UInt8], length: UInt64? = nil) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.restore(bytes, length: length, clock: r) }
    }

    /// Records activity of one kind. Lock-free on the system clock when nothing is due.
    public func recordActivity(_ kind: ActivityKind = .touchDown) throws(InactivityError) {
        guard kind.isSingleKnownKind else {
            throw InactivityError(.invalidArgument,
                                  "kind (0x\(String(kind.rawValue, radix: 16))) must be exactly one known activity kind")
        }
        switch gate.pointee.record(kind: kind.rawValue, expectedHandle: handle) {
        case .recorded, .ignored: return
        case .slow: break
        }
        try perform { m, r throws(InactivityError) in try m.activity(kind, now: r.monotonicMs) }
    }

    /// WARNING -> ACTIVE (CONTINUED).
    public func continueSession() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.continueSession(now: r.monotonicMs) }
    }

    /// ACTIVE/WARNING -> LOCKED (MANUAL_LOCK); a no-op in LOCKED.
    public func lock() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.lock(now: r.monotonicMs) }
    }

    /// LOCKED -> ACTIVE (UNLOCKED): the host verified the user with `method`. A method weaker
    /// than `requiredAuth()` throws `weakAuth`; past the offline timeout it throws `offline`.
    public func unlock(method: AuthStrength = .credential) throws(InactivityError) {
        try SessionMachine.checkMethod(method)   // a bad argument fails before any evaluation
        try perform { m, r throws(InactivityError) in try m.unlock(method: method, now: r.monotonicMs) }
    }

    /// A failed re-verification with `method` in LOCKED; returns the failures in a row. A method
    /// weaker than the lock requires throws `weakAuth` and does not count.
    @discardableResult
    public func unlockFailed(method: AuthStrength = .credential) throws(InactivityError) -> UInt32 {
        try SessionMachine.checkMethod(method)
        return try perform { m, r throws(InactivityError) in try m.unlockFailed(method: method, now: r.monotonicMs) }
    }

    /// The enrolled biometrics changed: a biometric no longer unlocks until the credential is
    /// verified again.
    public func biometricsChanged() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.biometricsChanged(now: r.monotonicMs) }
    }

    /// What an unlock needs now: `.none` unless LOCKED.
    public func requiredAuth() throws(InactivityError) -> AuthStrength {
        try perform { m, r in m.requiredAuth(at: r.monotonicMs) }
    }

    /// Announces the app's own system sheet: a background that begins within `maxMs` from now
    /// and ends by then does not count toward the background timeout. 0 withdraws it.
    public func expectInterruption(maxMs: Int64) throws(InactivityError) {
        try SessionMachine.checkInterruption(maxMs: maxMs)
        try perform { m, r throws(InactivityError) in try m.expectInterruption(maxMs: maxMs, now: r.monotonicMs) }
    }

    /// The device locked (screen off, keyguard, protected data unavailable): background starts,
    /// and with `policy.lockOnDeviceLock` the session is LOCKED (DEVICE_LOCKED) at once.
    public func deviceLocked() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.deviceLocked(now: r.monotonicMs) }
    }

    /// A successful online check: the offline deadlines restart, and a lock past the offline
    /// timeout may be unlocked again.
    public func serverContact() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.serverContact(now: r.monotonicMs) }
    }

    /// The host stored refresh token `generation` (after a rotation).
    public func tokenRotated(generation: UInt64) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.tokenRotated(generation, now: r.monotonicMs) }
    }

    /// Sets the administrator's limits and makes the current policy as strict as them; every
    /// later policy must be within them (`ceiling` error otherwise).
    public func setCeilings(_ ceilings: PolicyCeilings) throws(InactivityError) {
        try ceilings.validate()
        try perform { m, _ throws(InactivityError) in try m.setCeilings(ceilings) }
    }

    public func ceilings() throws(InactivityError) -> PolicyCeilings {
        try perform { m, _ in m.ceilings }
    }

    /// Ends the session with `.logout`, `.revoked` or `.passwordChanged`.
    public func end(reason: Reason = .logout) throws(InactivityError) {
        _ = try Reason.ending(rawValue: reason.rawValue)   // a bad argument fails before any evaluation
        try perform { m, r throws(InactivityError) in try m.end(reason, now: r.monotonicMs) }
    }

    /// Reports a token refresh that used refresh token `generation` (0: not tracked). Only a
    /// revoked token changes the session; a revoked answer for an older generation than the
    /// newest seen is `.stale` and changes nothing; a 2xx is a server contact.
    @discardableResult
    public func refreshResult(httpStatus: Int32, oauthError: String? = nil, generation: UInt64 = 0) throws(InactivityError) -> RefreshOutcome {
        let outcome = try SessionMachine.classifyRefresh(httpStatus: httpStatus, oauthError: oauthError)
        return try perform { m, r throws(InactivityError) in
            try m.refreshResult(outcome, generation: generation, now: r.monotonicMs)
        }
    }

    public func enterBackground() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.background(now: r.monotonicMs) }
    }

    public func enterForeground() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.foreground(now: r.monotonicMs) }
    }

    public func windowShown() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.windowShown(now: r.monotonicMs) }
    }

    public func windowHidden() throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.windowHidden(now: r.monotonicMs) }
    }

    /// Opens a stricter idle timeout; returns its id for `popScope`.
    public func pushScope(idleTimeoutMs: Int64) throws(InactivityError) -> UInt64 {
        try SessionMachine.checkScope(idleTimeoutMs: idleTimeoutMs)   // before any evaluation
        return try perform { m, r throws(InactivityError) in try m.pushScope(idleTimeoutMs: idleTimeoutMs, now: r.monotonicMs) }
    }

    public func popScope(_ id: UInt64) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.popScope(id, now: r.monotonicMs) }
    }

    /// Suspends the idle countdown until released; returns its id.
    public func acquireHold() throws(InactivityError) -> UInt64 {
        try perform { m, r throws(InactivityError) in try m.acquireHold(now: r.monotonicMs) }
    }

    public func releaseHold(_ id: UInt64) throws(InactivityError) {
        try perform { m, r throws(InactivityError) in try m.releaseHold(id, now: r.monotonicMs) }
    }

    /// Replaces the policy; it must be within the ceilings set on the engine (`ceiling` error).
    public func setPolicy(_ policy: SessionPolicy) throws(InactivityError) {
        try policy.validate()   // a bad argument fails before any evaluation
        try perform { m, _ throws(InactivityError) in try m.setPolicy(policy) }
    }

    public func policy() throws(InactivityError) -> SessionPolicy {
        try perform { m, _ in m.policy }
    }

    public func state() throws(InactivityError) -> SessionState {
        try perform { m, _ in m.state }
    }

    public func reason() throws(InactivityError) -> Reason {
        try perform { m, _ in m.reason }
    }

    /// Milliseconds to the next lock or expiry; `SessionPolicy.never` if none.
    public func remainingMs() throws(InactivityError) -> Int64 {
        try perform { m, r in m.remaining(at: r.monotonicMs) }
    }

    public func info() throws(InactivityError) -> Info {
        try perform { m, r in
            let never = SessionPolicy.never
            let now = r.monotonicMs
            let live = m.state == .active || m.state == .warning
            return Info(state: m.state, reason: m.reason, delivery: delivery, isManualClock: clock.isManual,
                        inBackground: m.inBackground, visibleWindows: m.visibleWindows,
                        openScopes: Int32(m.scopes.count), openHolds: Int32(m.holds.count),
                        unlockFailures: m.unlockFailures, nowMs: now, remainingMs: m.remaining(at: now),
                        nextDeadlineMs: m.nextWake ?? never, effectiveIdleTimeoutMs: m.effectiveIdleMs,
                        startedAtMs: m.state == .loading ? never : (m.startedAt ?? never),
                        lastActivityMs: live ? m.lastActivity : never,
                        backgroundSinceMs: m.backgroundSince ?? never, lockedAtMs: m.lockedAt ?? never,
                        requiredAuth: m.requiredAuth(at: now),
                        needsServerContact: m.state == .locked && m.offlineBlocked(at: now),
                        lastCredentialMs: m.lastCredentialAt ?? never,
                        strongAuthDeadlineMs: m.strongAuthDeadline ?? never,
                        lastServerContactMs: m.lastContactAt ?? never, tokenGeneration: m.newestGeneration,
                        interruptionUntilMs: m.interruption?.end ?? never)
        }
    }

    /// Host mode: milliseconds until `poll()` is needed; 0 when due; nil when nothing is scheduled.
    public func nextDeadlineDelayMs() throws(InactivityError) -> Int64? {
        try perform { m, r in m.nextWake.map { max(0, $0 - r.monotonicMs) } }
    }

    /// Evaluates deadlines now and delivers due events on the calling thread.
    public func poll() throws(InactivityError) {
        try perform { _, _ in }
    }

    /// The snapshot bytes (not in LOADING).
    public func snapshot() throws(InactivityError) -> [UInt8] {
        try perform { m, r throws(InactivityError) in try m.snapshot(clock: r).encode() }
    }

    public func clockNow() -> ClockReading { clock.now() }

    private func manualClock() throws(InactivityError) -> ManualClock {
        if isClosed { throw InactivityEngine.invalidHandle(handle) }
        guard case .manual(let m) = clock else {
            throw InactivityError(.wrongClock, "engine uses the system clock; only a manual clock can be moved")
        }
        return m
    }

    /// Manual clock: moves time forward as on the real clock; every deadline on the way is
    /// delivered inside the call, in time order.
    public func advanceClock(byMs ms: Int64) throws(InactivityError) {
        try manualClock().advance(by: ms)
    }

    /// Manual clock: moves time forward as for a frozen process; nothing is delivered until the
    /// next call, which catches up with one transition.
    public func freezeClock(forMs ms: Int64) throws(InactivityError) {
        try manualClock().freeze(for: ms)
    }

    public func jumpWallClock(byMs ms: Int64) throws(InactivityError) {
        try manualClock().jumpWall(by: ms)
    }

    public func simulateReboot(downtimeMs: Int64 = 0) throws(InactivityError) {
        try manualClock().reboot(downtimeMs: downtimeMs)
    }

    /// Adds an observer that receives every event after the engine's own `onEvent` (same thread,
    /// same order, never under the lock) and `onClose` once when the engine closes. Returns its
    /// id for `removeObserver`, or nil (and calls `onClose` at once) if the engine is closed.
    /// The AsyncStream adapter (`events()`, module InactivityAsync) is built on this.
    @discardableResult
    public func addObserver(onEvent: @escaping @Sendable (SessionEvent) -> Void,
                            onClose: @escaping @Sendable () -> Void = {}) -> UInt64? {
        let id = core.withLock { c -> UInt64? in
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
        core.withLock { c in c.observers.removeAll { $0.id == id } }
    }
}

struct EventObserver: Sendable {
    let onEvent: @Sendable (SessionEvent) -> Void
    let onClose: @Sendable () -> Void
}

// MARK: - Handles (for the C ABI and other hosts that hold ids, not objects)

extension InactivityEngine {
    /// The live engine with this handle; `invalidHandle` for 0, destroyed, stale or forged ones.
    public static func find(handle: UInt64) throws(InactivityError) -> InactivityEngine {
        guard let engine = Registry.shared.lookup(handle) else { throw invalidHandle(handle) }
        return engine
    }

    /// Activity by handle: lock-free when nothing is due, without retaining the engine.
    @inline(__always)
    public static func recordActivity(handle: UInt64, kind: UInt32) throws(InactivityError) {
        guard ActivityKind(rawValue: kind).isSingleKnownKind else {
            throw InactivityError(.invalidArgument,
                                  "kind (0x\(String(kind, radix: 16))) must be exactly one known activity kind")
        }
        try Registry.shared.activity(handle, kind: kind)
    }


    /// Whether the process-wide scheduler thread is running.
    public static var schedulerIsRunning: Bool { Scheduler.shared.isRunning }
}
