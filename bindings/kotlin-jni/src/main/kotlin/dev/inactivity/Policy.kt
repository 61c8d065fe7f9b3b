package dev.inactivity

import kotlin.time.Duration

/**
 * A session policy (inact_policy). Start from [defaults] or a [preset] and change fields with
 * `copy`; the numbers come from the library (inact_policy_init / inact_policy_preset), so this
 * class never restates them. [Duration.INFINITE] means "never" (INACT_NEVER); durations are
 * sent in whole milliseconds.
 *
 * The library validates a policy when an engine is created or [InactivityEngine.policy] is
 * set, or on [validate]; its error message names the field and the rule.
 *
 * The C ABI's unsigned numbers are Kotlin's unsigned types, so their whole range is written
 * and read back as is: [maxUnlockFailures] is a [UInt] (uint32_t), refresh-token generations
 * are [ULong] (uint64_t). Opaque ids (scope and hold ids, boot ids) stay [Long]: they are only
 * compared for equality, and the Long carries the uint64_t's bits.
 */
data class Policy(
    /** No counted activity this long -> [idleAction]. */
    val idleTimeout: Duration,
    /** WARNING starts this long before the idle action; zero = no warning. */
    val warning: Duration,
    val idleAction: IdleAction,
    /** In background this long -> LOCKED; zero = lock on entering background; INFINITE = off. */
    val backgroundTimeout: Duration,
    /** This long after sign-in -> EXPIRED, whatever the activity; INFINITE = off. */
    val absoluteTimeout: Duration,
    /** LOCKED this long -> EXPIRED; INFINITE = off. */
    val lockedTimeout: Duration,
    /** This many failed unlocks in a row -> EXPIRED; 0 = unlimited; up to [UInt.MAX_VALUE]. */
    @get:JvmName("getMaxUnlockFailures") val maxUnlockFailures: UInt, // Java: an int holding the uint32_t
    /** Countdown tick period while in WARNING; zero = no ticks. */
    val tick: Duration,
    /** All windows hidden this long -> background (activity transitions, rotation). */
    val backgroundGrace: Duration,
    /** Which activity kinds count. */
    val activityKinds: Set<ActivityKind>,
    /** Activity in WARNING returns to ACTIVE; otherwise only [InactivityEngine.continueSession] does. */
    val activityDismissesWarning: Boolean,
    /** The idle countdown stops while in background. */
    val pauseIdleInBackground: Boolean,
    /** [InactivityEngine.deviceLocked] locks at once (DEVICE_LOCKED); otherwise it starts background. */
    val lockOnDeviceLock: Boolean,
    /** Every restore is LOCKED (RESTART) at least. */
    val lockOnRestart: Boolean,
    /** Since the last credential verification this long -> a biometric no longer unlocks; zero = always the credential; INFINITE = off. */
    val strongAuthTimeout: Duration,
    /** The longest [InactivityEngine.expectInterruption]; zero = refused. */
    val expectedInterruptionMax: Duration,
    /** No server contact this long -> LOCKED (OFFLINE_TIMEOUT); INFINITE = off. */
    val offlineTimeout: Duration,
    /** No server contact this long -> EXPIRED (OFFLINE_EXPIRY); INFINITE = off. */
    val offlineExpiry: Duration,
    /**
     * After user activity, a [SessionEvent.Keepalive] at once after a quiet interval, then at
     * most once per this interval; zero (the default) = off; else at least 1 s, below [idleTimeout].
     */
    val keepaliveInterval: Duration = Duration.ZERO,
) {
    // ----- for Java ------------------------------------------------------------------------
    // Java cannot call the constructor, `copy` or the Duration getters (Kotlin's Duration is a
    // value class, so their JVM names are mangled). Java reads every duration in milliseconds
    // (xMillis, [InactivityEngine.NEVER] = never) and changes a field with its wither:
    // `Policy.preset(Preset.BANKING).withIdleTimeoutMillis(300_000).withWarningMillis(30_000)`.
    val idleTimeoutMillis: Long get() = idleTimeout.toWireMs()
    val warningMillis: Long get() = warning.toWireMs()
    val backgroundTimeoutMillis: Long get() = backgroundTimeout.toWireMs()
    val absoluteTimeoutMillis: Long get() = absoluteTimeout.toWireMs()
    val lockedTimeoutMillis: Long get() = lockedTimeout.toWireMs()
    val tickMillis: Long get() = tick.toWireMs()
    val backgroundGraceMillis: Long get() = backgroundGrace.toWireMs()
    val strongAuthTimeoutMillis: Long get() = strongAuthTimeout.toWireMs()
    val expectedInterruptionMaxMillis: Long get() = expectedInterruptionMax.toWireMs()
    val offlineTimeoutMillis: Long get() = offlineTimeout.toWireMs()
    val offlineExpiryMillis: Long get() = offlineExpiry.toWireMs()
    val keepaliveIntervalMillis: Long get() = keepaliveInterval.toWireMs()

    fun withIdleTimeoutMillis(ms: Long) = copy(idleTimeout = ms.wireMsToDuration())
    fun withWarningMillis(ms: Long) = copy(warning = ms.wireMsToDuration())
    fun withIdleAction(action: IdleAction) = copy(idleAction = action)
    fun withBackgroundTimeoutMillis(ms: Long) = copy(backgroundTimeout = ms.wireMsToDuration())
    fun withAbsoluteTimeoutMillis(ms: Long) = copy(absoluteTimeout = ms.wireMsToDuration())
    fun withLockedTimeoutMillis(ms: Long) = copy(lockedTimeout = ms.wireMsToDuration())
    /** [maxUnlockFailures] from an int holding the uint32_t (Java). */
    fun withMaxUnlockFailures(count: Int) = copy(maxUnlockFailures = count.toUInt())
    fun withTickMillis(ms: Long) = copy(tick = ms.wireMsToDuration())
    fun withBackgroundGraceMillis(ms: Long) = copy(backgroundGrace = ms.wireMsToDuration())
    fun withActivityKinds(kinds: Set<ActivityKind>) = copy(activityKinds = kinds)
    fun withActivityDismissesWarning(on: Boolean) = copy(activityDismissesWarning = on)
    fun withPauseIdleInBackground(on: Boolean) = copy(pauseIdleInBackground = on)
    fun withLockOnDeviceLock(on: Boolean) = copy(lockOnDeviceLock = on)
    fun withLockOnRestart(on: Boolean) = copy(lockOnRestart = on)
    fun withStrongAuthTimeoutMillis(ms: Long) = copy(strongAuthTimeout = ms.wireMsToDuration())
    fun withExpectedInterruptionMaxMillis(ms: Long) = copy(expectedInterruptionMax = ms.wireMsToDuration())
    fun withOfflineTimeoutMillis(ms: Long) = copy(offlineTimeout = ms.wireMsToDuration())
    fun withOfflineExpiryMillis(ms: Long) = copy(offlineExpiry = ms.wireMsToDuration())
    fun withKeepaliveIntervalMillis(ms: Long) = copy(keepaliveInterval = ms.wireMsToDuration())

    /** Asks the library to check this policy; throws [InvalidArgumentException] naming the field. */
    fun validate(): Policy {
        NativeBridge.policyValidate(toWire())
        return this
    }

    internal fun toWire(): LongArray {
        val v = LongArray(WireLayout.POLICY_FIELDS)
        v[WireLayout.P_IDLE_ACTION] = idleAction.code.toLong()
        v[WireLayout.P_IDLE_TIMEOUT_MS] = idleTimeout.toWireMs()
        v[WireLayout.P_WARNING_MS] = warning.toWireMs()
        v[WireLayout.P_BACKGROUND_TIMEOUT_MS] = backgroundTimeout.toWireMs()
        v[WireLayout.P_ABSOLUTE_TIMEOUT_MS] = absoluteTimeout.toWireMs()
        v[WireLayout.P_LOCKED_TIMEOUT_MS] = lockedTimeout.toWireMs()
        v[WireLayout.P_TICK_MS] = tick.toWireMs()
        v[WireLayout.P_BACKGROUND_GRACE_MS] = backgroundGrace.toWireMs()
        v[WireLayout.P_ACTIVITY_KINDS] = ActivityKind.maskOf(activityKinds).toLong()
        v[WireLayout.P_MAX_UNLOCK_FAILURES] = maxUnlockFailures.toLong()
        v[WireLayout.P_ACTIVITY_DISMISSES_WARNING] = if (activityDismissesWarning) 1 else 0
        v[WireLayout.P_PAUSE_IDLE_IN_BACKGROUND] = if (pauseIdleInBackground) 1 else 0
        v[WireLayout.P_LOCK_ON_DEVICE_LOCK] = if (lockOnDeviceLock) 1 else 0
        v[WireLayout.P_LOCK_ON_RESTART] = if (lockOnRestart) 1 else 0
        v[WireLayout.P_STRONG_AUTH_TIMEOUT_MS] = strongAuthTimeout.toWireMs()
        v[WireLayout.P_EXPECTED_INTERRUPTION_MAX_MS] = expectedInterruptionMax.toWireMs()
        v[WireLayout.P_OFFLINE_TIMEOUT_MS] = offlineTimeout.toWireMs()
        v[WireLayout.P_OFFLINE_EXPIRY_MS] = offlineExpiry.toWireMs()
        v[WireLayout.P_KEEPALIVE_INTERVAL_MS] = keepaliveInterval.toWireMs()
        return v
    }

    companion object {
        /** The library's defaults (PCI DSS / NIST friendly: 15 min idle, 30 s warning, 12 h absolute). */
        @JvmStatic
        fun defaults(): Policy = preset(Preset.DEFAULT)

        /** A named preset, filled by the library. */
        @JvmStatic
        fun preset(preset: Preset): Policy {
            val v = LongArray(WireLayout.POLICY_FIELDS)
            NativeBridge.policyPreset(preset.code, v)
            return fromWire(v)
        }

        /** A preset by name ("BANKING", "banking", "pci-dss"), read by the library as in every
         *  binding; [InvalidArgumentException] listing the names for any other text. */
        @JvmStatic
        fun preset(name: String): Policy {
            val v = LongArray(WireLayout.POLICY_FIELDS)
            NativeBridge.policyPreset(NativeBridge.parseName(2, name), v)
            return fromWire(v)
        }

        internal fun fromWire(v: LongArray): Policy = Policy(
            idleTimeout = v[WireLayout.P_IDLE_TIMEOUT_MS].wireMsToDuration(),
            warning = v[WireLayout.P_WARNING_MS].wireMsToDuration(),
            idleAction = IdleAction.of(v[WireLayout.P_IDLE_ACTION].toInt()),
            backgroundTimeout = v[WireLayout.P_BACKGROUND_TIMEOUT_MS].wireMsToDuration(),
            absoluteTimeout = v[WireLayout.P_ABSOLUTE_TIMEOUT_MS].wireMsToDuration(),
            lockedTimeout = v[WireLayout.P_LOCKED_TIMEOUT_MS].wireMsToDuration(),
            maxUnlockFailures = v[WireLayout.P_MAX_UNLOCK_FAILURES].toUInt(),
            tick = v[WireLayout.P_TICK_MS].wireMsToDuration(),
            backgroundGrace = v[WireLayout.P_BACKGROUND_GRACE_MS].wireMsToDuration(),
            activityKinds = ActivityKind.setOf(v[WireLayout.P_ACTIVITY_KINDS].toInt()),
            activityDismissesWarning = v[WireLayout.P_ACTIVITY_DISMISSES_WARNING] != 0L,
            pauseIdleInBackground = v[WireLayout.P_PAUSE_IDLE_IN_BACKGROUND] != 0L,
            lockOnDeviceLock = v[WireLayout.P_LOCK_ON_DEVICE_LOCK] != 0L,
            lockOnRestart = v[WireLayout.P_LOCK_ON_RESTART] != 0L,
            strongAuthTimeout = v[WireLayout.P_STRONG_AUTH_TIMEOUT_MS].wireMsToDuration(),
            expectedInterruptionMax = v[WireLayout.P_EXPECTED_INTERRUPTION_MAX_MS].wireMsToDuration(),
            offlineTimeout = v[WireLayout.P_OFFLINE_TIMEOUT_MS].wireMsToDuration(),
            offlineExpiry = v[WireLayout.P_OFFLINE_EXPIRY_MS].wireMsToDuration(),
            keepaliveInterval = v[WireLayout.P_KEEPALIVE_INTERVAL_MS].wireMsToDuration(),
        )
    }
}

