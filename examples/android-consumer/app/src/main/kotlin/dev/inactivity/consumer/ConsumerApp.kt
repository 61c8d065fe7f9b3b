package dev.inactivity.consumer

import android.app.Application
import dev.inactivity.Policy
import dev.inactivity.Preset
import dev.inactivity.android.InactivityLifecycle

/** One engine for the process, as the binding's README sets it up. */
class ConsumerApp : Application() {
    override fun onCreate() {
        super.onCreate()
        InactivityLifecycle.install(this, Policy.preset(Preset.BANKING)).engine.start()
    }
}
