package dev.inactivity.android

import android.app.Application
import androidx.lifecycle.Lifecycle
import androidx.test.core.app.ActivityScenario
import androidx.test.core.app.ApplicationProvider
import androidx.test.ext.junit.runners.AndroidJUnit4
import androidx.test.platform.app.InstrumentationRegistry
import dev.inactivity.Policy
import dev.inactivity.Reason
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Before
import org.junit.Test
import org.junit.runner.RunWith

/** BaseActivity on a device: the hooks follow the session while the activity is started. */
@RunWith(AndroidJUnit4::class)
class BaseActivityTest {
    private lateinit var session: InactivityLifecycle

    @Before
    fun install() {
        session = InactivityLifecycle.install(ApplicationProvider.getApplicationContext<Application>(), Policy.defaults())
    }

    @After
    fun uninstall() = session.close()

    private fun settle() = InstrumentationRegistry.getInstrumentation().waitForIdleSync()

    private fun hooksOf(scenario: ActivityScenario<RecordingActivity>): List<String> {
        var hooks: List<String> = emptyList()
        scenario.onActivity { hooks = it.hooks.toList() }
        return hooks
    }

    @Test
    fun aLockWhileStartedCallsOnSessionLocked() {
        session.engine.start()
        ActivityScenario.launch(RecordingActivity::class.java).use { scenario ->
            session.engine.lock()
            settle()
            assertEquals(listOf("active", "locked"), hooksOf(scenario)) // sync at onStart, then the event
            session.engine.unlock()
            session.engine.end(Reason.LOGOUT)
            settle()
            assertEquals(listOf("active", "locked", "active", "expired"), hooksOf(scenario))
        }
    }

    @Test
    fun aLockWhileStoppedIsShownAtTheNextStart() {
        session.engine.start()
        ActivityScenario.launch(RecordingActivity::class.java).use { scenario ->
            scenario.moveToState(Lifecycle.State.CREATED) // onStop: no hooks while stopped
            session.engine.lock()
            settle()
            assertEquals(listOf("active"), hooksOf(scenario))
            scenario.moveToState(Lifecycle.State.RESUMED) // onStart syncs with the current state
            assertEquals(listOf("active", "locked"), hooksOf(scenario))
        }
    }

    @Test
    fun baseActivityReportsItsOwnInput() {
        ActivityScenario.launch(RecordingActivity::class.java).use { scenario ->
            scenario.onActivity { assertFalse(it.window.callback is InactivityWindowCallback) }
        }
    }
}
