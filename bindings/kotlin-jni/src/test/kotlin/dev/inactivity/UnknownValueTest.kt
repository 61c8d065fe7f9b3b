package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Test
import kotlin.time.Duration

/**
 * Values of a newer library: the rule shared with the Python binding (test_types.py): an
 * unknown state, reason or outcome is passed on (UNKNOWN here, the plain int in Python), never
 * thrown, and its event is delivered; an event of an unknown kind is skipped.
 */
class UnknownValueTest {
    private fun dispatch(kind: Int, state: Int, previous: Int, reason: Int): List<SessionEvent> {
        val rec = Recorder()
        val errors = mutableListOf<Throwable>()
        val dispatcher = EventDispatcher(NativeHandle()) { errors.add(it) }
        dispatcher.add(rec, null)
        dispatcher.onNativeEvent(kind, state, previous, reason, AuthStrength.NONE.code, 30_000, 1_000, 1_000)
        assertEquals(emptyList<Throwable>(), errors)
        return rec.events.toList()
    }

    @Test
    fun an_unknown_state_or_reason_is_delivered_as_unknown() {
        val event = dispatch(EventDispatcher.KIND_STATE_CHANGED, 99, SessionState.ACTIVE.code, 77).single()
        assertEquals(
            SessionEvent.StateChanged(SessionState.ACTIVE, SessionState.UNKNOWN, Reason.UNKNOWN, Duration.parse("30s"), 1_000, 1_000),
            event,
        )
        val tick = dispatch(EventDispatcher.KIND_TICK, SessionState.WARNING.code, SessionState.WARNING.code, 55).single()
        assertEquals(Reason.UNKNOWN, tick.reason)
    }

    @Test
    fun an_event_of_an_unknown_kind_is_skipped() {
        assertEquals(emptyList<SessionEvent>(), dispatch(99, SessionState.ACTIVE.code, SessionState.ACTIVE.code, 1))
    }

    @Test
    fun known_values_map_to_their_entries_and_unknown_ones_never_throw() {
        assertEquals(SessionState.LOCKED, SessionState.of(3))
        assertEquals(SessionState.UNKNOWN, SessionState.of(Int.MIN_VALUE)) // not a real code either
        assertEquals(RefreshOutcome.UNKNOWN, RefreshOutcome.of(9))
        assertEquals(IdleAction.UNKNOWN, IdleAction.of(-1))
        assertEquals(Delivery.UNKNOWN, Delivery.of(7))
        assertEquals(ClockKind.UNKNOWN, ClockKind.of(7))
    }

    @Test
    fun a_screen_shows_an_unknown_state_as_locked() {
        val shown = mutableListOf<String>()
        val ui = object : SessionUi {
            override fun onSessionLocked(reason: Reason) { shown.add("locked $reason") }
            override fun onSessionActive(reason: Reason) { shown.add("active $reason") }
        }
        SessionUi.dispatch(ui, SessionEvent.StateChanged(SessionState.ACTIVE, SessionState.UNKNOWN, Reason.UNKNOWN, Duration.INFINITE, 0, 0))
        assertEquals(listOf("locked UNKNOWN"), shown)
    }
}
