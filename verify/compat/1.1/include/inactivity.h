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
 * - Every function's doc block ends with Returns (every status it can return besides
 *   INACT_E_INVALID_HANDLE for a bad handle), Ownership (what the library keeps of what it
 *   is given, and what it gives) and Thread (where it may be called, where it delivers).
 * - Durations and times are int64_t milliseconds. INACT_NEVER (INT64_MAX) means "never"
 *   for a timeout and "no deadline" for a query. Deadline arithmetic saturates.
 * - Booleans are int32_t 0/1. No variadic functions.
 * - Structs that cross the boundary start with `uint32_t size`. Callers set it to
 *   sizeof(the struct) (the init functions do this), so a caller built against an older
 *   header keeps working when fields are added. Accepted sizes: every published layout
 *   of the struct, from its first (1.0) one to this version's, and larger sizes whose
 *   bytes beyond this version's struct are all zero. Published sizes: inact_policy 80
 *   (1.0) and 120; inact_info 104 (1.0) and 152; inact_config 40; inact_ceilings 80
 *   (added after 1.0); inact_event 56 (written by the library). An input struct of an
 *   older layout is read up to its size, and the fields beyond it take the values its
 *   init function fills (the defaults); an output struct is written up to its size only,
 *   not one byte beyond. Any other size (below the first layout, between two layouts,
 *   above 65536) is rejected with INACT_E_STRUCT_SIZE.
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
 * - Struct sizes (uint32_t size): a published layout's size, or sizeof(the struct) .. 65536
 *   (with a zero tail, as above); anything else INACT_E_STRUCT_SIZE, and no byte past the
 *   caller's size is read or written.
 *
 * ## Threading
 * Every function may be called from any thread, at any time, including from inside the
 * engine's own callback. inact_activity is lock-free on the system clock (a clock read
 * and an atomic compare-and-swap); other calls take a short per-engine lock. Callbacks
 * are never invoked while an internal lock is held, are serialized per engine and
 * arrive in order. An event caused by a call is delivered on the calling thread before
 * the call returns, unless another thread is delivering that engine's events at that
 * moment (then that thread delivers it next). A call made from inside a callback queues
 * its events; they are delivered after the callback returns (no recursion).
 * After fork() the child may go on using the library, THREAD engines included (the child
 * starts its own scheduler thread at its first THREAD engine or deadline), provided no other
 * thread was inside a library call at the fork.
 *
 * ## Handles
 * An engine is named by an inact_engine, a 64-bit id with a generation. 0 is never a
 * valid handle. A destroyed, stale or forged handle is rejected with
 * INACT_E_INVALID_HANDLE and never touches freed memory, so a garbage-collected binding
 * may double-close or close after finalize without harm.
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
 * Version. Same major version = ABI compatible (the SONAME is libinactivity.so.<major>).
 * The minor version grows when functions, values or larger structs are added (a program
 * built against an older header of the same major keeps working); the patch version when
 * behaviour is fixed without an addition; the major version only when the ABI breaks.
 * inact_version_number() returns the library's INACT_VERSION_NUMBER; bindings compare it
 * with the header they were built for.
 * The Python and Kotlin bindings state the same version (scripts/test-packaging checks).
 * ------------------------------------------------------------------------------- */
#define INACT_VERSION_MAJOR 1
#define INACT_VERSION_MINOR 1
#define INACT_VERSION_PATCH 0
#define INACT_VERSION_STRING "1.1.0"
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
    INACT_REASON_RESTART = 22            /* LOCKED: a cold start with policy.lock_on_restart */
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
    INACT_EVENT_TICK = 2           /* a countdown tick while in WARNING */
} inact_event_kind;

/** How timer-caused events are delivered (inact_config.delivery). */
typedef enum inact_delivery {
    INACT_DELIVERY_THREAD = 0, /* one process-wide scheduler thread serves every engine */
    INACT_DELIVERY_HOST = 1    /* no thread: the host calls inact_next_deadline / inact_poll */
} inact_delivery;

