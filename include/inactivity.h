/*
 * inactivity.h -- the C contract of libinactivity, the session-inactivity engine.
 *
 * This header is the API: anything not declared here is not part of it.
 *
 * ## Model
 * An engine tracks one user session through five states (LOADING, ACTIVE, WARNING,
 * LOCKED, EXPIRED). The host feeds it inputs (activity, lifecycle, lock/unlock, ...);
 * the engine decides, against a clock that counts deep sleep and cannot be set, when
 * the session must warn, lock or expire, and reports every change to one callback.
 * docs/design.md gives the full rules and the reasons for them; this header states them
 * per function.
 *
 * ## Conventions
 * - Every fallible function returns an inact_status: INACT_OK (0) or a negative code.
 *   Results are written through out-pointers; a failed call writes nothing and changes
 *   nothing (the one documented exception is inact_restore with corrupt bytes, which
 *   fails secure: the engine goes to EXPIRED with reason RESTORE_FAILED).
 * - After a failure, inact_last_error() returns a message naming the argument and the
 *   rule that failed.
 * - Every call on an engine first evaluates its deadlines (catch-up) and delivers what came
 *   due, also a call that is then refused for its argument or for the state: catch-up is
 *   not the call's change, and the refused call itself still changes nothing.
 * - Deadlines that fall at the same instant are applied most severe first, each only if it
 *   still runs in the state the ones before it left, in this order: absolute lifetime
 *   (ABSOLUTE_TIMEOUT), offline expiry (OFFLINE_EXPIRY), locked timeout (LOCKED_TIMEOUT),
 *   idle action EXPIRE (IDLE_TIMEOUT), offline timeout (OFFLINE_TIMEOUT), background timeout
 *   (BACKGROUND_TIMEOUT), idle action LOCK (IDLE_TIMEOUT), grace end, warning (IDLE), tick,
 *   keepalive.
 *   So an expiry wins over a lock at the same instant, and the event names the reason of
 *   the last change (docs/design.md, section 2, gives the table this comes from).
 * - Every function's doc block ends with Returns (every status it can return besides
 *   INACT_E_INVALID_HANDLE for a bad handle), Ownership (what the library keeps of what it
 *   is given, and what it gives) and Thread (where it may be called, where it delivers).
 * - Durations and times are int64_t milliseconds. INACT_NEVER (INT64_MAX) means "never"
 *   for a timeout and "no deadline" for a query. Deadline arithmetic saturates.
 * - Booleans are int32_t 0/1. No variadic functions.
 * - Structs that cross the boundary start with `uint32_t size`: the size travels with every
 *   struct, as in Linux's extensible-struct system calls (openat2, clone3, sched_getattr), so a
 *   program built against an older header keeps working when fields are added, and one built
 *   against a newer header fails clearly on an older library. A struct grows only at its end;
 *   each published layout is a prefix of the next. Published sizes: inact_policy 80 (1.0),
 *   120 (1.1) and 128 (1.3); inact_info 104 (1.0) and 152 (1.1); inact_config 40 (1.0);
 *   inact_ceilings 80 (1.1); inact_event 56 (1.0; written by the library, see inact_event);
 *   inact_decision 72 (1.3).
 *   A size S is accepted from the struct's first layout up to 65536, and is read as the
 *   largest published layout L <= S (this version's when S is larger). The bytes from L to S
 *   are the tail and must all be zero, else INACT_E_STRUCT_SIZE naming the first non-zero
 *   byte: a tail that is not zero is a caller using fields this library does not know. So a
 *   size between two layouts (81..119 for the policy, 105..151 for the info) means what it
 *   meant to the library of the older layout (1.0 accepted any size above its own with a
 *   zero tail), and no field that straddles S is read or written. An input struct is read up
 *   to L, and the fields beyond L take the values its init function fills (the defaults). An
 *   output struct (inact_get_info, inact_get_policy, inact_get_ceilings) is written from byte
 *   4 up to L only, never a byte beyond (its tail, being zero, stays zero), and its size is
 *   kept as given. A size below the first layout or above 65536 is INACT_E_STRUCT_SIZE, and
 *   nothing is read or written.
 * - Init functions cannot see the caller's struct, so each is a macro that passes the size the
 *   caller was compiled with: inact_policy_init(p) is inact_policy_init_sized(p,
 *   sizeof(inact_policy)), and so for inact_policy_preset, inact_config_init,
 *   inact_ceilings_init and inact_info_init (the macros are at the end of this header). A
 *   _sized function takes the size as above: it fills layout L with the defaults, zeroes the
 *   tail and stores `size` = S. The plain exported symbols, reached by a program built against
 *   an older header, by name (ctypes, dlsym) or as (inact_policy_init)(p) or a function
 *   pointer, fill exactly the layout of the release that added them and store its size, for
 *   ever: inact_policy_init and inact_policy_preset 80 bytes (1.0), inact_config_init 40
 *   (1.0), inact_ceilings_init 80 and inact_info_init 152 (1.1). A binding that calls by name
 *   calls the _sized function with its own struct's size (Python: ctypes.sizeof). Versioned
 *   symbols (glibc's .symver) were not chosen: dlsym, which ctypes, JNA and every by-name
 *   loader use, sees only the default (newest) version, so a 1.0 binding calling by name would
 *   reach the new layout; and a macro states the rule in the one place every C caller compiles.
 *   Programs built against the 1.1 header, whose plain inact_policy_init and
 *   inact_policy_preset filled 120 bytes, get the 80-byte 1.0 layout from this library: a
 *   field added in 1.1 that such a program sets after the call is not read (it keeps its
 *   default) until the program is rebuilt against this header (CHANGELOG.md, 1.2.0).
 * - Reserved fields. An input struct's reserved field (inact_config.reserved0) must be 0; any
 *   other value is INACT_E_INVALID_ARGUMENT, so that a later version can give it a meaning
 *   that an older library refuses rather than ignores. An output field documented as reserved
 *   or as "0" may get a meaning in a later minor version: readers ignore it and never test
 *   it. inact_event.reserved0 of 1.0 became inact_event.required_auth in 1.1 (1 or 2 on a
 *   LOCKED event, 0 on every other): a 1.0 reader that ignores it is unaffected; one that
 *   required it to be 0 (1.0's own fuzz harness did) sees a non-zero value on LOCKED events
 *   only, and cannot take it as a permission, since 1.0 gave it no meaning. It stays where 1.1
 *   put it: moving it would make every 1.1 reader read NONE on a LOCKED event.
 *
 * ## Rules a host may rely on
 * Each is checked by a test (Tests/InactivityCoreTests/BindingRuleTests.swift), and a binding
 * may build on it without re-checking:
 * - Activity never moves a deadline earlier. At the same instant, after inact_activity the
 *   instant inact_next_deadline names and the time to the next lock or expiry
 *   (inact_get_remaining) are never earlier than before it, and the state is never stricter.
 *   So a host timer armed before an activity stays valid (at worst it fires early, and a poll
 *   then is harmless: inact_poll): the Python and JavaScript bindings' activity path does not
 *   re-arm it.
 *
 * ## Argument ranges
 * Every parameter and input field is defined over the whole width of its C type: a value
 * inside its range has the documented meaning, any other value is refused (the status below
 * or the one the function names, a message naming the argument, nothing changed). Nothing
 * traps and nothing wraps, in the debug and the release library alike.
 * - size_t lengths and capacities: any value, SIZE_MAX and values >= 2^63 included (never
 *   read as signed). What each function reads or writes is bounded by its own sizes.
 * - uint32_t bit sets (an activity kind, policy.activity_kinds): the defined bits only; any
 *   other bit, up to bit 31, is INACT_E_INVALID_ARGUMENT.
 * - int32_t enums (preset, reason, idle_action, delivery, clock): the listed values only;
 *   every other int32_t, negative included, is INACT_E_INVALID_ARGUMENT.
 * - int32_t booleans (policy fields): exactly 0 or 1. Any other value (2, -1, 256,
 *   INT32_MIN) is INACT_E_INVALID_ARGUMENT, so a stray or uninitialized field is never read
 *   as "on" or "off".
 * - int64_t durations: 0 .. 100 years (3 155 760 000 000 ms; > 0 where the field or
 *   parameter says so), or INACT_NEVER where it allows it; negative values (INT64_MIN
 *   included) and values between 100 years and INACT_NEVER are INACT_E_INVALID_ARGUMENT.
 * - int64_t clock values (manual clock): the monotonic clock 0 .. 1000 years; the wall clock
 *   anywhere in int64_t (a move that would leave int64_t is refused; the clock's own
 *   advance saturates it at INT64_MAX).
 * - uint64_t handles and ids: any value; 0 is never a valid handle or id (inact_destroy(0)
 *   is a no-op), unknown values are INACT_E_INVALID_HANDLE / INACT_E_NOT_FOUND.
 * - Pointers: NULL is INACT_E_NULL_POINTER unless the parameter says it may be NULL.
 *   Strings are NUL-terminated bytes of any length and encoding.
 * - Struct sizes (uint32_t size, and the size_t size of a _sized init function): the first
 *   layout's size .. 65536, with a zero tail beyond the largest layout not above it (as
 *   above); anything else INACT_E_STRUCT_SIZE, and no byte past the caller's size is read or
 *   written.
 *
 * ## Threading
 * Every function may be called from any thread, at any time, including from inside the
 * engine's own callback. inact_activity is lock-free on the system clock (a clock read
 * and an atomic compare-and-swap); other calls take a short per-engine lock. Finding an
 * engine from its handle takes no lock that two engines share, so calls on distinct
 * engines never wait for each other; only creating and destroying an engine take a
 * process-wide lock (briefly), and so does a call on a THREAD engine that brings its next
 * deadline earlier (it re-arms the scheduler thread's timer). Callbacks
 * are never invoked while an internal lock is held, are serialized per engine and
 * arrive in order. An event caused by a call is delivered on the calling thread before
 * the call returns, unless another thread is delivering that engine's events at that
 * moment (then that thread delivers it next). A call made from inside a callback, on
 * any engine (its own or another), queues the events it causes; they are delivered on the
 * same thread after the callback returns, never inside it (no recursion, however long a
 * chain of callbacks that create, call or destroy engines: one callback of a thread runs
 * at a time), in the order the engines first had events, each engine's in their order.
 * An engine destroyed while its events only wait there never receives them.
 * After fork() the child may go on using the library, THREAD engines included (the child
 * starts its own scheduler thread at its first THREAD engine or deadline), provided no other
 * thread was inside a library call at the fork.
 *
 * ## Handles
 * An engine is named by an inact_engine, a 64-bit id with a generation. 0 is never a
 * valid handle. A destroyed, stale or forged handle is rejected with
 * INACT_E_INVALID_HANDLE and never touches freed memory, so a garbage-collected binding
 * may double-close or close after finalize without harm. The message for the handle of a
 * destroyed engine is "the engine is closed", the words of every binding's closed engine.
 */
#ifndef INACTIVITY_H
#define INACTIVITY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  define INACT_EXPORT __declspec(dllimport)
#elif defined(__GNUC__)
#  define INACT_EXPORT __attribute__((visibility("default")))
#else
#  define INACT_EXPORT
#endif

/* ---------------------------------------------------------------------------------
 * Annotations. Each expands to nothing, so a C or C++ compiler ignores it and the ABI is the
 * same with or without it. They state, in a form a program reads (tools/generate, which
 * generates every binding's plumbing from this header), what a parameter or a field carries,
 * so that no binding reads meaning from a comment's wording:
 *   INACT_OUT          a pointer the function writes its result through
 *   INACT_INOUT        a pointer to a struct whose size the caller sets and the function fills
 *   INACT_NULLABLE     a pointer (or callback) that may be NULL; without it NULL is
 *                      INACT_E_NULL_POINTER (Argument ranges). On an INACT_TIME_MS or
 *                      INACT_MS struct field: INACT_NEVER there means none (a binding's
 *                      null or None); without it INACT_NEVER is a value (NEVER, INFINITE)
 *   INACT_MS           int64_t: a duration in milliseconds (INACT_NEVER where allowed)
 *   INACT_TIME_MS      int64_t: an instant in milliseconds on the engine's clock (the
 *                      monotonic clock unless the field says wall; INACT_NEVER for none)
 *   INACT_BOOL         int32_t: exactly 0 or 1
 *   INACT_ENUM(e)      int32_t: one of enum e's values
 *   INACT_BITS(e)      uint32_t: a set of enum e's bits
 * ------------------------------------------------------------------------------- */
