package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertSame
import org.junit.Assert.assertTrue
import org.junit.Test
import java.util.Collections
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
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
        // no event of the engine after the one being delivered when it closed
        assertEquals(listOf(SessionState.ACTIVE, SessionState.WARNING), rec.events.map { it.state })
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
    fun an_engine_without_listeners_still_answers_queries() {
        InactivityEngine.create(Policy.defaults(), EngineConfig.manual()).use { engine ->
            engine.start()
            engine.advanceClock(15.minutes)
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.IDLE_TIMEOUT), engine.status)
        }
    }
}
