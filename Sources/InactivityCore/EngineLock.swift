// The engine's short lock and the locks of the process-wide tables: `WordLock`, the 4-byte lock
// inside every engine (its contended waiters sleep in `LockParking`'s buckets), and `Locked`, a
// value guarded by a pthread mutex, for what changes the set of engines or their timers (the
// registry's free slots, the scheduler's heap and thread), the interned policy and a manual
// clock's reading. No lookup of an engine takes a `Locked` (Registry.swift).
//
// Why not `Synchronization.Mutex` for `Locked`: on Linux it parks threads with raw futex system calls that
// ThreadSanitizer cannot see, so every access it protects is reported as a race and the stress
// suite under `--sanitize=thread` becomes unreadable. pthread mutexes are intercepted by every
// sanitizer and cost the same uncontended. One allocation holds the value and the mutex.

import CInactivityPlatform
import Synchronization

final class LockedStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    deinit {
        _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
    }
}

struct Locked<Value>: @unchecked Sendable {
    private let storage: ManagedBuffer<Value, pthread_mutex_t>

    init(_ initial: Value) {
        storage = LockedStorage<Value>.create(minimumCapacity: 1) { _ in initial }
        storage.withUnsafeMutablePointerToElements { _ = pthread_mutex_init($0, nil) }
    }

