package dev.inactivity

import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executor
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.time.Duration
import kotlin.time.toKotlinDuration


/** The one wording of a call on a closed engine, in every binding (the conformance suite checks it). */
internal const val CLOSED_MESSAGE = "the engine is closed"

/**
 * One session-inactivity engine: the Kotlin face of an `inact_engine` of libinactivity.
 * The engine decides; this class converts arguments and results and maps failures to
 * exceptions ([InactivityException] subclasses carrying the library's message).
 *
 * ## Ownership and concurrency guarantees
 * The engine owns a native handle, released by [close]. Close is idempotent (a
 * compare-and-set on the handle) and every other method throws [IllegalStateException] after
 * it. Every method may be called from any thread. A close racing with a call on another
 * thread is safe: the library rejects the stale handle and this class reports the close.
 * Close the engine (`use { }`), or keep it for the life of the process (an Android app).
 * As a safety net, an engine that becomes unreachable without close is destroyed by the
 * garbage collector's clean-up ([NativeCleaner]): its native engine is freed and, with the last
 * THREAD engine, the library's scheduler thread exits. The JNI glue holds the listeners only
 * weakly, so a listener that refers to its engine does not keep it alive; an engine that
 * nobody references stops delivering events once it is collected. Keep a reference to every
 * engine you expect events from.
 *
 * ## Delivery
 * Events reach every listener serialized and in order: on the calling thread before the
 * call returns (unless another thread is delivering at that moment), on the native scheduler
 * thread for timer-caused events in [Delivery.THREAD] mode, or through a listener's executor.
 * Executor deliveries of one engine run one at a time in the library's order, even on a
 * thread pool, and none runs after [close] returns.
 * The native scheduler thread is attached to the JVM once and detached when it exits.
 *
 * ## Reentrance
 * A listener may call any method of its engine; the events that causes are delivered after
 * the listener returns. [close] from inside a listener takes effect when it returns. [close]
 * from another thread waits for a listener in progress: do not call it while holding a lock
 * that a listener takes.
 */