/** Which clock an engine reads (inact_config.clock). */
typedef enum inact_clock_kind {
    INACT_CLOCK_SYSTEM = 0, /* CLOCK_BOOTTIME: counts deep sleep, cannot be set */
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

/* ---------------------------------------------------------------------------------
 * Structs
 * ------------------------------------------------------------------------------- */

/** A session policy. Fill it with inact_policy_init or inact_policy_preset, then edit. */
typedef struct inact_policy {
    uint32_t size;                  /* sizeof(inact_policy) */
    int32_t idle_action;            /* inact_idle_action; default LOCK */
    int64_t idle_timeout_ms;        /* no counted activity this long -> idle action; > 0; default 15 min */
    int64_t warning_ms;             /* WARNING this long before the idle action; 0 = none; < idle; default 30 s */
    int64_t background_timeout_ms;  /* in background this long -> LOCKED; 0 = at once; NEVER = off; default 60 s */
    int64_t absolute_timeout_ms;    /* this long after start -> EXPIRED; NEVER = off; default 12 h */
    int64_t locked_timeout_ms;      /* LOCKED this long -> EXPIRED; NEVER = off; default NEVER */
    int64_t tick_ms;                /* countdown tick period in WARNING; 0 = no ticks; default 1 s */
    int64_t background_grace_ms;    /* all windows hidden this long -> background; default 700 ms */
    uint32_t activity_kinds;        /* inact_activity_kind bits that count; default INACT_ACTIVITY_USER */
    uint32_t max_unlock_failures;   /* failed unlocks in a row -> EXPIRED; 0 = unlimited; default 0 */
    int32_t activity_dismisses_warning; /* 0/1: activity in WARNING returns to ACTIVE; default 0 */
    int32_t pause_idle_in_background;   /* 0/1: the idle countdown stops in background; default 0 */
    int32_t lock_on_device_lock;        /* 0/1: inact_device_locked -> LOCKED (DEVICE_LOCKED); default 0 */
    int32_t lock_on_restart;            /* 0/1: every restore is LOCKED (RESTART) at least; default 0 */
    int64_t strong_auth_timeout_ms;     /* since the last credential verification this long -> a
                                           biometric no longer unlocks; 0 = always the credential;
                                           NEVER = off; default NEVER */
    int64_t expected_interruption_max_ms; /* longest inact_expect_interruption; 0 = refused; finite;
                                             default 60 s */
    int64_t offline_timeout_ms;         /* no server contact this long -> LOCKED (OFFLINE_TIMEOUT),
                                           unlock refused until a contact; > 0; NEVER = off; default NEVER */
    int64_t offline_expiry_ms;          /* no server contact this long -> EXPIRED (OFFLINE_EXPIRY);
                                           > 0; NEVER = off; default NEVER */
} inact_policy;

/**
 * An administrator's limits (MDM managed configuration, an organisation maximum) set on an
 * engine with inact_set_ceilings. Every policy applied to the engine afterwards must be at
 * least as strict in every limited field, else INACT_E_CEILING naming the field and the limit.
 * Durations: INACT_NEVER = no limit; a policy's NEVER (off) exceeds every finite limit.
 * Fill it with inact_ceilings_init (no limits), then edit. Not part of a snapshot.
 */
typedef struct inact_ceilings {
    uint32_t size;                      /* sizeof(inact_ceilings) */
    uint32_t max_unlock_failures;       /* 0 = no limit; else the policy's must be 1..this */
    int64_t idle_timeout_ms;
    int64_t background_timeout_ms;
    int64_t absolute_timeout_ms;
    int64_t locked_timeout_ms;
    int64_t strong_auth_timeout_ms;
    int64_t expected_interruption_max_ms;
    int64_t offline_timeout_ms;
    int64_t offline_expiry_ms;
    int32_t lock_on_device_lock;        /* 0/1: 1 = the policy must set it */
    int32_t lock_on_restart;            /* 0/1: 1 = the policy must set it */
} inact_ceilings;

/** How an engine is created. Fill it with inact_config_init, then edit. */
typedef struct inact_config {
    uint32_t size;             /* sizeof(inact_config) */
    int32_t delivery;          /* inact_delivery; default THREAD */
    int32_t clock;             /* inact_clock_kind; default SYSTEM */
    int32_t reserved0;         /* must be 0 */
    int64_t manual_start_ms;   /* manual clock: initial monotonic time, 0..100 years; default 0 */
    int64_t manual_wall_ms;    /* manual clock: initial wall time (ms since 1970), any; default 1.7e12 */
    uint64_t manual_boot_id;   /* manual clock: initial boot id, any but 0; default 1 */
} inact_config;

/** An event passed to the callback. Valid only during the callback. */
typedef struct inact_event {
    uint32_t size;          /* sizeof(inact_event) as built into the library */
    int32_t kind;           /* inact_event_kind */
    int32_t state;          /* inact_state after the event */
    int32_t previous_state; /* inact_state the host saw before (== state for a tick) */
    int32_t reason;         /* inact_reason of the current state */
    int32_t required_auth;  /* inact_auth an unlock needs at now_ms (NONE unless LOCKED) */
    int64_t remaining_ms;   /* ms from `now_ms` to the next lock or expiry; INACT_NEVER if none */
    int64_t time_ms;        /* when it took effect (the deadline applied), engine clock */
    int64_t now_ms;         /* when it was evaluated, engine clock (>= time_ms) */
    inact_engine engine;    /* the engine it comes from */
} inact_event;

/** A full view of an engine (inact_get_info). Times are engine-clock ms. */
typedef struct inact_info {
    uint32_t size;                     /* sizeof(inact_info); set by the caller */
    int32_t state;                     /* inact_state */
    int32_t reason;                    /* inact_reason */
    int32_t delivery;                  /* inact_delivery */
    int32_t clock;                     /* inact_clock_kind */
    int32_t in_background;             /* 0/1: background is in effect */
    int32_t visible_windows;           /* windows shown and not hidden */
    int32_t open_scopes;               /* scopes pushed and not popped */
    int32_t open_holds;                /* holds acquired and not released */
    uint32_t unlock_failures;          /* failed unlocks in a row */
    int64_t now_ms;                    /* the engine clock now */
    int64_t remaining_ms;              /* to the next lock or expiry; INACT_NEVER if none */
    int64_t next_deadline_ms;          /* next instant the engine must be evaluated; INACT_NEVER */
    int64_t effective_idle_timeout_ms; /* min of the policy's and every open scope's */
    int64_t started_at_ms;             /* session start; INACT_NEVER if none */
    int64_t last_activity_ms;          /* last counted activity; INACT_NEVER if none */
    int64_t background_since_ms;       /* background start; INACT_NEVER if not in background */
    int64_t locked_at_ms;              /* when LOCKED was entered; INACT_NEVER if not locked */
    int32_t required_auth;             /* inact_auth an unlock needs now (NONE unless LOCKED) */
    int32_t needs_server_contact;      /* 0/1: LOCKED past the offline timeout: unlock is refused */
    int64_t last_credential_ms;        /* last credential verification; INACT_NEVER if none */
    int64_t strong_auth_deadline_ms;   /* from then a biometric no longer unlocks; INACT_NEVER if never */
    int64_t last_server_contact_ms;    /* last successful server contact; INACT_NEVER if none */
    uint64_t token_generation;         /* newest rotated refresh-token generation; 0 if none */
    int64_t interruption_until_ms;     /* end of an announced expected interruption; INACT_NEVER */
} inact_info;

/* ---------------------------------------------------------------------------------
 * Callbacks
 * ------------------------------------------------------------------------------- */

/**
 * Receives the engine's events. `event` is valid only during the call. It may call any
 * inact_ function, including on its own engine (its events are delivered after it
 * returns) and inact_destroy (takes effect when it returns).
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

/** Returns the library's version string ("1.1.0"); static, never NULL. Thread: any.
 *  Ownership: a static string; never free it. */
INACT_EXPORT const char *inact_version_string(void);

/**
 * Returns a static English description of `status`, never NULL ("unknown status" for a
 * value outside the table). Thread: any.
 * Ownership: a static string; never free it.
 */
INACT_EXPORT const char *inact_status_string(int32_t status);

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

/* ---------------------------------------------------------------------------------
 * Policy
 * ------------------------------------------------------------------------------- */

/**
 * Fills `policy` with the defaults: idle 15 min, warning 30 s, idle action LOCK,
 * background 60 s, absolute 12 h, locked NEVER, max unlock failures 0, tick 1 s,
 * background grace 700 ms, activity kinds INACT_ACTIVITY_USER, dismiss 0, pause 0,
 * lock on device lock 0, lock on restart 0, strong auth NEVER, expected interruption max
 * 60 s, offline timeout NEVER, offline expiry NEVER; and sets `size`. Returns INACT_OK or INACT_E_NULL_POINTER. Thread: any.
 * Ownership: the caller's struct; nothing is kept.
 */
INACT_EXPORT int32_t inact_policy_init(inact_policy *policy);

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
 * Returns INACT_OK, INACT_E_NULL_POINTER, or INACT_E_INVALID_ARGUMENT (unknown preset;
 * `policy` unchanged). Thread: any.
 * Ownership: the caller's struct; nothing is kept.
 */
INACT_EXPORT int32_t inact_policy_preset(inact_policy *policy, int32_t preset);

/**
 * Checks `policy` without using it. Rejects: a wrong size; durations < 0; idle or absolute
 * timeout 0; INACT_NEVER for warning, tick or grace;
 * warning >= idle timeout; unknown idle action; unknown activity-kind bits; booleans other
 * than 0/1; offline timeout or expiry 0; INACT_NEVER for expected_interruption_max_ms;
 * and any value whose deadline arithmetic would overflow (a finite duration
 * above 100 years). Returns INACT_OK or the error, with inact_last_error naming the field.
 * Thread: any.
 * Ownership: read during the call only; nothing is kept.
 */
INACT_EXPORT int32_t inact_policy_validate(const inact_policy *policy);

/** Fills `ceilings` with "no limit" in every field and sets `size`.
 *  Returns INACT_OK or INACT_E_NULL_POINTER. Thread: any.
 *  Ownership: nothing is kept. */
INACT_EXPORT int32_t inact_ceilings_init(inact_ceilings *ceilings);

/* ---------------------------------------------------------------------------------
 * Lifecycle
 * ------------------------------------------------------------------------------- */

/**
 * Fills `config` with the defaults (THREAD delivery, SYSTEM clock, manual clock at
 * 0 ms, wall 1 700 000 000 000 ms, boot id 1) and sets `size`.
 * Returns INACT_OK or INACT_E_NULL_POINTER. Thread: any.
 * Ownership: the caller's struct; nothing is kept.
 */
INACT_EXPORT int32_t inact_config_init(inact_config *config);

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
 * reads "scheduler thread: CALL failed: TEXT (errno N)", the form the Python and Kotlin
 * bindings read their errno from). Then nothing is created, the engines that exist are untouched and
 * the next create tries again.
 * Ownership: on success the engine owns `user_data` (freed by user_data_free at destroy);
 * on failure nothing is kept, the callback is never called and user_data_free is not
 * called. Thread: any. A THREAD engine on the SYSTEM clock starts the scheduler thread if
 * it is not running. A MANUAL-clock engine never uses the scheduler thread: its timed
 * events are delivered inside inact_clock_advance.
 */