#define INACT_OUT
#define INACT_INOUT
#define INACT_NULLABLE
#define INACT_MS
#define INACT_TIME_MS
#define INACT_BOOL
#define INACT_ENUM(e)
#define INACT_BITS(e)

/* ---------------------------------------------------------------------------------
 * Version. Same major version = ABI compatible (the SONAME is libinactivity.so.<major>).
 * The minor version grows when functions, values or larger structs are added (a program
 * built against an older header of the same major keeps working); the patch version when
 * behaviour is fixed without an addition; the major version only when the ABI breaks.
 * inact_version_number() returns the library's INACT_VERSION_NUMBER; bindings compare it
 * with the header they were built for.
 * The Python and Kotlin bindings state the same version (scripts/lib/test-packaging checks).
 * ------------------------------------------------------------------------------- */
#define INACT_VERSION_MAJOR 1
#define INACT_VERSION_MINOR 3
#define INACT_VERSION_PATCH 0
#define INACT_VERSION_STRING "1.3.0"
#define INACT_VERSION_NUMBER \
    (INACT_VERSION_MAJOR * 10000 + INACT_VERSION_MINOR * 100 + INACT_VERSION_PATCH)

/* ---------------------------------------------------------------------------------
 * Opaque types and constants
 * ------------------------------------------------------------------------------- */

/** An engine handle: a 64-bit id with a generation. 0 is never valid. */
typedef uint64_t inact_engine;

/** "Never" for a timeout; "no deadline" for a query. The maximum int64_t. */
#define INACT_NEVER INT64_MAX

/* ---------------------------------------------------------------------------------
 * Status codes. One table: code, value, message. A number is never reused; a retired
 * code stays as INACT_E_OBSOLETE_n.
 * ------------------------------------------------------------------------------- */
#define INACT_STATUS_TABLE(XX)                                                          \
    XX(INACT_OK, 0, "success")                                                          \
    XX(INACT_E_NULL_POINTER, -1, "a required pointer argument is NULL")                 \
    XX(INACT_E_INVALID_HANDLE, -2, "the engine handle is 0, forged, stale or destroyed") \
    XX(INACT_E_INVALID_ARGUMENT, -3, "an argument is out of range or malformed")        \
    XX(INACT_E_INVALID_STATE, -4, "the input is not allowed in the engine's current state") \
    XX(INACT_E_STRUCT_SIZE, -5, "a struct's size field is wrong for this library")      \
    XX(INACT_E_BUFFER_TOO_SMALL, -6, "the buffer is too small for the result")          \
    XX(INACT_E_NOT_FOUND, -7, "no open scope or hold has this id")                      \
    XX(INACT_E_WRONG_CLOCK, -8, "the operation needs an engine with a manual clock")    \
    XX(INACT_E_SNAPSHOT_TRUNCATED, -9, "the snapshot is truncated")                     \
    XX(INACT_E_SNAPSHOT_CHECKSUM, -10, "the snapshot's checksum does not match")        \
    XX(INACT_E_SNAPSHOT_VERSION, -11, "the snapshot has an unknown format version")     \
    XX(INACT_E_SNAPSHOT_INVALID, -12, "the snapshot holds impossible values")           \
    XX(INACT_E_LIMIT, -13, "a resource limit was reached (engines, scopes or holds)")   \
    XX(INACT_E_INTERNAL, -14, "an internal error occurred")                             \
    XX(INACT_E_SYSTEM, -15, "the system refused a resource the engine needs (thread, timer)") \
    XX(INACT_E_WEAK_AUTH, -16, "the unlock method is weaker than the lock requires")    \
    XX(INACT_E_OFFLINE, -17, "a server contact must succeed before the session unlocks") \
    XX(INACT_E_CEILING, -18, "the policy is laxer than a managed ceiling")

#define INACT_STATUS_ENUM_ENTRY_(name, value, message) name = value,
typedef enum inact_status {
    INACT_STATUS_TABLE(INACT_STATUS_ENUM_ENTRY_)
} inact_status;
#undef INACT_STATUS_ENUM_ENTRY_

/* ---------------------------------------------------------------------------------
 * Enumerations. Fields and parameters that carry them are int32_t / uint32_t so that
 * their size is fixed and unknown values can be rejected.
 * ------------------------------------------------------------------------------- */

/** Session states. */
typedef enum inact_state {
    INACT_STATE_LOADING = 0, /* created; the session is not known yet */
    INACT_STATE_ACTIVE = 1,  /* a session runs and the user is present */
    INACT_STATE_WARNING = 2, /* the idle action is near; a countdown runs */
    INACT_STATE_LOCKED = 3,  /* the user must re-verify */
    INACT_STATE_EXPIRED = 4  /* the session is over; a full sign-in is needed */
} inact_state;

/** Why the engine entered its current state. */
typedef enum inact_reason {
    INACT_REASON_NONE = 0,               /* LOADING: nothing happened yet */
    INACT_REASON_STARTED = 1,            /* ACTIVE: inact_start */
    INACT_REASON_RESTORED = 2,           /* any: restored from a snapshot as it was */
    INACT_REASON_CONTINUED = 3,          /* ACTIVE: inact_continue in WARNING */
    INACT_REASON_ACTIVITY = 4,           /* ACTIVE: activity dismissed the warning */
    INACT_REASON_UNLOCKED = 5,           /* ACTIVE: inact_unlock */
    INACT_REASON_EXTENDED = 6,           /* ACTIVE: the idle deadline moved later in WARNING */
    INACT_REASON_IDLE = 7,               /* WARNING: the warning deadline passed */
    INACT_REASON_IDLE_TIMEOUT = 8,       /* LOCKED or EXPIRED: idle timeout reached */
    INACT_REASON_BACKGROUND_TIMEOUT = 9, /* LOCKED: in background too long */
    INACT_REASON_MANUAL_LOCK = 10,       /* LOCKED: inact_lock */
    INACT_REASON_UNTRUSTED_CLOCK = 11,   /* LOCKED/EXPIRED: restore with unknown elapsed time */
    INACT_REASON_ABSOLUTE_TIMEOUT = 12,  /* EXPIRED: the session's absolute lifetime ended */
    INACT_REASON_LOCKED_TIMEOUT = 13,    /* EXPIRED: LOCKED for too long */
    INACT_REASON_UNLOCK_FAILURES = 14,   /* EXPIRED: too many failed unlocks */
    INACT_REASON_LOGOUT = 15,            /* EXPIRED: inact_end */
    INACT_REASON_REVOKED = 16,           /* EXPIRED: inact_end or a refresh said revoked */
    INACT_REASON_PASSWORD_CHANGED = 17,  /* EXPIRED: inact_end */
    INACT_REASON_RESTORE_FAILED = 18,    /* EXPIRED: the snapshot was corrupt */
    INACT_REASON_DEVICE_LOCKED = 19,     /* LOCKED: the device locked (policy.lock_on_device_lock) */
    INACT_REASON_OFFLINE_TIMEOUT = 20,   /* LOCKED: no server contact for policy.offline_timeout_ms */
    INACT_REASON_OFFLINE_EXPIRY = 21,    /* EXPIRED: no server contact for policy.offline_expiry_ms */
    INACT_REASON_RESTART = 22,           /* LOCKED: a cold start with policy.lock_on_restart */
    INACT_REASON_DEVICE_LIMIT = 23       /* EXPIRED: pushed out by a newer sign-in on another device
                                            (the user's device limit): inact_end */
} inact_reason;

/** Kinds of user activity; bits, combined in inact_policy.activity_kinds. */
typedef enum inact_activity_kind {
    INACT_ACTIVITY_TOUCH_DOWN = 1 << 0,
    INACT_ACTIVITY_TOUCH_UP = 1 << 1,
    INACT_ACTIVITY_TOUCH_MOVE = 1 << 2,
    INACT_ACTIVITY_KEY = 1 << 3,
    INACT_ACTIVITY_SCROLL = 1 << 4,
    INACT_ACTIVITY_POINTER = 1 << 5,
    INACT_ACTIVITY_PROGRAMMATIC = 1 << 6
} inact_activity_kind;
/** Every kind a person produces (the default mask: all but PROGRAMMATIC). */
#define INACT_ACTIVITY_USER 0x3Fu
/** Every defined kind. */
#define INACT_ACTIVITY_ALL 0x7Fu

/** What happens when the idle timeout is reached. */
typedef enum inact_idle_action {
    INACT_IDLE_ACTION_LOCK = 0,
    INACT_IDLE_ACTION_EXPIRE = 1
} inact_idle_action;

/** Named policies (inact_policy_preset). */
typedef enum inact_preset {
    INACT_PRESET_DEFAULT = 0,   /* the defaults of inact_policy_init */
    INACT_PRESET_NIST_AAL2 = 1, /* NIST SP 800-63B AAL2: 30 min idle, 12 h absolute */
    INACT_PRESET_NIST_AAL3 = 2, /* NIST SP 800-63B AAL3: 15 min idle, 12 h absolute */
    INACT_PRESET_PCI_DSS = 3,   /* PCI DSS 4.0 8.2.8: 15 min idle */
    INACT_PRESET_BANKING = 4,   /* strict banking app: 5 min idle, see inact_policy_preset */
    INACT_PRESET_PSD2 = 5,      /* EU PSD2 RTS 2018/389 art. 4(3)(b) and (d): 5 min idle, 5 attempts */
    INACT_PRESET_ENTERPRISE = 6 /* modelled on Intune app protection defaults, see inact_policy_preset */
} inact_preset;

/** Kinds of event delivered to the callback. */
typedef enum inact_event_kind {
    INACT_EVENT_STATE_CHANGED = 1, /* the state changed (one event per change, catch-up folded) */
    INACT_EVENT_TICK = 2,          /* a countdown tick while in WARNING */
    INACT_EVENT_KEEPALIVE = 3      /* ping your server now (policy.keepalive_interval_ms): time_ms is
                                      the instant of the last user activity it carries, so its age
                                      is now_ms - time_ms; the outcome goes to inact_holder_report */
} inact_event_kind;

/** What another holder of the session (a tab, the server) reports: inact_holder_report. */
typedef enum inact_holder_kind {
    INACT_HOLDER_ACTIVITY = 1,          /* ms: age of the user's activity the holder saw, >= 0 */
    INACT_HOLDER_LOCKED = 2,            /* reason: a LOCKED reason; ms: age of the lock, >= 0 */
    INACT_HOLDER_EXPIRED = 3,           /* reason: an EXPIRED reason; ms: age, >= 0 */
    INACT_HOLDER_IDLE_DEADLINE = 4,     /* ms: time left to the holder's idle action, >= 0 */
    INACT_HOLDER_ABSOLUTE_DEADLINE = 5  /* ms: time left to the holder's absolute expiry, >= 0 */
} inact_holder_kind;

/** How timer-caused events are delivered (inact_config.delivery). */
typedef enum inact_delivery {
    INACT_DELIVERY_THREAD = 0, /* one process-wide scheduler thread serves every engine */
    INACT_DELIVERY_HOST = 1    /* no thread: the host calls inact_next_deadline / inact_poll */
} inact_delivery;

/** Which clock an engine reads (inact_config.clock). */
typedef enum inact_clock_kind {
    INACT_CLOCK_SYSTEM = 0, /* CLOCK_BOOTTIME: counts deep sleep, cannot be set (on wasm32,
                               performance.now() and Date.now() under the web clock rule of
                               docs/design.md, "Time") */
    INACT_CLOCK_MANUAL = 1  /* moves only through inact_clock_advance; for tests and simulation */
} inact_clock_kind;

/** Classification of a token refresh (inact_refresh_result). */
typedef enum inact_refresh_outcome {
    INACT_REFRESH_OK = 0,      /* 2xx: the session goes on */
    INACT_REFRESH_RETRY = 1,   /* 0 (no network), 408, 429, 5xx: nothing changes; retry later */
    INACT_REFRESH_REVOKED = 2, /* 401, or 400 with invalid_grant: the session is now EXPIRED */
    INACT_REFRESH_FAILED = 3,  /* any other status: nothing changes; retrying will not help */
    INACT_REFRESH_STALE = 4    /* would be REVOKED (invalid_grant), but for a refresh token older
                                  than the newest rotation reported: a rotation race; nothing
                                  changes */
} inact_refresh_outcome;

