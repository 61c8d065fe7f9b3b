package dev.inactivity

import java.util.concurrent.Executor
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

/**
 * An event of an engine (inact_event). Times are engine-clock milliseconds: [timeMs] is when
 * it took effect (the deadline applied), [nowMs] when it was evaluated (>= timeMs; later
 * after a catch-up). [remaining] is the time from [nowMs] to the next lock or expiry,
 * [Duration.INFINITE] if none is scheduled.
 */
sealed class SessionEvent {
    abstract val state: SessionState
    abstract val reason: Reason
    abstract val remaining: Duration
    abstract val timeMs: Long
    abstract val nowMs: Long

    /** [remaining] in milliseconds; [InactivityEngine.NEVER] if none is scheduled (for Java). */
    val remainingMillis: Long get() = remaining.toWireMs()

    /** The state changed; catch-up is folded into one change from what the host last saw. */
    data class StateChanged(
        val previous: SessionState,
        override val state: SessionState,
        override val reason: Reason,
        override val remaining: Duration,
        override val timeMs: Long,
        override val nowMs: Long,
        /** What an unlock needs at [nowMs]: NONE unless [state] is LOCKED. */
        val requiredAuth: AuthStrength = AuthStrength.NONE,
    ) : SessionEvent()

    /** A countdown tick while in WARNING ([state] is WARNING). */
    data class Tick(
        override val state: SessionState,
        override val reason: Reason,
        override val remaining: Duration,
        override val timeMs: Long,
        override val nowMs: Long,
    ) : SessionEvent()

    /**
     * Ping your server now ([Policy.keepaliveInterval]): [timeMs] is the instant of the last user
     * activity it carries, so its age ([activityAge]) is `nowMs - timeMs`; send that age, and
     * report the answer with [InactivityEngine.holderReport].
     */
    data class Keepalive(
        override val state: SessionState,
        override val reason: Reason,
        override val remaining: Duration,
        override val timeMs: Long,
        override val nowMs: Long,
    ) : SessionEvent() {
        val activityAge: Duration get() = (nowMs - timeMs).milliseconds
        /** [activityAge] in milliseconds (for Java). */
        val activityAgeMillis: Long get() = nowMs - timeMs
    }
}

/** The state of an engine with the reason it entered it. */
data class SessionStatus(val state: SessionState, val reason: Reason)

/**
 * Receives an engine's events, serialized and in order. Called on the thread that caused the
 * event, on the native scheduler thread for timer-caused events in THREAD mode, or on the
 * executor given to [InactivityEngine.addListener]. Keep it short. It may call the engine,
 * including [InactivityEngine.close]; events caused that way are delivered after it returns.
 * An exception it throws goes to the engine's listener-error handler and delivery goes on.
 */
fun interface InactivityListener {
    fun onEvent(event: SessionEvent)
}

/** Undoes a registration; idempotent. */
fun interface Registration : AutoCloseable {
    override fun close()
}

/**
 * The JVM-side half of an engine's native callback. The JNI glue holds it through a weak
 * global reference, so only the engine keeps it (and its listeners) alive. It refers to the
 * engine's [NativeHandle], never to the engine.
 *
 * Listeners without an executor are called on the delivering thread (the library serializes
 * an engine's deliveries). Listeners with an executor share one FIFO per engine: one item runs
 * at a time, each on its own listener's executor, in the library's order; when an item's
 * executor is the one the previous item ran on, it runs in the same task. So events never
 * overlap or reorder on a thread pool, and an item found after close is dropped.
 */
