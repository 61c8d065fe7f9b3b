package dev.inactivity

import java.util.Collections
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

/** Records every event with the thread it arrived on. */
class Recorder : InactivityListener {
    val events: MutableList<SessionEvent> = Collections.synchronizedList(mutableListOf())
    val threads: MutableList<Thread> = Collections.synchronizedList(mutableListOf())

    override fun onEvent(event: SessionEvent) {
        threads.add(Thread.currentThread())
        events.add(event)
    }

    fun changes(): List<SessionEvent.StateChanged> = synchronized(events) { events.filterIsInstance<SessionEvent.StateChanged>() }
    fun ticks(): List<SessionEvent.Tick> = synchronized(events) { events.filterIsInstance<SessionEvent.Tick>() }
    fun clear() = synchronized(events) { events.clear(); threads.clear() }
    fun last(): SessionEvent = synchronized(events) { events.last() }
}

/** A manual-clock engine with [policy] (default policy when null) and [listener]. */
fun manualEngine(
    policy: Policy = Policy.defaults(),
    listener: InactivityListener? = null,
    config: EngineConfig = EngineConfig.manual(),
    onListenerError: (Throwable) -> Unit = { throw AssertionError("listener threw", it) },
): InactivityEngine = InactivityEngine.create(policy, config, listener, onListenerError)

fun InactivityEngine.nowMs(): Long = clockNow().monotonicMs

val Int.ms: Duration get() = this.milliseconds
val Long.ms: Duration get() = this.milliseconds

/** Polls [condition] until it holds or [timeoutMs] passes (real-clock tests only). */
fun waitFor(timeoutMs: Long = 10_000, condition: () -> Boolean): Boolean {
    val deadline = System.nanoTime() + timeoutMs * 1_000_000
    while (System.nanoTime() < deadline) {
        if (condition()) return true
        Thread.sleep(5)
    }
    return condition()
}

/**
 * Advances the manual clock by [total] in steps of at most [step], so that every deadline in
 * between is met by its own call (tests that must not depend on how one long advance folds).
 */
fun InactivityEngine.advanceInSteps(total: Duration, step: Duration = Duration.parse("1s")) {
    var left = total
    while (left > Duration.ZERO) {
        val d = if (left < step) left else step
        advanceClock(d)
        left -= d
    }
}
