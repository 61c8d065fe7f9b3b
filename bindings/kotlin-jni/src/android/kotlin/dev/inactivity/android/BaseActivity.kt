package dev.inactivity.android

import android.view.KeyEvent
import android.view.MotionEvent
import androidx.appcompat.app.AppCompatActivity
import dev.inactivity.Reason
import dev.inactivity.Registration
import dev.inactivity.SessionUi
import dev.inactivity.TracksOwnInput
import kotlin.time.Duration

/**
 * The classic `BaseActivity` pattern, on the engine instead of `Handler.postDelayed`:
 * - every touch (down, up, move), key and generic motion event is activity of its own kind,
 *   recorded exactly as for the activities InactivityLifecycle wraps (the same three
 *   LifecycleTracker calls as InactivityWindowCallback): a timestamp store, no timer re-armed;
 * - start/stop are counted by [InactivityLifecycle] (installed in the Application), so opening
 *   the next screen or rotating is not "background";
 * - while this activity is started it receives the session's hooks ([SessionUi]) on the main
 *   thread; on start it is synced with the current state, so a lock that happened while it was
 *   stopped is shown before its content.
 *
 * Override the hooks: show the warning dialog, the lock screen, the sign-in screen.
 */
abstract class BaseActivity : AppCompatActivity(), SessionUi, TracksOwnInput {
    private var registration: Registration? = null
    private var started = false // events already posted when onStop ran are dropped

    protected val session: InactivityLifecycle get() = InactivityLifecycle.instance

    override fun onStart() {
        super.onStart()
        started = true
        registration = session.addListener { event -> if (started) SessionUi.dispatch(this, event) }
        SessionUi.sync(this, session.engine)
    }

    override fun onStop() {
        started = false
        registration?.close()
        registration = null
        super.onStop()
    }

    override fun dispatchTouchEvent(event: MotionEvent): Boolean {
        session.tracker.touchEvent(event.actionMasked)
        return super.dispatchTouchEvent(event)
    }

    override fun dispatchKeyEvent(event: KeyEvent): Boolean {
        session.tracker.keyEvent()
        return super.dispatchKeyEvent(event)
    }

    override fun dispatchGenericMotionEvent(event: MotionEvent): Boolean {
        session.tracker.genericMotionEvent(event.actionMasked)
        return super.dispatchGenericMotionEvent(event)
    }

    // The classic hooks; the defaults do nothing.
    override fun onSessionActive(reason: Reason) {}
    override fun onSessionWarning(remaining: Duration) {}
    override fun onSessionCountdown(remaining: Duration) {}
    override fun onSessionLocked(reason: Reason) {}
    override fun onSessionExpired(reason: Reason) {}
}
