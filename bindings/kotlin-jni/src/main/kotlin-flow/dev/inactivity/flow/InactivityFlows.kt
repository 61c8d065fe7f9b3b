package dev.inactivity.flow

import dev.inactivity.InactivityEngine
import dev.inactivity.SessionEvent
import dev.inactivity.SessionStatus
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.channels.awaitClose
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.MutableStateFlow
import kotlinx.coroutines.flow.StateFlow
import kotlinx.coroutines.flow.asStateFlow
import kotlinx.coroutines.flow.buffer
import kotlinx.coroutines.flow.callbackFlow

// The coroutines adapter. It lives in its own source set so that the core binding needs only
// the Kotlin standard library; it uses nothing but the public InactivityEngine API.

/**
 * Every event of this engine from the moment of collection, in order. The buffer is unbounded
 * so the delivering thread (possibly the native scheduler thread) never blocks or drops an
 * event. The flow completes when the engine closes.
 */
fun InactivityEngine.events(): Flow<SessionEvent> = callbackFlow {
    val registration = addListener { trySend(it) }
    val onClose = addCloseHandler { channel.close() }
    awaitClose {
        registration.close()
        onClose.close()
    }
}.buffer(Channel.UNLIMITED)

/**
 * The engine's state and reason as a [StateFlow], kept current by its events until [scope]
 * ends (or the engine closes). The first value is read from the engine; a change that races
 * with that read is never lost: an event seen before the read wins over the read.
 */
fun InactivityEngine.stateIn(scope: CoroutineScope): StateFlow<SessionStatus> {
    val lock = Any()
    var seenBeforeRead: SessionStatus? = null // guarded by lock
    var target: MutableStateFlow<SessionStatus>? = null // guarded by lock
    val registration = addListener { event ->
        if (event is SessionEvent.StateChanged) {
            val value = SessionStatus(event.state, event.reason)
            synchronized(lock) {
                val flow = target
                if (flow != null) flow.value = value else seenBeforeRead = value
            }
        }
    }
    val current = try {
        status // may itself deliver a catch-up event through the listener above
    } catch (t: Throwable) {
        registration.close()
        throw t
    }
    val flow = synchronized(lock) { MutableStateFlow(seenBeforeRead ?: current).also { target = it } }
    scope.coroutineContext[Job]?.invokeOnCompletion { registration.close() }
    addCloseHandler { registration.close() }
    return flow.asStateFlow()
}
