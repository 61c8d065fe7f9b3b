package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertThrows
import org.junit.Assert.assertTrue
import org.junit.Test
import kotlin.time.Duration
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds

/** Issue 30 through the Kotlin binding: holderReport, DEVICE_LIMIT, the keepalive. Manual clock. */
class HolderTest {
    private val base = Policy.defaults().copy(idleTimeout = 60.seconds, warning = 10.seconds, backgroundTimeout = 30.seconds)

    @Test
    fun each_kind_makes_the_session_stricter_only() {
        val rec = Recorder()
        manualEngine(base, rec).use { e ->
            e.start()
            e.advanceClock(20.seconds)
            e.holderReport(HolderKind.ACTIVITY, 5.seconds)
            assertEquals(15_000L, e.info().lastActivityMs)
            e.holderReport(HolderKind.IDLE_DEADLINE, 5.minutes)
            assertEquals(55.seconds, e.remaining)
            e.holderReport(HolderKind.IDLE_DEADLINE, 30.seconds)
            assertEquals(30.seconds, e.remaining)
            e.holderReport(HolderKind.ABSOLUTE_DEADLINE, 20.seconds)
            assertEquals(20.seconds, e.remaining)
            e.holderReport(HolderKind.LOCKED, 4.seconds, Reason.BACKGROUND_TIMEOUT)
            val locked = rec.changes().last()
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.BACKGROUND_TIMEOUT), SessionStatus(locked.state, locked.reason))
            assertEquals(16_000L, locked.timeMs)
            e.holderReport(HolderKind.ACTIVITY)
            assertEquals(SessionState.LOCKED, e.state)
            e.holderReport(HolderKind.EXPIRED, reason = Reason.DEVICE_LIMIT)
            assertEquals(SessionStatus(SessionState.EXPIRED, Reason.DEVICE_LIMIT), e.status)
            e.start()
            e.end(Reason.DEVICE_LIMIT)
            assertEquals(Reason.DEVICE_LIMIT, e.reason)
        }
    }

    @Test
    fun bad_reports_name_the_argument_and_change_nothing() {
        manualEngine(base).use { e ->
            e.start()
            val before = e.info()
            val reason = assertThrows(InvalidArgumentException::class.java) { e.holderReport(HolderKind.EXPIRED) }
            assertTrue(reason.message!!, reason.message!!.contains("reason (0)"))
            val ms = assertThrows(InvalidArgumentException::class.java) { e.holderReport(HolderKind.ACTIVITY, (-1).seconds) }
            assertTrue(ms.message!!, ms.message!!.contains("ms (-1000)"))
            assertEquals(before, e.info())
        }
        manualEngine(base).use { e ->
            assertThrows(InvalidStateException::class.java) { e.holderReport(HolderKind.LOCKED, reason = Reason.MANUAL_LOCK) }
        }
    }

    @Test
    fun keepalive_events_carry_the_last_user_activity() {
        val rec = Recorder()
        assertEquals(Duration.ZERO, Policy.defaults().keepaliveInterval)
        manualEngine(base.copy(keepaliveInterval = 5.seconds), rec).use { e ->
            assertEquals(5.seconds, e.policy.keepaliveInterval)
            e.start()
            e.advanceClock(2.seconds)
            e.activity(ActivityKind.KEY)
            e.advanceClock(3.seconds)
            val ping = rec.events.filterIsInstance<SessionEvent.Keepalive>().single()
            assertEquals(2_000L, ping.timeMs)
            assertEquals(5_000L, ping.nowMs)
            assertEquals(3.seconds, ping.activityAge)
        }
        val error = assertThrows(InvalidArgumentException::class.java) { base.copy(keepaliveInterval = 500.milliseconds()).validate() }
        assertTrue(error.message!!, error.message!!.contains("keepalive_interval_ms"))
    }

    private fun Int.milliseconds(): Duration = Duration.parse("${this}ms")
}
