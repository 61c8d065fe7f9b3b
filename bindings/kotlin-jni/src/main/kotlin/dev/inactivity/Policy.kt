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
    /** This many failed unlocks in a row -> EXPIRED; 0 = unlimited. */
    val maxUnlockFailures: Int,
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
) {
    init {
        require(maxUnlockFailures >= 0) { "maxUnlockFailures ($maxUnlockFailures) must be >= 0" }
    }

    /** Asks the library to check this policy; throws [InvalidArgumentException] naming the field. */
    fun validate(): Policy {
        NativeBridge.policyValidate(toWire())
        return this
    }

    internal fun toWire(): LongArray {
        val v = LongArray(NativeBridge.POLICY_FIELDS)
        v[NativeBridge.P_IDLE_ACTION] = idleAction.code.toLong()
        v[NativeBridge.P_IDLE_TIMEOUT_MS] = idleTimeout.toWireMs()
        v[NativeBridge.P_WARNING_MS] = warning.toWireMs()
        v[NativeBridge.P_BACKGROUND_TIMEOUT_MS] = backgroundTimeout.toWireMs()
        v[NativeBridge.P_ABSOLUTE_TIMEOUT_MS] = absoluteTimeout.toWireMs()
        v[NativeBridge.P_LOCKED_TIMEOUT_MS] = lockedTimeout.toWireMs()
        v[NativeBridge.P_TICK_MS] = tick.toWireMs()
        v[NativeBridge.P_BACKGROUND_GRACE_MS] = backgroundGrace.toWireMs()
        v[NativeBridge.P_ACTIVITY_KINDS] = ActivityKind.maskOf(activityKinds).toLong()
        v[NativeBridge.P_MAX_UNLOCK_FAILURES] = maxUnlockFailures.toLong()
        v[NativeBridge.P_ACTIVITY_DISMISSES_WARNING] = if (activityDismissesWarning) 1 else 0
        v[NativeBridge.P_PAUSE_IDLE_IN_BACKGROUND] = if (pauseIdleInBackground) 1 else 0
        return v
    }

    companion object {
        /** The library's defaults (PCI DSS / NIST friendly: 15 min idle, 30 s warning, 12 h absolute). */
        @JvmStatic
        fun defaults(): Policy = preset(Preset.DEFAULT)

        /** A named preset, filled by the library. */
        @JvmStatic
        fun preset(preset: Preset): Policy {
            val v = LongArray(NativeBridge.POLICY_FIELDS)
            NativeBridge.policyPreset(preset.code, v)
            return fromWire(v)
        }

        internal fun fromWire(v: LongArray): Policy = Policy(
            idleTimeout = v[NativeBridge.P_IDLE_TIMEOUT_MS].wireMsToDuration(),
            warning = v[NativeBridge.P_WARNING_MS].wireMsToDuration(),
            idleAction = IdleAction.of(v[NativeBridge.P_IDLE_ACTION].toInt()),
            backgroundTimeout = v[NativeBridge.P_BACKGROUND_TIMEOUT_MS].wireMsToDuration(),
            absoluteTimeout = v[NativeBridge.P_ABSOLUTE_TIMEOUT_MS].wireMsToDuration(),
            lockedTimeout = v[NativeBridge.P_LOCKED_TIMEOUT_MS].wireMsToDuration(),
            maxUnlockFailures = v[NativeBridge.P_MAX_UNLOCK_FAILURES].toInt(),
            tick = v[NativeBridge.P_TICK_MS].wireMsToDuration(),
            backgroundGrace = v[NativeBridge.P_BACKGROUND_GRACE_MS].wireMsToDuration(),
            activityKinds = ActivityKind.setOf(v[NativeBridge.P_ACTIVITY_KINDS].toInt()),
            activityDismissesWarning = v[NativeBridge.P_ACTIVITY_DISMISSES_WARNING] != 0L,
            pauseIdleInBackground = v[NativeBridge.P_PAUSE_IDLE_IN_BACKGROUND] != 0L,
        )
    }
}
