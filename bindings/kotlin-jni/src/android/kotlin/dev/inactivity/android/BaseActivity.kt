package dev.inactivity.android

import android.view.MotionEvent
import androidx.appcompat.app.AppCompatActivity
import dev.inactivity.Reason
import dev.inactivity.Registration
import dev.inactivity.SessionUi
import dev.inactivity.TracksOwnInput
import kotlin.time.Duration

/**
 * The classic `BaseActivity` pattern, on the engine instead of `Handler.postDelayed`:
 * - onUserInteraction and touch moves (dispatchTouchEvent) are activity: a timestamp store,
 *   no timer re-armed per touch;
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

    override fun onUserInteraction() {
        super.onUserInteraction()
        session.tracker.userInteraction()
    }

    override fun dispatchTouchEvent(event: MotionEvent): Boolean {
        session.tracker.touchEvent(event.actionMasked)
        return super.dispatchTouchEvent(event)
    }

    // The classic hooks; the defaults do nothing.
    override fun onSessionActive(reason: Reason) {}
    override fun onSessionWarning(remaining: Duration) {}
    override fun onSessionCountdown(remaining: Duration) {}
    override fun onSessionLocked(reason: Reason) {}
    override fun onSessionExpired(reason: Reason) {}
}
