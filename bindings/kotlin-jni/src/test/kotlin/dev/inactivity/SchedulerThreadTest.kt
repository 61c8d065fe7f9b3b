package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNotSame
import org.junit.Assert.assertTrue
import org.junit.Test
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

/**
 * Real-clock checks of THREAD delivery (generous bounds): timer-caused events arrive on the
 * library's scheduler thread, which the glue attaches to the JVM once and detaches when the
 * thread exits (after the last THREAD engine is destroyed).
 */
class SchedulerThreadTest {
    private val fast = Policy.defaults().copy(
        idleTimeout = 400.milliseconds,
        warning = 300.milliseconds,
        tick = 100.milliseconds,
    )

    @Test
    fun scheduler_thread_events_attach_once_and_detach_at_thread_exit() {
        val attachesBefore = NativeBridge.attachCount()
        val detachesBefore = NativeBridge.detachCount()
        val rec = Recorder()
        val engine = InactivityEngine.create(fast, EngineConfig(), rec, onListenerError = { throw AssertionError(it) })
        engine.start() // caused by this call: delivered here, before start() returns
        assertEquals(1, rec.events.size)
        assertEquals(Thread.currentThread(), rec.threads[0])

        assertTrue("no lock within 10 s", waitFor { rec.changes().any { it.state == SessionState.LOCKED } })
        val timerThreads = rec.threads.drop(1)
        assertTrue("warning, ticks and lock expected", timerThreads.size >= 3)
        val scheduler = timerThreads.first()
        assertNotSame(Thread.currentThread(), scheduler)
        assertTrue(timerThreads.all { it === scheduler }) // one thread, one attach
        assertEquals("inactivity-native", scheduler.name)
        assertTrue(scheduler.isDaemon)
        assertEquals(attachesBefore + 1, NativeBridge.attachCount())
        val startedAt = rec.changes().first().timeMs
        val lock = rec.changes().last()
        assertEquals(Reason.IDLE_TIMEOUT, lock.reason)
        assertEquals("lock at its deadline", startedAt + 400, lock.timeMs)
        assertTrue(lock.nowMs >= lock.timeMs)
        val warning = rec.changes()[1]
        assertEquals(startedAt + 100, warning.timeMs)
        val states = rec.changes().map { it.state }
        assertEquals(listOf(SessionState.ACTIVE, SessionState.WARNING, SessionState.LOCKED), states)
        // The timer was set at every deadline: no fault to report (the C suite injects one).
        assertEquals(SchedulerFaults(degraded = false, failures = 0uL, lastErrno = 0), InactivityEngine.schedulerFaults)

        // a second engine on the same scheduler thread does not attach again
        val rec2 = Recorder()
        InactivityEngine.create(fast.copy(warning = Duration.ZERO), EngineConfig(), rec2).use { second ->
            second.start()
            assertTrue(waitFor { rec2.changes().any { it.state == SessionState.LOCKED } })
            assertTrue(rec2.threads.drop(1).all { it === scheduler })
        }
        assertEquals(attachesBefore + 1, NativeBridge.attachCount())

        engine.close() // the last THREAD engine: the scheduler thread ends and is detached
        assertTrue("scheduler thread not detached within 10 s", waitFor { NativeBridge.detachCount() == detachesBefore + 1 })
        assertTrue(waitFor { !scheduler.isAlive })
        assertFalse(scheduler.isAlive)
    }

    @Test
    fun host_delivery_on_the_system_clock_delivers_inside_poll() {
        val rec = Recorder()
        InactivityEngine.create(fast.copy(warning = Duration.ZERO), EngineConfig(delivery = Delivery.HOST), rec).use { engine ->
            engine.start()
            val startedAt = rec.changes().single().timeMs
            val delay = engine.nextDeadline()
            assertTrue("next deadline $delay", delay > Duration.ZERO && delay <= 400.milliseconds)
            Thread.sleep(delay.inWholeMilliseconds + 50)
            assertEquals(1, rec.events.size) // nothing arrives by itself in host mode
            engine.poll()
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.IDLE_TIMEOUT), engine.status)
            assertTrue(rec.threads.all { it === Thread.currentThread() })
            assertTrue(engine.info().nowMs >= startedAt + 400)
            assertEquals(startedAt + 400, rec.changes().last().timeMs)
        }
    }
}