class InactivityEngine private constructor(
    private val handle: NativeHandle,
    private val dispatcher: EventDispatcher,
) : AutoCloseable {
    private val closeActions = CopyOnWriteArrayList<() -> Unit>()

    /** Destroys the native engine if this object is collected unclosed (refers to [handle] only). */
    internal val cleanup: NativeCleaner.Cleanable = NativeCleaner.register(this, handle)

    companion object {
        /**
         * Creates an engine in state LOADING.
         * @param onListenerError receives every exception a listener throws (default: printed
         *   to System.err, which is logcat on Android); delivery goes on.
         */
        @JvmStatic
        @JvmOverloads
        fun create(
            policy: Policy = Policy.defaults(),
            config: EngineConfig = EngineConfig(),
            listener: InactivityListener? = null,
            onListenerError: (Throwable) -> Unit = ::printListenerError,
        ): InactivityEngine {
            val handle = NativeHandle()
            val dispatcher = EventDispatcher(handle, onListenerError)
            listener?.let { dispatcher.add(it, null) }
            handle.attach(NativeBridge.create(config.toWire(), policy.toWire(), dispatcher))
            return InactivityEngine(handle, dispatcher)
        }

        /** "Never" / "none" in a milliseconds value (INACT_NEVER): Long.MAX_VALUE. */
        const val NEVER: Long = NativeBridge.NEVER

        /** The library's version string ("1.3.0"). */
        @JvmStatic
        val libraryVersion: String get() = NativeBridge.libraryVersionString()

        /** This binding's version ("1.3.0"): the header version it was written against. */
        @JvmStatic
        val bindingVersion: String get() = NativeBridge.BINDING_VERSION

        /** The scheduler thread's timer faults (inact_scheduler_faults), for a health check or a log. */
        @JvmStatic
        val schedulerFaults: SchedulerFaults
            get() {
                val v = LongArray(3)
                NativeBridge.schedulerFaults(v)
                return SchedulerFaults(v[0] != 0L, v[1].toULong(), v[2].toInt())
            }

        private fun printListenerError(t: Throwable) {
            System.err.println("inactivity: a listener threw; the engine carries on")
            t.printStackTrace()
        }
    }

    /** The native handle (0 once closed); for the binding's own tests. */
    internal val nativeHandle: Long get() = handle.get()

    /** True once [close] ran. */
    val isClosed: Boolean get() = handle.get() == 0L

    /**
     * Destroys the native engine. Idempotent. After it returns no listener of this engine runs
     * again, directly or through an executor (called from inside a listener, that listener
     * finishes; no other runs). From another thread it waits for a listener in progress.
     * Runs the [addCloseHandler] actions.
     */
    override fun close() {
        val h = handle.take()
        if (h == 0L) return
        try {
            cleanup.clean() // unregisters the safety net; its action finds the handle taken
            NativeCalls.destroy(h) // waits for a native callback in progress
        } finally {
            dispatcher.awaitIdle() // and for an executor delivery in progress
            for (action in closeActions) runCatching(action)
            closeActions.clear()
        }
    }

    /** Runs [action] once when the engine closes (at once if it is closed already). */
    fun addCloseHandler(action: () -> Unit): Registration {
        closeActions.add(action)
        if (isClosed && closeActions.remove(action)) action()
        return Registration { closeActions.remove(action) }
    }

    /** Adds a listener; with an [executor], its events are posted there (in order). */
    @JvmOverloads
    fun addListener(executor: Executor? = null, listener: InactivityListener): Registration {
        checkOpen()
        return dispatcher.add(listener, executor)
    }

    // ----- inputs ---------------------------------------------------------------------------

    /** Starts a session (signed in): LOADING or EXPIRED -> ACTIVE (STARTED). */
    fun start() = call { NativeCalls.start(it) }

    /** Restores a snapshot from [snapshot]; LOADING only. Corrupt bytes throw [SnapshotException]. */
    fun restore(bytes: ByteArray) = call { NativeBridge.restore(it, bytes) }

    /** Records user activity of one kind; ignored where the policy or the state says so. */
    @JvmOverloads
    fun activity(kind: ActivityKind = ActivityKind.TOUCH_DOWN) = call { NativeCalls.activity(it, kind.bit) }

    /** Activity of the kind named `kind` ("KEY", "touch-down"), read by the library as in every binding. */
    fun activity(kind: String) = activity(ActivityKind.fromName(kind))

    /** The user chose Continue: WARNING -> ACTIVE (CONTINUED). */
    fun continueSession() = call { NativeBridge.continueSession(it) }

    /** Locks now: ACTIVE/WARNING -> LOCKED (MANUAL_LOCK); a no-op in LOCKED. */
    fun lock() = call { NativeCalls.lock(it) }

    /**
     * The host verified the user with [method]: LOCKED -> ACTIVE (UNLOCKED). A biometric where
     * the credential is required throws [WeakAuthException]; past the offline timeout
     * [OfflineException] (report [serverContact] first).
     */
    @JvmOverloads
    fun unlock(method: AuthStrength = AuthStrength.CREDENTIAL) = call { NativeCalls.unlockWith(it, method.code) }

    /**
     * A re-verification with [method] failed (LOCKED only); returns the failures in a row after
     * this call. A method the lock does not accept throws [WeakAuthException] and is not counted.
     */
    // Java: unlockFailed(AuthStrength) returns an int holding the uint32_t (Integer.toUnsignedLong);
    // no @JvmOverloads (Kotlin 1.9 refuses it with UInt), so Java passes the method.
    @JvmName("unlockFailed")
    fun unlockFailed(method: AuthStrength = AuthStrength.CREDENTIAL): UInt =
        call { NativeCalls.unlockFailedWith(it, method.code) }.toUInt()

    /** The enrolled biometrics changed: until the next credential unlock an unlock needs the credential. */
    fun biometricsChanged() = call { NativeCalls.biometricsChanged(it) }

    /** What an unlock needs now: NONE unless LOCKED. */
    val requiredAuth: AuthStrength get() = AuthStrength.of(call { NativeCalls.getRequiredAuth(it) })

    /**
     * Announces the app's own system sheet (photo picker, share sheet, biometric prompt): a
     * background that begins within [maxDuration] and ends by then does not count toward the
     * background timeout. Single use; zero withdraws it; at most the policy's expectedInterruptionMax.
     */
    fun expectInterruption(maxDuration: Duration) = call { NativeCalls.expectInterruption(it, maxDuration.toWireMs()) }

    /** [expectInterruption] with a `java.time.Duration` (for Java). */
    fun expectInterruption(maxDuration: java.time.Duration) = expectInterruption(maxDuration.toKotlinDuration())

    /** The device locked (screen off, keyguard): background starts, and with the policy's lockOnDeviceLock LOCKED at once. */
    fun deviceLocked() = call { NativeCalls.deviceLocked(it) }

    /** A successful online check: the offline deadlines restart and a refused unlock is allowed again. */
    fun serverContact() = call { NativeCalls.serverContact(it) }

    /**
     * The host stored a new refresh token of [generation] (any uint64_t, compared unsigned); an
     * invalid_grant for an older one is then STALE.
     */
    @JvmName("tokenRotated") // Java: a long holding the uint64_t's bits
    fun tokenRotated(generation: ULong) = call { NativeCalls.tokenRotated(it, generation.toLong()) }

    /**
     * The administrator's limits; setting them makes the current policy as strict as them, and
     * every later [policy] must be within them ([CeilingException] otherwise).
     */
    var ceilings: Ceilings
        get() {
            val v = LongArray(WireLayout.CEILING_FIELDS)
            call { NativeBridge.getCeilings(it, v) }
            return ceilingsFromWire(v)
        }
        set(value) {
            val wire = value.toWire()
            call { NativeBridge.setCeilings(it, wire) }
        }

    /** Ends the session with [reason] (LOGOUT, REVOKED, PASSWORD_CHANGED or DEVICE_LIMIT) -> EXPIRED. */
    @JvmOverloads
    fun end(reason: Reason = Reason.LOGOUT) = call { NativeCalls.end(it, reason.code) }

    /** Ends with the reason named `reason` ("LOGOUT", "password-changed"); see [end]. */
    fun end(reason: String) = end(Reason.fromName(reason))

    /**
     * What another holder of the session (a tab, the server) observed. [duration] is the age of
     * what it saw ([HolderKind.ACTIVITY], [HolderKind.LOCKED], [HolderKind.EXPIRED]) or the
     * time left to its deadline ([HolderKind.IDLE_DEADLINE], [HolderKind.ABSOLUTE_DEADLINE]),
     * relative to now: holders do not share this engine's clock. [reason] is the holder's for a
     * lock or an expiry, NONE otherwise. Only ever stricter: nothing reported unlocks or extends.
     */
    fun holderReport(kind: HolderKind, duration: Duration = Duration.ZERO, reason: Reason = Reason.NONE) =
        call { NativeCalls.holderReport(it, kind.code, reason.code, duration.toWireMs()) }

    /** [holderReport] with a `java.time.Duration` (for Java). */
    @JvmOverloads
    fun holderReport(kind: HolderKind, duration: java.time.Duration, reason: Reason = Reason.NONE) =
        holderReport(kind, duration.toKotlinDuration(), reason)

    /**
     * Reports a token refresh result: [httpStatus] 0 for "no response", else 100..599;
     * [oauthError] the OAuth "error" field; [generation] the refresh token's generation (0 =
     * not tracked). Only [RefreshOutcome.REVOKED] changes the engine; a revoked answer for an
     * older generation than the newest seen is [RefreshOutcome.STALE]; a 2xx is a server contact.
     */
    // Java: refreshResult(int, String, long), generation a long holding the uint64_t's bits (no
    // @JvmOverloads: Kotlin 1.9 refuses it with ULong).
    @JvmName("refreshResult")
    fun refreshResult(httpStatus: Int, oauthError: String? = null, generation: ULong = 0u): RefreshOutcome {
        require(oauthError == null || oauthError.indexOf('\u0000') < 0) { "oauthError must not contain NUL" }
        val utf8 = oauthError?.toByteArray(Charsets.UTF_8)
        return RefreshOutcome.of(call { NativeBridge.refreshResult(it, httpStatus, utf8, generation.toLong()) })
    }

    /** The app went to background. */
    fun background() = call { NativeCalls.background(it) }

    /** The app came to foreground; a too-long background locks before this returns. */
    fun foreground() = call { NativeCalls.foreground(it) }

    /** A window (an Android activity) became visible. */
    fun windowShown() = call { NativeCalls.windowShown(it) }

    /** A window was hidden; background follows after the policy's grace with none shown. */
    fun windowHidden() = call { NativeCalls.windowHidden(it) }

    /** Opens a scope with a stricter idle timeout; close the returned [Scope] to pop it. */
    fun pushScope(idleTimeout: Duration): Scope {
        val id = call { NativeCalls.scopePush(it, idleTimeout.toWireMs()) }
        return Scope(this, id)
    }

    /** [pushScope] with a `java.time.Duration` (for Java). */
    fun pushScope(idleTimeout: java.time.Duration): Scope = pushScope(idleTimeout.toKotlinDuration())

    /** Pops a scope by id, in any order. */
    fun popScope(scopeId: Long) = call { NativeCalls.scopePop(it, scopeId) }

    /** Suspends the idle countdown until the returned [Hold] is closed (a video plays). */
    fun acquireHold(): Hold = Hold(this, call { NativeCalls.holdAcquire(it) })

    /** Releases a hold by id. */
    fun releaseHold(holdId: Long) = call { NativeCalls.holdRelease(it, holdId) }

    /** The engine's policy; setting it recomputes every deadline at once. */
    var policy: Policy
        get() {
            val v = LongArray(WireLayout.POLICY_FIELDS)
            call { NativeBridge.getPolicy(it, v) }
            return policyFromWire(v)
        }
        set(value) {
            val wire = value.toWire()
            call { NativeBridge.setPolicy(it, wire) }
        }

    // ----- queries (each evaluates deadlines first, so it may deliver a catch-up event) -----

    val state: SessionState get() = SessionState.of(call { NativeCalls.getState(it) })

    val reason: Reason get() = Reason.of(call { NativeCalls.getReason(it) })

    /** State and reason read together. */
    val status: SessionStatus get() = info().let { SessionStatus(it.state, it.reason) }

    /** Time to the next lock or expiry; [Duration.INFINITE] if none is scheduled. */
    val remaining: Duration get() = call { NativeCalls.getRemaining(it) }.wireMsToDuration()

    /** [remaining] in milliseconds; [NEVER] if none is scheduled (for Java). */
    val remainingMillis: Long get() = call { NativeCalls.getRemaining(it) }

    /** A full view of the engine. */
    fun info(): EngineInfo {
        val v = LongArray(WireLayout.INFO_FIELDS)
        call { NativeBridge.getInfo(it, v) }
        return EngineInfo.fromWire(v)
    }

    // ----- host-mode delivery -----------------------------------------------------------------

    /** Time until the engine next needs [poll]: zero when due, INFINITE when nothing is scheduled. */
    fun nextDeadline(): Duration = call { NativeCalls.nextDeadline(it) }.wireMsToDuration()

    /** [nextDeadline] in milliseconds; [NEVER] when nothing is scheduled (for Java). */
    fun nextDeadlineMillis(): Long = call { NativeCalls.nextDeadline(it) }

    /** Evaluates deadlines now and delivers due events on this thread. Early or late is harmless. */
    fun poll() = call { NativeCalls.poll(it) }

    // ----- manual clock (other clocks throw WrongClockException) ------------------------------

    /** Moves the manual clock forward; every due event is delivered inside the call, in order. */
    fun advanceClock(by: Duration) = call { NativeCalls.clockAdvance(it, by.toWireMs()) }

    /**
     * Moves the manual clock forward as for a frozen process: nothing is delivered now; the next
     * call catches up with one transition to the final state (deadlines applied in time order).
     */
    fun freezeClock(by: Duration) = call { NativeCalls.clockFreeze(it, by.toWireMs()) }

    /** Moves only the manual wall clock (negative: the user set it back). */
    fun jumpWallClock(by: Duration) = call { NativeCalls.clockJumpWall(it, by.toWireMs()) }

    /** Simulates a reboot: new boot id, monotonic clock at 0, wall clock forward by [downtime]. */
    fun rebootClock(downtime: Duration) = call { NativeCalls.clockReboot(it, downtime.toWireMs()) }

    // The same four with a java.time.Duration, for Java (Kotlin's Duration is a value class:
    // Java sees the methods above only under mangled names it cannot call).
    fun advanceClock(by: java.time.Duration) = advanceClock(by.toKotlinDuration())
    fun freezeClock(by: java.time.Duration) = freezeClock(by.toKotlinDuration())
    fun jumpWallClock(by: java.time.Duration) = jumpWallClock(by.toKotlinDuration())
    fun rebootClock(downtime: java.time.Duration) = rebootClock(downtime.toKotlinDuration())

    /** Reads the engine's clock (any clock kind). */
    fun clockNow(): ClockReading {
        val v = LongArray(NativeBridge.CLOCK_FIELDS)
        call { NativeBridge.clockNow(it, v) }
        return ClockReading(v[0], v[1], v[2])
    }

    // ----- snapshot ------------------------------------------------------------------------------

    /** The session as bytes, to persist when the app goes to background; not in LOADING. */
    fun snapshot(): ByteArray = call { NativeBridge.snapshot(it) }

    // ----- plumbing -----------------------------------------------------------------------------

    private fun checkOpen(): Long {
        val h = handle.get()
        check(h != 0L) { CLOSED_MESSAGE }
        return h
    }

    /**
     * Read after every native call so that this object stays reachable until the call returns:
     * the call itself uses only the handle, and an engine collected during its own last call
     * would be cleaned up under it (and its dispatcher, so the call's events, dropped).
     * `Reference.reachabilityFence` does this on Java 9+, but Android has it only from API 28.
     */
    @Volatile
    private var reachable = true

    /** [call] for the generated methods (generated/Inputs.kt), which cannot reach a private inline. */
    internal fun <T> callGenerated(block: (Long) -> T): T = call(block)

    private inline fun <T> call(block: (Long) -> T): T {
        val h = checkOpen()
        try {
            return block(h)
        } catch (e: InvalidHandleException) {
            // Closed by another thread between the check and the call: report it as a close.
            if (isClosed) throw IllegalStateException(CLOSED_MESSAGE, e)
            throw e
        } finally {
            if (!reachable) throw AssertionError() // never: the read is what matters
        }
    }

    override fun toString(): String = if (isClosed) "InactivityEngine(closed)" else "InactivityEngine(${handle.get()})"
}

