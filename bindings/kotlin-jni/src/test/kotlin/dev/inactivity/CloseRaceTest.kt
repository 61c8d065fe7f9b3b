package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.milliseconds

/**
 * Real clock, THREAD delivery: close() races the scheduler thread's deliveries, to direct and
 * to pool-executor listeners. No listener may run once close() returned, and the executor
 * listeners of one engine never overlap.
 */
class CloseRaceTest {
    @Test
    fun no_listener_runs_after_close_returns_while_the_scheduler_delivers() {
        val pool = Executors.newFixedThreadPool(4)
        val late = AtomicInteger()
        val overlaps = AtomicInteger()
        val delivered = AtomicInteger()
        try {
            // idle 30 ms with a 20 ms warning ticking every 2 ms: events from the scheduler thread
            val policy = Policy.defaults().copy(idleTimeout = 30.milliseconds, warning = 20.milliseconds, tick = 2.milliseconds)
            repeat(40) { round ->
                val closed = AtomicBoolean()
                val running = AtomicInteger()
                val engine = InactivityEngine.create(policy, EngineConfig(), null, { throw AssertionError(it) })
                val check = InactivityListener {
                    if (closed.get()) late.incrementAndGet()
                    delivered.incrementAndGet()
                }
                engine.addListener(listener = check)
                engine.addListener(pool) {
                    if (running.incrementAndGet() > 1) overlaps.incrementAndGet()
                    if (closed.get()) late.incrementAndGet()
                    Thread.yield()
                    running.decrementAndGet()
                }
                engine.start()
                Thread.sleep(10L + round % 25) // close somewhere in the warning, or near the lock
                engine.close()
                closed.set(true)
            }
            pool.shutdown()
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS))
        } finally {
            pool.shutdownNow()
        }
        assertEquals("listener calls after close() returned", 0, late.get())
        assertEquals("executor listeners overlapped", 0, overlaps.get())
        assertTrue("the scheduler delivered too little to race with", delivered.get() > 40)
    }
}