internal class EventDispatcher(
    private val handle: NativeHandle,
    private val onListenerError: (Throwable) -> Unit,
) : NativeEventReceiver() {
    private class Entry(val listener: InactivityListener, val executor: Executor?) {
        @Volatile
        var registered = true
    }

    private class Posted(val entry: Entry, val event: SessionEvent)

    private val entries = java.util.concurrent.CopyOnWriteArrayList<Entry>()

    private val posted = ArrayDeque<Posted>() // guarded by itself
    private var pumping = false // an item is handed to an executor or running; guarded by posted

    /** Held while an executor delivery runs; [awaitIdle] takes it to wait for one in progress. */
    private val deliveryLock = java.util.concurrent.locks.ReentrantLock()

    private val closed: Boolean get() = handle.released

    fun add(listener: InactivityListener, executor: Executor?): Registration {
        val entry = Entry(listener, executor)
        entries.add(entry)
        return Registration {
            entry.registered = false
            entries.remove(entry)
        }
    }

    /** Every inact_event, converted by the generated receiver (NativeEvent.kt). */
    override fun onNativeEvent(event: NativeEvent) {
        dispatch(
            try {
                val s = event.state
                val r = event.reason
                when (event.kind) {
                    KIND_STATE_CHANGED ->
                        SessionEvent.StateChanged(
                            event.previousState, s, r, event.remaining, event.timeMs, event.nowMs, event.requiredAuth,
                        )
                    KIND_TICK -> SessionEvent.Tick(s, r, event.remaining, event.timeMs, event.nowMs)
                    KIND_KEEPALIVE -> SessionEvent.Keepalive(s, r, event.remaining, event.timeMs, event.nowMs)
                    else -> return // an event kind of a newer library: not ours to interpret
                }
            } catch (t: Throwable) {
                report(t)
                return
            },
        )
    }

    private fun dispatch(event: SessionEvent) {
        var post = false
        for (entry in entries) {
            if (closed) break // closed by an earlier listener of this event
            if (entry.executor == null) {
                deliver(entry.listener, event)
            } else {
                synchronized(posted) {
                    posted.addLast(Posted(entry, event))
                    if (!pumping) {
                        pumping = true
                        post = true
                    }
                }
            }
        }
        if (post) handOver(null)
    }

    /**
     * Hands the oldest posted item to its executor, or runs it in the current task when that
     * is already on [current] (the executor of the item that just ran). Loops instead of
     * recursing, so a same-thread executor cannot grow the stack.
     */
    private fun handOver(current: Executor?) {
        while (true) {
            val next = synchronized(posted) {
                val head = posted.firstOrNull()
                if (head == null || closed) {
                    posted.clear()
                    pumping = false
                    return
                }
                head
            }
            val executor = next.entry.executor!!
            if (executor === current) {
                runHead()
                continue
            }
            try {
                executor.execute { runHead(); handOver(executor) }
                return
            } catch (t: Throwable) {
                // Rejected (a shut-down executor): drop that item, keep the rest in order.
                synchronized(posted) { if (posted.firstOrNull() === next) posted.removeFirst() }
                report(t)
            }
        }
    }

    private fun runHead() {
        val item = synchronized(posted) { posted.removeFirstOrNull() } ?: return
        deliveryLock.lock()
        try {
            if (!closed && item.entry.registered) deliver(item.entry.listener, item.event)
        } finally {
            deliveryLock.unlock()
        }
    }

    /**
     * After the native engine is destroyed: waits for an executor delivery in progress on
     * another thread (the current thread's own is allowed to finish); later items are dropped.
     */
    fun awaitIdle() {
        deliveryLock.lock()
        deliveryLock.unlock()
    }

    private fun deliver(listener: InactivityListener, event: SessionEvent) {
        try {
            listener.onEvent(event)
        } catch (t: Throwable) {
            report(t)
        }
    }

    override fun onConversionFailed(t: Throwable) = report(t)

    private fun report(t: Throwable) {
        // If the handler itself throws, the JNI glue describes and clears it (last line of defence).
        onListenerError(t)
    }

    companion object {
        const val KIND_STATE_CHANGED = 1
        const val KIND_TICK = 2
        const val KIND_KEEPALIVE = 3
    }
}
