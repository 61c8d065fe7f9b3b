package dev.inactivity

// Kotlin names for the enumerations of include/inactivity.h. Each entry carries the C value;
// the values are the contract, the Kotlin names are only spelling.
//
// A value this binding does not know (a newer library of the same major version) is never
// thrown and never makes an event disappear: it maps to UNKNOWN and is passed on, as the Python
// binding passes the plain int on. (An event of an unknown *kind* is skipped by both: a newer
// library only adds informational kinds; every state change stays STATE_CHANGED.)

/** Session states (inact_state). An enum, so a `when` over it is exhaustive. */
enum class SessionState(val code: Int) {
    /** Created; the session is not known yet (cold start, tokens being checked). */
    LOADING(0),
    /** A session runs and the user is present. */
    ACTIVE(1),
    /** The idle action is near; a countdown runs. */
    WARNING(2),
    /** The user must re-verify (PIN, biometrics). */
    LOCKED(3),
    /** The session is over; a full sign-in is needed. */
    EXPIRED(4),

    /** A state of a newer library; treat it as locked (SessionUi does). */
    UNKNOWN(Int.MIN_VALUE);

    /** The library's name ("LOCKED"), as every binding prints it. */
    val libraryName: String get() = NativeBridge.name(0, code)

    companion object {
        private val byCode = entries.filter { it != UNKNOWN }.associateBy { it.code }
        internal fun of(code: Int): SessionState = byCode[code] ?: UNKNOWN

        /** The state named `name`, read by the library as in every binding: any case, '-' or
         *  '_'; [InvalidArgumentException] listing the names for any other text. */
        @JvmStatic
        fun fromName(name: String): SessionState = of(NativeBridge.parseName(0, name))
    }
}

/** Why the engine entered its current state (inact_reason). */
enum class Reason(val code: Int) {
    NONE(0),
    STARTED(1),
    RESTORED(2),
    CONTINUED(3),
    ACTIVITY(4),
    UNLOCKED(5),
    EXTENDED(6),
    IDLE(7),
    IDLE_TIMEOUT(8),
    BACKGROUND_TIMEOUT(9),
    MANUAL_LOCK(10),
    UNTRUSTED_CLOCK(11),
    ABSOLUTE_TIMEOUT(12),
    LOCKED_TIMEOUT(13),
    UNLOCK_FAILURES(14),
    LOGOUT(15),
    REVOKED(16),
    PASSWORD_CHANGED(17),
    RESTORE_FAILED(18),
    DEVICE_LOCKED(19),
    OFFLINE_TIMEOUT(20),
    OFFLINE_EXPIRY(21),
    RESTART(22),
    /** EXPIRED: pushed out by a newer sign-in on another device (the user's device limit). */
    DEVICE_LIMIT(23),

    /** A reason of a newer library. */
    UNKNOWN(Int.MIN_VALUE);

    /** The library's name ("IDLE_TIMEOUT"), as every binding prints it. */
    val libraryName: String get() = NativeBridge.name(1, code)

    companion object {
        private val byCode = entries.filter { it != UNKNOWN }.associateBy { it.code }
        internal fun of(code: Int): Reason = byCode[code] ?: UNKNOWN

        /** The reason named `name` ("idle-timeout"), read by the library as in every binding. */
        @JvmStatic
        fun fromName(name: String): Reason = of(NativeBridge.parseName(1, name))
    }
}

/** Kinds of user activity (inact_activity_kind); a policy says which of them count. */
enum class ActivityKind(val bit: Int) {
    TOUCH_DOWN(1 shl 0),
    TOUCH_UP(1 shl 1),
    TOUCH_MOVE(1 shl 2),
    KEY(1 shl 3),
    SCROLL(1 shl 4),
    POINTER(1 shl 5),
    PROGRAMMATIC(1 shl 6);

    companion object {
        /** Every kind a person produces: all but PROGRAMMATIC (INACT_ACTIVITY_USER). */
        @JvmField
        val USER: Set<ActivityKind> = java.util.Collections.unmodifiableSet(
            java.util.EnumSet.complementOf(java.util.EnumSet.of(PROGRAMMATIC)),
        )

        /** The kind named `name` ("KEY", "touch-down"), read by the library as in every binding. */
        @JvmStatic
        fun fromName(name: String): ActivityKind {
            val bit = NativeBridge.parseName(3, name)
            return entries.first { it.bit == bit }
        }

        internal fun maskOf(kinds: Set<ActivityKind>): Int = kinds.fold(0) { mask, k -> mask or k.bit }

        internal fun setOf(mask: Int): Set<ActivityKind> {
            val set = java.util.EnumSet.noneOf(ActivityKind::class.java)
            entries.filterTo(set) { mask and it.bit != 0 }
            return java.util.Collections.unmodifiableSet(set)
        }
    }
}

/** What happens when the idle timeout is reached (inact_idle_action). */
enum class IdleAction(val code: Int) {
    LOCK(0),
    EXPIRE(1),

    /** A value of a newer library. */
    UNKNOWN(Int.MIN_VALUE);

    companion object {
        internal fun of(code: Int): IdleAction = entries.firstOrNull { it.code == code && it != UNKNOWN } ?: UNKNOWN
    }
}

