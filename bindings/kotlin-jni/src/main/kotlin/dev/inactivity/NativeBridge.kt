package dev.inactivity

import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

/**
 * The natives of src/main/c/inactivity_jni.c, registered in its JNI_OnLoad. Every method is
 * static and takes the engine handle first; a failed call throws the exception built by
 * [InactivityException.fromStatus]. The natives of conventional shape are on [NativeCalls] and the
 * policy, ceilings and info arrays are laid out by [WireLayout] (both generated from the header);
 * the config array by the C_ constants below, which mirror the CONFIG_ enum of the C file.
 *
 * Loading, the first that applies:
 * 1. the system property `inactivity.jni.library`: an absolute path to libinactivity_jni.so
 *    (libinactivity.so.1 found by the dynamic linker: its rpath, LD_LIBRARY_PATH);
 * 2. the desktop jar's own copy for this OS and CPU (`dev/inactivity/native/<os>-<cpu>/`,
 *    [NativeLoader]): the engine and the glue are extracted into a new private directory
 *    (mode 0700) under `inactivity.native.tmpdir` (default `java.io.tmpdir`), loaded, and
 *    deleted at once (a loaded library stays mapped);
 * 3. `System.loadLibrary("inactivity_jni")`: on Android, the APK's lib/<abi>/ directory
 *    (libinactivity.so beside it); elsewhere java.library.path.
 * When none loads, the error names the OS and CPU, what the jar holds and the property.
 * After loading, the glue's header version, the library's version and this binding must share
 * a major version.
 */
internal object NativeBridge {
    /** The C ABI major version this Kotlin code was written for. */
    const val BINDING_ABI_MAJOR = 1

    /** This binding's version: the header's INACT_VERSION_STRING it was written against. */
    const val BINDING_VERSION = "1.3.0"

    /** INACT_NEVER: "never" for a timeout, "no deadline" for a query. */
    const val NEVER: Long = Long.MAX_VALUE

    const val LIBRARY_PROPERTY = "inactivity.jni.library"

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

    const val CLOCK_FIELDS = 3

    /** Loads the glue (this object's init), for NativeCalls, whose natives JNI_OnLoad registers. */
    fun load() {}

    init {
        val path = System.getProperty(LIBRARY_PROPERTY)
        if (!path.isNullOrEmpty()) {
            try {
                System.load(path)
            } catch (e: UnsatisfiedLinkError) {
                throw UnsatisfiedLinkError(
                    "inactivity: cannot load the JNI glue from $path (system property $LIBRARY_PROPERTY): ${e.message}",
                ).apply { initCause(e) }
            }
        } else if (!NativeLoader.loadFromJar()) {
            try {
                System.loadLibrary("inactivity_jni")
            } catch (e: UnsatisfiedLinkError) {
                throw UnsatisfiedLinkError(NativeLoader.noLibraryMessage(e.message)).apply { initCause(e) }
            }
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
    /** The library's name of `value` (kind: 0 state, 1 reason, 2 preset, 3 activity kind). */
    @JvmStatic external fun name(kind: Int, value: Int): String
    /** The library's reading of a name (kind as for [name]); InactivityException listing the names. */
    @JvmStatic external fun parseName(kind: Int, name: String): Int
    @JvmStatic external fun policyPreset(preset: Int, out: LongArray)
    @JvmStatic external fun policyValidate(policy: LongArray)

    @JvmStatic external fun create(config: LongArray, policy: LongArray, dispatcher: Any?): Long

    @JvmStatic external fun restore(engine: Long, bytes: ByteArray)
    @JvmStatic external fun continueSession(engine: Long)
    @JvmStatic external fun refreshResult(engine: Long, httpStatus: Int, oauthErrorUtf8: ByteArray?, generation: Long): Int
    @JvmStatic external fun setCeilings(engine: Long, ceilings: LongArray)
    @JvmStatic external fun getCeilings(engine: Long, out: LongArray)
    @JvmStatic external fun ceilingsInit(out: LongArray)
    @JvmStatic external fun setPolicy(engine: Long, policy: LongArray)

    @JvmStatic external fun getInfo(engine: Long, out: LongArray)
    @JvmStatic external fun getPolicy(engine: Long, out: LongArray)

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
 * verify/conformance/durations.txt): 1.5 ms -> 2 ms, -2.5 ms -> -3 ms.
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