INACT_EXPORT int32_t inact_engine_create(const inact_config *config, const inact_policy *policy,
                                         inact_callback callback, void *user_data,
                                         inact_user_data_free user_data_free,
                                         inact_engine *out_engine);

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
INACT_EXPORT int32_t inact_scheduler_faults(int32_t *out_degraded, uint64_t *out_failures,
                                            int32_t *out_last_errno);

/* ---------------------------------------------------------------------------------
 * Inputs. Each first evaluates every deadline against the clock (catch-up, delivered
 * as one STATE_CHANGED event), then applies the input. An input that the current state
 * does not allow returns INACT_E_INVALID_STATE and changes nothing; an input refused for
 * its argument still delivers the catch-up first. Every input returns
 * INACT_E_INVALID_HANDLE for a bad handle. The transition table (which input does what in
 * which state) is Input.rule in Sources/InactivityCore/SessionMachine.swift and the README's
 * state diagram. Unless a block says otherwise: Ownership: nothing is kept. Thread: any;
 * the events a call causes are delivered on the calling thread before it returns, unless
 * another thread is delivering this engine's events (then that thread delivers them).
 * ------------------------------------------------------------------------------- */

/** Starts a session (signed in). LOADING or EXPIRED -> ACTIVE (STARTED); the absolute
 *  lifetime starts now, unlock failures reset. Returns INACT_OK or INACT_E_INVALID_STATE.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_start(inact_engine engine);

/**
 * Restores a snapshot written by inact_snapshot_write (format 2, or format 1 of earlier
 * versions: its missing fields read as the credential and the server last seen at the
 * session start). A snapshot of a session that never started (EXPIRED from LOADING) restores
 * with no session start and no credential verification (INACT_NEVER in inact_info); so does
 * one that signed in, ended and was saved within the same millisecond (the bytes are the same).
 * Allowed in LOADING only. With policy.lock_on_restart an ACTIVE or WARNING
 * outcome becomes LOCKED (RESTART). The time since the snapshot counts as background time. Elapsed time is trusted only on
 * the same boot with a clock that did not go back; otherwise the engine is LOCKED
 * (UNTRUSTED_CLOCK) at least, EXPIRED when the absolute lifetime passed by the wall clock
 * or the wall clock went back. A lock in the snapshot, or one due on the wall-clock estimate,
 * keeps its locked-at time: the locked timeout counts from it, never afresh from the restore. Any expiry deadline (absolute, locked timeout, idle action
 * EXPIRE) that is due on the wall-clock estimate expires the session (fail secure: moving
 * the wall clock forward only makes the outcome stricter); its event time then lies on this
 * clock's timeline extended backwards and may precede this boot (even be negative). A
 * restore into the warning window is WARNING (RESTORED), with or without
 * pause_idle_in_background. Deadlines are applied before it returns, and the host
 * receives one STATE_CHANGED event from LOADING.
 * bytes/length: the snapshot (copied; bytes may be NULL only if length is 0). length: any
 *   size_t; at most INACT_SNAPSHOT_MAX_SIZE + 1 bytes are read. A length other than the
 *   snapshot's is a corrupt snapshot: _TRUNCATED when shorter, _INVALID when longer (up to
 *   SIZE_MAX), _VERSION for another format version whatever the length.
 * Returns INACT_OK; INACT_E_INVALID_STATE (not LOADING; nothing changes);
 * INACT_E_NULL_POINTER; or, for corrupt bytes, INACT_E_SNAPSHOT_TRUNCATED,
 * _CHECKSUM, _VERSION or _INVALID -- and then the engine is EXPIRED (RESTORE_FAILED).
 * Ownership: the bytes are copied; nothing is kept after the call.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_restore(inact_engine engine, const uint8_t *bytes, size_t length);

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
INACT_EXPORT int32_t inact_activity(inact_engine engine, uint32_t kind);

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
 * biometric where the credential is required). Every error changes nothing.
 * Ownership: nothing is kept.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_unlock_with(inact_engine engine, int32_t method);

/** A failed credential re-verification: inact_unlock_failed_with(engine, INACT_AUTH_CREDENTIAL, out).
 *  Returns as inact_unlock_failed_with.
 *  Ownership: *out_failures is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_unlock_failed(inact_engine engine, uint32_t *out_failures);

/** A re-verification with `method` failed. LOCKED only: failures + 1; at
 *  policy.max_unlock_failures -> EXPIRED (UNLOCK_FAILURES). out_failures (may be NULL): the
 *  count after this call. Returns INACT_OK, INACT_E_INVALID_ARGUMENT (method),
 *  INACT_E_INVALID_STATE, or INACT_E_WEAK_AUTH (a method the lock does not accept: not
 *  counted, nothing changes).
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_unlock_failed_with(inact_engine engine, int32_t method, uint32_t *out_failures);

/** The enrolled biometrics changed (a finger or face was added or removed): until the next
 *  credential verification an unlock needs the CREDENTIAL. Kept in a snapshot. Allowed in
 *  every state (in LOADING it is added to what a restore brings; inact_start clears it).
 *  Returns INACT_OK.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_biometrics_changed(inact_engine engine);

/** Writes what an unlock needs now (inact_auth; NONE unless LOCKED).
 *  Returns INACT_OK or INACT_E_NULL_POINTER.
 *  Ownership: *out_auth is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_required_auth(inact_engine engine, int32_t *out_auth);

/** Ends the session: any state but EXPIRED -> EXPIRED with `reason` (INACT_REASON_LOGOUT,
 *  _REVOKED or _PASSWORD_CHANGED); in EXPIRED a no-op success.
 *  Returns INACT_OK or INACT_E_INVALID_ARGUMENT (another reason).
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_end(inact_engine engine, int32_t reason);

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
                                          const char *oauth_error, int32_t *out_outcome);

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
                                              const char *oauth_error, uint64_t generation,
                                              int32_t *out_outcome);

/** The host stored a new refresh token of `generation` (a rotation): a later invalid_grant for
 *  an older generation is STALE. Allowed in every state. Returns INACT_OK or
 *  INACT_E_INVALID_ARGUMENT (older than the newest generation seen).
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_token_rotated(inact_engine engine, uint64_t generation);

/** A successful online check (any server call the host trusts, besides a 2xx refresh, which
 *  counts by itself): the offline deadlines restart from now and an unlock refused with
 *  INACT_E_OFFLINE is allowed again. Allowed in every state (kept through a restore from
 *  LOADING).
 *  Returns INACT_OK.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_server_contact(inact_engine engine);

/** The app went to background: the background time starts now (if not already in
 *  background); while in background activity is ignored. Allowed in every state.
 *  Returns INACT_OK.
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
 * a background that ends in time does not count at all. Single use: a foreground after such
 * a background consumes it; unused, it lapses at its end. It never suspends the idle,
 * absolute, locked or offline timeouts, and is dropped when the session leaves
 * ACTIVE/WARNING or the device locks. Not kept in a snapshot. max_ms: 1 ..
 * policy.expected_interruption_max_ms, or 0 to withdraw an announcement.
 * Returns INACT_OK; INACT_E_INVALID_ARGUMENT (max_ms < 0 or above the policy cap);
 * INACT_E_INVALID_STATE (not ACTIVE or WARNING, or already in background or its grace).
 * Ownership: nothing is kept.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_expect_interruption(inact_engine engine, int64_t max_ms);

/**
 * The device locked (iOS protected data became unavailable, Android screen off or keyguard).
 * Background starts now (as inact_background; an announced interruption no longer applies),
 * and with policy.lock_on_device_lock an ACTIVE or WARNING session is LOCKED (DEVICE_LOCKED)
 * at once. The unlock of the device is reported as a foreground. Allowed in every state.
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
INACT_EXPORT int32_t inact_scope_push(inact_engine engine, int64_t idle_timeout_ms,
                                      uint64_t *out_scope_id);

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
INACT_EXPORT int32_t inact_hold_acquire(inact_engine engine, uint64_t *out_hold_id);

/** Closes a hold; on the last release last activity = now. hold_id: any; 0 and unknown
 *  ids are INACT_E_NOT_FOUND. Returns INACT_OK or INACT_E_NOT_FOUND.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_hold_release(inact_engine engine, uint64_t hold_id);

/**
 * Replaces the policy (copied) and recomputes every deadline at once. In WARNING the session
 * stays WARNING while the warning deadline is still due under the new policy (the countdown
 * goes on from the new remaining time, on its grid), else returns to ACTIVE (EXTENDED). Returns INACT_OK, INACT_E_NULL_POINTER,
 * INACT_E_STRUCT_SIZE, INACT_E_INVALID_ARGUMENT (also when policy.warning_ms is not
 * shorter than an open scope's idle timeout), INACT_E_CEILING (laxer than a managed ceiling
 * set with inact_set_ceilings; the message names the field and the limit).
 * Ownership: the policy is copied; nothing is kept.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_set_policy(inact_engine engine, const inact_policy *policy);

/**
 * Sets the administrator's limits (copied; they replace earlier ones) and makes the engine's
 * current policy as strict as them in every limited field, recomputing deadlines at once.
 * Every later inact_set_policy must be within them. Allowed in every state; not kept in a
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
INACT_EXPORT int32_t inact_get_ceilings(inact_engine engine, inact_ceilings *ceilings);

/* ---------------------------------------------------------------------------------
 * Queries. Each evaluates deadlines first (so it may deliver a catch-up event).
 * ------------------------------------------------------------------------------- */