/**
 * The strength of a user verification: what an unlock needs (inact_event.required_auth,
 * inact_info.required_auth) and which method verified the user (inact_unlock_with).
 * A credential is stronger than a biometric.
 */
typedef enum inact_auth {
    INACT_AUTH_NONE = 0,       /* nothing is required: the session is not LOCKED */
    INACT_AUTH_BIOMETRIC = 1,  /* a biometric is enough (or the credential) */
    INACT_AUTH_CREDENTIAL = 2  /* the credential (PIN, password) is required */
} inact_auth;

/** What a server decides on (inact_server_decide); `arg` is what each one says it is. */
typedef enum inact_server_input {
    INACT_SERVER_SIGN_IN = 1,         /* a new session starts at now_ms; the record is ignored (may be NULL) */
    INACT_SERVER_REQUEST = 2,         /* a request of the user's: counted activity; arg 0 */
    INACT_SERVER_MACHINE = 3,         /* machine traffic or a status read: decided, never extends; arg 0 */
    INACT_SERVER_HOLDER_ACTIVITY = 4, /* a keepalive: arg = the age in ms (>= 0) of the user's activity it saw */
    INACT_SERVER_LOCK = 5,            /* a holder locked the session: arg = its LOCKED reason */
    INACT_SERVER_END = 6,             /* the session ends: arg = an EXPIRED reason (LOGOUT, DEVICE_LIMIT, ...) */
    INACT_SERVER_UNLOCK = 7,          /* a credential the server itself verified; arg 0 */
    INACT_SERVER_UNLOCK_FAILED = 8    /* a credential the server refused; arg 0 */
} inact_server_input;

/* ---------------------------------------------------------------------------------
 * Structs
 * ------------------------------------------------------------------------------- */

/** A session policy. Fill it with inact_policy_init or inact_policy_preset, then edit. */
typedef struct inact_policy {
    uint32_t size;                                           /* sizeof(inact_policy) */
    INACT_ENUM(inact_idle_action) int32_t idle_action;       /* inact_idle_action; default LOCK */
    INACT_MS int64_t idle_timeout_ms;                        /* no counted activity this long -> idle action; > 0; default 15 min */
    INACT_MS int64_t warning_ms;                             /* WARNING this long before the idle action; 0 = none; < idle; default 30 s */
    INACT_MS int64_t background_timeout_ms;                  /* in background this long -> LOCKED; 0 = at once; NEVER = off; default 60 s */
    INACT_MS int64_t absolute_timeout_ms;                    /* this long after start -> EXPIRED; NEVER = off; default 12 h */
    INACT_MS int64_t locked_timeout_ms;                      /* LOCKED this long -> EXPIRED; NEVER = off; default NEVER */
    INACT_MS int64_t tick_ms;                                /* countdown tick period in WARNING; 0 = no ticks; default 1 s */
    INACT_MS int64_t background_grace_ms;                    /* all windows hidden this long -> background; default 700 ms */
    INACT_BITS(inact_activity_kind) uint32_t activity_kinds; /* inact_activity_kind bits that count; default INACT_ACTIVITY_USER */
    uint32_t max_unlock_failures;                            /* failed unlocks in a row -> EXPIRED; 0 = unlimited; default 0 */
    INACT_BOOL int32_t activity_dismisses_warning;           /* 0/1: activity in WARNING returns to ACTIVE; default 0 */
    INACT_BOOL int32_t pause_idle_in_background;             /* 0/1: the idle countdown stops in background; default 0 */
    INACT_BOOL int32_t lock_on_device_lock;                  /* 0/1: inact_device_locked -> LOCKED (DEVICE_LOCKED); default 0 */
    INACT_BOOL int32_t lock_on_restart;                      /* 0/1: every restore is LOCKED (RESTART) at least; default 0 */
    INACT_MS int64_t strong_auth_timeout_ms;                 /* since the last credential verification this long -> a
                                                                biometric no longer unlocks; 0 = always the credential;
                                                                NEVER = off; default NEVER */
    INACT_MS int64_t expected_interruption_max_ms;           /* longest inact_expect_interruption; 0 = refused; finite;
                                                                default 60 s */
    INACT_MS int64_t offline_timeout_ms;                     /* no server contact this long -> LOCKED (OFFLINE_TIMEOUT),
                                                                unlock refused until a contact; > 0; NEVER = off; default NEVER */
    INACT_MS int64_t offline_expiry_ms;                      /* no server contact this long -> EXPIRED (OFFLINE_EXPIRY);
                                                                > 0; NEVER = off; default NEVER */
    INACT_MS int64_t keepalive_interval_ms;                  /* after user activity, an INACT_EVENT_KEEPALIVE at once after
                                                                a quiet interval, then at most once per this interval;
                                                                0 = off; else >= 1000, finite, < idle; default 0 */
} inact_policy;

/**
 * An administrator's limits (MDM managed configuration, an organisation maximum) set on an
 * engine with inact_set_ceilings. Every policy applied to the engine afterwards must be at
 * least as strict in every limited field, else INACT_E_CEILING naming the field and the limit.
 * Durations: INACT_NEVER = no limit; a policy's NEVER (off) exceeds every finite limit.
 * Fill it with inact_ceilings_init (no limits), then edit. Not part of a snapshot.
 */
typedef struct inact_ceilings {
    uint32_t size;                                 /* sizeof(inact_ceilings) */
    uint32_t max_unlock_failures;                  /* 0 = no limit; else the policy's must be 1..this */
    INACT_MS int64_t idle_timeout_ms;
    INACT_MS int64_t background_timeout_ms;
    INACT_MS int64_t absolute_timeout_ms;
    INACT_MS int64_t locked_timeout_ms;
    INACT_MS int64_t strong_auth_timeout_ms;
    INACT_MS int64_t expected_interruption_max_ms;
    INACT_MS int64_t offline_timeout_ms;
    INACT_MS int64_t offline_expiry_ms;
    INACT_BOOL int32_t lock_on_device_lock;        /* 0/1: 1 = the policy must set it */
    INACT_BOOL int32_t lock_on_restart;            /* 0/1: 1 = the policy must set it */
} inact_ceilings;

/** How an engine is created. Fill it with inact_config_init, then edit. */
typedef struct inact_config {
    uint32_t size;                               /* sizeof(inact_config) */
    INACT_ENUM(inact_delivery) int32_t delivery; /* inact_delivery; default THREAD */
    INACT_ENUM(inact_clock_kind) int32_t clock;  /* inact_clock_kind; default SYSTEM */
    int32_t reserved0;                           /* must be 0 */
    INACT_TIME_MS int64_t manual_start_ms;       /* manual clock: initial monotonic time, 0..100 years; default 0 */
    INACT_TIME_MS int64_t manual_wall_ms;        /* manual clock: initial wall time (ms since 1970), any; default 1.7e12 */
    uint64_t manual_boot_id;                     /* manual clock: initial boot id, any but 0; default 1 */
} inact_config;

/**
 * An event passed to the callback. Valid only during the callback. The library owns it, so
 * it is never too short for a reader built against an older header (which reads its own
 * prefix); `size` is the library's layout (56 since 1.0) and may grow in a later minor
 * version: compare it with >=, never ==, and read a field only when INACT_EVENT_HAS says it
 * lies within `size` (a program built against a newer header on an older library).
 */
typedef struct inact_event {
    uint32_t size;                                  /* sizeof(inact_event) as built into the library */
    INACT_ENUM(inact_event_kind) int32_t kind;      /* inact_event_kind */
    INACT_ENUM(inact_state) int32_t state;          /* inact_state after the event */
    INACT_ENUM(inact_state) int32_t previous_state; /* inact_state the host saw before (== state for a tick) */
    INACT_ENUM(inact_reason) int32_t reason;        /* inact_reason of the current state */
    INACT_ENUM(inact_auth) int32_t required_auth;   /* inact_auth an unlock needs at now_ms (NONE unless LOCKED);
                                                       1.0's reserved0 (see Conventions, reserved fields) */
    INACT_MS int64_t remaining_ms;                  /* ms from `now_ms` to the next lock or expiry; INACT_NEVER if none */
    INACT_TIME_MS int64_t time_ms;                  /* when it took effect (the deadline applied), engine clock */
    INACT_TIME_MS int64_t now_ms;                   /* when it was evaluated, engine clock (>= time_ms) */
    inact_engine engine;                            /* the engine it comes from */
} inact_event;

/** 1 when the event `e` (a const inact_event *) holds `field`: the field ends within e->size. */
#define INACT_EVENT_HAS(e, field) \
    (offsetof(inact_event, field) + sizeof(((const inact_event *)0)->field) <= (e)->size)

/** A full view of an engine (inact_get_info). Times are engine-clock ms. */
typedef struct inact_info {
    uint32_t size;                                                /* sizeof(inact_info); set by the caller */
    INACT_ENUM(inact_state) int32_t state;                        /* inact_state */
    INACT_ENUM(inact_reason) int32_t reason;                      /* inact_reason */
    INACT_ENUM(inact_delivery) int32_t delivery;                  /* inact_delivery */
    INACT_ENUM(inact_clock_kind) int32_t clock;                   /* inact_clock_kind */
    INACT_BOOL int32_t in_background;                             /* 0/1: background is in effect */
    int32_t visible_windows;                                      /* windows shown and not hidden */
    int32_t open_scopes;                                          /* scopes pushed and not popped */
    int32_t open_holds;                                           /* holds acquired and not released */
    uint32_t unlock_failures;                                     /* failed unlocks in a row */
    INACT_TIME_MS int64_t now_ms;                                 /* the engine clock now */
    INACT_MS int64_t remaining_ms;                                /* to the next lock or expiry; INACT_NEVER if none */
    INACT_NULLABLE INACT_TIME_MS int64_t next_deadline_ms;        /* next instant the engine must be evaluated; INACT_NEVER */
    INACT_MS int64_t effective_idle_timeout_ms;                   /* min of the policy's and every open scope's */
    INACT_NULLABLE INACT_TIME_MS int64_t started_at_ms;           /* session start; INACT_NEVER if none */
    INACT_NULLABLE INACT_TIME_MS int64_t last_activity_ms;        /* last counted activity; INACT_NEVER if none */
    INACT_NULLABLE INACT_TIME_MS int64_t background_since_ms;     /* background start; INACT_NEVER if not in background */
    INACT_NULLABLE INACT_TIME_MS int64_t locked_at_ms;            /* when LOCKED was entered; INACT_NEVER if not locked */
    INACT_ENUM(inact_auth) int32_t required_auth;                 /* inact_auth an unlock needs now (NONE unless LOCKED) */
    INACT_BOOL int32_t needs_server_contact;                      /* 0/1: LOCKED past the offline timeout: unlock is refused */
    INACT_NULLABLE INACT_TIME_MS int64_t last_credential_ms;      /* last credential verification; INACT_NEVER if none */
    INACT_NULLABLE INACT_TIME_MS int64_t strong_auth_deadline_ms; /* from then a biometric no longer unlocks; INACT_NEVER if never */
    INACT_NULLABLE INACT_TIME_MS int64_t last_server_contact_ms;  /* last successful server contact; INACT_NEVER if none */
    uint64_t token_generation;                                    /* newest rotated refresh-token generation; 0 if none */
    INACT_NULLABLE INACT_TIME_MS int64_t interruption_until_ms;   /* end of an announced expected interruption; INACT_NEVER */
} inact_info;

/**
 * A server's decision over a stored session record (inact_server_decide). Written by the
 * library; `size` is set by the caller (inact_decision_init) and kept as given, as for
 * inact_info. All times are the fleet's wall clock, ms since 1970.
 */
typedef struct inact_decision {
    uint32_t size;                                             /* sizeof(inact_decision); set by the caller */
    INACT_ENUM(inact_state) int32_t state;                     /* inact_state after the input */
    INACT_ENUM(inact_reason) int32_t reason;                   /* inact_reason */
    INACT_ENUM(inact_auth) int32_t required_auth;              /* inact_auth an unlock needs (NONE unless LOCKED) */
    INACT_BOOL int32_t write;                                  /* 0/1: the record changed and must be stored */
    uint32_t unlock_failures;                                  /* failed unlocks in a row */
    INACT_TIME_MS int64_t now_ms;                              /* the instant decided at: the later of now_ms given and the record's */
    INACT_MS int64_t remaining_ms;                             /* to the next lock or expiry; INACT_NEVER if none */
    INACT_NULLABLE INACT_TIME_MS int64_t idle_deadline_ms;     /* instant of the idle action; INACT_NEVER if none */
    INACT_NULLABLE INACT_TIME_MS int64_t absolute_deadline_ms; /* instant of the absolute expiry; INACT_NEVER if none */
    INACT_NULLABLE INACT_TIME_MS int64_t started_at_ms;        /* session start; INACT_NEVER if none */
    INACT_NULLABLE INACT_TIME_MS int64_t last_activity_ms;     /* as stored (coalesced), ACTIVE and WARNING; INACT_NEVER otherwise */
} inact_decision;

