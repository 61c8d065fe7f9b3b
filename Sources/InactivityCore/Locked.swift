// A value guarded by a pthread mutex: the engine's "short internal lock".
//
// Why not `Synchronization.Mutex`: on Linux it parks threads with raw futex system calls that
// ThreadSanitizer cannot see, so every access it protects is reported as a race and the stress
// suite under `--sanitize=thread` becomes unreadable. pthread mutexes are intercepted by every
// sanitizer and cost the same uncontended. One allocation holds the value and the mutex.

import CInactivityPlatform

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
