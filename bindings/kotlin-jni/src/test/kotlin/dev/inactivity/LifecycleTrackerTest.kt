package dev.inactivity

import dev.inactivity.LifecycleTracker.Companion.ACTION_BUTTON_PRESS
import dev.inactivity.LifecycleTracker.Companion.ACTION_CANCEL
import dev.inactivity.LifecycleTracker.Companion.ACTION_DOWN
import dev.inactivity.LifecycleTracker.Companion.ACTION_HOVER_ENTER
import dev.inactivity.LifecycleTracker.Companion.ACTION_HOVER_MOVE
import dev.inactivity.LifecycleTracker.Companion.ACTION_MOVE
import dev.inactivity.LifecycleTracker.Companion.ACTION_OUTSIDE
import dev.inactivity.LifecycleTracker.Companion.ACTION_POINTER_DOWN
import dev.inactivity.LifecycleTracker.Companion.ACTION_POINTER_UP
import dev.inactivity.LifecycleTracker.Companion.ACTION_SCROLL
import dev.inactivity.LifecycleTracker.Companion.ACTION_UP
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import kotlin.time.Duration
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds

/**
 * The decisions behind the Android integration, driven the way Android drives them: the
 * activity objects stand in for Activities, in the order the framework calls back.
 */
class LifecycleTrackerTest {
    private class Activity(val name: String) {
        override fun toString() = name
    }

    /** Background timeout 0: any background that takes effect locks at once, so it shows. */
    private val lockOnBackground = Policy.defaults().copy(backgroundTimeout = Duration.ZERO)

    private fun started(policy: Policy = lockOnBackground, rec: Recorder? = null): Pair<InactivityEngine, LifecycleTracker> {
        val engine = manualEngine(policy, rec)
        engine.start()
        return engine to LifecycleTracker(engine)
    }

    @Test
    fun rotation_is_not_background() {
        val rec = Recorder()
        val (engine, tracker) = started(rec = rec)
        engine.use {
            val before = Activity("Main#1")
            tracker.windowStarted(before)
            rec.clear()
            // rotation: old instance stops and is destroyed, new instance is created and starts
            tracker.windowStopped(before)
            tracker.windowDestroyed(before)
            engine.advanceClock(120.ms)
            val after = Activity("Main#2")
            tracker.windowStarted(after)
            engine.advanceClock(10.seconds)
            assertEquals(SessionState.ACTIVE, engine.state)
            assertFalse(engine.info().inBackground)
            assertEquals(1, engine.info().visibleWindows)
            assertEquals(1, tracker.visibleWindows)
            assertTrue(rec.changes().isEmpty())
        }
    }

    @Test
    fun a_to_b_transition_is_not_background() {
        val (engine, tracker) = started()
        engine.use {
            val a = Activity("A")
            val b = Activity("B")
            tracker.windowStarted(a)
            // A.onPause, B.onCreate/onStart/onResume, then A.onStop
            tracker.windowStarted(b)
            tracker.windowStopped(a)
            assertEquals(1, engine.info().visibleWindows)
            engine.advanceClock(5.seconds)
            // back: B.onPause, A.onRestart/onStart, B.onStop/onDestroy
            tracker.windowStarted(a)
            tracker.windowStopped(b)
            tracker.windowDestroyed(b)
            engine.advanceClock(5.seconds)
            assertEquals(SessionState.ACTIVE, engine.state)
            assertFalse(engine.info().inBackground)
        }
    }

    @Test
    fun leaving_the_app_is_background_after_the_grace_dated_from_the_last_stop() {
        val rec = Recorder()
        val (engine, tracker) = started(rec = rec)
        engine.use {
            val a = Activity("A")
            tracker.windowStarted(a)
            engine.advanceClock(1.seconds)
            rec.clear()
            tracker.windowStopped(a) // Home pressed
            val stoppedAt = engine.nowMs()
            engine.advanceClock(699.ms)
            assertEquals(SessionState.ACTIVE, engine.state)
            assertFalse(engine.info().inBackground)
            engine.advanceClock(1.ms)
            // background timeout 0 is shorter than the 700 ms grace: it acts at the end of the grace
            val lock = rec.changes().single()
            assertEquals(SessionState.LOCKED, lock.state)
            assertEquals(Reason.BACKGROUND_TIMEOUT, lock.reason)
            assertEquals(stoppedAt + 700, lock.timeMs)
            assertTrue(engine.info().inBackground)
            assertEquals(stoppedAt, engine.info().backgroundSinceMs)
            tracker.windowStarted(a) // the user comes back: foreground
            assertFalse(engine.info().inBackground)
        }
    }

