package dev.inactivity.android

import android.view.KeyEvent
import android.view.MotionEvent
import android.view.Window
import dev.inactivity.LifecycleTracker

/**
 * Wraps an activity's Window.Callback to see its input before the activity does. Forwards the
 * event's action to [LifecycleTracker], which picks the activity kind, and delegates
 * everything else unchanged.
 */
internal class InactivityWindowCallback(
    private val delegate: Window.Callback,
    private val tracker: LifecycleTracker,
) : Window.Callback by delegate {
    override fun dispatchTouchEvent(event: MotionEvent): Boolean {
        tracker.touchEvent(event.actionMasked)
        return delegate.dispatchTouchEvent(event)
    }

    override fun dispatchKeyEvent(event: KeyEvent): Boolean {
        tracker.keyEvent()
        return delegate.dispatchKeyEvent(event)
    }

    override fun dispatchGenericMotionEvent(event: MotionEvent): Boolean {
        tracker.genericMotionEvent(event.actionMasked)
        return delegate.dispatchGenericMotionEvent(event)
    }
}
