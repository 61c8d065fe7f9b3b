package dev.inactivity.android

import android.app.Activity
import android.app.Application
import android.os.Bundle
import android.os.Handler
import android.os.Looper
import dev.inactivity.InactivityEngine
import dev.inactivity.InactivityListener
import dev.inactivity.LifecycleTracker
import dev.inactivity.Policy
import dev.inactivity.Registration
import java.util.concurrent.Executor

/**
 * The Application-level integration: one engine for the process, fed by the activity
 * lifecycle. A thin forwarder: every decision is in [LifecycleTracker] (tested on the host JVM).
 *
 * - onActivityStarted / onActivityStopped -> window shown / hidden, so a rotation or an A -> B
 *   transition is not "background"; leaving the app is, after the policy's grace.
 * - With `trackInput`, each activity's Window.Callback is wrapped ([InactivityWindowCallback])
 *   so touches (down, up, move), keys and scrolls count as activity; activities that report
 *   their own input ([BaseActivity]) are left alone.
 * - Listeners added with [addListener] run on the main thread, in order.
 *
 * Install once in Application.onCreate: `InactivityLifecycle.install(this, Policy.defaults())`.
 */
class InactivityLifecycle private constructor(
    private val application: Application,
    val engine: InactivityEngine,
    private val trackInput: Boolean,
) : Application.ActivityLifecycleCallbacks, AutoCloseable {
    val tracker = LifecycleTracker(engine)

    /** Posts to the main thread; one Handler keeps events in order. */
    val mainExecutor: Executor = Handler(Looper.getMainLooper()).let { handler -> Executor { handler.post(it) } }

    /** Adds a listener whose events arrive on the main thread. */
    fun addListener(listener: InactivityListener): Registration = engine.addListener(mainExecutor, listener)

    override fun onActivityCreated(activity: Activity, savedInstanceState: Bundle?) {
        if (tracker.shouldTrackInputOf(activity, trackInput)) {
            val window = activity.window ?: return
            val callback = window.callback ?: return // an activity's window always has one
            if (callback !is InactivityWindowCallback) window.callback = InactivityWindowCallback(callback, tracker)
        }
    }

    override fun onActivityStarted(activity: Activity) = tracker.windowStarted(activity)

    override fun onActivityStopped(activity: Activity) = tracker.windowStopped(activity)

    override fun onActivityDestroyed(activity: Activity) = tracker.windowDestroyed(activity)

    override fun onActivityResumed(activity: Activity) {}

    override fun onActivityPaused(activity: Activity) {}

    override fun onActivitySaveInstanceState(activity: Activity, outState: Bundle) {}

    /** Unregisters from the application and closes the engine. */
    override fun close() {
        application.unregisterActivityLifecycleCallbacks(this)
        synchronized(Companion) { if (current === this) current = null }
        engine.close()
    }

    companion object {
        @Volatile
        private var current: InactivityLifecycle? = null

        /** The installed integration; throws if [install] was not called. */
        @JvmStatic
        val instance: InactivityLifecycle
            get() = current ?: throw IllegalStateException("InactivityLifecycle.install was not called")

        /** Creates the process's engine on the system clock (THREAD delivery) and registers it. */
        @JvmStatic
        @JvmOverloads
        fun install(
            application: Application,
            policy: Policy = Policy.defaults(),
            trackInput: Boolean = true,
        ): InactivityLifecycle = synchronized(this) {
            check(current == null) { "InactivityLifecycle is already installed" }
            val lifecycle = InactivityLifecycle(application, InactivityEngine.create(policy), trackInput)
            application.registerActivityLifecycleCallbacks(lifecycle)
            current = lifecycle
            lifecycle
        }
    }
}