    @Test
    fun background_timeout_counts_from_the_last_stop_and_a_return_in_time_keeps_the_session() {
        val (engine, tracker) = started(Policy.defaults())
        engine.use {
            val a = Activity("A")
            tracker.windowStarted(a)
            tracker.windowStopped(a)
            val stoppedAt = engine.nowMs()
            engine.advanceClock(59.seconds)
            assertTrue(engine.info().inBackground)
            tracker.windowStarted(a)
            assertEquals(SessionState.ACTIVE, engine.state)
            tracker.windowStopped(a)
            engine.advanceClock(60.seconds - 1.ms)
            assertEquals(SessionState.ACTIVE, engine.state)
            engine.advanceClock(1.ms)
            assertEquals(SessionStatus(SessionState.LOCKED, Reason.BACKGROUND_TIMEOUT), engine.status)
            assertEquals(stoppedAt + 59_000 + 60_000, engine.info().lockedAtMs)
        }
    }

    @Test
    fun unbalanced_lifecycle_calls_never_unbalance_the_window_count() {
        val (engine, tracker) = started()
        engine.use {
            val early = Activity("started before install")
            tracker.windowStopped(early) // never seen starting: ignored
            tracker.windowDestroyed(early)
            val a = Activity("A")
            tracker.windowStarted(a)
            tracker.windowStarted(a) // twice: counted once
            assertEquals(1, engine.info().visibleWindows)
            tracker.windowStopped(a)
            tracker.windowStopped(a)
            tracker.windowDestroyed(a)
            assertEquals(0, engine.info().visibleWindows)
            assertEquals(0, tracker.visibleWindows)
        }
    }

    @Test
    fun input_is_classified_into_activity_kinds() {
        assertEquals(ActivityKind.TOUCH_DOWN, LifecycleTracker.touchKind(ACTION_DOWN))
        assertEquals(ActivityKind.TOUCH_DOWN, LifecycleTracker.touchKind(ACTION_POINTER_DOWN))
        assertEquals(ActivityKind.TOUCH_UP, LifecycleTracker.touchKind(ACTION_UP))
        assertEquals(ActivityKind.TOUCH_UP, LifecycleTracker.touchKind(ACTION_POINTER_UP))
        assertEquals(ActivityKind.TOUCH_MOVE, LifecycleTracker.touchKind(ACTION_MOVE))
        assertNull(LifecycleTracker.touchKind(ACTION_CANCEL))
        assertNull(LifecycleTracker.touchKind(ACTION_OUTSIDE))
        assertEquals(ActivityKind.SCROLL, LifecycleTracker.genericMotionKind(ACTION_SCROLL))
        assertEquals(ActivityKind.POINTER, LifecycleTracker.genericMotionKind(ACTION_HOVER_MOVE))
        assertEquals(ActivityKind.POINTER, LifecycleTracker.genericMotionKind(ACTION_BUTTON_PRESS))
        assertNull(LifecycleTracker.genericMotionKind(ACTION_HOVER_ENTER))
    }

    @Test
    fun touches_moves_keys_and_user_interaction_are_activity_cancel_is_not() {
        val (engine, tracker) = started(Policy.defaults())
        engine.use {
            val a = Activity("A")
            tracker.windowStarted(a)
            fun counted(input: () -> Unit): Boolean {
                engine.advanceClock(1.seconds)
                input()
                return engine.info().lastActivityMs == engine.nowMs()
            }
            assertTrue(counted { tracker.touchEvent(ACTION_MOVE) }) // the classic pattern missed long drags
            assertTrue(counted { tracker.touchEvent(ACTION_UP) })
            assertTrue(counted { tracker.keyEvent() })
            assertTrue(counted { tracker.genericMotionEvent(ACTION_SCROLL) })
            assertFalse(counted { tracker.touchEvent(ACTION_CANCEL) })
            assertFalse(counted { tracker.genericMotionEvent(ACTION_HOVER_ENTER) })
            // a long drag keeps the session alive past the idle timeout
            repeat(20) { engine.advanceClock(1.minutes); tracker.touchEvent(ACTION_MOVE) }
            assertEquals(SessionState.ACTIVE, engine.state)
        }
    }

