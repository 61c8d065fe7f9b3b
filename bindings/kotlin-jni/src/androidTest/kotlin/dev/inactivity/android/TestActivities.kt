package dev.inactivity.android

import android.app.Activity
import dev.inactivity.Reason
import java.util.Collections
import kotlin.time.Duration

/** An activity that knows nothing of the session: InactivityLifecycle tracks it. */
class PlainActivity : Activity() {
    var interactions = 0 // main thread only

    override fun onUserInteraction() {
        interactions++
    }
}

/** A BaseActivity that records which hooks ran, in order (they run on the main thread). */
class RecordingActivity : BaseActivity() {
    val hooks: MutableList<String> = Collections.synchronizedList(mutableListOf())

    override fun onSessionActive(reason: Reason) { hooks += "active" }
    override fun onSessionWarning(remaining: Duration) { hooks += "warning" }
    override fun onSessionLocked(reason: Reason) { hooks += "locked" }
    override fun onSessionExpired(reason: Reason) { hooks += "expired" }
}
