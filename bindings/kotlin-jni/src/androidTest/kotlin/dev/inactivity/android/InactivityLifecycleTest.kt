package dev.inactivity.android

import android.app.Application
import android.os.SystemClock
import android.view.MotionEvent
import androidx.lifecycle.Lifecycle
import androidx.test.core.app.ActivityScenario
import androidx.test.core.app.ApplicationProvider
import androidx.test.ext.junit.runners.AndroidJUnit4
import androidx.test.platform.app.InstrumentationRegistry
import androidx.test.runner.lifecycle.ActivityLifecycleMonitorRegistry
import androidx.test.runner.lifecycle.Stage
import dev.inactivity.Policy
import dev.inactivity.SessionState
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Before
import org.junit.Test
import org.junit.runner.RunWith

/** The Application-level integration on a device: activity lifecycle and input reach the engine. */
@RunWith(AndroidJUnit4::class)
class InactivityLifecycleTest {
    private lateinit var session: InactivityLifecycle

    @Before
    fun install() {
        session = InactivityLifecycle.install(ApplicationProvider.getApplicationContext<Application>(), Policy.defaults())
        session.engine.start()
    }

    @After
    fun uninstall() = session.close()

    /** Activities the platform has started and not stopped (androidx.test's own included). */
    private fun startedActivities(): Int {
        var count = 0
        InstrumentationRegistry.getInstrumentation().runOnMainSync {
            val monitor = ActivityLifecycleMonitorRegistry.getInstance()
            count = listOf(Stage.STARTED, Stage.RESUMED, Stage.PAUSED).sumOf { monitor.getActivitiesInStage(it).size }
        }
        return count
    }

    @Test
    fun theEnginesWindowCountFollowsStartedActivities() {
        ActivityScenario.launch(PlainActivity::class.java).use { scenario ->
            assertTrue(startedActivities() >= 1)
            assertEquals(startedActivities(), session.engine.info().visibleWindows)
            // Stopping it (androidx.test starts an empty activity in front) is not background.
            scenario.moveToState(Lifecycle.State.CREATED)
            assertEquals(startedActivities(), session.engine.info().visibleWindows)
            scenario.moveToState(Lifecycle.State.RESUMED)
            assertEquals(startedActivities(), session.engine.info().visibleWindows)
            assertFalse(session.engine.info().inBackground)
        }
    }

    @Test
    fun aPlainActivitysWindowCallbackIsWrappedAndStillReachesTheActivity() {
        ActivityScenario.launch(PlainActivity::class.java).use { scenario ->
            scenario.onActivity { activity ->
                assertTrue(activity.window.callback is InactivityWindowCallback)
                val now = SystemClock.uptimeMillis()
                val down = MotionEvent.obtain(now, now, MotionEvent.ACTION_DOWN, 1f, 1f, 0)
                activity.window.callback.dispatchTouchEvent(down) // the engine records it, then the activity gets it
                down.recycle()
                assertEquals(1, activity.interactions)
            }
            assertEquals(SessionState.ACTIVE, session.engine.state)
        }
    }

    @Test
    fun listenersRunOnTheMainThread() {
        val threads = java.util.Collections.synchronizedList(mutableListOf<Boolean>())
        session.addListener { threads += (android.os.Looper.myLooper() == android.os.Looper.getMainLooper()) }
        session.engine.lock()
        InstrumentationRegistry.getInstrumentation().waitForIdleSync()
        assertEquals(listOf(true), threads)
    }
}