    @Test
    fun each_input_counts_as_its_own_kind() {
        // A policy that counts keys only: a key press must arrive as KEY (never as a touch).
        val (engine, tracker) = started(Policy.defaults().copy(activityKinds = setOf(ActivityKind.KEY)))
        engine.use {
            tracker.windowStarted(Activity("A"))
            engine.advanceClock(1.seconds)
            tracker.keyEvent()
            assertEquals(engine.nowMs(), engine.info().lastActivityMs)
            engine.advanceClock(1.seconds)
            tracker.touchEvent(ACTION_DOWN)
            tracker.genericMotionEvent(ACTION_SCROLL)
            assertEquals(engine.nowMs() - 1000, engine.info().lastActivityMs)
        }
    }

    /** The Android forwarders (not compiled here) must make the same tracker calls. */
    @Test
    fun base_activity_and_the_wrapped_window_forward_input_the_same_way() {
        val dir = java.io.File("bindings/kotlin-jni/src/android/kotlin/dev/inactivity/android")
        fun forwarded(file: String): Map<String, String> {
            val text = java.io.File(dir, file).readText()
            return Regex("""override fun (dispatch\w+)\(event: \w+\): Boolean \{\s*\n\s*(?:session\.)?tracker\.(\w+\([^)]*\))""")
                .findAll(text).associate { it.groupValues[1] to it.groupValues[2] }
        }
        val window = forwarded("InactivityWindowCallback.kt")
        assertEquals(setOf("dispatchTouchEvent", "dispatchKeyEvent", "dispatchGenericMotionEvent"), window.keys)
        assertEquals(window, forwarded("BaseActivity.kt"))
        assertFalse(java.io.File(dir, "BaseActivity.kt").readText().contains("onUserInteraction"))
    }

    @Test
    fun windows_that_report_their_own_input_are_not_wrapped() {
        val (engine, tracker) = started()
        engine.use {
            class OwnInput : TracksOwnInput
            assertTrue(tracker.shouldTrackInputOf(Activity("A"), trackInput = true))
            assertFalse(tracker.shouldTrackInputOf(OwnInput(), trackInput = true))
            assertFalse(tracker.shouldTrackInputOf(Activity("A"), trackInput = false))
        }
    }

    private class RecordingUi : SessionUi {
        val calls = mutableListOf<String>()
        override fun onSessionActive(reason: Reason) { calls += "active $reason" }
        override fun onSessionWarning(remaining: Duration) { calls += "warning ${remaining.inWholeSeconds}" }
        override fun onSessionCountdown(remaining: Duration) { calls += "countdown ${remaining.inWholeSeconds}" }
        override fun onSessionLocked(reason: Reason) { calls += "locked $reason" }
        override fun onSessionExpired(reason: Reason) { calls += "expired $reason" }
    }

    @Test
    fun base_activity_hooks_follow_the_events_and_sync_on_start() {
        val ui = RecordingUi()
        val policy = Policy.defaults().copy(idleTimeout = 1.minutes, warning = 3.seconds)
        manualEngine(policy, listener = { SessionUi.dispatch(ui, it) }).use { engine ->
            SessionUi.sync(ui, engine) // LOADING: nothing to show
            assertTrue(ui.calls.isEmpty())
            engine.start()
            engine.advanceInSteps(1.minutes)
            engine.unlock()
            engine.end(Reason.REVOKED)
            assertEquals(
                listOf(
                    "active STARTED", "warning 3", "countdown 2", "countdown 1",
                    "locked IDLE_TIMEOUT", "active UNLOCKED", "expired REVOKED",
                ),
                ui.calls,
            )
            ui.calls.clear()
            SessionUi.sync(ui, engine) // a screen that starts now shows sign-in at once
            assertEquals(listOf("expired REVOKED"), ui.calls)
        }
    }
}