/** Writes the current inact_state. Returns INACT_OK, INACT_E_NULL_POINTER, _INVALID_HANDLE.
 *  Ownership: *out_state is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_state(inact_engine engine, int32_t *out_state);

/** Writes the current inact_reason.
 *  Returns INACT_OK or INACT_E_NULL_POINTER.
 *  Ownership: *out_reason is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_reason(inact_engine engine, int32_t *out_reason);

/** Writes the ms to the next lock or expiry, or INACT_NEVER if none is scheduled.
 *  Returns INACT_OK or INACT_E_NULL_POINTER.
 *  Ownership: *out_remaining_ms is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_remaining(inact_engine engine, int64_t *out_remaining_ms);

/**
 * Fills `info` for inact_get_info: sets `size`, state LOADING, reason NONE, every count 0
 * and every time INACT_NEVER.
 * Returns INACT_OK or INACT_E_NULL_POINTER. Ownership: the caller's struct; nothing is kept.
 * Thread: any.
 */
INACT_EXPORT int32_t inact_info_init(inact_info *info);

/** Fills `info`; info->size must be set by the caller (sizeof(inact_info)).
 *  Returns INACT_OK, INACT_E_NULL_POINTER or INACT_E_STRUCT_SIZE (info->size neither 104
 *  (the 1.0 layout) nor 152 .. 65536, or larger with non-zero bytes beyond this version's
 *  struct). inact_info_init prepares the struct.
 *  Ownership: the caller's struct, written only on success and only up to info->size
 *  (size is kept as given).
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_info(inact_engine engine, inact_info *info);

/** Writes a copy of the engine's policy; policy->size must be set by the caller.
 *  Returns INACT_OK, INACT_E_NULL_POINTER or INACT_E_STRUCT_SIZE (policy->size neither 80
 *  (the 1.0 layout) nor 120 .. 65536, or larger with a non-zero tail, as for inact_get_info).
 *  Ownership: the caller's struct, written only on success and only up to policy->size
 *  (size is kept as given).
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_get_policy(inact_engine engine, inact_policy *policy);

/* ---------------------------------------------------------------------------------
 * Host-mode delivery. Meant for INACT_DELIVERY_HOST; harmless in THREAD mode.
 * ------------------------------------------------------------------------------- */

