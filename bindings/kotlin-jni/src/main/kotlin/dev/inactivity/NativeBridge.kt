package dev.inactivity

import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

/**
 * The natives of src/main/c/inactivity_jni.c, registered in its JNI_OnLoad. Every method is
 * static and takes the engine handle first; a failed call throws the exception built by
 * [InactivityException.fromStatus]. The jlong arrays are laid out by the index constants
 * below, which mirror the enums at the top of the C file.
 *
 * Loading: the system property `inactivity.jni.library` (an absolute path to
 * libinactivity_jni.so) wins; otherwise `System.loadLibrary("inactivity_jni")` (on Android,
 * the APK's lib/<abi>/ directory; libinactivity.so must sit beside it). After loading, the
 * glue's header version, the library's version and this binding must share a major version.
 */
internal object NativeBridge {
    /** The C ABI major version this Kotlin code was written for. */
    const val BINDING_ABI_MAJOR = 1

    /** This binding's version: the header's INACT_VERSION_STRING it was written against. */
    const val BINDING_VERSION = "1.2.0"

    /** INACT_NEVER: "never" for a timeout, "no deadline" for a query. */
    const val NEVER: Long = Long.MAX_VALUE

    const val LIBRARY_PROPERTY = "inactivity.jni.library"

    // Policy array (POLICY_* in the C file).
    const val P_IDLE_ACTION = 0
    const val P_IDLE_TIMEOUT_MS = 1
    const val P_WARNING_MS = 2
    const val P_BACKGROUND_TIMEOUT_MS = 3
    const val P_ABSOLUTE_TIMEOUT_MS = 4
    const val P_LOCKED_TIMEOUT_MS = 5
    const val P_TICK_MS = 6
    const val P_BACKGROUND_GRACE_MS = 7
    const val P_ACTIVITY_KINDS = 8
    const val P_MAX_UNLOCK_FAILURES = 9
    const val P_ACTIVITY_DISMISSES_WARNING = 10
    const val P_PAUSE_IDLE_IN_BACKGROUND = 11
    const val P_LOCK_ON_DEVICE_LOCK = 12
    const val P_LOCK_ON_RESTART = 13
    const val P_STRONG_AUTH_TIMEOUT_MS = 14
    const val P_EXPECTED_INTERRUPTION_MAX_MS = 15
    const val P_OFFLINE_TIMEOUT_MS = 16
    const val P_OFFLINE_EXPIRY_MS = 17
    const val POLICY_FIELDS = 18

    // Config array (CONFIG_* in the C file).
    const val C_DELIVERY = 0
    const val C_CLOCK = 1
    const val C_HAS_MANUAL_START = 2
    const val C_MANUAL_START_MS = 3
    const val C_HAS_MANUAL_WALL = 4
    const val C_MANUAL_WALL_MS = 5
    const val C_HAS_MANUAL_BOOT_ID = 6
    const val C_MANUAL_BOOT_ID = 7
    const val CONFIG_FIELDS = 8

    // Info array (INFO_* in the C file).
    const val I_STATE = 0
    const val I_REASON = 1
    const val I_DELIVERY = 2
    const val I_CLOCK = 3
    const val I_IN_BACKGROUND = 4
    const val I_VISIBLE_WINDOWS = 5
    const val I_OPEN_SCOPES = 6
    const val I_OPEN_HOLDS = 7
    const val I_UNLOCK_FAILURES = 8
    const val I_NOW_MS = 9
    const val I_REMAINING_MS = 10
    const val I_NEXT_DEADLINE_MS = 11
    const val I_EFFECTIVE_IDLE_TIMEOUT_MS = 12
    const val I_STARTED_AT_MS = 13
    const val I_LAST_ACTIVITY_MS = 14
    const val I_BACKGROUND_SINCE_MS = 15
    const val I_LOCKED_AT_MS = 16
    const val I_REQUIRED_AUTH = 17
    const val I_NEEDS_SERVER_CONTACT = 18
    const val I_LAST_CREDENTIAL_MS = 19
    const val I_STRONG_AUTH_DEADLINE_MS = 20
    const val I_LAST_SERVER_CONTACT_MS = 21
    const val I_TOKEN_GENERATION = 22
    const val I_INTERRUPTION_UNTIL_MS = 23
    const val INFO_FIELDS = 24