/* ---------------------------------------------------------------------------------
 * Callbacks
 * ------------------------------------------------------------------------------- */

/**
 * Receives the engine's events. `event` is valid only during the call. It may call any
 * inact_ function, on its own engine or any other (the events it causes are delivered
 * after it returns: see Threading) and inact_destroy (on its own engine: takes effect when
 * it returns).
 * Thread: the thread that caused the event, or the scheduler thread for timer-caused
 * events in INACT_DELIVERY_THREAD mode. Keep it short: post heavy work elsewhere.
 */
typedef void (*inact_callback)(const inact_event *event, void *user_data);

/** Frees the user data given with a callback. Runs exactly once, when the engine is destroyed. */
typedef void (*inact_user_data_free)(void *user_data);

/* ---------------------------------------------------------------------------------
 * Library
 * ------------------------------------------------------------------------------- */

/** Returns the library's INACT_VERSION_NUMBER. Thread: any.
 *  Ownership: none. */
INACT_EXPORT uint32_t inact_version_number(void);

/** Returns the library's version string ("1.3.0"); static, never NULL. Thread: any.
 *  Ownership: a static string; never free it. */
INACT_EXPORT const char *inact_version_string(void);

/**
 * Returns a static English description of `status`, never NULL ("unknown status" for a
 * value outside the table). Thread: any.
 * Ownership: a static string; never free it.
 */
INACT_EXPORT const char *inact_status_string(INACT_ENUM(inact_status) int32_t status);

/**
 * Names: every binding prints and reads states, reasons, presets and activity kinds through these
 * functions, so they spell them alike. A name is the enumerator without its prefix
 * (INACT_REASON_IDLE_TIMEOUT -> "IDLE_TIMEOUT", INACT_ACTIVITY_TOUCH_DOWN -> "TOUCH_DOWN").
 * Returns the name of `state` (each *_string function: of `reason`, `preset`, `kind`), or
 * "unknown" for a value outside the enum (an activity kind must be exactly one bit); never NULL.
 * Thread: any. Ownership: a static string; never free it.
 */
INACT_EXPORT const char *inact_state_string(int32_t state);

/** Returns the name of `reason` ("IDLE_TIMEOUT"), or "unknown"; see inact_state_string.
 *  Thread: any. Ownership: a static string; never free it. */
INACT_EXPORT const char *inact_reason_string(int32_t reason);

/** Returns the name of `preset` ("BANKING"), or "unknown"; see inact_state_string.
 *  Thread: any. Ownership: a static string; never free it. */
INACT_EXPORT const char *inact_preset_string(int32_t preset);

/** Returns the name of the activity kind `kind` ("KEY"), or "unknown"; see inact_state_string.
 *  Thread: any. Ownership: a static string; never free it. */
INACT_EXPORT const char *inact_activity_kind_string(uint32_t kind);

/**
 * Reads a state's name into `*out_state`. Accepted: the names of inact_state_string in any
 * ASCII case, with '-' and '_' alike ("LOCKED", "locked"; "IDLE_TIMEOUT", "idle-timeout").
 * Returns INACT_OK; INACT_E_NULL_POINTER for a NULL `name` or `out_state`;
 * INACT_E_INVALID_ARGUMENT for any other text (inact_last_error names it and lists the
 * accepted names: `state ("LOCK") must be one of LOADING, ACTIVE, ...`), writing nothing.
 * Thread: any. Ownership: nothing is kept.
 */
INACT_EXPORT int32_t inact_state_from_string(const char *name, INACT_OUT int32_t *out_state);

/** Reads a reason's name into `*out_reason`, as inact_state_from_string does.
 *  Returns as inact_state_from_string. Thread: any. Ownership: nothing is kept. */
INACT_EXPORT int32_t inact_reason_from_string(const char *name, INACT_OUT int32_t *out_reason);

/** Reads a preset's name ("BANKING", "banking", "pci-dss") into `*out_preset`, as
 *  inact_state_from_string does. Returns as inact_state_from_string. Thread: any. Ownership: nothing is kept. */
INACT_EXPORT int32_t inact_preset_from_string(const char *name, INACT_OUT int32_t *out_preset);

/** Reads an activity kind's name ("KEY", "touch-down") into `*out_kind` (one bit), as
 *  inact_state_from_string does. Returns as inact_state_from_string. Thread: any. Ownership: nothing is kept. */
INACT_EXPORT int32_t inact_activity_kind_from_string(const char *name, INACT_OUT uint32_t *out_kind);

/**
 * Returns the message of the most recent failed call on the calling thread, naming the
 * argument and the rule ("policy.warning_ms (60000) must be shorter than
 * policy.idle_timeout_ms (30000)"); "" if no call failed yet on this thread.
 * It is set when the failing call returns, after any callbacks that call delivered, so a
 * callback's own failures never replace it.
 * Ownership: thread-local storage of the library, valid until the next failed call on this
 * thread; copy it to keep it. Thread: any (per-thread).
 */
INACT_EXPORT const char *inact_last_error(void);

/**
 * Returns the system's error number (errno) of the most recent failed call on the calling
 * thread when that call failed with INACT_E_SYSTEM (the system refused the scheduler thread,
 * its timer or its wake-up channel: inact_engine_create); 0 after a failure of any other
 * status, and when no call failed yet on this thread. It is set with inact_last_error (whose
 * message names the same number), so a binding reads the number here, never from the text.
 * Ownership: none. Thread: any (per-thread).
 */
INACT_EXPORT int32_t inact_last_errno(void);

/* ---------------------------------------------------------------------------------
 * Policy
 * ------------------------------------------------------------------------------- */

/**
 * Fills `policy` with the defaults: idle 15 min, warning 30 s, idle action LOCK,
 * background 60 s, absolute 12 h, locked NEVER, max unlock failures 0, tick 1 s,
 * background grace 700 ms, activity kinds INACT_ACTIVITY_USER, dismiss 0, pause 0,
 * lock on device lock 0, lock on restart 0, strong auth NEVER, expected interruption max
 * 60 s, offline timeout NEVER, offline expiry NEVER, keepalive interval 0 (off); and sets `size`. Returns INACT_OK or INACT_E_NULL_POINTER. Thread: any.
 * Ownership: the caller's struct; nothing is kept.
 * A macro calls inact_policy_init_sized(policy, sizeof(inact_policy)); the exported symbol of
 * this name fills the 80-byte 1.0 layout only and sets size 80 (Conventions).
 */
INACT_EXPORT int32_t inact_policy_init(INACT_OUT inact_policy *policy);

/**
 * inact_policy_init for a struct of `size` bytes (the extensible-struct rule, Conventions):
 * fills the largest published layout that fits (80, 120 or 128 bytes, this version's beyond),
 * zeroes the rest of the `size` bytes and sets policy->size = size.
 * size: 80 .. 65536 (ctypes: ctypes.sizeof(the struct)).
 * Returns INACT_OK, INACT_E_NULL_POINTER or INACT_E_STRUCT_SIZE (size below 80 or above
 * 65536; nothing written). Thread: any.
 * Ownership: the caller's struct, only its first `size` bytes; nothing is kept.
 */
INACT_EXPORT int32_t inact_policy_init_sized(INACT_OUT inact_policy *policy, size_t size);

/**
 * Fills `policy` with a named preset (inact_preset) and sets `size`.
 * NIST_AAL2: idle 30 min, absolute 12 h. NIST_AAL3 and PCI_DSS: idle 15 min, absolute
 * 12 h. BANKING: idle 5 min, warning 30 s, background 30 s, absolute 8 h, locked 15 min,
 * 5 unlock failures; activity does not dismiss the warning.
 * PSD2 (EU Delegated Regulation 2018/389, the RTS on strong customer authentication): idle
 * 5 min (art. 4(3)(d): at most 5 minutes without activity after authentication), 5 unlock
 * failures (art. 4(3)(b): at most 5 failed attempts before blocking).
 * ENTERPRISE (modelled on Microsoft Intune app protection defaults): idle and background
 * 30 min ("recheck the access requirements after 30 minutes of inactivity"), strong auth
 * 30 min ("override biometrics with PIN after timeout"), offline timeout 720 min and offline
 * expiry 90 days (offline grace period: block access, wipe data), 5 unlock failures (max PIN
 * attempts), absolute NEVER (Intune has no session lifetime). Other fields are defaults.
 * preset: 0..6; any other int32_t is refused.
 * Returns INACT_OK, INACT_E_NULL_POINTER, INACT_E_INVALID_ARGUMENT (unknown preset;
 * `policy` unchanged), or INACT_E_STRUCT_SIZE (the preset sets a field that the caller's
 * layout does not hold: ENTERPRISE needs the 120-byte layout; `policy` unchanged, since a
 * preset cut to an older layout would be laxer than its name). Thread: any.
 * Ownership: the caller's struct; nothing is kept.
 * A macro calls inact_policy_preset_sized(policy, sizeof(inact_policy), preset); the exported
 * symbol of this name fills the 80-byte 1.0 layout only and sets size 80 (Conventions).
 */
INACT_EXPORT int32_t inact_policy_preset(INACT_OUT inact_policy *policy,
                                          INACT_ENUM(inact_preset) int32_t preset);

/**
 * inact_policy_preset for a struct of `size` bytes, as inact_policy_init_sized: fills the
 * largest published layout that fits, zeroes the rest, sets policy->size = size. A preset
 * whose fields beyond that layout differ from the defaults is refused (INACT_E_STRUCT_SIZE).
 * size: 80 .. 65536. preset: as for inact_policy_preset.
 * Returns INACT_OK, INACT_E_NULL_POINTER, INACT_E_INVALID_ARGUMENT or INACT_E_STRUCT_SIZE;
 * on an error nothing is written. Thread: any.
 * Ownership: the caller's struct, only its first `size` bytes; nothing is kept.
 */
INACT_EXPORT int32_t inact_policy_preset_sized(INACT_OUT inact_policy *policy, size_t size,
                                                INACT_ENUM(inact_preset) int32_t preset);

/**
 * Checks `policy` without using it. Rejects: a wrong size; durations < 0; idle or absolute
 * timeout 0; INACT_NEVER for warning, tick or grace;
 * warning >= idle timeout; unknown idle action; unknown activity-kind bits; booleans other
 * than 0/1; offline timeout or expiry 0; INACT_NEVER for expected_interruption_max_ms;
 * a keepalive interval other than 0 that is below 1000, INACT_NEVER, or not below the idle
 * timeout;
 * and any value whose deadline arithmetic would overflow (a finite duration
 * above 100 years). Returns INACT_OK or the error, with inact_last_error naming the field.
 * Thread: any.
 * Ownership: read during the call only; nothing is kept.
 */
INACT_EXPORT int32_t inact_policy_validate(const inact_policy *policy);

/** Fills `ceilings` with "no limit" in every field and sets `size`.
 *  Returns INACT_OK or INACT_E_NULL_POINTER. Thread: any.
 *  Ownership: nothing is kept.
 *  A macro calls inact_ceilings_init_sized(ceilings, sizeof(inact_ceilings)); the exported
 *  symbol of this name fills the 80-byte 1.1 layout only and sets size 80 (Conventions). */
INACT_EXPORT int32_t inact_ceilings_init(INACT_OUT inact_ceilings *ceilings);

/** inact_ceilings_init for a struct of `size` bytes (80 .. 65536), as
 *  inact_policy_init_sized: fills the largest published layout that fits, zeroes the rest,
 *  sets ceilings->size = size.
 *  Returns INACT_OK, INACT_E_NULL_POINTER or INACT_E_STRUCT_SIZE (nothing written).
 *  Thread: any. Ownership: the caller's struct, only its first `size` bytes. */
INACT_EXPORT int32_t inact_ceilings_init_sized(INACT_OUT inact_ceilings *ceilings, size_t size);

