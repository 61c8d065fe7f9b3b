package dev.inactivity

import java.util.Collections
import java.util.IdentityHashMap

/**
 * Turns a UI toolkit's window lifecycle and input into engine inputs. The Android classes in
 * src/android are thin forwarders to this class, which holds every decision and is tested on
 * the host JVM. Windows are any objects (Android: the Activity), compared by identity.
 *
 * - A window started -> [InactivityEngine.windowShown]; stopped -> [InactivityEngine.windowHidden].
 *   Counting windows is what makes a rotation (stop old, start new) or an A -> B transition
 *   (B starts before A stops) not "background": the engine applies background only after the
 *   policy's grace with no window shown. Only windows this tracker saw start are hidden, so
 *   an activity that started before the tracker was installed never unbalances the count.
 * - Input -> [InactivityEngine.activity] with the kind the event says.
 *
 * Android calls these on the main thread; the class is nonetheless safe from any thread.
 */
class LifecycleTracker(val engine: InactivityEngine) {
    private val shown: MutableSet<Any> = Collections.newSetFromMap(IdentityHashMap())

    /** Windows started and not yet stopped. */
    val visibleWindows: Int get() = synchronized(shown) { shown.size }

    /** Activity.onStart. */
    fun windowStarted(window: Any) {
        if (synchronized(shown) { shown.add(window) }) engine.windowShown()
    }

    /** Activity.onStop. */
    fun windowStopped(window: Any) {
        if (synchronized(shown) { shown.remove(window) }) engine.windowHidden()
    }

    /** Activity.onDestroy: a window destroyed without a stop still stops counting. */
    fun windowDestroyed(window: Any) = windowStopped(window)

    // Input: the one rule for every Android integration (BaseActivity and the wrapped
    // Window.Callback forward exactly these three). Activity.onUserInteraction is not used: it
    // does not say whether it saw a touch or a key.

    /** A touch event (MotionEvent.getActionMasked()); cancel and outside touches do not count. */
    fun touchEvent(actionMasked: Int) {
        touchKind(actionMasked)?.let { engine.activity(it) }
    }

    /** A key event. */
    fun keyEvent() = engine.activity(ActivityKind.KEY)

    /** A generic motion event (mouse wheel, hover, stylus buttons). */
    fun genericMotionEvent(actionMasked: Int) {
        genericMotionKind(actionMasked)?.let { engine.activity(it) }
    }

    /** Whether an integration should wrap [window]'s input itself (no: it reports its own). */
    fun shouldTrackInputOf(window: Any, trackInput: Boolean): Boolean = trackInput && window !is TracksOwnInput

    companion object {
        // android.view.MotionEvent action constants: part of the Android API, stable since API 1-14.
        const val ACTION_DOWN = 0
        const val ACTION_UP = 1
        const val ACTION_MOVE = 2
        const val ACTION_CANCEL = 3
        const val ACTION_OUTSIDE = 4
        const val ACTION_POINTER_DOWN = 5
        const val ACTION_POINTER_UP = 6
        const val ACTION_HOVER_MOVE = 7
        const val ACTION_SCROLL = 8
        const val ACTION_HOVER_ENTER = 9
        const val ACTION_HOVER_EXIT = 10
        const val ACTION_BUTTON_PRESS = 11
        const val ACTION_BUTTON_RELEASE = 12

        /** The activity kind of a touch action, or null when it does not count. */
        @JvmStatic
        fun touchKind(actionMasked: Int): ActivityKind? = when (actionMasked) {
            ACTION_DOWN, ACTION_POINTER_DOWN -> ActivityKind.TOUCH_DOWN
            ACTION_UP, ACTION_POINTER_UP -> ActivityKind.TOUCH_UP
            ACTION_MOVE -> ActivityKind.TOUCH_MOVE
            else -> null
        }

        /** The activity kind of a generic motion action, or null when it does not count. */
        @JvmStatic
        fun genericMotionKind(actionMasked: Int): ActivityKind? = when (actionMasked) {
            ACTION_SCROLL -> ActivityKind.SCROLL
            ACTION_HOVER_MOVE, ACTION_BUTTON_PRESS, ACTION_BUTTON_RELEASE -> ActivityKind.POINTER
            else -> null
        }
    }
}

/** Marks a window (an Activity) that reports its own input, e.g. the Android BaseActivity. */
interface TracksOwnInput

/**
 * What a screen does about the session: the classic BaseActivity's hooks. [dispatch] picks the
 * hook for an event, and [sync] for the state found when a screen becomes visible (it may
 * have missed events while stopped).
 */
interface SessionUi {
    /** ACTIVE again (after a warning, an unlock, a start or a restore). */
    fun onSessionActive(reason: Reason) {}

    /** WARNING entered: show "Still there?" with Continue and Log out. */
    fun onSessionWarning(remaining: kotlin.time.Duration) = onSessionWarningMillis(remaining.toWireMs())

    /** A countdown tick in WARNING. */
    fun onSessionCountdown(remaining: kotlin.time.Duration) = onSessionCountdownMillis(remaining.toWireMs())

    /**
     * The two hooks above in milliseconds, for Java ([InactivityEngine.NEVER]: none), which
     * cannot override a method taking Kotlin's Duration: a Kotlin screen overrides the two
     * above, a Java screen these two (the Duration ones call them by default).
     */
    fun onSessionWarningMillis(remainingMs: Long) {}
    fun onSessionCountdownMillis(remainingMs: Long) {}

    /** LOCKED: show the lock screen (PIN, biometrics). */
    fun onSessionLocked(reason: Reason) {}

    /** EXPIRED: go to sign-in. */
    fun onSessionExpired(reason: Reason) {}

    companion object {
        /** Calls the hook of [ui] that [event] asks for. */
        @JvmStatic
        fun dispatch(ui: SessionUi, event: SessionEvent) {
            when (event) {
                is SessionEvent.Tick -> ui.onSessionCountdown(event.remaining)
                is SessionEvent.StateChanged -> show(ui, event.state, event.reason, event.remaining)
                is SessionEvent.Keepalive -> {} // the host's network code pings; nothing to show
            }
        }

        /** Calls the hook for the engine's current state (LOADING calls none). */
        @JvmStatic
        fun sync(ui: SessionUi, engine: InactivityEngine) {
            val info = engine.info()
            show(ui, info.state, info.reason, info.remaining)
        }

        private fun show(ui: SessionUi, state: SessionState, reason: Reason, remaining: kotlin.time.Duration) {
            when (state) {
                SessionState.LOADING -> Unit
                SessionState.ACTIVE -> ui.onSessionActive(reason)
                SessionState.WARNING -> ui.onSessionWarning(remaining)
                SessionState.LOCKED -> ui.onSessionLocked(reason)
                SessionState.EXPIRED -> ui.onSessionExpired(reason)
                // A state of a newer library: fail secure, show the lock screen.
                SessionState.UNKNOWN -> ui.onSessionLocked(reason)
            }
        }
    }
}
