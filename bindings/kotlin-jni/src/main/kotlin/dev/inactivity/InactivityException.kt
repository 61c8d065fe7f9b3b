package dev.inactivity

/**
 * A call into the engine failed. [status] is the C ABI's status code and [message] the
 * library's own message for the failure (inact_last_error: it names the argument and the
 * rule, e.g. "policy.warning_ms (60000) must be shorter than policy.idle_timeout_ms
 * (30000)"). A failed call changed nothing, except a restore of corrupt bytes, which
 * leaves the engine EXPIRED (RESTORE_FAILED).
 *
 * Use of a closed engine is not an InactivityException: it is an [IllegalStateException],
 * thrown by the binding before any native call.
 */
open class InactivityException internal constructor(
    val status: Status,
    message: String,
) : RuntimeException(message) {
    companion object {
        /**
         * Maps a status code, the library's message and its errno (inact_last_errno: the
         * system's error number for SYSTEM, else 0) to the exception to throw. Called by the
         * JNI glue (cached in JNI_OnLoad) whenever an inact_* call fails.
         */
        @JvmStatic
        fun fromStatus(code: Int, message: String, errno: Int = 0): Throwable {
            val status = Status.of(code)
            val text = if (status == Status.UNKNOWN) "$message (status $code)" else message
            return when (status) {
                Status.INVALID_ARGUMENT -> InvalidArgumentException(text)
                Status.INVALID_STATE -> InvalidStateException(text)
                Status.INVALID_HANDLE -> InvalidHandleException(text)
                Status.NOT_FOUND -> NotFoundException(text)
                Status.WRONG_CLOCK -> WrongClockException(text)
                Status.LIMIT -> LimitException(text)
                Status.WEAK_AUTH -> WeakAuthException(text)
                Status.OFFLINE -> OfflineException(text)
                Status.CEILING -> CeilingException(text)
                Status.SYSTEM -> SystemResourceException(text, errno)
                Status.SNAPSHOT_TRUNCATED, Status.SNAPSHOT_CHECKSUM,
                Status.SNAPSHOT_VERSION, Status.SNAPSHOT_INVALID,
                -> SnapshotException(status, text)
                else -> InactivityException(status, text)
            }
        }
    }
}

/** An argument is out of range or malformed (INACT_E_INVALID_ARGUMENT). */
class InvalidArgumentException internal constructor(message: String) :
    InactivityException(Status.INVALID_ARGUMENT, message)

/** The input is not allowed in the engine's current state (INACT_E_INVALID_STATE). */
class InvalidStateException internal constructor(message: String) :
    InactivityException(Status.INVALID_STATE, message)

/** The native handle is stale or forged (INACT_E_INVALID_HANDLE); a binding bug if ever seen. */
class InvalidHandleException internal constructor(message: String) :
    InactivityException(Status.INVALID_HANDLE, message)

/** No open scope or hold has this id (INACT_E_NOT_FOUND). */
class NotFoundException internal constructor(message: String) :
    InactivityException(Status.NOT_FOUND, message)

/** The operation needs an engine on the manual clock (INACT_E_WRONG_CLOCK). */
class WrongClockException internal constructor(message: String) :
    InactivityException(Status.WRONG_CLOCK, message)

/** The unlock method is weaker than the lock requires (INACT_E_WEAK_AUTH); nothing changed. */
class WeakAuthException internal constructor(message: String) :
    InactivityException(Status.WEAK_AUTH, message)

/** Past the offline timeout an unlock needs a server contact first (INACT_E_OFFLINE). */
class OfflineException internal constructor(message: String) :
    InactivityException(Status.OFFLINE, message)

/** The policy is laxer than a managed ceiling (INACT_E_CEILING); the message names the field and the limit. */
class CeilingException internal constructor(message: String) :
    InactivityException(Status.CEILING, message)

/** A resource limit was reached: engines, scopes, holds or windows (INACT_E_LIMIT). */
class LimitException internal constructor(message: String) :
    InactivityException(Status.LIMIT, message)

/**
 * The system refused a resource a THREAD engine on the SYSTEM clock needs (INACT_E_SYSTEM): its
 * scheduler thread (pthread_create), its timer or its wake-up channel. The engine was not
 * created and nothing of it was kept; the next creation tries again. The message names the
 * call and its error ("scheduler thread: pthread_create failed: Resource temporarily
 * unavailable (errno 11)"); [errno] is that error number (inact_last_errno), null if the
 * library gave none.
 */
class SystemResourceException internal constructor(message: String, errno: Int = 0) :
    InactivityException(Status.SYSTEM, message) {
    val errno: Int? = errno.takeIf { it != 0 }
}

/**
 * A snapshot was rejected: [status] says whether it was truncated, failed its checksum, has
 * an unknown version or holds impossible values. The engine is now EXPIRED (RESTORE_FAILED).
 */
class SnapshotException internal constructor(status: Status, message: String) :
    InactivityException(status, message)
