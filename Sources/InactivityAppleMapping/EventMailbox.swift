// Events arrive on the engine's delivery thread (the scheduler thread for timer-caused events,
// the calling thread for events a call caused); a UI applies them on its main thread. The
// mailbox keeps them in delivery order across that hop:
// - an event caused on the main thread (a foreground that catches up to LOCKED) is applied before
//   the call returns, so the lock screen is up before any content shows;
// - one from another thread is applied by a drain the host schedules on the main thread;
// - an event that arrives while a drain applies an earlier one (a callback that locks) is applied
//   after it by the same drain, never before it.

import InactivityCore
import Synchronization

public final class EventMailbox: Sendable {
    private struct Box {
        var events: [SessionEvent] = []
        var draining = false
    }

    private let box = Mutex(Box())

    public init() {}

    /// Queues `event` (any thread). Returns true when a drain must be scheduled: the mailbox was
    /// empty and no drain is running. When false, a drain that will see this event is scheduled
    /// or running already.
    public func post(_ event: SessionEvent) -> Bool {
        box.withLock { b in
            let schedule = b.events.isEmpty && !b.draining
            b.events.append(event)
            return schedule
        }
    }

    /// Applies every queued event in order, including those queued meanwhile (UI thread only).
    /// A nested call (from inside `apply`) returns at once: the running drain continues with the
    /// events it queued.
    public func drain(_ apply: (SessionEvent) -> Void) {
        let claimed = box.withLock { b -> Bool in
            if b.draining { return false }
            b.draining = true
            return true
        }
        guard claimed else { return }
        while let event = box.withLock({ b -> SessionEvent? in
            if b.events.isEmpty {
                b.draining = false
                return nil
            }
            return b.events.removeFirst()
        }) {
            apply(event)
        }
    }
}
