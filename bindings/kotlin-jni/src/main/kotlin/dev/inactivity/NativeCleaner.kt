package dev.inactivity

import java.lang.ref.PhantomReference
import java.lang.ref.ReferenceQueue
import java.util.Collections
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong

/**
 * The safety net for engines that are dropped without [InactivityEngine.close]: when an engine
 * becomes unreachable, its native engine is destroyed on the `inactivity-cleaner` daemon thread.
 *
 * Why not `java.lang.ref.Cleaner`: it exists on Android only from API 33, and this binding
 * supports API 23. The same mechanism it uses (a [PhantomReference] enqueued by the garbage
 * collector and one daemon thread draining the queue) is written here once, so the JVM and
 * every Android version run the path the host tests exercise. The thread starts with the first
 * engine and blocks in [ReferenceQueue.remove] between clean-ups (no polling).
 *
 * An action must not refer to the object it cleans up after, or that object never becomes
 * unreachable: the engine's action holds only its [NativeHandle].
 */
internal object NativeCleaner {
    private val queue = ReferenceQueue<Any>()

    /** Registered and not yet cleaned: a phantom reference must itself stay reachable. */
    private val live: MutableSet<Cleanable> = Collections.newSetFromMap(ConcurrentHashMap())

    private val started = AtomicBoolean()

    /** Clean-ups run by the daemon thread (diagnostics for tests). */
    private val cleanedByCollector = AtomicLong()

    /** Runs [action] once: at [Cleanable.clean], or after [owner] became unreachable. */
    fun register(owner: Any, action: Runnable): Cleanable {
        val cleanable = Cleanable(owner, action, queue)
        live.add(cleanable)
        if (started.compareAndSet(false, true)) {
            Thread(::drain, "inactivity-cleaner").apply { isDaemon = true }.start()
        }
        return cleanable
    }

    /** How many clean-ups the collector triggered so far (for tests). */
    val collectorCleanups: Long get() = cleanedByCollector.get()

    private fun drain() {
        while (true) {
            val ref = try {
                queue.remove()
            } catch (_: InterruptedException) {
                continue // nobody else owns this thread; keep serving
            }
            if (ref is Cleanable && ref.clean()) cleanedByCollector.incrementAndGet()
        }
    }

    /** One registration; [clean] is idempotent and safe from any thread. */
    class Cleanable internal constructor(owner: Any, private val action: Runnable, queue: ReferenceQueue<Any>) :
        PhantomReference<Any>(owner, queue) {
        private val done = AtomicBoolean()

        /** Runs the action unless it ran already; returns whether this call ran it. Never throws. */
        fun clean(): Boolean {
            if (!done.compareAndSet(false, true)) return false
            live.remove(this)
            clear()
            try {
                action.run()
            } catch (t: Throwable) {
                // Never unwind the daemon thread: it serves every engine.
                System.err.println("inactivity: a clean-up action failed: $t")
            }
            return true
        }
    }
}

/**
 * An engine's native handle, shared by the engine, its dispatcher and its clean-up action
 * (none of which may refer back to the engine). [take] hands the handle out exactly once.
 */
internal class NativeHandle : Runnable {
    private val value = AtomicLong(0)

    @Volatile
    var released: Boolean = false
        private set

    fun attach(handle: Long) = value.set(handle)

    fun get(): Long = value.get()

    /** The handle, once (0 afterwards, and for every other caller). */
    fun take(): Long {
        while (true) {
            val h = value.get()
            if (h == 0L) return 0L
            if (value.compareAndSet(h, 0L)) {
                released = true
                return h
            }
        }
    }

    /** The clean-up action: destroys the native engine unless close() already did. */
    override fun run() {
        val h = take()
        if (h != 0L) NativeCalls.destroy(h)
    }
}
