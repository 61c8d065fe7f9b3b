package dev.inactivity

import java.io.File
import kotlin.system.exitProcess
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

/**
 * The child JVM of [PlatformFaultsTest]: one scenario, run with libinact_faults.so
 * (Tests/CTests/fault_preload.c) preloaded and its faults set through INACT_TEST_FAULTS before
 * the library was loaded. Prints what it saw, one `key=value` line each; the test checks them.
 *
 *     FaultChild create-fails   a THREAD engine's creation fails once (pthread_create,
 *                               timerfd_create or the first timerfd_settime: the fault the
 *                               test set), then succeeds
 *     FaultChild timer-fails    every timerfd_settime after the first fails
 *
 * Real clock (the scheduler thread runs only on it), generous bounds as in the C suite. The
 * same scenarios as bindings/python/tests/fault_child.py.
 */
object FaultChild {
    private const val WAIT_MS = 20_000L

    // idle 400 ms, warning 200 ms, no ticks: WARNING at 200 ms, LOCKED at 400 ms (the C suite's).
    private val short = Policy.defaults().copy(idleTimeout = 400.milliseconds, warning = 200.milliseconds, tick = Duration.ZERO)

    private fun say(key: String, value: Any?) = println("$key=$value")

    /**
     * The library's scheduler threads: the native name it gives them ("inactivity"), or the
     * glue's Java name once attached ("inactivity-native", cut to 15 bytes), not the binding's
     * own "inactivity-cleaner".
     */
    private fun schedulerThreads(): Int = File("/proc/self/task").listFiles().orEmpty().count { task ->
        runCatching { File(task, "comm").readText().trim() in setOf("inactivity", "inactivity-nati") }.getOrDefault(false)
    }

    private fun faults(): String = InactivityEngine.schedulerFaults.let { "${it.degraded},${it.failures},${it.lastErrno}" }

    /** The index of the first change to [state] at or after [after], or -1 after the bound. */
    private fun Recorder.waitState(state: SessionState, after: Int = 0): Int {
        var at = -1
        waitFor(WAIT_MS) {
            synchronized(events) {
                at = (after until events.size).firstOrNull { (events[it] as? SessionEvent.StateChanged)?.state == state } ?: -1
            }
            at >= 0
        }
        return at
    }

    private fun Recorder.states(upTo: Int = Int.MAX_VALUE): String = synchronized(events) {
        events.take(upTo).filterIsInstance<SessionEvent.StateChanged>().joinToString(",") { it.state.name }
    }

    private fun createFails() {
        val manualRec = Recorder()
        val manual = InactivityEngine.create(short, EngineConfig.manual(), manualRec)
        manual.start()
        val attaches = NativeBridge.attachCount()
        try {
            InactivityEngine.create(short, EngineConfig(), Recorder()).close()
            say("create", "created")
        } catch (e: InactivityException) {
            say("create", e::class.simpleName)
            say("status", "${e.status.name} ${e.status.code}")
            say("message", e.message)
            say("errno", (e as? SystemResourceException)?.errno)
        }
        // No scheduler thread was left, none came to the JVM (the glue attaches it at its first event).
        say("scheduler_threads", schedulerThreads())
        say("attached", NativeBridge.attachCount() - attaches)
        manual.advanceClock(200.milliseconds) // an engine that needs no scheduler goes on
        say("manual_states", manualRec.states())
        val rec = Recorder()
        InactivityEngine.create(short, EngineConfig(), rec).use { engine ->
            engine.start()
            val at = rec.waitState(SessionState.WARNING)
            say("retry_warning_on_scheduler_thread", at >= 0 && rec.threads[at] !== Thread.currentThread())
            say("retry_scheduler_threads", schedulerThreads())
        }
        manual.close()
        say("faults", faults())
    }

    private fun timerFails() {
        say("faults_before", faults())
        val rec = Recorder()
        InactivityEngine.create(short, EngineConfig(), rec).use { engine ->
            val started = System.nanoTime()
            engine.start()
            // The engine decides at every call, whatever its timer: past the lock deadline the
            // call itself finds LOCKED (whether or not the degraded scheduler got there first).
            val left = 450 - (System.nanoTime() - started) / 1_000_000
            if (left > 0) Thread.sleep(left)
            say("state_at_call_after_deadline", engine.state.name)
            say("faults_after_lock", faults())
            val count = rec.events.size
            engine.unlock() // ACTIVE again, delivered on this thread by the call
            say("unlock_events", synchronized(rec.events) {
                rec.events.drop(count).mapIndexed { i, e -> "${e.state.name}:${rec.threads[count + i] === Thread.currentThread()}" }
                    .joinToString(",")
            })
            say("state_after_unlock", engine.state.name)
            // No deadline is lost: the degraded scheduler's bounded wait delivers the next WARNING.
            val at = rec.waitState(SessionState.WARNING, after = rec.events.size)
            say("next_warning_on_scheduler_thread", at >= 0 && rec.threads[at] !== Thread.currentThread())
            say("states", rec.states(at + 1))
        }
        say("faults_after", faults())
    }

    @JvmStatic
    fun main(args: Array<String>) {
        when (args.singleOrNull()) {
            "create-fails" -> createFails()
            "timer-fails" -> timerFails()
            else -> {
                System.err.println("usage: FaultChild create-fails|timer-fails")
                exitProcess(2)
            }
        }
        System.out.flush()
        exitProcess(0)
    }
}
