package dev.inactivity.flow

import dev.inactivity.EngineConfig
import dev.inactivity.InactivityEngine
import dev.inactivity.Policy
import dev.inactivity.Reason
import dev.inactivity.SessionEvent
import dev.inactivity.SessionState
import dev.inactivity.SessionStatus
import dev.inactivity.advanceInSteps
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.async
import kotlinx.coroutines.cancel
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.produceIn
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds

class FlowAdapterTest {
    private fun engine() = InactivityEngine.create(Policy.defaults(), EngineConfig.manual())

    @Test
    fun events_flow_delivers_every_event_in_order_and_completes_on_close() = runBlocking {
        val engine = engine()
        val channel = engine.events().produceIn(this)
        yield() // let the collector register
        engine.start()
        engine.advanceInSteps(15.minutes)
        val first = channel.receive() as SessionEvent.StateChanged
        assertEquals(SessionState.ACTIVE to Reason.STARTED, first.state to first.reason)
        val warning = channel.receive() as SessionEvent.StateChanged
        assertEquals(SessionState.WARNING, warning.state)
        repeat(29) { assertTrue(channel.receive() is SessionEvent.Tick) }
        assertEquals(SessionState.LOCKED, channel.receive().state)
        engine.close()
        val rest = mutableListOf<SessionEvent>()
        withTimeout(10_000) { for (e in channel) rest += e } // completes: the engine closed
        assertTrue(rest.isEmpty())
    }

    @Test
    fun events_from_another_thread_reach_the_collector() = runBlocking {
        val engine = engine()
        engine.use {
            val collected = async(Dispatchers.Default) {
                engine.events().first { it is SessionEvent.StateChanged && it.state == SessionState.LOCKED }
            }
            // the listener registers asynchronously: drive the engine until the collector sees it
            engine.start()
            withTimeout(10_000) {
                while (!collected.isCompleted) {
                    if (engine.state == SessionState.LOCKED) engine.unlock()
                    engine.lock()
                    yield()
                    Thread.sleep(1)
                }
            }
            assertEquals(Reason.MANUAL_LOCK, collected.await().reason)
        }
    }

    @Test
    fun state_flow_starts_from_the_engine_and_follows_changes_until_the_scope_ends() {
        val engine = engine()
        engine.use {
            val scope = CoroutineScope(Job())
            val state = engine.stateIn(scope)
            assertEquals(SessionStatus(SessionState.LOADING, Reason.NONE), state.value)
            engine.start()
            assertEquals(SessionStatus(SessionState.ACTIVE, Reason.STARTED), state.value)
            engine.advanceClock(870.seconds)
            assertEquals(SessionStatus(SessionState.WARNING, Reason.IDLE), state.value)
            engine.advanceClock(1.seconds) // ticks do not change the state flow
            assertEquals(SessionStatus(SessionState.WARNING, Reason.IDLE), state.value)
            scope.cancel()
            engine.lock()
            assertEquals(SessionStatus(SessionState.WARNING, Reason.IDLE), state.value) // unregistered
            assertEquals(SessionState.LOCKED, engine.state)
            // a state flow made now starts from the current state
            val later = engine.stateIn(CoroutineScope(Job()))
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.MANUAL_LOCK), later.value)
        }
    }
}
