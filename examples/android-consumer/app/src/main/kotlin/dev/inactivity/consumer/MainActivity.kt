package dev.inactivity.consumer

import android.os.Bundle
import android.widget.TextView
import dev.inactivity.Reason
import dev.inactivity.android.BaseActivity
import dev.inactivity.android.InactivityLifecycle
import dev.inactivity.flow.stateIn
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlin.time.Duration

/** Uses the three parts an app compiles against: BaseActivity (appcompat), the engine, a StateFlow (coroutines). */
class MainActivity : BaseActivity() {
    private lateinit var label: TextView
    private val scope = CoroutineScope(SupervisorJob() + Dispatchers.Default)

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        label = TextView(this)
        setContentView(label)
        val status = InactivityLifecycle.instance.engine.stateIn(scope)
        label.text = "session: ${status.value}"
    }

    override fun onDestroy() {
        scope.cancel()
        super.onDestroy()
    }

    override fun onSessionWarning(remaining: Duration) {
        label.text = "locking in $remaining"
    }

    override fun onSessionLocked(reason: Reason) {
        label.text = "locked ($reason)"
    }
}
