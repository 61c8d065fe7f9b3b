package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test
import kotlin.time.Duration
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds

/**
 * One whole session on the manual clock with the default policy (idle 15 min, warning 30 s,
 * tick 1 s, background 60 s, absolute 12 h), the same walk as the C suite: every transition
 * at its exact deadline, with the reason, through the Kotlin API.
 */
class FullSessionTest {
    private fun change(e: SessionEvent) = e as SessionEvent.StateChanged

    @Test
    fun full_session_on_the_manual_clock() {
        val rec = Recorder()
        manualEngine(listener = rec).use { engine ->
            assertEquals(SessionState.LOADING, engine.state)
            assertEquals(Reason.NONE, engine.reason)
            assertTrue(rec.events.isEmpty())

            // start: LOADING -> ACTIVE (STARTED), delivered before start() returns
            engine.start()
            assertEquals(1, rec.events.size)
            change(rec.last()).let {
                assertEquals(SessionState.LOADING, it.previous)
                assertEquals(SessionState.ACTIVE, it.state)
                assertEquals(Reason.STARTED, it.reason)
                assertEquals(0L, it.timeMs)
                assertEquals(15.minutes, it.remaining)
            }
            assertEquals(15.minutes, engine.remaining)

            // no transition before its deadline: warning at 15 min - 30 s = 870 000 ms
            engine.advanceClock(870_000.milliseconds - 1.milliseconds)
            assertEquals(1, rec.events.size)
            assertEquals(SessionState.ACTIVE, engine.state)
            engine.advanceClock(1.milliseconds)
            change(rec.last()).let {
                assertEquals(SessionState.ACTIVE, it.previous)
                assertEquals(SessionState.WARNING, it.state)
                assertEquals(Reason.IDLE, it.reason)
                assertEquals(870_000L, it.timeMs)
                assertEquals(30.seconds, it.remaining)
            }

            // countdown ticks aligned to the remaining time
            engine.advanceClock(1.seconds)
            (rec.last() as SessionEvent.Tick).let {
                assertEquals(SessionState.WARNING, it.state)
                assertEquals(29.seconds, it.remaining)
                assertEquals(871_000L, it.timeMs)
            }

            // continue: WARNING -> ACTIVE (CONTINUED), last activity = now
            engine.continueSession()
            change(rec.last()).let {
                assertEquals(SessionState.WARNING, it.previous)
                assertEquals(SessionState.ACTIVE, it.state)
                assertEquals(Reason.CONTINUED, it.reason)
            }
            assertEquals(871_000L, engine.info().lastActivityMs)
            assertEquals(15.minutes, engine.remaining)

            // activity is a timestamp: it moves the idle deadline
            engine.advanceClock(5.minutes)
            engine.activity(ActivityKind.TOUCH_MOVE)
            assertEquals(engine.nowMs(), engine.info().lastActivityMs)
            assertEquals(15.minutes, engine.remaining)

            // a stricter scope (payment screen) and a hold (video)
            val scope = engine.pushScope(3.minutes)
            assertEquals(3.minutes, engine.info().effectiveIdleTimeout)
            assertEquals(3.minutes, engine.remaining)
            scope.close()
            scope.close() // idempotent
            assertEquals(15.minutes, engine.info().effectiveIdleTimeout)
            engine.acquireHold().use {
                assertEquals(1, engine.info().openHolds)
                rec.clear()
                engine.advanceClock(20.minutes) // idle suspended: no warning, no lock
                assertTrue(rec.events.isEmpty())
                assertEquals(SessionState.ACTIVE, engine.state)
            }
            assertEquals(engine.nowMs(), engine.info().lastActivityMs) // last release = activity

            // background: LOCKED exactly at background start + 60 s
            rec.clear()
            engine.background()
            val backgroundAt = engine.nowMs()
            assertTrue(engine.info().inBackground)
            engine.advanceClock(60.seconds - 1.milliseconds)
            assertEquals(SessionState.ACTIVE, engine.state)
            engine.advanceClock(1.milliseconds)
            change(rec.last()).let {
                assertEquals(SessionState.LOCKED, it.state)
                assertEquals(Reason.BACKGROUND_TIMEOUT, it.reason)
                assertEquals(backgroundAt + 60_000, it.timeMs)
            }
            engine.foreground()
            assertFalse(engine.info().inBackground)
            engine.lock() // in LOCKED a no-op success
            assertEquals(Reason.BACKGROUND_TIMEOUT, engine.reason)

            // unlock: one failure, then success
            assertEquals(1u, engine.unlockFailed())
            assertEquals(1u, engine.info().unlockFailures)
            engine.unlock()
            assertEquals(SessionStatus(SessionState.ACTIVE, Reason.UNLOCKED), engine.status)
            assertEquals(0u, engine.info().unlockFailures)

            // manual lock and unlock
            engine.lock()
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.MANUAL_LOCK), engine.status)
            engine.unlock()