/** Writes the ms from now until the engine next needs inact_poll, or INACT_NEVER when nothing
 *  is scheduled. Like every call it first delivers what is already due, so the delay is > 0
 *  when it returns. Arm one timer for it; re-ask after every call that may move deadlines.
 *  Returns INACT_OK or INACT_E_NULL_POINTER.
 *  Ownership: *out_delay_ms is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_next_deadline(inact_engine engine, int64_t *out_delay_ms);

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
INACT_EXPORT int32_t inact_clock_advance(inact_engine engine, int64_t ms);

/** Moves the monotonic and wall clocks forward by `ms` (>= 0) as for a frozen or suspended
 *  process: nothing is delivered now. The next call into the engine catches up: every due
 *  deadline is applied in time order and the host sees one transition to the final state.
 *  ms: as for inact_clock_advance.
 *  Returns INACT_OK, INACT_E_INVALID_ARGUMENT or INACT_E_WRONG_CLOCK.
 *  Ownership: nothing is kept.
 *  Thread: any; delivers only the catch-up of what was already due. */
INACT_EXPORT int32_t inact_clock_freeze(inact_engine engine, int64_t ms);

/** Moves only the wall clock by `delta_ms` (may be negative: the user set it back; any
 *  int64_t that keeps the wall clock inside int64_t, else INACT_E_INVALID_ARGUMENT).
 *  Nothing decides on the wall clock while the process lives.
 *  Returns INACT_OK, INACT_E_INVALID_ARGUMENT or INACT_E_WRONG_CLOCK.
 *  Ownership: nothing is kept.
 *  Thread: any. */
