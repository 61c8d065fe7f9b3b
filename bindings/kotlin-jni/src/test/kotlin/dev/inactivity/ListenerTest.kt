package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertSame
import org.junit.Assert.assertTrue
import org.junit.Test
import java.util.Collections
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executor
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlin.concurrent.thread
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds

class ListenerTest {
    @Test
    fun a_listener_exception_is_reported_and_delivery_goes_on() {
        val errors = Collections.synchronizedList(mutableListOf<Throwable>())
        val rec = Recorder()
        val boom = IllegalStateException("listener bug")
        InactivityEngine.create(Policy.defaults(), EngineConfig.manual(), { throw boom }, { errors.add(it) }).use { engine ->
            engine.addListener(listener = rec)
            engine.start() // the first listener throws; the second still gets the event
            assertEquals(1, errors.size)
            assertSame(boom, errors[0])
            assertEquals(SessionState.ACTIVE, (rec.last() as SessionEvent.StateChanged).state)
            // the exception never leaks into the next JNI call
            assertEquals(SessionState.ACTIVE, engine.state)
            engine.lock()
            assertEquals(2, errors.size)
            assertEquals(2, rec.events.size)
        }
    }

    @Test
    fun an_exception_escaping_the_error_handler_is_cleared_by_the_glue() {
        val before = NativeBridge.escapedExceptionCount()
        val rec = Recorder()
        InactivityEngine.create(
            Policy.defaults(), EngineConfig.manual(), { throw RuntimeException("listener") },
            { throw IllegalStateException("the error handler threw too (expected in this test)") },
        ).use { engine ->
            engine.addListener(listener = rec)
            engine.start()
            assertEquals(before + 1, NativeBridge.escapedExceptionCount())
            // the upcall was abandoned, the engine and the JNI env are fine
            assertEquals(SessionState.ACTIVE, engine.state)
            engine.lock()
            assertEquals(before + 2, NativeBridge.escapedExceptionCount())
            assertEquals(SessionState.LOCKED, engine.state)
        }
    }

    @Test
    fun a_listener_may_call_its_engine_and_those_events_follow_in_order() {
        val rec = Recorder()
        lateinit var engine: InactivityEngine
        val continuer = InactivityListener { e ->
            if (e is SessionEvent.StateChanged && e.state == SessionState.WARNING) {
                engine.continueSession() // queued: delivered after this listener returns
                assertEquals(SessionState.ACTIVE, engine.state)
            }
        }
        engine = manualEngine(listener = continuer)
        engine.use {
            engine.addListener(listener = rec)
            engine.start()
            engine.advanceClock(870.seconds)
            val states = rec.changes().map { it.state to it.reason }
            assertEquals(
                listOf(
                    SessionState.ACTIVE to Reason.STARTED,
                    SessionState.WARNING to Reason.IDLE,
                    SessionState.ACTIVE to Reason.CONTINUED,
                ),
                states,
            )
        }
    }

    @Test
    fun close_from_inside_a_listener_takes_effect_when_it_returns() {
        val rec = Recorder()
        lateinit var engine: InactivityEngine
        engine = manualEngine(listener = { e ->
            if (e is SessionEvent.StateChanged && e.state == SessionState.WARNING) engine.close()
        })
        engine.addListener(listener = rec)
        engine.start()
        try {
            engine.advanceInSteps(15.minutes)
        } catch (_: IllegalStateException) {
            // the engine was closed under the call: reported as a close, never as a crash
        }
        assertTrue(engine.isClosed)
        // no listener runs once close returned: not even the later listeners of the event
        // being delivered (the same rule as for executor listeners)
        assertEquals(listOf(SessionState.ACTIVE), rec.events.map { it.state })
        engine.close() // still idempotent
    }

    @Test
    fun listeners_with_an_executor_get_events_there_in_order() {
        val executor = Executors.newSingleThreadExecutor { Thread(it, "ui-thread") }
        try {
            val rec = Recorder()
            manualEngine().use { engine ->
                val registration = engine.addListener(executor, rec)
                engine.start()
                engine.advanceInSteps(15.minutes)
                engine.unlock()
                executor.submit {}.get(10, TimeUnit.SECONDS)
                assertTrue(rec.threads.all { it.name == "ui-thread" })
                val states = rec.changes().map { it.state }
                assertEquals(
                    listOf(SessionState.ACTIVE, SessionState.WARNING, SessionState.LOCKED, SessionState.ACTIVE),
                    states,
                )
                assertEquals(29, rec.ticks().size)
                registration.close()
                registration.close()
                engine.lock()
                executor.submit {}.get(10, TimeUnit.SECONDS)
                assertEquals(SessionState.ACTIVE, rec.changes().last().state) // removed: no LOCKED
            }
        } finally {
            executor.shutdownNow()
        }
    }