/** What another holder of the session reports (inact_holder_kind); see [InactivityEngine.holderReport]. */
enum class HolderKind(val code: Int) {
    /** The user's activity the holder saw; the duration is its age. */
    ACTIVITY(1),
    /** The holder locked, with a LOCKED reason; the duration is the lock's age. */
    LOCKED(2),
    /** The holder's session expired or ended, with an EXPIRED reason; the duration is its age. */
    EXPIRED(3),
    /** The duration is the time left to the holder's idle action. */
    IDLE_DEADLINE(4),
    /** The duration is the time left to the holder's absolute expiry. */
    ABSOLUTE_DEADLINE(5),
}

/** Named policies (inact_preset); see [Policy.preset]. */
enum class Preset(val code: Int) {
    DEFAULT(0),
    NIST_AAL2(1),
    NIST_AAL3(2),
    PCI_DSS(3),
    BANKING(4),
    /** EU PSD2 RTS 2018/389 art. 4(3)(b) and (d): 5 min idle, 5 failed attempts. */
    PSD2(5),
    /** Modelled on Microsoft Intune app protection defaults. */
    ENTERPRISE(6);

    companion object {
        /** The preset named `name` ("banking", "PCI_DSS"), read by the library as in every binding. */
        @JvmStatic
        fun fromName(name: String): Preset {
            val code = NativeBridge.parseName(2, name)
            return entries.first { it.code == code }
        }
    }
}

/**
 * The strength of a user verification (inact_auth): what an unlock needs
 * ([InactivityEngine.requiredAuth]) and which method verified the user. CREDENTIAL > BIOMETRIC.
 */
enum class AuthStrength(val code: Int) {
    /** Nothing is required: the session is not LOCKED. */
    NONE(0),
    /** A biometric is enough (or the credential). */
    BIOMETRIC(1),
    /** The credential (PIN, password) is required. */
    CREDENTIAL(2),

    /** A value of a newer library. */
    UNKNOWN(Int.MIN_VALUE);

    companion object {
        internal fun of(code: Int): AuthStrength = entries.firstOrNull { it.code == code && it != UNKNOWN } ?: UNKNOWN
    }
}

/** How a token refresh was classified (inact_refresh_outcome). */
enum class RefreshOutcome(val code: Int) {
    /** 2xx: the session goes on. */
    OK(0),
    /** No network, 408, 429, 5xx: nothing changed; retry later. */
    RETRY(1),
    /** 401, or 400 with invalid_grant: the session is now EXPIRED (REVOKED). */
    REVOKED(2),
    /** Any other status: nothing changed; retrying will not help. */
    FAILED(3),
    /** REVOKED for a refresh token older than the newest generation seen: a rotation race; nothing changed. */
    STALE(4),

    /** A value of a newer library. */
    UNKNOWN(Int.MIN_VALUE);

    companion object {
        internal fun of(code: Int): RefreshOutcome = entries.firstOrNull { it.code == code && it != UNKNOWN } ?: UNKNOWN
    }
}

/** How timer-caused events are delivered (inact_delivery). */
enum class Delivery(val code: Int) {
    /** One process-wide native scheduler thread delivers timer-caused events. */
    THREAD(0),
    /** No thread: the host arms a timer for [InactivityEngine.nextDeadline] and calls [InactivityEngine.poll]. */
    HOST(1),

    /** A value of a newer library. */
    UNKNOWN(Int.MIN_VALUE);

    companion object {
        internal fun of(code: Int): Delivery = entries.firstOrNull { it.code == code && it != UNKNOWN } ?: UNKNOWN
    }
}

/** Which clock an engine reads (inact_clock_kind). */
enum class ClockKind(val code: Int) {
    /** CLOCK_BOOTTIME: counts deep sleep and cannot be set by the user. */
    SYSTEM(0),
    /** Moves only when advanced; for tests and simulation. */
    MANUAL(1),

    /** A value of a newer library. */
    UNKNOWN(Int.MIN_VALUE);

    companion object {
        internal fun of(code: Int): ClockKind = entries.firstOrNull { it.code == code && it != UNKNOWN } ?: UNKNOWN
    }
}

/** Status codes of the C ABI (inact_status); carried by every [InactivityException]. */
enum class Status(val code: Int) {
    OK(0),
    NULL_POINTER(-1),
    INVALID_HANDLE(-2),
    INVALID_ARGUMENT(-3),
    INVALID_STATE(-4),
    STRUCT_SIZE(-5),
    BUFFER_TOO_SMALL(-6),
    NOT_FOUND(-7),
    WRONG_CLOCK(-8),
    SNAPSHOT_TRUNCATED(-9),
    SNAPSHOT_CHECKSUM(-10),
    SNAPSHOT_VERSION(-11),
    SNAPSHOT_INVALID(-12),
    LIMIT(-13),
    INTERNAL(-14),
    SYSTEM(-15),
    WEAK_AUTH(-16),
    OFFLINE(-17),
    CEILING(-18),

    /** A code this binding does not know (a newer library). */
    UNKNOWN(Int.MIN_VALUE);

    /** The library's static description of this status (inact_status_string). */
    val description: String get() = NativeBridge.statusString(code)

    companion object {
        internal fun of(code: Int): Status = entries.firstOrNull { it.code == code && it != UNKNOWN } ?: UNKNOWN
    }
}