/* ---------------------------------------------------------------------------------
 * Lifecycle
 * ------------------------------------------------------------------------------- */

/**
 * Fills `config` with the defaults (THREAD delivery, SYSTEM clock, manual clock at
 * 0 ms, wall 1 700 000 000 000 ms, boot id 1) and sets `size`.
 * Returns INACT_OK or INACT_E_NULL_POINTER. Thread: any.
 * Ownership: the caller's struct; nothing is kept.
 * A macro calls inact_config_init_sized(config, sizeof(inact_config)); the exported symbol
 * of this name fills the 40-byte 1.0 layout only and sets size 40 (Conventions).
 */
INACT_EXPORT int32_t inact_config_init(INACT_OUT inact_config *config);

/** inact_config_init for a struct of `size` bytes (40 .. 65536), as
 *  inact_policy_init_sized: fills the largest published layout that fits, zeroes the rest,
 *  sets config->size = size.
 *  Returns INACT_OK, INACT_E_NULL_POINTER or INACT_E_STRUCT_SIZE (nothing written).
 *  Thread: any. Ownership: the caller's struct, only its first `size` bytes. */
INACT_EXPORT int32_t inact_config_init_sized(INACT_OUT inact_config *config, size_t size);

/**
 * Creates an engine in state LOADING.
 * config: creation options, or NULL for the defaults (inact_config_init).
 * policy: the policy, or NULL for the defaults (inact_policy_init). Copied.
 * callback: receives events; may be NULL (no events: query the state instead).
 * user_data: passed to `callback`. user_data_free: may be NULL; called exactly once with
 *   `user_data` when the engine is destroyed.
 * out_engine: receives the handle.
 * Returns INACT_OK; INACT_E_NULL_POINTER (out_engine); INACT_E_STRUCT_SIZE,
 * INACT_E_INVALID_ARGUMENT (config or policy); INACT_E_LIMIT; INACT_E_SYSTEM (a THREAD
 * engine on the SYSTEM clock whose scheduler thread is not running and cannot be started:
 * the system refused the thread, its timer or its wake-up channel; inact_last_error then
 * reads "scheduler thread: CALL failed: TEXT (errno N)" and inact_last_errno() returns N,
 * the number the bindings give their exceptions; on wasm32, which has no threads, every such engine fails so,
 * "scheduler thread: pthread_create failed: wasm32 has no threads, ...": use
 * INACT_DELIVERY_HOST). Then nothing is created, the engines that exist are untouched and
 * the next create tries again.
 * Ownership: on success the engine owns `user_data` (freed by user_data_free at destroy);
 * on failure nothing is kept, the callback is never called and user_data_free is not
 * called. Thread: any. A THREAD engine on the SYSTEM clock starts the scheduler thread if
 * it is not running. A MANUAL-clock engine never uses the scheduler thread: its timed
 * events are delivered inside inact_clock_advance.
 */
INACT_EXPORT int32_t inact_engine_create(INACT_NULLABLE const inact_config *config,
                                         INACT_NULLABLE const inact_policy *policy,
                                         INACT_NULLABLE inact_callback callback,
                                         INACT_NULLABLE void *user_data,
                                         INACT_NULLABLE inact_user_data_free user_data_free,
                                         INACT_OUT inact_engine *out_engine);

/**
 * Destroys an engine: no callback of it runs after this returns, and user_data_free runs
 * exactly once. From inside the engine's own callback it takes effect when the callback
 * returns (queued events are dropped). From another thread while a callback of this
 * engine runs it waits for that callback to return: do not call it while holding a lock
 * that the callback takes. The last THREAD engine gone ends the scheduler thread.
 * Returns INACT_OK (also for handle 0, which is a no-op) or INACT_E_INVALID_HANDLE
 * (destroyed, stale or forged handle: nothing happens). Thread: any.
 * Ownership: user_data is freed by user_data_free, exactly once.
 */
INACT_EXPORT int32_t inact_destroy(inact_engine engine);

/**
 * A platform fault the engine survives, made visible. The scheduler thread gets its timer
 * (timerfd, CLOCK_BOOTTIME) when it starts, and a failure then fails inact_engine_create;
 * setting that timer can still fail later (timerfd_settime; not expected with a valid
 * timerfd, but checked). No call fails then and no deadline is lost: the thread wakes at
 * least once a second and decides on the clock it reads, so a THREAD engine's deadline may
 * fire up to 1 s late, never early, until the timer can be set again. Each pointer may be
 * NULL:
 *   out_degraded    1 while the scheduler's last attempt to set its timer failed, else 0;
 *                   it stays 1 until an attempt succeeds, also while nothing is armed or
 *                   after the last THREAD engine is gone (no attempt is made then)
 *   out_failures    failed attempts since the process started (a degraded thread retries
 *                   at every wake-up, so this grows about once a second while a THREAD
 *                   deadline is pending, and not at all while none is)
 *   out_last_errno  the errno of the most recent failure; 0 if none
 * Poll it from a health check or log it; MANUAL-clock and HOST-delivery engines never use
 * the scheduler thread. Returns INACT_OK. Thread: any. Ownership: nothing is kept.
 */
INACT_EXPORT int32_t inact_scheduler_faults(INACT_OUT INACT_NULLABLE INACT_BOOL int32_t *out_degraded,
                                            INACT_OUT INACT_NULLABLE uint64_t *out_failures,
                                            INACT_OUT INACT_NULLABLE int32_t *out_last_errno);

/* ---------------------------------------------------------------------------------
 * Inputs. Each first evaluates every deadline against the clock (catch-up, delivered
 * as one STATE_CHANGED event), then applies the input. An input that the current state
 * does not allow returns INACT_E_INVALID_STATE and changes nothing; an input refused for
 * its argument still delivers the catch-up first. Every input returns
 * INACT_E_INVALID_HANDLE for a bad handle. The transition table (which input does what in
 * which state) is Input.cell(in:) in Sources/InactivityCore/SessionRules.swift and the README's
 * state diagram. Unless a block says otherwise: Ownership: nothing is kept. Thread: any;
 * the events a call causes are delivered on the calling thread before it returns, unless
 * another thread is delivering this engine's events (then that thread delivers them).
 * ------------------------------------------------------------------------------- */

/** Starts a session (signed in). LOADING or EXPIRED -> ACTIVE (STARTED); the absolute
 *  lifetime starts now, unlock failures reset. A sign-in is also a credential verification
 *  (the strong-auth time restarts from now and a biometrics change is cleared) and a
 *  successful server contact (both offline deadlines restart from now; a contact reported
 *  in LOADING before it is superseded), and it starts a new refresh-token family (the newest
 *  generation is 0 again). Returns INACT_OK or INACT_E_INVALID_STATE.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_start(inact_engine engine);

/**
 * Restores a snapshot written by inact_snapshot_write (format 3, 96 bytes), by 1.1 (format
 * 2, 104 bytes: the same fields) or by 1.0 (format 1, 80 bytes: its missing fields read as the
 * credential and the server last seen at the session start). A library refuses a format newer
 * than it knows (_VERSION, EXPIRED): 1.0 and 1.1 refuse format 3, so rolling the library back
 * signs users out and never unlocks. A snapshot of a session that never started (EXPIRED from LOADING) restores
 * with no session start and no credential verification (INACT_NEVER in inact_info); so does
 * one that signed in, ended and was saved within the same millisecond (the bytes are the same).
 * Allowed in LOADING only. With policy.lock_on_restart an ACTIVE or WARNING
 * outcome becomes LOCKED (RESTART), taking effect at the restore. The time since the snapshot
 * counts as background time, and the restore ends it, unless the host reported a background
 * in LOADING (inact_background, inact_device_locked, or every window hidden with the grace
 * still running): then the session stays in background after the restore, one background
 * from the snapshot's background start (or its instant), until inact_foreground or a shown
 * window. Unlock failures counted at or above the engine's policy.max_unlock_failures (a
 * stricter limit than the snapshot's) make a LOCKED outcome EXPIRED (UNLOCK_FAILURES), taking
 * effect at the restore. Elapsed time is trusted only on
 * the same boot with a clock that did not go back; otherwise the engine is LOCKED
 * (UNTRUSTED_CLOCK) at least, EXPIRED when an expiry deadline passed by the wall clock
 * or the wall clock went back (UNTRUSTED_CLOCK). The untrusted clock decides before the lock on
 * restart: after an untrusted restore the reason is UNTRUSTED_CLOCK (or the expiry's), never
 * RESTART. A lock in the snapshot, or one due on the wall-clock estimate,
 * keeps its locked-at time: the locked timeout counts from it, never afresh from the restore.
 * Any expiry deadline (absolute, locked timeout, offline expiry, idle action
 * EXPIRE) that is due on the wall-clock estimate expires the session (fail secure: moving
 * the wall clock forward only makes the outcome stricter); its event time then lies on this
 * clock's timeline extended backwards and may precede this boot (even be negative). A
 * restore into the warning window is WARNING (RESTORED), with or without
 * pause_idle_in_background. Deadlines are applied before it returns, and the host
 * receives one STATE_CHANGED event from LOADING.
 * bytes/length: the snapshot (copied; bytes may be NULL only if length is 0). length: any
 *   size_t; at most 105 bytes are read (the longest format read, 104, and one more). A length other than the
 *   snapshot's is a corrupt snapshot: _TRUNCATED when shorter, _INVALID when longer (up to
 *   SIZE_MAX), _VERSION for another format version whatever the length.
 * Returns INACT_OK; INACT_E_INVALID_STATE (not LOADING; nothing changes);
 * INACT_E_NULL_POINTER; or, for corrupt bytes, INACT_E_SNAPSHOT_TRUNCATED,
 * _CHECKSUM, _VERSION or _INVALID -- and then the engine is EXPIRED (RESTORE_FAILED).
 * Ownership: the bytes are copied; nothing is kept after the call.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_restore(inact_engine engine, INACT_NULLABLE const uint8_t *bytes,
                                   size_t length);

/**
 * Records user activity of one `kind` (a single inact_activity_kind bit). Counted only in
 * ACTIVE (and in WARNING when the policy lets activity dismiss the warning: -> ACTIVE
 * ACTIVITY), not in background, and only for kinds in policy.activity_kinds; otherwise
 * ignored (INACT_OK). Lock-free on the SYSTEM clock when nothing is due.
 * kind: exactly one of the seven defined bits; 0, two bits or any bit above 6 is refused.
 * Returns INACT_OK or INACT_E_INVALID_ARGUMENT (kind is not one known bit).
 * Ownership: nothing is kept.
 * Thread: any; lock-free on the SYSTEM clock when nothing is due, else as every input.
 */
INACT_EXPORT int32_t inact_activity(inact_engine engine, INACT_BITS(inact_activity_kind) uint32_t kind);

