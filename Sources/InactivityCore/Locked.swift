// A value guarded by a pthread mutex: the engine's "short internal lock".
//
// Why not `Synchronization.Mutex`: on Linux it parks threads with raw futex system calls that
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
/// thread spins briefly, then sleeps on one process-wide condition that every unlock with a
/// sleeper broadcasts. That is the classic three-state lock (0 free, 1 held, 2 held and maybe a
/// sleeper), with a shared condition instead of a futex on the word: Swift cannot take the
/// address of a class's stored property, and the condition works on every platform.
///
/// ThreadSanitizer sees it: the memory the lock protects is ordered by acquire/release atomics
/// compiled in this module (instrumented like any other access), and sleeping goes through a
/// pthread mutex and condition, which it intercepts.
struct WordLock: ~Copyable {
    private let word = Atomic<UInt32>(0)

    init() {}

    @inline(__always)
    func lock() {
        if word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { return }
        lockContended()
    }

    @inline(never)
    private func lockContended() {
        for _ in 0..<64 {
            if word.load(ordering: .relaxed) == 0,
               word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { return }
        }
        // Whoever holds the word when a sleeper marks it 2 broadcasts at its unlock; the mark and
        // the wait happen under the parking mutex, which that broadcast takes too, so no wake-up
        // is lost between them.
        pthread_mutex_lock(lockParking.mutex)
        while word.exchange(2, ordering: .acquiring) != 0 {
            pthread_cond_wait(lockParking.condition, lockParking.mutex)
        }
        pthread_mutex_unlock(lockParking.mutex)
    }

    @inline(__always)
    func unlock() {
        if word.exchange(0, ordering: .releasing) == 2 { lockParking.broadcast() }
    }
}

/// A process-wide mutex and condition for threads that sleep until something rare happens (a
/// contended `WordLock`, a close waiting for a callback). Never freed.
struct Parking: @unchecked Sendable {
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        pthread_cond_init(condition, nil)
    }

    func broadcast() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}

/// Where contended `WordLock`s sleep: one place for the process (engines stay small; a broadcast
/// wakes the sleepers of every engine, and each takes its own word or sleeps again). Not
/// `CloseWait`'s: a close waits there while taking an engine's lock.
let lockParking = Parking()