INACT_EXPORT int32_t inact_clock_jump_wall(inact_engine engine, int64_t delta_ms);

/** Simulates a reboot: a new boot id, the monotonic clock restarts at 0, and the wall
 *  clock moves forward by `downtime_ms` (>= 0; INACT_E_INVALID_ARGUMENT if the wall clock would
 *  overflow). Nothing is delivered. For restore tests.
 *  Returns INACT_OK, INACT_E_INVALID_ARGUMENT or INACT_E_WRONG_CLOCK.
 *  Ownership: nothing is kept.
 *  Thread: any. */
INACT_EXPORT int32_t inact_clock_reboot(inact_engine engine, int64_t downtime_ms);

/** Reads the engine's clock: monotonic ms, wall ms and boot id (each pointer may be NULL).
 *  Works for every clock kind.
 *  Returns INACT_OK.
 *  Ownership: each non-NULL pointer is written.
 *  Thread: any; delivers nothing (the one call on an engine that does not catch up: it only
 *  reads the clock). */
INACT_EXPORT int32_t inact_clock_now(inact_engine engine, int64_t *out_monotonic_ms,
                                     int64_t *out_wall_ms, uint64_t *out_boot_id);

/* ---------------------------------------------------------------------------------
 * Snapshot. Save one whenever the app goes to background; restore it on cold start.
 * The snapshot is not a secret and not tamper-proof on its own: store it where the
 * platform protects app data.
 * ------------------------------------------------------------------------------- */