    @Test
    fun on_a_thread_pool_executor_listeners_run_one_at_a_time_in_order() {
        val pool = Executors.newFixedThreadPool(4)
        try {
            val running = AtomicInteger()
            val overlaps = AtomicInteger()
            val seen = Collections.synchronizedList(mutableListOf<Long>())
            val slow = InactivityListener { e ->
                if (running.incrementAndGet() > 1) overlaps.incrementAndGet()
                Thread.yield() // widen the window a pool would use to overlap or reorder
                seen.add(e.timeMs)
                running.decrementAndGet()
            }
            val rec = Recorder()
            manualEngine().use { engine ->
                engine.addListener(pool, slow)
                engine.addListener(pool, rec) // a second listener shares the engine's order
                engine.start()
                engine.advanceInSteps(15.minutes) // WARNING, 29 ticks, LOCKED
                engine.unlock()
                assertTrue(waitFor { rec.events.size == 33 })
            }
            assertEquals(0, overlaps.get())
            assertEquals(seen.sorted(), seen.toList())
            assertEquals(rec.events.map { it.timeMs }, seen.toList())
            assertEquals(33, seen.size)
        } finally {
            pool.shutdownNow()
        }
    }

    /** An executor that keeps what it is given until the test runs it. */
    private class HeldExecutor : Executor {
        val tasks = Collections.synchronizedList(mutableListOf<Runnable>())
        override fun execute(command: Runnable) {
            tasks.add(command)
        }
        fun runAll() {
            while (true) {
                val task = synchronized(tasks) { if (tasks.isEmpty()) null else tasks.removeAt(0) } ?: return
                task.run()
            }
        }
    }

    @Test
    fun nothing_posted_to_an_executor_runs_after_close_returns() {
        val held = HeldExecutor()
        val rec = Recorder()
        val engine = manualEngine()
        engine.addListener(held, rec)
        engine.start()
        engine.lock()
        assertEquals(1, held.tasks.size) // one hand-over per engine, not one per event
        engine.close()
        held.runAll() // the executor runs late (a busy main thread)
        assertEquals(emptyList<SessionEvent>(), rec.events.toList())
    }

    @Test
    fun close_from_another_thread_waits_for_an_executor_listener_in_progress() {
        val pool = Executors.newSingleThreadExecutor()
        try {
            val entered = CountDownLatch(1)
            val release = CountDownLatch(1)
            val calls = AtomicInteger()
            val engine = manualEngine()
            engine.addListener(pool) {
                calls.incrementAndGet()
                entered.countDown()
                release.await(10, TimeUnit.SECONDS)
            }
            engine.start()
            engine.lock() // queued behind the first, still running
            assertTrue(entered.await(10, TimeUnit.SECONDS))
            val closer = thread { engine.close() }
            closer.join(200)
            assertTrue("close returned while a listener of the engine was running", closer.isAlive)
            release.countDown()
            closer.join(10_000)
            assertTrue(!closer.isAlive)
            pool.submit {}.get(10, TimeUnit.SECONDS)
            assertEquals(1, calls.get()) // the LOCKED posted before close never ran
        } finally {
            pool.shutdownNow()
        }
    }

    @Test
    fun close_from_inside_an_executor_listener_stops_the_rest() {
        val held = HeldExecutor()
        val rec = Recorder()
        lateinit var engine: InactivityEngine
        engine = manualEngine()
        engine.addListener(held) { if (it.state == SessionState.ACTIVE) engine.close() }
        engine.addListener(held, rec)
        engine.start()
        engine.lock()
        held.runAll()
        assertTrue(engine.isClosed)
        assertEquals(emptyList<SessionEvent>(), rec.events.toList()) // not even the first event's second listener
    }

    @Test
    fun an_engine_without_listeners_still_answers_queries() {
        InactivityEngine.create(Policy.defaults(), EngineConfig.manual()).use { engine ->
            engine.start()
            engine.advanceClock(15.minutes)
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.IDLE_TIMEOUT), engine.status)
        }
    }
}