    const val CLOCK_FIELDS = 3

    // Ceilings array (CEILING_* in the C file).
    const val L_IDLE_TIMEOUT_MS = 0
    const val L_BACKGROUND_TIMEOUT_MS = 1
    const val L_ABSOLUTE_TIMEOUT_MS = 2
    const val L_LOCKED_TIMEOUT_MS = 3
    const val L_STRONG_AUTH_TIMEOUT_MS = 4
    const val L_EXPECTED_INTERRUPTION_MAX_MS = 5
    const val L_OFFLINE_TIMEOUT_MS = 6
    const val L_OFFLINE_EXPIRY_MS = 7
    const val L_MAX_UNLOCK_FAILURES = 8
    const val L_LOCK_ON_DEVICE_LOCK = 9
    const val L_LOCK_ON_RESTART = 10
    const val CEILING_FIELDS = 11

    init {
        val path = System.getProperty(LIBRARY_PROPERTY)
        try {
            if (!path.isNullOrEmpty()) System.load(path) else System.loadLibrary("inactivity_jni")
        } catch (e: UnsatisfiedLinkError) {
            val tried = if (!path.isNullOrEmpty()) {
                "$path (system property $LIBRARY_PROPERTY)"
            } else {
                "libinactivity_jni on java.library.path=${System.getProperty("java.library.path")}" +
                    " (set the system property $LIBRARY_PROPERTY to an absolute path to override)"
            }
            throw UnsatisfiedLinkError("inactivity: cannot load the JNI glue from $tried: ${e.message}")
                .apply { initCause(e) }
        }
        val header = headerVersionNumber()
        val library = libraryVersionNumber()
        if (header / 10000 != BINDING_ABI_MAJOR || library / 10000 != BINDING_ABI_MAJOR) {
            throw UnsatisfiedLinkError(
                "inactivity: version mismatch: binding ABI major $BINDING_ABI_MAJOR, glue built for " +
                    "$header, library ${libraryVersionString()} ($library)",
            )
        }
    }

    @JvmStatic external fun libraryVersionNumber(): Int
    @JvmStatic external fun headerVersionNumber(): Int
    @JvmStatic external fun libraryVersionString(): String
    @JvmStatic external fun schedulerFaults(out: LongArray)
    @JvmStatic external fun statusString(status: Int): String
    @JvmStatic external fun policyPreset(preset: Int, out: LongArray)
    @JvmStatic external fun policyValidate(policy: LongArray)

    @JvmStatic external fun create(config: LongArray, policy: LongArray, dispatcher: Any?): Long
    @JvmStatic external fun destroy(engine: Long)

