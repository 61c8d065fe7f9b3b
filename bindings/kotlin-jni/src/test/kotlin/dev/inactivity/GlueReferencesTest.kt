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

    /**
     * An engine dropped without close, whose listener refers to the engine (the usual shape:
     * a listener that calls continueSession or lock). Returns the native handle and weak
     * references to the listener and the engine.
     */
    private fun droppedEngine(): Triple<Long, WeakReference<InactivityListener>, WeakReference<InactivityEngine>> {
        lateinit var engine: InactivityEngine
        val listener = InactivityListener { event ->
            if (event is SessionEvent.StateChanged && event.state == SessionState.WARNING) engine.continueSession()
        }
        engine = manualEngine(listener = listener)
        engine.start()
        return Triple(engine.nativeHandle, WeakReference(listener), WeakReference(engine))
    }

    private fun handleIsLive(handle: Long): Boolean = try {
        NativeCalls.getState(handle)
        true
    } catch (_: InvalidHandleException) {
        false
    }

    private fun failedCreateListener(): WeakReference<InactivityListener> {
        val listener = Recorder()
        assertThrows(InvalidArgumentException::class.java) {
            InactivityEngine.create(Policy.defaults().copy(warning = 15.minutes), EngineConfig.manual(), listener)
        }
        return WeakReference(listener)
    }

    @Test
    fun a_dropped_engine_is_destroyed_by_the_cleaner_and_its_listener_freed() {
        val cleanups = NativeCleaner.collectorCleanups
        val (handle, listener, engine) = droppedEngine()
        assertTrue(handleIsLive(handle))
        assertTrue("the glue must not keep a dropped engine alive", collected(engine))
        assertTrue("the listener is freed with its engine", collected(listener))
        // The cleaner thread destroys the native engine: the library now refuses the handle.
        assertTrue("the native engine was not destroyed", waitFor { System.gc(); !handleIsLive(handle) })
        assertTrue(NativeCleaner.collectorCleanups > cleanups)
    }

    /** Native threads of this process named as the library's scheduler thread. */
    private fun schedulerThreads(): Int =
        (java.io.File("/proc/self/task").listFiles() ?: emptyArray())
            .count { runCatching { java.io.File(it, "comm").readText().trim() }.getOrNull() == "inactivity" }

    private fun droppedThreadEngine(): Long {
        val engine = InactivityEngine.create(Policy.defaults(), EngineConfig(), Recorder()) // THREAD, system clock
        engine.start()
        // Counted while `engine` is still reachable: once this function returns, a collection
        // (any allocation may start one) lets the cleaner destroy it at any moment.
        assertEquals(1, schedulerThreads())
        java.lang.ref.Reference.reachabilityFence(engine)
        return engine.nativeHandle
    }

    @Test
    fun a_dropped_thread_engine_no_longer_keeps_the_scheduler_thread_alive() {
        org.junit.Assume.assumeTrue(java.io.File("/proc/self/task").isDirectory)
        // Engines of earlier tests are closed (or collected by now): no scheduler thread.
        assertTrue("a THREAD engine is still open", waitFor { System.gc(); schedulerThreads() == 0 })
        val handle = droppedThreadEngine() // asserts the scheduler thread runs while it is reachable
        assertTrue("the native engine was not destroyed", waitFor { System.gc(); !handleIsLive(handle) })
        assertTrue("the scheduler thread outlived the last engine", waitFor { schedulerThreads() == 0 })
    }

    @Test
    fun close_after_the_clean_up_action_and_clean_up_after_close_are_harmless() {
        val rec = Recorder()
        val engine = manualEngine(listener = rec)
        engine.start()
        val handle = engine.nativeHandle
        assertTrue(engine.cleanup.clean()) // what the cleaner thread runs
        assertTrue(engine.isClosed)
        assertTrue(!handleIsLive(handle))
        engine.close() // nothing left to do: no exception, no second destroy
        assertTrue(!engine.cleanup.clean())

        val other = manualEngine()
        other.close()
        assertTrue("close unregisters the safety net", !other.cleanup.clean())
    }

    @Test
    fun a_closed_engine_keeps_no_reference_to_its_listener() {
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