/** The user chose Continue. WARNING -> ACTIVE (CONTINUED); last activity = now.
 *  Returns INACT_OK or INACT_E_INVALID_STATE (not WARNING).
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_continue(inact_engine engine);

/** Locks now. ACTIVE/WARNING -> LOCKED (MANUAL_LOCK); in LOCKED a no-op success.
 *  Returns INACT_OK or INACT_E_INVALID_STATE (LOADING, EXPIRED).
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_lock(inact_engine engine);

/** The host verified the user's credential: inact_unlock_with(engine, INACT_AUTH_CREDENTIAL).
 *  Returns as inact_unlock_with.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_unlock(inact_engine engine);

/**
 * The host verified the user with `method` (INACT_AUTH_BIOMETRIC or _CREDENTIAL).
 * LOCKED -> ACTIVE (UNLOCKED); last activity = now; failures 0; the absolute lifetime is
 * unchanged; a CREDENTIAL unlock is a credential verification (the strong-auth time restarts
 * and a biometrics change is cleared). The lock requires the CREDENTIAL when the time since
 * the last credential verification (inact_start or a credential unlock) reached
 * policy.strong_auth_timeout_ms, after inact_biometrics_changed, and after a restore whose
 * elapsed time was not trusted (when the strong-auth timeout is not NEVER).
 * Refused in background once the background timeout has passed (the session would lock
 * again at once, LOCKED to LOCKED with no event, a new reason, locked-at and failure count):
 * report inact_foreground first, then unlock.
 * Returns INACT_OK; INACT_E_INVALID_ARGUMENT (method is not BIOMETRIC or CREDENTIAL);
 * INACT_E_INVALID_STATE (not LOCKED, or in background after the background timeout);
 * INACT_E_OFFLINE (the offline timeout has passed since the
 * last server contact: report one with inact_server_contact first); INACT_E_WEAK_AUTH (a
 * biometric where the credential is required). When several apply, the first in that order
 * is returned: offline and too weak at once is INACT_E_OFFLINE (a contact first, then the
 * lock screen asks for the credential). Every error changes nothing.
 * Ownership: nothing is kept.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_unlock_with(inact_engine engine, INACT_ENUM(inact_auth) int32_t method);

/** A failed credential re-verification: inact_unlock_failed_with(engine, INACT_AUTH_CREDENTIAL, out).
 *  out_failures (may be NULL): the count after this call. Returns as inact_unlock_failed_with.
 *  Ownership: *out_failures is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_unlock_failed(inact_engine engine,
                                         INACT_OUT INACT_NULLABLE uint32_t *out_failures);

/** A re-verification with `method` failed. LOCKED only: failures + 1; at
 *  policy.max_unlock_failures -> EXPIRED (UNLOCK_FAILURES; a limit lowered to the count by
 *  inact_set_policy, inact_set_ceilings or a restore expires at once). A failed attempt counts while
 *  offline too (past the offline timeout, where inact_unlock_with is refused: a wrong PIN is
 *  a wrong PIN), and so does one in background. out_failures (may be NULL): the
 *  count after this call. Returns INACT_OK, INACT_E_INVALID_ARGUMENT (method),
 *  INACT_E_INVALID_STATE, or INACT_E_WEAK_AUTH (a method the lock does not accept: not
 *  counted, nothing changes), the first that applies in that order.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_unlock_failed_with(inact_engine engine, INACT_ENUM(inact_auth) int32_t method,
                                              INACT_OUT INACT_NULLABLE uint32_t *out_failures);

/** The enrolled biometrics changed (a finger or face was added or removed): until the next
 *  credential verification an unlock needs the CREDENTIAL. Kept in a snapshot. Allowed in
 *  every state (in LOADING it is added to what a restore brings; inact_start clears it).
 *  Until then inact_info.strong_auth_deadline_ms reads the last credential verification
 *  (already passed: from then a biometric no longer unlocks), whatever
 *  policy.strong_auth_timeout_ms; INACT_NEVER while there was none (LOADING).
 *  Returns INACT_OK.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_biometrics_changed(inact_engine engine);

/** Writes what an unlock needs now (inact_auth; NONE unless LOCKED).
 *  Returns INACT_OK or INACT_E_NULL_POINTER.
 *  Ownership: *out_auth is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_required_auth(inact_engine engine,
                                             INACT_OUT INACT_ENUM(inact_auth) int32_t *out_auth);

/** Ends the session: any state but EXPIRED -> EXPIRED with `reason` (INACT_REASON_LOGOUT,
 *  _REVOKED, _PASSWORD_CHANGED or _DEVICE_LIMIT); in EXPIRED a no-op success.
 *  Returns INACT_OK or INACT_E_INVALID_ARGUMENT (another reason).
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_end(inact_engine engine, INACT_ENUM(inact_reason) int32_t reason);

/**
 * What another holder of the session observed: another tab of the browser, the app's server
 * (a keepalive's or a request's answer), another process. A holder can only make the session
 * stricter: nothing reported ever unlocks it or moves a deadline later.
 * Time placement: holders do not share this engine's clock (a server's is not even on the
 * same machine), so an instant travels as its age and a deadline as its time left, both
 * relative to the moment of this call, never as an absolute clock value. An instant is
 * now - age, clamped to [L, now]: a claim in the future is now, and one before L is L, where L
 * is the session's start, and for activity the later of that and this engine's own last
 * activity, for a lock or an expiry the later of that and this engine's last change of state
 * (its history since stands; in LOADING, with no session, an expiry takes effect now). A
 * deadline is now + left (saturating).
 * kind: an inact_holder_kind; per kind, in ACTIVE / WARNING / LOCKED / EXPIRED / LOADING:
 *   INACT_HOLDER_ACTIVITY (reason NONE, ms = the activity's age): counted as the user's at its
 *     instant, as local activity of a counted kind (whatever this engine's background: the
 *     holder saw the user); in WARNING it returns to ACTIVE (ACTIVITY) only where the policy
 *     lets activity dismiss the warning, else a no-op; a no-op in LOCKED, EXPIRED, LOADING.
 *     It is user activity for the keepalive (policy.keepalive_interval_ms).
 *   INACT_HOLDER_LOCKED (a LOCKED reason, ms = the lock's age): ACTIVE and WARNING -> LOCKED
 *     with the holder's reason, taking effect (locked-at, time_ms) at its instant; a no-op in
 *     LOCKED and EXPIRED (the strictest wins, and this engine's reason stays); refused in
 *     LOADING (INACT_E_INVALID_STATE).
 *   INACT_HOLDER_EXPIRED (an EXPIRED reason, e.g. DEVICE_LIMIT, ms = its age): every state but
 *     EXPIRED -> EXPIRED with the holder's reason, at its instant; a no-op in EXPIRED.
 *   INACT_HOLDER_IDLE_DEADLINE (reason NONE, ms = time left to the holder's idle action): the
 *     earlier of this engine's idle deadline and the holder's is the idle deadline (the warning
 *     comes policy.warning_ms before it; the idle action is this engine's, IDLE_TIMEOUT), even
 *     while a hold suspends this engine's own; counted activity of this engine after the report
 *     supersedes the adopted one (its own deadline counts again from that activity). In ACTIVE
 *     and WARNING; a no-op in LOCKED and EXPIRED; refused in LOADING.
 *   INACT_HOLDER_ABSOLUTE_DEADLINE (reason NONE, ms = time left to the holder's absolute
 *     expiry): the earlier of the two is the absolute deadline for the rest of the session (until
 *     inact_start). In ACTIVE, WARNING, LOCKED; a no-op in EXPIRED; refused in LOADING.
 * A deadline that has already passed (0 left) applies at once. An adopted deadline is kept in
 * a snapshot as an earlier session start or last activity (docs/design.md, "Other holders").
 * reason: as the kind says (any other value, a reason of another state, is refused).
 * ms: 0 .. 100 years (3 155 760 000 000).
 * Returns INACT_OK; INACT_E_INVALID_ARGUMENT (unknown kind, ms out of range, a reason the kind
 * does not take); INACT_E_INVALID_STATE (LOCKED or a deadline reported in LOADING). Every error
 * changes nothing.
 * Ownership: nothing is kept.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_holder_report(inact_engine engine, INACT_ENUM(inact_holder_kind) int32_t kind,
                                         INACT_ENUM(inact_reason) int32_t reason, INACT_MS int64_t ms);

/**
 * Reports a token refresh result and classifies it into *out_outcome (may be NULL):
 * 2xx -> OK; 401, or 400 with oauth_error "invalid_grant" -> REVOKED, and the session is
 * EXPIRED (REVOKED) unless already EXPIRED; 0 (no network), 408, 429, 5xx -> RETRY; any
 * other status -> FAILED. Only REVOKED changes the engine: a network error never ends a
 * session. Allowed in every state.
 * http_status: 0 for "no response", else 100..599 (any other int32_t is refused).
 * oauth_error: the OAuth "error" field, NUL-terminated, or NULL; compared byte for byte with
 * "invalid_grant" (any length, any encoding).
 * Returns INACT_OK or INACT_E_INVALID_ARGUMENT (http_status out of range).
 * Ownership: oauth_error is read during the call only; *out_outcome is written only on success.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_refresh_result(inact_engine engine, int32_t http_status,
                                          INACT_NULLABLE const char *oauth_error,
                                          INACT_OUT INACT_NULLABLE INACT_ENUM(inact_refresh_outcome)
                                              int32_t *out_outcome);

/**
 * inact_refresh_result for a refresh that used the refresh token of `generation` (the host
 * numbers its refresh tokens 1, 2, 3, ... per sign-in; 0 = not tracked). The outcome table:
 *   2xx                                  -> OK      (a successful server contact)
 *   400 or 401 with "invalid_grant":
 *     generation != 0 and older than the newest rotation -> STALE (a rotation race: another
 *                                            refresh already replaced that token; nothing
 *                                            changes)
 *     otherwise                          -> REVOKED (EXPIRED REVOKED unless already EXPIRED)
 *   401 without "invalid_grant"          -> REVOKED, whatever the generation
 *   0 (no response), 408, 429, 5xx       -> RETRY   (nothing changes)
 *   any other status                     -> FAILED  (nothing changes)
 * The newest rotation is the largest generation reported to inact_token_rotated (kept in a
 * snapshot; inact_start resets it to 0). A result never moves it: fail secure, so that one
 * bogus generation (an uninitialised UINT64_MAX) cannot turn later revocations into STALE.
 * Returns INACT_OK or INACT_E_INVALID_ARGUMENT.
 * Ownership: nothing is kept.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_refresh_result_gen(inact_engine engine, int32_t http_status,
                                              INACT_NULLABLE const char *oauth_error,
                                              uint64_t generation,
                                              INACT_OUT INACT_NULLABLE INACT_ENUM(inact_refresh_outcome)
                                                  int32_t *out_outcome);

/** The host stored a new refresh token of `generation` (a rotation): a later invalid_grant for
 *  an older generation is STALE. Allowed in every state. Returns INACT_OK or
 *  INACT_E_INVALID_ARGUMENT (older than the newest generation seen).
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_token_rotated(inact_engine engine, uint64_t generation);

/** A successful online check (any server call the host trusts, besides a 2xx refresh, which
 *  counts by itself): the offline deadlines restart from now and an unlock refused with
 *  INACT_E_OFFLINE is allowed again. A contact does not unlock by itself. Allowed in every
 *  state. Reported in LOADING it is kept through the following restore and takes effect at its
 *  own instant: the catch-up comes first, so every deadline due up to and including that
 *  instant is applied (an offline lock or expiry that fell due while the process was dead
 *  still applies, also one due at the contact's very instant), then the later of the contact
 *  and the snapshot's last contact counts. The outcome is the same whether the host reports
 *  the contact before or after the restore. inact_start supersedes it (a sign-in is a contact).
 *  Returns INACT_OK.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_server_contact(inact_engine engine);

/** The app went to background: the background time starts now (if not already in
 *  background); while in background activity is ignored. Allowed in every state; reported in
 *  LOADING it is kept through the restore (see inact_restore). Returns INACT_OK.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_background(inact_engine engine);

/** The app came to foreground: background time is judged (LOCKED BACKGROUND_TIMEOUT is
 *  delivered before this returns when it was too long) and background ends. Every state.
 *  Returns INACT_OK.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_foreground(inact_engine engine);

/**
 * A window (an Android activity, a desktop window) became visible. Counting windows lets
 * an activity transition or a rotation hide every window for an instant without counting
 * as background: background takes effect only after policy.background_grace_ms with no
 * window shown, and then dates from the instant the count dropped to 0. Going above 0 is
 * foreground. Allowed in every state. Returns INACT_OK or INACT_E_LIMIT.
 * Ownership: nothing is kept.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_window_shown(inact_engine engine);

/** A window was hidden. When the count drops to 0 the grace starts; an inact_background
 *  during the grace makes background date from the hide.
 *  Returns INACT_OK or INACT_E_INVALID_STATE (no window shown; the message names the count,
 *  "visible windows (0) must be > 0").
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_window_hidden(inact_engine engine);

/**
 * Announces an expected interruption: the app is about to show its own system sheet (photo
 * picker, share sheet, Face ID, a document or payment sheet) that sends it to background for
 * a moment. A background that begins within `max_ms` from now does not lock before the end
 * of that window (then the background timeout counts from the background start as usual):
 * a background that ends in time does not count at all. The window is [now, now + max_ms],
 * both ends included, and the lock takes effect at max(background start + background
 * timeout, now + max_ms): at the end instant itself the lock is due, so a background that
 * begins at the end locks then (at once with a background timeout of 0), and a foreground
 * must come before the end for the background not to count. A policy that lowers
 * policy.expected_interruption_max_ms (inact_set_policy, inact_set_ceilings) shortens a
 * pending announcement at once to its instant + the new cap, also one that already covers a
 * background: a lock it held back past the new end takes effect at that call.
 * Single use: a foreground after such
 * a background consumes it; unused, it lapses at its end. It never suspends the idle,
 * absolute, locked or offline timeouts, and is dropped when the session leaves
 * ACTIVE/WARNING or the device locks. Not kept in a snapshot. max_ms: 1 ..
 * policy.expected_interruption_max_ms, or 0 to withdraw an announcement.
 * Returns INACT_OK; INACT_E_INVALID_ARGUMENT (max_ms < 0 or above the policy cap);
 * INACT_E_INVALID_STATE (not ACTIVE or WARNING, or already in background or its grace).
 * Ownership: nothing is kept.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_expect_interruption(inact_engine engine, INACT_MS int64_t max_ms);

/**
 * The device locked (iOS protected data became unavailable, Android screen off or keyguard).
 * Background starts now (as inact_background; an announced interruption no longer applies),
 * and with policy.lock_on_device_lock an ACTIVE or WARNING session is LOCKED (DEVICE_LOCKED)
 * at once. During a background an announcement covers, the cover ends at once: the
 * background counts from its own start as if never announced, so a background timeout that
 * has already passed locks at this call (BACKGROUND_TIMEOUT, time_ms = now; DEVICE_LOCKED
 * with policy.lock_on_device_lock). In LOADING, LOCKED and EXPIRED it only starts background
 * (never LOCKED from LOADING or EXPIRED). The unlock of the device is reported as a
 * foreground. Allowed in every state.
 * Returns INACT_OK.
 * Ownership: nothing is kept.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_device_locked(inact_engine engine);

/**
 * Opens a scope with a stricter idle timeout (a payment screen at 3 min). The effective
 * idle timeout is the minimum of the policy's and every open scope's. Allowed in every
 * state. idle_timeout_ms: > policy.warning_ms and not above 100 years.
 * out_scope_id: receives an id for inact_scope_pop (never 0).
 * Returns INACT_OK, INACT_E_NULL_POINTER, INACT_E_INVALID_ARGUMENT, INACT_E_LIMIT.
 * Ownership: *out_scope_id is written only on success.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_scope_push(inact_engine engine, INACT_MS int64_t idle_timeout_ms,
                                      INACT_OUT uint64_t *out_scope_id);

/** Closes a scope, in any order. scope_id: any; 0 and unknown ids are INACT_E_NOT_FOUND.
 *  Returns INACT_OK or INACT_E_NOT_FOUND.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_scope_pop(inact_engine engine, uint64_t scope_id);

/**
 * Opens a hold: while any hold is open the idle countdown is suspended (a video plays);
 * background and absolute timeouts still run. In WARNING it returns to ACTIVE (EXTENDED).
 * out_hold_id: receives an id for inact_hold_release (never 0).
 * Returns INACT_OK, INACT_E_NULL_POINTER, INACT_E_LIMIT.
 * Ownership: *out_hold_id is written only on success.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_hold_acquire(inact_engine engine, INACT_OUT uint64_t *out_hold_id);

/** Closes a hold; on the last release last activity = now. hold_id: any; 0 and unknown
 *  ids are INACT_E_NOT_FOUND. Returns INACT_OK or INACT_E_NOT_FOUND.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_hold_release(inact_engine engine, uint64_t hold_id);

/**
 * Replaces the policy (copied) and recomputes every deadline at once. In WARNING the session
 * stays WARNING while the warning deadline is still due under the new policy (the countdown
 * goes on from the new remaining time, on its grid), else returns to ACTIVE (EXTENDED). A
 * max_unlock_failures at or below the failed unlocks already counted (LOCKED) expires the
 * session at once (UNLOCK_FAILURES): the attempts allowed are spent, and a correct unlock no
 * longer opens it. Returns INACT_OK, INACT_E_NULL_POINTER,
 * INACT_E_STRUCT_SIZE, INACT_E_INVALID_ARGUMENT (also when policy.warning_ms is not
 * shorter than an open scope's idle timeout), INACT_E_CEILING (laxer than a managed ceiling
 * set with inact_set_ceilings; the message names the field and the limit).
 * Ownership: the policy is copied; nothing is kept.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_set_policy(inact_engine engine, const inact_policy *policy);

/**
 * Sets the administrator's limits (copied; they replace earlier ones) and makes the engine's
 * current policy as strict as them in every limited field, recomputing deadlines at once (a
 * max_unlock_failures brought to or below the failures counted expires the session at once,
 * as in inact_set_policy). Every later inact_set_policy must be within them. Allowed in every state; not kept in a
 * snapshot (set them again on every engine). Returns INACT_OK, INACT_E_NULL_POINTER,
 * INACT_E_STRUCT_SIZE, INACT_E_INVALID_ARGUMENT (a limit < 0 or above 100 years and not
 * NEVER, a flag not 0/1, or the tightened policy is invalid, e.g. policy.warning_ms no longer
 * shorter than the idle limit: nothing changes).
 * Ownership: nothing is kept.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_set_ceilings(inact_engine engine, const inact_ceilings *ceilings);

/** Writes the engine's ceilings; ceilings->size must be set by the caller.
 *  Returns INACT_OK, INACT_E_NULL_POINTER or INACT_E_STRUCT_SIZE.
 *  Ownership: the caller's struct, written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_ceilings(inact_engine engine, INACT_INOUT inact_ceilings *ceilings);

/* ---------------------------------------------------------------------------------
 * Queries. Each evaluates deadlines first (so it may deliver a catch-up event).
 * ------------------------------------------------------------------------------- */