    @JvmStatic external fun start(engine: Long)
    @JvmStatic external fun restore(engine: Long, bytes: ByteArray)
    @JvmStatic external fun activity(engine: Long, kind: Int)
    @JvmStatic external fun continueSession(engine: Long)
    @JvmStatic external fun lock(engine: Long)
    @JvmStatic external fun unlock(engine: Long)
    @JvmStatic external fun unlockFailed(engine: Long): Int
    @JvmStatic external fun end(engine: Long, reason: Int)
    @JvmStatic external fun refreshResult(engine: Long, httpStatus: Int, oauthErrorUtf8: ByteArray?, generation: Long): Int
    @JvmStatic external fun unlockWith(engine: Long, method: Int)
    @JvmStatic external fun unlockFailedWith(engine: Long, method: Int): Int
    @JvmStatic external fun biometricsChanged(engine: Long)
    @JvmStatic external fun getRequiredAuth(engine: Long): Int
    @JvmStatic external fun expectInterruption(engine: Long, maxMs: Long)
    @JvmStatic external fun deviceLocked(engine: Long)
    @JvmStatic external fun serverContact(engine: Long)
    @JvmStatic external fun tokenRotated(engine: Long, generation: Long)
    @JvmStatic external fun setCeilings(engine: Long, ceilings: LongArray)
    @JvmStatic external fun getCeilings(engine: Long, out: LongArray)
    @JvmStatic external fun ceilingsInit(out: LongArray)
    @JvmStatic external fun background(engine: Long)
    @JvmStatic external fun foreground(engine: Long)
    @JvmStatic external fun windowShown(engine: Long)
    @JvmStatic external fun windowHidden(engine: Long)
    @JvmStatic external fun scopePush(engine: Long, idleTimeoutMs: Long): Long
    @JvmStatic external fun scopePop(engine: Long, scopeId: Long)
    @JvmStatic external fun holdAcquire(engine: Long): Long
    @JvmStatic external fun holdRelease(engine: Long, holdId: Long)
    @JvmStatic external fun setPolicy(engine: Long, policy: LongArray)

    @JvmStatic external fun getState(engine: Long): Int
    @JvmStatic external fun getReason(engine: Long): Int
    @JvmStatic external fun getRemaining(engine: Long): Long
    @JvmStatic external fun getInfo(engine: Long, out: LongArray)
    @JvmStatic external fun getPolicy(engine: Long, out: LongArray)

    @JvmStatic external fun nextDeadline(engine: Long): Long
    @JvmStatic external fun poll(engine: Long)

    @JvmStatic external fun clockAdvance(engine: Long, ms: Long)
    @JvmStatic external fun clockFreeze(engine: Long, ms: Long)
    @JvmStatic external fun clockJumpWall(engine: Long, deltaMs: Long)
    @JvmStatic external fun clockReboot(engine: Long, downtimeMs: Long)
    @JvmStatic external fun clockNow(engine: Long, out: LongArray)

    @JvmStatic external fun snapshot(engine: Long): ByteArray

    /** Native threads the glue attached to the JVM (diagnostics for tests). */
    @JvmStatic external fun attachCount(): Long
    /** Threads the glue detached at thread exit (diagnostics for tests). */
    @JvmStatic external fun detachCount(): Long
    /** Exceptions that escaped an upcall and were cleared by the glue (diagnostics for tests). */
    @JvmStatic external fun escapedExceptionCount(): Long
}

/**
 * A Duration as C ABI milliseconds: INFINITE is INACT_NEVER; a finite value is rounded to the
 * nearest millisecond, halves away from zero (the rule of every binding with a duration type;
 * conformance/durations.txt): 1.5 ms -> 2 ms, -2.5 ms -> -3 ms.
 */
internal fun Duration.toWireMs(): Long = when {
    this == Duration.INFINITE -> NativeBridge.NEVER
    this == -Duration.INFINITE -> Long.MIN_VALUE // negative: the library rejects it with its message
    else -> {
        val whole = inWholeMilliseconds // toward zero
        // What is left is under 1 ms. Durations beyond ~146 years hold whole ms already (0 left).
        val restNs = (this - whole.milliseconds).inWholeNanoseconds
        when {
            restNs >= 500_000 -> whole + 1
            restNs <= -500_000 -> whole - 1
            else -> whole
        }
    }
}

/** C ABI milliseconds as a Duration: INACT_NEVER is INFINITE. */
internal fun Long.wireMsToDuration(): Duration = if (this == NativeBridge.NEVER) Duration.INFINITE else milliseconds

/** An engine-clock instant, or null for INACT_NEVER ("none"). */
internal fun Long.wireInstantOrNull(): Long? = if (this == NativeBridge.NEVER) null else this
