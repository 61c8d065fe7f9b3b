package dev.inactivity

import org.junit.Assert.assertEquals
import org.junit.Assert.assertThrows
import org.junit.Assert.assertTrue
import org.junit.Test
import java.lang.ref.WeakReference
import kotlin.concurrent.thread
import kotlin.time.Duration.Companion.minutes

/** What the JNI glue holds and which threads it attaches, observed from the JVM. */
class GlueReferencesTest {
    private fun collected(ref: WeakReference<*>, attempts: Int = 50): Boolean {
        repeat(attempts) {
            System.gc()
            if (ref.get() == null) return true
            Thread.sleep(10)
        }
        return false
    }

    private fun closedEngineListener(): WeakReference<InactivityListener> {
        val listener = Recorder()
        val engine = manualEngine(listener = listener)
        engine.start()
        engine.close()
        return WeakReference(listener)
    }

    /** An engine whose Kotlin object is dropped without close: only the glue's global ref remains. */
    private fun droppedEngineListener(): Pair<Long, WeakReference<InactivityListener>> {
        val listener = Recorder()
        val engine = manualEngine(listener = listener)
        engine.start()
        return engine.nativeHandle to WeakReference(listener)
    }

    private fun failedCreateListener(): WeakReference<InactivityListener> {
        val listener = Recorder()
        assertThrows(InvalidArgumentException::class.java) {
            InactivityEngine.create(Policy.defaults().copy(warning = 15.minutes), EngineConfig.manual(), listener)
        }
        return WeakReference(listener)
    }

    @Test
    fun the_listener_global_ref_lives_until_destroy_and_no_longer() {
        val (handle, ref) = droppedEngineListener()
        assertTrue("the engine's global ref must keep the listener alive", !collected(ref, attempts = 5))
        NativeBridge.destroy(handle) // user_data_free deletes the global ref
        assertTrue("listener still reachable after destroy: global ref not freed", collected(ref))
        assertTrue(collected(closedEngineListener()))
    }

    @Test
    fun a_failed_create_keeps_no_reference_to_the_listener() {
        assertTrue("listener still reachable after a failed create", collected(failedCreateListener()))
    }

    @Test
    fun java_threads_that_call_in_are_never_detached_by_the_glue() {
        val attaches = NativeBridge.attachCount()
        val detaches = NativeBridge.detachCount()
        val rec = Recorder()
        manualEngine(listener = rec).use { engine ->
            val workers = (0 until 4).map {
                thread {
                    runCatching { engine.start() } // only one start succeeds
                    runCatching { engine.lock() }
                    engine.activity()
                }
            }
            workers.forEach { it.join(10_000) }
            assertTrue(rec.events.isNotEmpty())
            assertTrue(rec.threads.all { t -> workers.any { it === t } })
        }
        assertEquals(attaches, NativeBridge.attachCount())
        assertEquals(detaches, NativeBridge.detachCount())
    }
}