/**
 * An administrator's limits (inact_ceilings), set with [InactivityEngine.ceilings]: every policy
 * applied to the engine afterwards must be at least as strict in every limited field, else
 * [CeilingException] naming the field and the limit. Durations: INFINITE = no limit (a policy's
 * INFINITE exceeds every finite limit); [maxUnlockFailures] 0 = no limit; a true flag means the
 * policy must set it too. Not kept in a snapshot: set them on every engine. [none] has no limits.
 */
data class Ceilings(
    val idleTimeout: Duration = Duration.INFINITE,
    val backgroundTimeout: Duration = Duration.INFINITE,
    val absoluteTimeout: Duration = Duration.INFINITE,
    val lockedTimeout: Duration = Duration.INFINITE,
    val strongAuthTimeout: Duration = Duration.INFINITE,
    val expectedInterruptionMax: Duration = Duration.INFINITE,
    val offlineTimeout: Duration = Duration.INFINITE,
    val offlineExpiry: Duration = Duration.INFINITE,
    @get:JvmName("getMaxUnlockFailures") val maxUnlockFailures: UInt = 0u, // Java: an int holding the uint32_t
    val lockOnDeviceLock: Boolean = false,
    val lockOnRestart: Boolean = false,
) {
    // ----- for Java (see Policy): durations in milliseconds, NEVER = no limit; start from [none].
    val idleTimeoutMillis: Long get() = idleTimeout.toWireMs()
    val backgroundTimeoutMillis: Long get() = backgroundTimeout.toWireMs()
    val absoluteTimeoutMillis: Long get() = absoluteTimeout.toWireMs()
    val lockedTimeoutMillis: Long get() = lockedTimeout.toWireMs()
    val strongAuthTimeoutMillis: Long get() = strongAuthTimeout.toWireMs()
    val expectedInterruptionMaxMillis: Long get() = expectedInterruptionMax.toWireMs()
    val offlineTimeoutMillis: Long get() = offlineTimeout.toWireMs()
    val offlineExpiryMillis: Long get() = offlineExpiry.toWireMs()

    fun withIdleTimeoutMillis(ms: Long) = copy(idleTimeout = ms.wireMsToDuration())
    fun withBackgroundTimeoutMillis(ms: Long) = copy(backgroundTimeout = ms.wireMsToDuration())
    fun withAbsoluteTimeoutMillis(ms: Long) = copy(absoluteTimeout = ms.wireMsToDuration())
    fun withLockedTimeoutMillis(ms: Long) = copy(lockedTimeout = ms.wireMsToDuration())
    fun withStrongAuthTimeoutMillis(ms: Long) = copy(strongAuthTimeout = ms.wireMsToDuration())
    fun withExpectedInterruptionMaxMillis(ms: Long) = copy(expectedInterruptionMax = ms.wireMsToDuration())
    fun withOfflineTimeoutMillis(ms: Long) = copy(offlineTimeout = ms.wireMsToDuration())
    fun withOfflineExpiryMillis(ms: Long) = copy(offlineExpiry = ms.wireMsToDuration())
    /** [maxUnlockFailures] from an int holding the uint32_t (Java). */
    fun withMaxUnlockFailures(count: Int) = copy(maxUnlockFailures = count.toUInt())
    fun withLockOnDeviceLock(on: Boolean) = copy(lockOnDeviceLock = on)
    fun withLockOnRestart(on: Boolean) = copy(lockOnRestart = on)

    internal fun toWire(): LongArray {
        val v = LongArray(WireLayout.CEILING_FIELDS)
        v[WireLayout.L_IDLE_TIMEOUT_MS] = idleTimeout.toWireMs()
        v[WireLayout.L_BACKGROUND_TIMEOUT_MS] = backgroundTimeout.toWireMs()
        v[WireLayout.L_ABSOLUTE_TIMEOUT_MS] = absoluteTimeout.toWireMs()
        v[WireLayout.L_LOCKED_TIMEOUT_MS] = lockedTimeout.toWireMs()
        v[WireLayout.L_STRONG_AUTH_TIMEOUT_MS] = strongAuthTimeout.toWireMs()
        v[WireLayout.L_EXPECTED_INTERRUPTION_MAX_MS] = expectedInterruptionMax.toWireMs()
        v[WireLayout.L_OFFLINE_TIMEOUT_MS] = offlineTimeout.toWireMs()
        v[WireLayout.L_OFFLINE_EXPIRY_MS] = offlineExpiry.toWireMs()
        v[WireLayout.L_MAX_UNLOCK_FAILURES] = maxUnlockFailures.toLong()
        v[WireLayout.L_LOCK_ON_DEVICE_LOCK] = if (lockOnDeviceLock) 1 else 0
        v[WireLayout.L_LOCK_ON_RESTART] = if (lockOnRestart) 1 else 0
        return v
    }

    companion object {
        /** No limits, as the library fills them (inact_ceilings_init). */
        @JvmStatic
        fun none(): Ceilings {
            val v = LongArray(WireLayout.CEILING_FIELDS)
            NativeBridge.ceilingsInit(v)
            return fromWire(v)
        }

        internal fun fromWire(v: LongArray) = Ceilings(
            idleTimeout = v[WireLayout.L_IDLE_TIMEOUT_MS].wireMsToDuration(),
            backgroundTimeout = v[WireLayout.L_BACKGROUND_TIMEOUT_MS].wireMsToDuration(),
            absoluteTimeout = v[WireLayout.L_ABSOLUTE_TIMEOUT_MS].wireMsToDuration(),
            lockedTimeout = v[WireLayout.L_LOCKED_TIMEOUT_MS].wireMsToDuration(),
            strongAuthTimeout = v[WireLayout.L_STRONG_AUTH_TIMEOUT_MS].wireMsToDuration(),
            expectedInterruptionMax = v[WireLayout.L_EXPECTED_INTERRUPTION_MAX_MS].wireMsToDuration(),
            offlineTimeout = v[WireLayout.L_OFFLINE_TIMEOUT_MS].wireMsToDuration(),
            offlineExpiry = v[WireLayout.L_OFFLINE_EXPIRY_MS].wireMsToDuration(),
            maxUnlockFailures = v[WireLayout.L_MAX_UNLOCK_FAILURES].toUInt(),
            lockOnDeviceLock = v[WireLayout.L_LOCK_ON_DEVICE_LOCK] != 0L,
            lockOnRestart = v[WireLayout.L_LOCK_ON_RESTART] != 0L,
        )
    }
}
