package dev.inactivity

import java.util.concurrent.Executor
import kotlin.time.Duration

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

/** The JVM-side half of an engine's native callback: owned by the JNI global ref. */
internal class EventDispatcher(private val onListenerError: (Throwable) -> Unit) {
    private class Entry(val listener: InactivityListener, val executor: Executor?)

    private val entries = java.util.concurrent.CopyOnWriteArrayList<Entry>()

    fun add(listener: InactivityListener, executor: Executor?): Registration {
        val entry = Entry(listener, executor)
        entries.add(entry)
        return Registration { entries.remove(entry) }
    }

    /** Called by the JNI glue (on_event) for every inact_event; must never throw. */
    fun onNativeEvent(
        kind: Int,
        state: Int,
        previousState: Int,
        reason: Int,
        requiredAuth: Int,
        remainingMs: Long,
        timeMs: Long,
        nowMs: Long,
    ) {
        val event = try {
            val s = SessionState.of(state)
            val r = Reason.of(reason)
            val remaining = remainingMs.wireMsToDuration()
            when (kind) {
                KIND_STATE_CHANGED ->
                    SessionEvent.StateChanged(
                        SessionState.of(previousState), s, r, remaining, timeMs, nowMs, AuthStrength.of(requiredAuth),
                    )
                KIND_TICK -> SessionEvent.Tick(s, r, remaining, timeMs, nowMs)
                else -> return // an event kind of a newer library: not ours to interpret
            }
        } catch (t: Throwable) {
            report(t)
            return
        }
        for (entry in entries) {
            val executor = entry.executor
            if (executor == null) {
                deliver(entry.listener, event)
            } else {
                try {
                    executor.execute { deliver(entry.listener, event) }
                } catch (t: Throwable) {
                    report(t)
                }
            }
        }
    }

    private fun deliver(listener: InactivityListener, event: SessionEvent) {
        try {
            listener.onEvent(event)
        } catch (t: Throwable) {
            report(t)
        }
    }

    private fun report(t: Throwable) {
        // If the handler itself throws, the JNI glue describes and clears it (last line of defence).
        onListenerError(t)
    }

    companion object {
        const val KIND_STATE_CHANGED = 1
        const val KIND_TICK = 2
    }
}