/** Upper bound of a snapshot's size in bytes (the same for every engine of this version). */
#define INACT_SNAPSHOT_MAX_SIZE 128

/** Writes the size of the engine's snapshot now. Returns INACT_E_INVALID_STATE in LOADING
 *  (no session to save).
 *  Ownership: *out_size is written only on success.
 *  Thread: any; delivers the events it causes before it returns (see Threading). */
INACT_EXPORT int32_t inact_snapshot_size(inact_engine engine, size_t *out_size);

/**
 * Writes the snapshot into `buffer` (capacity bytes) and its length to *out_written.
 * capacity: any size_t (SIZE_MAX for "big enough"); only the snapshot's bytes are written.
 * Returns INACT_OK; INACT_E_NULL_POINTER; INACT_E_BUFFER_TOO_SMALL (nothing written: ask
 * inact_snapshot_size, or use INACT_SNAPSHOT_MAX_SIZE); INACT_E_INVALID_STATE in LOADING.
 * Ownership: the caller's buffer; only the snapshot's bytes are written, and only on success.
 * Thread: any; delivers the events it causes before it returns (see Threading).
 */
INACT_EXPORT int32_t inact_snapshot_write(inact_engine engine, uint8_t *buffer, size_t capacity,
                                          size_t *out_written);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INACTIVITY_H */
