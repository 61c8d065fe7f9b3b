package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import kotlin.time.Duration
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds

class HostModeAndSnapshotTest {
    @Test
    fun host_mode_next_deadline_and_poll_on_the_manual_clock() {
        val rec = Recorder()
        manualEngine(listener = rec, config = EngineConfig.manual(delivery = Delivery.HOST)).use { engine ->
            assertEquals(Duration.INFINITE, engine.nextDeadline()) // LOADING: nothing scheduled
            engine.start()
            assertEquals(870.seconds, engine.nextDeadline())
            engine.advanceClock(100.seconds)
            assertEquals(770.seconds, engine.nextDeadline())
            engine.poll() // early: harmless
            assertEquals(SessionState.ACTIVE, engine.state)
            assertEquals(Delivery.HOST, engine.info().delivery)
            assertEquals(ClockKind.MANUAL, engine.info().clock)
            assertEquals(870_000L, engine.info().nextDeadlineAtMs)
        }
    }

    @Test
    fun snapshot_restore_on_the_same_boot_counts_the_gap_as_background() {
        val snap = manualEngine(config = EngineConfig.manual(startMs = 10_000)).use { engine ->
            engine.start()
            engine.advanceClock(1.minutes)
            val bytes = engine.snapshot()
            assertTrue(bytes.size in 1..96)
            bytes
        }
        // 30 s later on the same boot: trusted, shorter than the 60 s background timeout
        val rec = Recorder()
        manualEngine(listener = rec, config = EngineConfig.manual(startMs = 100_000)).use { engine ->
            engine.restore(snap)
            val change = rec.changes().single()
            assertEquals(SessionState.LOADING, change.previous)
            assertEquals(SessionStatus(SessionState.ACTIVE, Reason.RESTORED), engine.status)
            assertEquals(10_000L, engine.info().startedAtMs)
        }
        // 2 minutes later: locked by the background timeout
        manualEngine(config = EngineConfig.manual(startMs = 190_000)).use { engine ->
            engine.restore(snap)
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.BACKGROUND_TIMEOUT), engine.status)
        }
    }

    @Test
    fun restore_after_a_reboot_never_returns_to_active() {
        val snap = manualEngine().use { engine ->
            engine.start()
            engine.snapshot()
        }
        manualEngine(config = EngineConfig.manual(bootId = 2)).use { engine ->
            engine.restore(snap)
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.UNTRUSTED_CLOCK), engine.status)
        }
        // after a reboot and more than the absolute lifetime by the wall clock: EXPIRED
        manualEngine(config = EngineConfig.manual(bootId = 2, wallMs = 1_700_000_000_000 + 13.hours.inWholeMilliseconds)).use { engine ->
            engine.restore(snap)
            assertEquals(SessionState.EXPIRED, engine.state)
        }
    }

    @Test
    fun manual_clock_reboot_and_wall_jump_move_the_clock_readings() {
        manualEngine(config = EngineConfig.manual(startMs = 5, wallMs = 1_000_000, bootId = 7)).use { engine ->
            assertEquals(ClockReading(5, 1_000_000, 7), engine.clockNow())
            engine.advanceClock(10.milliseconds)
            engine.jumpWallClock(-(500.milliseconds))
            assertEquals(ClockReading(15, 999_510, 7), engine.clockNow())
            engine.rebootClock(1.seconds)
            val now = engine.clockNow()
            assertEquals(0L, now.monotonicMs)
            assertEquals(1_000_510L, now.wallMs)
            assertTrue(now.bootId != 7L)
        }
    }
}