/** Writes the current inact_state. Returns INACT_OK, INACT_E_NULL_POINTER, _INVALID_HANDLE.
 *  Ownership: *out_state is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_state(inact_engine engine,
                                     INACT_OUT INACT_ENUM(inact_state) int32_t *out_state);

/** Writes the current inact_reason.
 *  Returns INACT_OK or INACT_E_NULL_POINTER.
 *  Ownership: *out_reason is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_reason(inact_engine engine,
                                      INACT_OUT INACT_ENUM(inact_reason) int32_t *out_reason);

/** Writes the ms to the next lock or expiry, or INACT_NEVER if none is scheduled.
 *  Returns INACT_OK or INACT_E_NULL_POINTER.
 *  Ownership: *out_remaining_ms is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_remaining(inact_engine engine, INACT_OUT INACT_MS int64_t *out_remaining_ms);

/**
 * Fills `info` for inact_get_info: sets `size`, state LOADING, reason NONE, every count 0
 * and every time INACT_NEVER.
 * Returns INACT_OK or INACT_E_NULL_POINTER. Ownership: the caller's struct; nothing is kept.
 * Thread: any.
 * A macro calls inact_info_init_sized(info, sizeof(inact_info)); the exported symbol of this
 * name fills the 152-byte 1.1 layout only and sets size 152 (Conventions).
 */
INACT_EXPORT int32_t inact_info_init(INACT_OUT inact_info *info);

/** inact_info_init for a struct of `size` bytes (104 .. 65536), as inact_policy_init_sized:
 *  fills the largest published layout that fits (104 or 152 bytes), zeroes the rest, sets
 *  info->size = size.
 *  Returns INACT_OK, INACT_E_NULL_POINTER or INACT_E_STRUCT_SIZE (nothing written).
 *  Thread: any. Ownership: the caller's struct, only its first `size` bytes. */
INACT_EXPORT int32_t inact_info_init_sized(INACT_OUT inact_info *info, size_t size);

/** Fills `info`; info->size must be set by the caller (sizeof(inact_info)).
 *  Returns INACT_OK, INACT_E_NULL_POINTER or INACT_E_STRUCT_SIZE (info->size below 104 (the
 *  1.0 layout) or above 65536, or a non-zero byte beyond the largest layout (104 or 152) not
 *  above it: Conventions). inact_info_init prepares the struct.
 *  Ownership: the caller's struct, written only on success and only up to that layout
 *  (size is kept as given).
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_info(inact_engine engine, INACT_INOUT inact_info *info);

/** Writes a copy of the engine's policy; policy->size must be set by the caller.
 *  Returns INACT_OK, INACT_E_NULL_POINTER or INACT_E_STRUCT_SIZE (policy->size below 80 (the
 *  1.0 layout) or above 65536, or a non-zero byte beyond the largest layout (80, 120 or 128) not
 *  above it, as for inact_get_info).
 *  Ownership: the caller's struct, written only on success and only up to that layout
 *  (size is kept as given). A policy of the 80-byte layout cannot show the fields added in
 *  1.1: read them with a 120-byte struct.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_policy(inact_engine engine, INACT_INOUT inact_policy *policy);

/* ---------------------------------------------------------------------------------
 * Host-mode delivery. Meant for INACT_DELIVERY_HOST; harmless in THREAD mode.
 * ------------------------------------------------------------------------------- */

/** Writes the ms from now until the engine next needs inact_poll, or INACT_NEVER when nothing
 *  is scheduled. Like every call it first delivers what is already due, so the delay is > 0
 *  when it returns. Arm one timer for it; re-ask after every call that may move deadlines.
 *  With policy.keepalive_interval_ms an activity call may bring it earlier (the first activity
 *  after a quiet interval starts an interval whose end is a deadline): re-ask after activity
 *  too, or never wait longer than the interval.
 *  Returns INACT_OK or INACT_E_NULL_POINTER.
 *  Ownership: *out_delay_ms is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_next_deadline(inact_engine engine, INACT_OUT INACT_MS int64_t *out_delay_ms);

/** Evaluates deadlines now and delivers due events on the calling thread. A poll that
 *  fires early or late is harmless.
 *  Returns INACT_OK.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers on the calling thread (host delivery's one place of delivery). */
INACT_EXPORT int32_t inact_poll(inact_engine engine);

/* ---------------------------------------------------------------------------------
 * Manual clock (INACT_CLOCK_MANUAL engines; others get INACT_E_WRONG_CLOCK).
 * ------------------------------------------------------------------------------- */

/** Moves the monotonic and wall clocks forward by `ms` (>= 0) as on the real clock while the
 *  process lives: the engine wakes at each deadline on the way, so every event (WARNING, each
 *  tick, LOCKED, ...) is delivered inside the call, in time order, at its own time. The cost
 *  is one wake per deadline on the way, one per tick while in WARNING; an engine created
 *  without a callback has no observable tick, so it wakes only at its other deadlines (its
 *  state afterwards is the same).
 *  ms: 0 .. 1000 years minus the clock now. Returns INACT_OK, INACT_E_INVALID_ARGUMENT (ms < 0,
 *  or the clock would pass 1000 years), INACT_E_WRONG_CLOCK.
 *  Ownership: nothing is kept.
 *  Thread: any. Delivers inside the call, in HOST and THREAD delivery alike (a manual-clock
 *  engine never uses the scheduler thread). When a callback destroys the engine during the
 *  advance, the call still returns INACT_OK: the clock moved, the events up to the destroy were
 *  delivered, and the handle is invalid from then on. */
INACT_EXPORT int32_t inact_clock_advance(inact_engine engine, INACT_MS int64_t ms);

/** Moves the monotonic and wall clocks forward by `ms` (>= 0) as for a frozen or suspended
 *  process: nothing is delivered now. The next call into the engine catches up: every due
 *  deadline is applied in time order and the host sees one transition to the final state.
 *  ms: as for inact_clock_advance.
 *  Returns INACT_OK, INACT_E_INVALID_ARGUMENT or INACT_E_WRONG_CLOCK.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers only the catch-up of what was already due. */
INACT_EXPORT int32_t inact_clock_freeze(inact_engine engine, INACT_MS int64_t ms);

/** Moves only the wall clock by `delta_ms` (may be negative: the user set it back; any
 *  int64_t that keeps the wall clock inside int64_t, else INACT_E_INVALID_ARGUMENT).
 *  Nothing decides on the wall clock while the process lives.
 *  Returns INACT_OK, INACT_E_INVALID_ARGUMENT or INACT_E_WRONG_CLOCK.
 *  Ownership: nothing is kept.
 *  Thread: any. */
INACT_EXPORT int32_t inact_clock_jump_wall(inact_engine engine, INACT_MS int64_t delta_ms);

/** Simulates a reboot: a new boot id, the monotonic clock restarts at 0, and the wall
 *  clock moves forward by `downtime_ms` (>= 0; INACT_E_INVALID_ARGUMENT if the wall clock would
 *  overflow). Nothing is delivered. For restore tests.
 *  Returns INACT_OK, INACT_E_INVALID_ARGUMENT or INACT_E_WRONG_CLOCK.
 *  Ownership: nothing is kept.
 *  Thread: any. */
