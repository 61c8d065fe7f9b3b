// The AsyncStream adapter for Swift hosts, in its own module so that the C library
// (libinactivity.so), which never needs Swift Concurrency, does not link it: in the
// self-contained build that keeps the Concurrency runtime and libdispatch out (BENCHMARKS.md).

import InactivityCore

extension InactivityEngine {
    /// Every event from now on, as an async sequence; it finishes when the engine closes.
    ///
    ///     for await event in engine.events() where event.state == .locked { showLockScreen() }
    public func events(bufferingPolicy: AsyncStream<SessionEvent>.Continuation.BufferingPolicy = .unbounded)
        -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionEvent.self, bufferingPolicy: bufferingPolicy)
        let id = addObserver(onEvent: { continuation.yield($0) }, onClose: { continuation.finish() })
        if let id {
            continuation.onTermination = { [weak self] _ in self?.removeObserver(id) }
        }
        return stream
    }
}