    @inline(__always)
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        try storage.withUnsafeMutablePointers { (value, mutex) throws(E) -> R in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

/// The engine's short lock in 4 bytes, stored inside the engine object: a `Locked` would add an
/// allocation (16 B header) and a `pthread_mutex_t` (40 B on Linux) to each of a million engines.
///
/// Uncontended, locking is one compare-and-swap and unlocking one exchange. Contended (rare: two
/// threads on one engine at the same instant, or the scheduler's timer against a host call), a
/// thread spins briefly, then sleeps in the process-wide parking bucket of its lock's owner
/// (`LockParking`), which an unlock with a sleeper broadcasts. That is the classic three-state
/// lock (0 free, 1 held, 2 held and maybe a sleeper), with hashed conditions instead of a futex
/// on the word: Swift cannot take the address of a class's stored property (a futex needs one),
/// and a pthread condition works on every platform and in Embedded Swift. The owner (the object
/// the lock is stored in; `lock` and `unlock` must name the same one) picks the bucket: its
/// address is stable while the object lives, and costs nothing to pass on the fast path.
///
/// ThreadSanitizer sees it: the memory the lock protects is ordered by acquire/release atomics
/// compiled in this module (instrumented like any other access), and sleeping goes through a
/// pthread mutex and condition, which it intercepts.
struct WordLock: ~Copyable {
    private let word = Atomic<UInt32>(0)

    init() {}

    @inline(__always)
    func lock(_ owner: ObjectIdentifier) {
        if word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { return }
        lockContended(owner)
    }

    @inline(never)
    private func lockContended(_ owner: ObjectIdentifier) {
        for _ in 0..<64 {
            if word.load(ordering: .relaxed) == 0,
               word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { return }
        }
        // No lost wake-up. While a thread holds the lock only it clears the word; the others
        // only mark it 2. A sleeper takes its bucket's mutex, marks the word 2 and, if it was not
        // 0, waits: pthread_cond_wait lets the mutex go only once the sleeper is queued. If the
        // holder's unlocking exchange comes after that mark, it reads 2 and broadcasts the same
        // bucket (one owner, one bucket) under its mutex. Had it taken that mutex before the
        // sleeper did, its exchange would precede the mark; so it takes it after, with the sleeper
        // queued, and wakes it. If the unlock came first, the mark finds the word 0 (the sleeper
        // has the lock) or held by a later holder, whose unlock then reads the mark. A woken
        // thread marks 2 again before it re-checks, so the next unlock broadcasts for whoever
        // still sleeps. All locks whose owners hash to one bucket share it: an unlock also wakes
        // their sleepers, and each re-marks its own word and takes it or sleeps again (a wasted
        // wake-up, never a lost one). Sleepers in other buckets are not woken at all.
        let parking = LockParking.bucket(of: owner)
        pthread_mutex_lock(parking.mutex)
        while word.exchange(2, ordering: .acquiring) != 0 {
            pthread_cond_wait(parking.condition, parking.mutex)
        }
        pthread_mutex_unlock(parking.mutex)
    }

    @inline(__always)
    func unlock(_ owner: ObjectIdentifier) {
        if word.exchange(0, ordering: .releasing) == 2 { LockParking.wake(owner) }
    }
}

/// A mutex and condition for threads that sleep until something rare happens (a contended
/// `WordLock`, a close waiting for a callback). Never freed.
struct Parking: @unchecked Sendable {
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    let condition: UnsafeMutablePointer<pthread_cond_t>

    /// A new pair, in allocations of its own.
    init() {
        self.init(initializingMutexAt: .allocate(capacity: 1), conditionAt: .allocate(capacity: 1))
    }

    /// A new pair at these places (allocated, not initialized).
    init(initializingMutexAt mutex: UnsafeMutablePointer<pthread_mutex_t>,
         conditionAt condition: UnsafeMutablePointer<pthread_cond_t>) {
        self.init(mutex: mutex, condition: condition)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    /// The pair already initialized at these places.
    init(mutex: UnsafeMutablePointer<pthread_mutex_t>, condition: UnsafeMutablePointer<pthread_cond_t>) {
        self.mutex = mutex
        self.condition = condition
    }

    func broadcast() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}

/// Where contended `WordLock`s sleep: a fixed table of buckets for the process, made at the
/// first contended lock (engines stay 4 bytes of lock each). An unlock wakes the sleepers of its
/// owner's bucket only: with one condition for the process, every unlock with a sleeper woke the
/// sleepers of every engine, each to find its own word still held and sleep again. Not
/// `CloseWait`'s: a close waits there while taking an engine's lock.
enum LockParking {
    static let bucketCount = 64

    /// The bucket of the lock stored in `owner`: its address (16-byte aligned, so the low four
    /// bits carry nothing), Fibonacci-hashed so that objects allocated in a row, a few hundred
    /// bytes apart, spread over the buckets.
    @inline(__always)
    static func index(of owner: ObjectIdentifier) -> Int {
        Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: owner) >> 4) &* 0x9E37_79B9_7F4A_7C15) >> 58)
    }

    static func bucket(of owner: ObjectIdentifier) -> Parking { buckets.bucket(index(of: owner)) }

    /// Out of line: the unlock inlined into every locked call stays an exchange and a compare.
    @inline(never)
    static func wake(_ owner: ObjectIdentifier) { bucket(of: owner).broadcast() }

    private static let buckets = Buckets()

    /// The table, one allocation: each bucket's mutex and condition together, starting a 64-byte
    /// line and filling whole lines (two on Linux: 88 bytes on 64-bit CPUs, 72 on 32-bit), so
    /// that neighbours never share a cache line. 8 KiB for the process.
    private struct Buckets: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
        let stride: Int
        let conditionOffset: Int

        init() {
            let align = MemoryLayout<pthread_cond_t>.alignment
            conditionOffset = (MemoryLayout<pthread_mutex_t>.size + align - 1) / align * align
            stride = (conditionOffset + MemoryLayout<pthread_cond_t>.size + 63) / 64 * 64
            base = .allocate(byteCount: stride * LockParking.bucketCount, alignment: 64)
            for i in 0..<LockParking.bucketCount {
                let slot = base + i * stride
                _ = Parking(initializingMutexAt: slot.bindMemory(to: pthread_mutex_t.self, capacity: 1),
                            conditionAt: (slot + conditionOffset).bindMemory(to: pthread_cond_t.self, capacity: 1))
            }
        }

        func bucket(_ i: Int) -> Parking {
            let slot = base + i * stride
            return Parking(mutex: slot.assumingMemoryBound(to: pthread_mutex_t.self),
                           condition: (slot + conditionOffset).assumingMemoryBound(to: pthread_cond_t.self))
        }
    }
}