INACT_EXPORT int32_t inact_clock_reboot(inact_engine engine, INACT_MS int64_t downtime_ms);

/** Reads the engine's clock: monotonic ms, wall ms and boot id (each pointer may be NULL).
 *  Works for every clock kind.
 *  Returns INACT_OK.
 *  Ownership: each non-NULL pointer is written.
 *  Thread: any; delivers nothing (the one call on an engine that does not catch up: it only
 *  reads the clock). */
INACT_EXPORT int32_t inact_clock_now(inact_engine engine,
                                     INACT_OUT INACT_NULLABLE INACT_TIME_MS int64_t *out_monotonic_ms,
                                     INACT_OUT INACT_NULLABLE INACT_TIME_MS int64_t *out_wall_ms,
                                     INACT_OUT INACT_NULLABLE uint64_t *out_boot_id);

/* ---------------------------------------------------------------------------------
 * Snapshot. Save one whenever the app goes to background; restore it on cold start.
 * The snapshot is not a secret and not tamper-proof on its own: store it where the
 * platform protects app data.
 * ------------------------------------------------------------------------------- */

/** Upper bound of a snapshot's size in bytes, for every engine and every session. It never
 *  grows within a major version: every 1.x library writes snapshots of at most 96 bytes, the
 *  bound 1.0 gave, so a buffer sized by any 1.x header (1.1's said 128) holds every snapshot
 *  and a host built against 1.0 saves every session. A restore reads longer formats too (see
 *  inact_restore). */
#define INACT_SNAPSHOT_MAX_SIZE 96

/** Writes the size of the engine's snapshot now. Returns INACT_E_INVALID_STATE in LOADING
 *  (no session to save).
 *  Ownership: *out_size is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_snapshot_size(inact_engine engine, INACT_OUT size_t *out_size);

/**
 * Writes the snapshot into `buffer` (capacity bytes) and its length to *out_written.
 * capacity: any size_t (SIZE_MAX for "big enough"); only the snapshot's bytes are written.
 * Returns INACT_OK; INACT_E_NULL_POINTER; INACT_E_BUFFER_TOO_SMALL (nothing written: ask
 * inact_snapshot_size, or use INACT_SNAPSHOT_MAX_SIZE); INACT_E_INVALID_STATE in LOADING.
 * Ownership: the caller's buffer; only the snapshot's bytes are written, and only on success.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_snapshot_write(inact_engine engine, INACT_OUT uint8_t *buffer, size_t capacity,
                                          INACT_OUT size_t *out_written);

/* ---------------------------------------------------------------------------------
 * Server. A server decides for one session per request over the session's stored record,
 * in one call with no engine, no registry, no lock and no thread (docs/design.md, "The
 * server"). The record is a snapshot (format 3, INACT_SNAPSHOT_MAX_SIZE bytes) on the
 * fleet's wall clock: its times are ms since 1970 on the servers' clocks, its instant is
 * the instant of its last write, and a device's snapshot is not a record (nor the reverse).
 * ------------------------------------------------------------------------------- */

/** Fills `decision` for inact_server_decide: sets `size`, state LOADING, reason NONE, every
 *  count 0 and every time INACT_NEVER.
 *  Returns INACT_OK or INACT_E_NULL_POINTER. Ownership: the caller's struct; nothing is kept.
 *  Thread: any.
 *  A macro calls inact_decision_init_sized(decision, sizeof(inact_decision)); the exported
 *  symbol of this name fills the 72-byte 1.3 layout only and sets size 72 (Conventions). */
INACT_EXPORT int32_t inact_decision_init(INACT_OUT inact_decision *decision);

/** inact_decision_init for a struct of `size` bytes (72 .. 65536), as inact_info_init_sized.
 *  Returns INACT_OK, INACT_E_NULL_POINTER or INACT_E_STRUCT_SIZE (nothing written).
 *  Thread: any. Ownership: the caller's struct, only its first `size` bytes. */
INACT_EXPORT int32_t inact_decision_init_sized(INACT_OUT inact_decision *decision, size_t size);

/**
 * Decides `input` over a session's stored record at `now_ms`, under `policy`, and gives the
 * record to store when it changed. The session machine decides, with the rules of an engine
 * (the same tables, deadlines and policy), on the fleet's clock:
 * - The instant decided at is the later of `now_ms` and the record's own instant: a server
 *   whose clock is behind a record judges it at the record's time (it never undoes a lock or
 *   an expiry, never moves a time back, never sees more time left than the record shows); a
 *   server ahead by e decides e later, so each deadline it applies falls at most e early.
 * - The time between two requests is not background: no background, window, device-lock or
 *   offline deadline runs on a server. Idle, warning, locked timeout, absolute lifetime and
 *   unlock failures run as on a device. An unlock needs no server contact (the server is it).
 * - REQUEST is counted activity (the first person-made kind policy.activity_kinds counts; a
 *   policy counting none counts no request); in WARNING it returns to ACTIVE only with
 *   policy.activity_dismisses_warning, as on a device. HOLDER_ACTIVITY, LOCK and END with a
 *   reason other than an ending one are what another holder reports, as inact_holder_report
 *   with an age of arg (activity) or 0 (a lock, an expiry): activity counts at now - arg,
 *   clamped to [the later of the session start and the stored last activity, now]; LOCK locks
 *   an ACTIVE or WARNING session with the reason given (a LOCKED or EXPIRED one stays as it
 *   is); END expires any session not yet EXPIRED with the reason given (an ending reason:
 *   as inact_end). MACHINE changes nothing but what came due; UNLOCK (a credential) returns a LOCKED session to ACTIVE (UNLOCKED);
 *   UNLOCK_FAILED counts a failure, and the policy's max_unlock_failures-th expires it
 *   (UNLOCK_FAILURES). An input the state does not take (UNLOCK of a session that is not
 *   LOCKED) changes nothing and is not an error: the decision gives the state.
 * - Coalescing: activity moves the stored last activity only when it is at least
 *   `precision_ms` newer than the stored one; otherwise nothing is written for it. The
 *   stored value then lags the user's last activity by less than precision_ms, so the idle
 *   deadline falls up to that much earlier, never later.
 * - A record from another policy is judged under `policy` (a failure limit at or below the
 *   failures counted expires a LOCKED record, UNLOCK_FAILURES). A corrupt record, or bytes that
 *   are not a server record, is decided EXPIRED (RESTORE_FAILED), with write = 1 and that
 *   record to store: a session that cannot be trusted needs a sign-in.
 * policy: a valid policy (as inact_engine_create).
 * record/length: the stored record (read, never kept); NULL only for SIGN_IN, whose record is
 *   ignored. length: any size_t; at most 105 bytes are read.
 * now_ms: the server's wall clock, ms since 1970, 0 .. 1000 years.
 * input: an inact_server_input. arg: 0 for SIGN_IN, REQUEST, MACHINE, UNLOCK, UNLOCK_FAILED;
 *   the activity's age (>= 0, any) for HOLDER_ACTIVITY; a LOCKED reason but RESTORED for LOCK;
 *   an EXPIRED reason but RESTORED for END.
 * precision_ms: >= 0 and shorter than policy.idle_timeout_ms - policy.warning_ms.
 * decision: decision->size set by the caller (inact_decision_init), as inact_get_info.
 * out_record/capacity: at least INACT_SNAPSHOT_MAX_SIZE bytes, whatever the decision.
 * out_length: INACT_SNAPSHOT_MAX_SIZE when a record was written (decision->write = 1), else 0.
 * Returns INACT_OK; INACT_E_NULL_POINTER (policy, decision, out_record, out_length, or record
 * for an input other than SIGN_IN); INACT_E_STRUCT_SIZE (policy->size or decision->size);
 * INACT_E_INVALID_ARGUMENT (the policy, input, now_ms, arg or precision_ms, the message naming
 * it and its rule); INACT_E_BUFFER_TOO_SMALL (capacity). On any error nothing is written.
 * Ownership: nothing is kept; the caller's decision and out_record are written on success
 * only, out_record only when decision->write = 1.
 * Thread: any; a function of its arguments alone: it touches no engine and takes no lock (on
 * an error, the message is the calling thread's inact_last_error).
 */
INACT_EXPORT int32_t inact_server_decide(const inact_policy *policy,
                                         INACT_NULLABLE const uint8_t *record, size_t length,
                                         INACT_TIME_MS int64_t now_ms,
                                         INACT_ENUM(inact_server_input) int32_t input, int64_t arg,
                                         INACT_MS int64_t precision_ms,
                                         INACT_INOUT inact_decision *decision,
                                         INACT_OUT uint8_t *out_record, size_t capacity,
                                         INACT_OUT size_t *out_length);

/** The size of a prepared policy (inact_server_policy_prepare): a caller's block of bytes. */
#define INACT_SERVER_POLICY_SIZE 256

/**
 * Validates `policy` once and writes it into `prepared`, a block of the caller's, for
 * inact_server_decide_prepared: a server that decides request after request under one policy
 * then does not validate and convert the policy on every call. The block holds the policy's
 * values, a magic, a layout version and a check word, and nothing that points anywhere: it may
 * be copied, shared between threads (read only) and kept as long as the caller likes, but not
 * across library versions (a block of another layout is refused; prepare it again).
 * policy: as inact_server_decide.
 * prepared/capacity: at least INACT_SERVER_POLICY_SIZE bytes, any alignment.
 * Returns INACT_OK; INACT_E_NULL_POINTER (policy, prepared); INACT_E_STRUCT_SIZE
 * (policy->size); INACT_E_INVALID_ARGUMENT (the policy, the message naming the field and its
 * rule; capacity below INACT_SERVER_POLICY_SIZE, the message naming prepared). On any error
 * nothing is written.
 * Ownership: the caller's block; the first INACT_SERVER_POLICY_SIZE bytes are written, on
 * success only. Nothing is kept.
 * Thread: any; a function of its arguments alone.
 */
INACT_EXPORT int32_t inact_server_policy_prepare(const inact_policy *policy, void *prepared, size_t capacity);

/**
 * inact_server_decide under a policy prepared by inact_server_policy_prepare: the same
 * arguments, the prepared block in place of the policy, and the same decision, record and
 * errors as inact_server_decide gives under that policy. The block is checked on every call
 * (its magic, layout version and check word, and each value's range): a block that was not
 * prepared, was changed since, or is of another layout is refused with
 * INACT_E_INVALID_ARGUMENT, the message naming `prepared`, and nothing is decided. The check
 * word finds corruption; it is not a signature.
 * prepared: INACT_SERVER_POLICY_SIZE bytes written by inact_server_policy_prepare (read, never
 *   kept or written).
 * Returns as inact_server_decide, with INACT_E_NULL_POINTER and INACT_E_INVALID_ARGUMENT naming
 * prepared where it names the policy.
 * Ownership: as inact_server_decide; the block is only read.
 * Thread: as inact_server_decide (any; one block may serve every thread at once).
 */
INACT_EXPORT int32_t inact_server_decide_prepared(const void *prepared,
                                                  INACT_NULLABLE const uint8_t *record, size_t length,
                                                  INACT_TIME_MS int64_t now_ms,
                                                  INACT_ENUM(inact_server_input) int32_t input, int64_t arg,
                                                  INACT_MS int64_t precision_ms,
                                                  INACT_INOUT inact_decision *decision,
                                                  INACT_OUT uint8_t *out_record, size_t capacity,
                                                  INACT_OUT size_t *out_length);

/* ---------------------------------------------------------------------------------
 * Sized init calls. A program compiled against this header passes the size of its own
 * structs (Conventions): these macros are defined after every declaration, so the plain
 * symbols above stay declared (and reachable as (inact_policy_init)(p) or by address) with
 * the frozen layout of the release that added them.
 * ------------------------------------------------------------------------------- */
#define inact_policy_init(policy) inact_policy_init_sized((policy), sizeof(inact_policy))
#define inact_policy_preset(policy, preset) \
    inact_policy_preset_sized((policy), sizeof(inact_policy), (preset))
#define inact_ceilings_init(ceilings) inact_ceilings_init_sized((ceilings), sizeof(inact_ceilings))
#define inact_config_init(config) inact_config_init_sized((config), sizeof(inact_config))
#define inact_info_init(info) inact_info_init_sized((info), sizeof(inact_info))
#define inact_decision_init(decision) inact_decision_init_sized((decision), sizeof(inact_decision))

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INACTIVITY_H */