/** An open scope; [close] pops it (once). */
class Scope internal constructor(private val engine: InactivityEngine, val id: Long) : AutoCloseable {
    private val open = AtomicBoolean(true)
    override fun close() {
        if (open.compareAndSet(true, false)) engine.popScope(id)
    }
}

/** An open hold; [close] releases it (once). */
class Hold internal constructor(private val engine: InactivityEngine, val id: Long) : AutoCloseable {
    private val open = AtomicBoolean(true)
    override fun close() {
        if (open.compareAndSet(true, false)) engine.releaseHold(id)
    }
}

/** The engine's clock: monotonic ms, wall ms since 1970, boot id. */
data class ClockReading(val monotonicMs: Long, val wallMs: Long, val bootId: Long)

/**
 * A platform fault the scheduler thread survives (inact_scheduler_faults): setting its timer
 * failed after it had one. While [degraded] (the last attempt failed) the deadlines of THREAD
 * engines may fire up to 1 s late, never early; [failures] counts the failed attempts since the
 * process started; [lastErrno] is the latest one's errno, 0 if none.
 */
data class SchedulerFaults(
    val degraded: Boolean,
    @get:JvmName("getFailures") val failures: ULong, // Java: a long holding the uint64_t's bits
    val lastErrno: Int,
)