            // token refresh: a network error never ends a session
            assertEquals(RefreshOutcome.RETRY, engine.refreshResult(0))
            assertEquals(RefreshOutcome.RETRY, engine.refreshResult(503))
            assertEquals(RefreshOutcome.OK, engine.refreshResult(200))
            assertEquals(RefreshOutcome.FAILED, engine.refreshResult(404))
            assertEquals(SessionState.ACTIVE, engine.state)
            assertEquals(RefreshOutcome.REVOKED, engine.refreshResult(400, "invalid_grant"))
            assertEquals(SessionStatus(SessionState.EXPIRED, Reason.REVOKED), engine.status)

            // a new session, then logout; logout again is a no-op success
            engine.start()
            assertEquals(SessionStatus(SessionState.ACTIVE, Reason.STARTED), engine.status)
            engine.end(Reason.LOGOUT)
            assertEquals(SessionStatus(SessionState.EXPIRED, Reason.LOGOUT), engine.status)
            engine.end(Reason.PASSWORD_CHANGED)
            assertEquals(Reason.LOGOUT, engine.reason)
            assertEquals(Duration.INFINITE, engine.remaining)
        }
    }

    @Test
    fun idle_lock_after_the_warning_counts_down_to_one_second() {
        val rec = Recorder()
        manualEngine(listener = rec).use { engine ->
            engine.start()
            rec.clear()
            engine.advanceInSteps(15.minutes)
            val changes = rec.changes()
            assertEquals(listOf(SessionState.WARNING, SessionState.LOCKED), changes.map { it.state })
            assertEquals(Reason.IDLE_TIMEOUT, changes[1].reason)
            assertEquals(900_000L, changes[1].timeMs)
            val ticks = rec.ticks().map { it.remaining.inWholeSeconds.toInt() }
            assertEquals((29 downTo 1).toList(), ticks)
        }
    }

    /**
     * inact_clock_advance (header): "delivers every due event inside the call, in time order,
     * exactly as on the real clock". One advance across the warning must therefore deliver
     * WARNING, the countdown ticks and LOCKED, as the scheduler would on the real clock.
     */
    /** A process frozen for 10 minutes: one catch-up transition, delivered by the next call. */
    @Test
    fun a_freeze_folds_every_due_deadline_into_one_transition() {
        val rec = Recorder()
        val policy = Policy.defaults().copy(
            idleTimeout = 60.seconds, warning = 10.seconds, tick = Duration.ZERO, lockedTimeout = 1.minutes,
        )
        manualEngine(policy, rec).use { engine ->
            engine.start()
            engine.freezeClock(10.minutes)
            assertEquals(1, rec.events.size)
            engine.poll()
            assertEquals(2, rec.events.size)
            change(rec.last()).let {
                assertEquals(SessionState.ACTIVE, it.previous)
                assertEquals(SessionState.EXPIRED, it.state)
                assertEquals(Reason.LOCKED_TIMEOUT, it.reason)
                assertEquals(120_000L, it.timeMs)
                assertEquals(600_000L, it.nowMs)
            }
        }
    }

    @Test
    fun one_long_clock_advance_delivers_every_due_event_in_time_order() {
        val rec = Recorder()
        manualEngine(listener = rec).use { engine ->
            engine.start()
            rec.clear()
            engine.advanceClock(15.minutes)
            val seen = rec.events.map { "${it::class.simpleName} ${it.state} ${it.remaining.inWholeSeconds}s @${it.timeMs}" }
            assertEquals(
                "events of one inact_clock_advance(900000) from ACTIVE: $seen",
                listOf(SessionState.WARNING, SessionState.LOCKED),
                rec.changes().map { it.state },
            )
            assertEquals((29 downTo 1).toList(), rec.ticks().map { it.remaining.inWholeSeconds.toInt() })
        }
    }

    @Test
    fun absolute_timeout_expires_whatever_the_activity() {
        val rec = Recorder()
        manualEngine(Policy.defaults().copy(warning = Duration.ZERO), rec).use { engine ->
            engine.start()
            repeat(12 * 6) { // activity every 10 minutes for 12 hours
                engine.advanceClock(10.minutes)
                if (engine.state == SessionState.ACTIVE) engine.activity()
            }
            assertEquals(SessionStatus(SessionState.EXPIRED, Reason.ABSOLUTE_TIMEOUT), engine.status)
            assertEquals(12.hours.inWholeMilliseconds, rec.changes().last().timeMs)
        }
    }

    @Test
    fun idle_action_expire_and_unlock_failures_limit() {
        manualEngine(Policy.defaults().copy(idleAction = IdleAction.EXPIRE, warning = Duration.ZERO)).use { engine ->
            engine.start()
            engine.advanceClock(15.minutes)
            assertEquals(SessionStatus(SessionState.EXPIRED, Reason.IDLE_TIMEOUT), engine.status)
        }
        manualEngine(Policy.preset(Preset.BANKING)).use { engine ->
            engine.start()
            engine.lock()
            repeat(4) { assertEquals((it + 1).toUInt(), engine.unlockFailed()) }
            assertEquals(SessionState.LOCKED, engine.state)
            engine.unlockFailed()
            assertEquals(SessionStatus(SessionState.EXPIRED, Reason.UNLOCK_FAILURES), engine.status)
        }
    }

    @Test
    fun set_policy_recomputes_deadlines_and_extends_a_warning() {
        val rec = Recorder()
        manualEngine(listener = rec).use { engine ->
            engine.start()
            engine.advanceClock(870.seconds)
            assertEquals(SessionState.WARNING, engine.state)
            engine.policy = engine.policy.copy(idleTimeout = 30.minutes)
            assertEquals(SessionStatus(SessionState.ACTIVE, Reason.EXTENDED), engine.status)
            assertEquals(30.minutes, engine.policy.idleTimeout)
        }
    }

    @Test
    fun activity_dismisses_the_warning_only_when_the_policy_says_so() {
        manualEngine().use { engine ->
            engine.start()
            engine.advanceClock(870.seconds)
            engine.activity()
            assertEquals(SessionState.WARNING, engine.state)
        }
        manualEngine(Policy.defaults().copy(activityDismissesWarning = true)).use { engine ->
            engine.start()
            engine.advanceClock(870.seconds)
            engine.activity()
            assertEquals(SessionStatus(SessionState.ACTIVE, Reason.ACTIVITY), engine.status)
        }
    }

    @Test
    fun activity_kinds_the_policy_does_not_count_are_ignored() {
        manualEngine().use { engine ->
            engine.start()
            engine.advanceClock(1.minutes)
            engine.activity(ActivityKind.PROGRAMMATIC) // not in the default mask
            assertEquals(0L, engine.info().lastActivityMs)
            engine.activity(ActivityKind.SCROLL)
            assertEquals(60_000L, engine.info().lastActivityMs)
        }
    }
}
