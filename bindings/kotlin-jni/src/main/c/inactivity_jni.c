/*
 * inactivity_jni.c -- JNI glue between dev.inactivity.NativeBridge and the C ABI in
 * include/inactivity.h. Glue only: convert arguments, call inact_*, convert results.
 * No session logic lives here.
 *
 * ## Theory of operation
 * - JNI_OnLoad caches the JavaVM, the classes and the method ids, and registers the
 *   natives of dev.inactivity.NativeBridge and, generated from the header
 *   (inactivity_jni_generated.h), of dev.inactivity.NativeCalls (so a renamed or missing method fails at load,
 *   not at first use). Every native is static and takes the engine handle as a jlong.
 * - A failed inact_* call throws the exception built by the Kotlin factory
 *   InactivityException.fromStatus(status, message, errno); the message and errno are read from
 *   inact_last_error() and inact_last_errno() right after the failing call, on the same thread.
 * - The engine's user_data is a JNI *weak* global reference to an EventDispatcher: the
 *   Kotlin engine holds the dispatcher, so a dropped engine (and a listener that refers to
 *   it) can be collected and its Cleaner can destroy the native engine. An event that
 *   arrives after the dispatcher was collected is dropped. The reference is released in
 *   user_data_free (run once by the library when the engine is destroyed), or here when
 *   inact_engine_create fails (the library keeps nothing then).
 * - Events may come from the library's scheduler thread, which the JVM does not know.
 *   The first upcall on such a thread attaches it (as a daemon, so it never holds the JVM
 *   open) and stores a marker in a pthread key; the key's destructor detaches it when
 *   the thread exits. Threads that were attached already (Java threads calling in) are
 *   never detached by this file.
 * - After every upcall: ExceptionCheck. The Kotlin dispatcher already catches listener
 *   exceptions and reports them; anything that still escapes (an Error, a throwing error
 *   handler) is described, cleared and counted here, so it never leaks into the next
 *   JNI call and never unwinds through the library.
 */
#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "inactivity.h"

/* Android's jni.h declares AttachCurrentThread* with JNIEnv**, the JDK's with void**. */
#if defined(__ANDROID__)
#define INACT_JNI_ENV_OUT(p) (p)
#else
#define INACT_JNI_ENV_OUT(p) ((void **)(p))
#endif

#define BRIDGE_CLASS "dev/inactivity/NativeBridge"
#define CALLS_CLASS "dev/inactivity/NativeCalls"
#define EXCEPTION_CLASS "dev/inactivity/InactivityException"

/* The policy, ceilings and info arrays are laid out by inactivity_jni_generated.h (from the
 * header); the config and clock arrays are this file's own (NativeBridge.kt's C_ constants). */
enum {
    CONFIG_DELIVERY = 0,
    CONFIG_CLOCK,
    CONFIG_HAS_MANUAL_START,
    CONFIG_MANUAL_START_MS,
    CONFIG_HAS_MANUAL_WALL,
    CONFIG_MANUAL_WALL_MS,
    CONFIG_HAS_MANUAL_BOOT_ID,
    CONFIG_MANUAL_BOOT_ID,
    CONFIG_FIELDS
};
enum { CLOCK_MONOTONIC_MS = 0, CLOCK_WALL_MS, CLOCK_BOOT_ID, CLOCK_FIELDS };

static JavaVM *g_vm;
static pthread_key_t g_attached_key;
static jclass g_dispatcher_class;     /* global ref: EVENT_UPCALL_CLASS, EventDispatcher's superclass */
static jmethodID g_dispatcher_on_event; /* EVENT_UPCALL_NAME, EVENT_UPCALL_SIGNATURE (generated) */
static jclass g_exception_class;      /* global ref */
static jmethodID g_exception_from_status; /* static Throwable fromStatus(int, String, int) */

/* Diagnostics read by the tests through NativeBridge. */
static atomic_long g_attach_count;
static atomic_long g_detach_count;
static atomic_long g_escaped_exception_count;

/* ---------------------------------------------------------------------------------
 * Threads and upcalls
 * ------------------------------------------------------------------------------- */

/* pthread key destructor: runs at exit of a thread this file attached (value != NULL). */
static void detach_at_thread_exit(void *marker) {
    (void)marker;
    if (g_vm != NULL) {
        (*g_vm)->DetachCurrentThread(g_vm);
        atomic_fetch_add(&g_detach_count, 1);
    }
}

/* The JNIEnv of the calling thread, attaching it once if the JVM does not know it. */
static JNIEnv *env_for_upcall(void) {
    JNIEnv *env = NULL;
    jint rc = (*g_vm)->GetEnv(g_vm, (void **)&env, JNI_VERSION_1_6);
    if (rc == JNI_OK) return env;
    if (rc != JNI_EDETACHED) return NULL;
    JavaVMAttachArgs args = {JNI_VERSION_1_6, "inactivity-native", NULL};
    if ((*g_vm)->AttachCurrentThreadAsDaemon(g_vm, INACT_JNI_ENV_OUT(&env), &args) != JNI_OK) {
        return NULL;
    }
    if (pthread_setspecific(g_attached_key, (void *)env) != 0) {
        /* Without the key the thread would never be detached: do not keep it attached. */
        (*g_vm)->DetachCurrentThread(g_vm);
        return NULL;
    }
    atomic_fetch_add(&g_attach_count, 1);
    return env;
}

/* Clears an exception an upcall left pending, after printing it (stderr / logcat). */
static void clear_escaped_exception(JNIEnv *env) {
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionDescribe(env); /* prints and clears */
        (*env)->ExceptionClear(env);
        atomic_fetch_add(&g_escaped_exception_count, 1);
    }
}

/* inact_user_data_free: releases the dispatcher's weak global reference, once. */
static void free_dispatcher_ref(void *user_data) {
    if (user_data == NULL) return;
    JNIEnv *env = env_for_upcall();
    if (env == NULL) return; /* cannot happen on a live VM; leaking beats crashing */
    (*env)->DeleteWeakGlobalRef(env, (jweak)user_data);
}

/* ---------------------------------------------------------------------------------
 * Status -> exception
 * ------------------------------------------------------------------------------- */

/* Throws InactivityException.fromStatus(rc, last_error, last_errno) when rc is an error; returns 1
 * if an exception is now pending. */
static int throw_if_error(JNIEnv *env, int32_t rc) {
    if (rc >= 0) return 0;
    const char *detail = inact_last_error();
    int32_t error_number = inact_last_errno();
    if (detail == NULL || detail[0] == '\0') detail = inact_status_string(rc);
    jstring message = (*env)->NewStringUTF(env, detail);
    if (message == NULL) return 1; /* OutOfMemoryError pending */
    jobject error = (*env)->CallStaticObjectMethod(env, g_exception_class,
                                                   g_exception_from_status, (jint)rc, message,
                                                   (jint)error_number);
    (*env)->DeleteLocalRef(env, message);
    if ((*env)->ExceptionCheck(env)) return 1; /* the factory itself threw: keep that */
    if (error == NULL) {
        (*env)->ThrowNew(env, g_exception_class, "inactivity: no exception for status");
        return 1;
    }
    (*env)->Throw(env, (jthrowable)error);
    (*env)->DeleteLocalRef(env, error);
    return 1;
}

static void throw_illegal_argument(JNIEnv *env, const char *message) {
    jclass cls = (*env)->FindClass(env, "java/lang/IllegalArgumentException");
    if (cls != NULL) {
        (*env)->ThrowNew(env, cls, message);
        (*env)->DeleteLocalRef(env, cls);
    }
}

/* ---------------------------------------------------------------------------------
 * Array conversions
 * ------------------------------------------------------------------------------- */

static int read_longs(JNIEnv *env, jlongArray array, jlong *out, jsize count) {
    if (array == NULL || (*env)->GetArrayLength(env, array) != count) {
        throw_illegal_argument(env, "inactivity: array has the wrong length");
        return 0;
    }
    (*env)->GetLongArrayRegion(env, array, 0, count, out);
    return !(*env)->ExceptionCheck(env);
}

static int write_longs(JNIEnv *env, jlongArray array, const jlong *values, jsize count) {
    if (array == NULL || (*env)->GetArrayLength(env, array) != count) {
        throw_illegal_argument(env, "inactivity: array has the wrong length");
        return 0;
    }
    (*env)->SetLongArrayRegion(env, array, 0, count, values);
    return !(*env)->ExceptionCheck(env);
}

#include "inactivity_jni_generated.h"

/* inact_callback: forwards one event to the EventDispatcher weakly held in user_data. */
static void on_event(const inact_event *event, void *user_data) {
    if (event == NULL || user_data == NULL) return;
    if (event->size < offsetof(inact_event, engine) + sizeof(event->engine)) return;
    JNIEnv *env = env_for_upcall();
    if (env == NULL) return;
    /* A Java thread may call in with an exception pending only if a caller broke the JNI
     * rules; never make an upcall on top of one. */
    if ((*env)->ExceptionCheck(env)) return;
    /* A strong local reference for the upcall; NULL once the dispatcher was collected (the
     * engine was dropped and its Cleaner has not destroyed it yet). */
    jobject dispatcher = (*env)->NewLocalRef(env, (jweak)user_data);
    if (dispatcher == NULL) return;
    /* The arguments, one per field Kotlin keeps: generated, as is the method's signature. */
    (*env)->CallVoidMethod(env, dispatcher, g_dispatcher_on_event, EVENT_UPCALL_ARGS(event));
    clear_escaped_exception(env);
    (*env)->DeleteLocalRef(env, dispatcher);
}

static int policy_from_java(JNIEnv *env, jlongArray array, inact_policy *policy) {
    jlong v[POLICY_FIELDS];
    if (!read_longs(env, array, v, POLICY_FIELDS)) return 0;
    memset(policy, 0, sizeof(*policy));
    policy->size = (uint32_t)sizeof(inact_policy);
    policy_from_longs(v, policy);
    return 1;
}

static int ceilings_from_java(JNIEnv *env, jlongArray array, inact_ceilings *ceilings) {
    jlong v[CEILING_FIELDS];
    if (!read_longs(env, array, v, CEILING_FIELDS)) return 0;
    memset(ceilings, 0, sizeof(*ceilings));
    ceilings->size = (uint32_t)sizeof(inact_ceilings);
    ceilings_from_longs(v, ceilings);
    return 1;
}

static int ceilings_to_java(JNIEnv *env, const inact_ceilings *c, jlongArray array) {
    jlong v[CEILING_FIELDS];
    ceilings_to_longs(c, v);
    return write_longs(env, array, v, CEILING_FIELDS);
}

static int policy_to_java(JNIEnv *env, const inact_policy *policy, jlongArray array) {
    jlong v[POLICY_FIELDS];
    policy_to_longs(policy, v);
    return write_longs(env, array, v, POLICY_FIELDS);
}

/* ---------------------------------------------------------------------------------
 * Natives: library and policy
 * ------------------------------------------------------------------------------- */

static jint n_library_version_number(JNIEnv *env, jclass cls) {
    (void)env; (void)cls;
    return (jint)inact_version_number();
}

static jint n_header_version_number(JNIEnv *env, jclass cls) {
    (void)env; (void)cls;
    return (jint)INACT_VERSION_NUMBER;
}

static jstring n_library_version_string(JNIEnv *env, jclass cls) {
    (void)cls;
    return (*env)->NewStringUTF(env, inact_version_string());
}

/* inact_scheduler_faults into out[3]: degraded (0/1), failures (uint64_t bits), last errno. */
static void n_scheduler_faults(JNIEnv *env, jclass cls, jlongArray out) {
    (void)cls;
    int32_t degraded = 0, last_errno = 0;
    uint64_t failures = 0;
    if (throw_if_error(env, inact_scheduler_faults(&degraded, &failures, &last_errno))) return;
    jlong v[3] = {(jlong)degraded, (jlong)failures, (jlong)last_errno};
    write_longs(env, out, v, 3);
}

static jstring n_status_string(JNIEnv *env, jclass cls, jint status) {
    (void)cls;
    return (*env)->NewStringUTF(env, inact_status_string((int32_t)status));
}

/* Names of states (kind 0), reasons (1), presets (2) and activity kinds (3): the library's
 * tables (inact_*_string, inact_*_from_string), so Kotlin spells them as every binding does. */
static jstring n_name(JNIEnv *env, jclass cls, jint kind, jint value) {
    (void)cls;
    const char *name = kind == 0   ? inact_state_string((int32_t)value)
                       : kind == 1 ? inact_reason_string((int32_t)value)
                       : kind == 2 ? inact_preset_string((int32_t)value)
                                   : inact_activity_kind_string((uint32_t)value);
    return (*env)->NewStringUTF(env, name);
}

static jint n_parse_name(JNIEnv *env, jclass cls, jint kind, jstring text) {
    (void)cls;
    if (text == NULL) {
        throw_illegal_argument(env, "name must not be null");
        return 0;
    }
    const char *chars = (*env)->GetStringUTFChars(env, text, NULL);
    if (chars == NULL) return 0; /* OutOfMemoryError pending */
    int32_t value = 0;
    uint32_t bit = 0;
    int32_t rc = kind == 0   ? inact_state_from_string(chars, &value)
                 : kind == 1 ? inact_reason_from_string(chars, &value)
                 : kind == 2 ? inact_preset_from_string(chars, &value)
                             : inact_activity_kind_from_string(chars, &bit);
    (*env)->ReleaseStringUTFChars(env, text, chars);
    if (throw_if_error(env, rc)) return 0;
    return kind == 3 ? (jint)bit : (jint)value;
}

static void n_policy_preset(JNIEnv *env, jclass cls, jint preset, jlongArray out) {
    (void)cls;
    inact_policy policy;
    if (throw_if_error(env, inact_policy_preset(&policy, (int32_t)preset))) return;
    policy_to_java(env, &policy, out);
}

static void n_policy_validate(JNIEnv *env, jclass cls, jlongArray values) {
    (void)cls;
    inact_policy policy;
    if (!policy_from_java(env, values, &policy)) return;
    throw_if_error(env, inact_policy_validate(&policy));
}

/* ---------------------------------------------------------------------------------
 * Natives: lifecycle
 * ------------------------------------------------------------------------------- */

static jlong n_create(JNIEnv *env, jclass cls, jlongArray config_values, jlongArray policy_values,
                      jobject dispatcher) {
    (void)cls;
    jlong c[CONFIG_FIELDS];
    inact_config config;
    inact_policy policy;
    if (!read_longs(env, config_values, c, CONFIG_FIELDS)) return 0;
    if (!policy_from_java(env, policy_values, &policy)) return 0;
    if (throw_if_error(env, inact_config_init(&config))) return 0;
    config.delivery = (int32_t)c[CONFIG_DELIVERY];
    config.clock = (int32_t)c[CONFIG_CLOCK];
    if (c[CONFIG_HAS_MANUAL_START]) config.manual_start_ms = (int64_t)c[CONFIG_MANUAL_START_MS];
    if (c[CONFIG_HAS_MANUAL_WALL]) config.manual_wall_ms = (int64_t)c[CONFIG_MANUAL_WALL_MS];
    if (c[CONFIG_HAS_MANUAL_BOOT_ID]) config.manual_boot_id = (uint64_t)c[CONFIG_MANUAL_BOOT_ID];

    jweak ref = NULL;
    if (dispatcher != NULL) {
        ref = (*env)->NewWeakGlobalRef(env, dispatcher);
        if (ref == NULL) return 0; /* OutOfMemoryError pending */
    }
    inact_engine engine = 0;
    int32_t rc = inact_engine_create(&config, &policy, ref != NULL ? on_event : NULL, ref,
                                     ref != NULL ? free_dispatcher_ref : NULL, &engine);
    if (rc != INACT_OK) {
        /* On failure the library keeps nothing and never calls user_data_free. */
        if (ref != NULL) (*env)->DeleteWeakGlobalRef(env, ref);
        throw_if_error(env, rc);
        return 0;
    }
    return (jlong)engine;
}

/* ---------------------------------------------------------------------------------
 * Natives: inputs
 * ------------------------------------------------------------------------------- */

#define SIMPLE_INPUT(jname, cname)                                   \
    static void jname(JNIEnv *env, jclass cls, jlong engine) {       \
        (void)cls;                                                   \
        throw_if_error(env, cname((inact_engine)engine));            \
    }

SIMPLE_INPUT(n_continue, inact_continue)

static void n_set_ceilings(JNIEnv *env, jclass cls, jlong engine, jlongArray values) {
    (void)cls;
    inact_ceilings ceilings;
    if (!ceilings_from_java(env, values, &ceilings)) return;
    throw_if_error(env, inact_set_ceilings((inact_engine)engine, &ceilings));
}

static void n_get_ceilings(JNIEnv *env, jclass cls, jlong engine, jlongArray out) {
    (void)cls;
    inact_ceilings ceilings;
    memset(&ceilings, 0, sizeof(ceilings));
    ceilings.size = (uint32_t)sizeof(inact_ceilings);
    if (throw_if_error(env, inact_get_ceilings((inact_engine)engine, &ceilings))) return;
    ceilings_to_java(env, &ceilings, out);
}

static void n_ceilings_init(JNIEnv *env, jclass cls, jlongArray out) {
    (void)cls;
    inact_ceilings ceilings;
    if (throw_if_error(env, inact_ceilings_init(&ceilings))) return;
    ceilings_to_java(env, &ceilings, out);
}

static void n_restore(JNIEnv *env, jclass cls, jlong engine, jbyteArray bytes) {
    (void)cls;
    if (bytes == NULL) {
        throw_if_error(env, inact_restore((inact_engine)engine, NULL, 1));
        return;
    }
    jsize length = (*env)->GetArrayLength(env, bytes);
    uint8_t *copy = malloc((size_t)length + 1);
    if (copy == NULL) {
        throw_if_error(env, INACT_E_INTERNAL);
        return;
    }
    (*env)->GetByteArrayRegion(env, bytes, 0, length, (jbyte *)copy);
    int32_t rc = inact_restore((inact_engine)engine, copy, (size_t)length);
    free(copy);
    throw_if_error(env, rc);
}

/* oauth_error arrives as UTF-8 bytes without a terminator (Kotlin rejects embedded NULs). */
static jint n_refresh_result(JNIEnv *env, jclass cls, jlong engine, jint http_status,
                             jbyteArray oauth_error, jlong generation) {
    (void)cls;
    char *text = NULL;
    if (oauth_error != NULL) {
        jsize length = (*env)->GetArrayLength(env, oauth_error);
        text = malloc((size_t)length + 1);
        if (text == NULL) {
            throw_if_error(env, INACT_E_INTERNAL);
            return 0;
        }
        (*env)->GetByteArrayRegion(env, oauth_error, 0, length, (jbyte *)text);
        text[length] = '\0';
    }
    int32_t outcome = 0;
    int32_t rc = inact_refresh_result_gen((inact_engine)engine, (int32_t)http_status, text,
                                          (uint64_t)generation, &outcome);
    free(text);
    if (throw_if_error(env, rc)) return 0;
    return (jint)outcome;
}

static void n_set_policy(JNIEnv *env, jclass cls, jlong engine, jlongArray values) {
    (void)cls;
    inact_policy policy;
    if (!policy_from_java(env, values, &policy)) return;
    throw_if_error(env, inact_set_policy((inact_engine)engine, &policy));
}

/* ---------------------------------------------------------------------------------
 * Natives: queries, host mode, manual clock, snapshot
 * ------------------------------------------------------------------------------- */

static void n_get_info(JNIEnv *env, jclass cls, jlong engine, jlongArray out) {
    (void)cls;
    inact_info info;
    memset(&info, 0, sizeof(info));
    info.size = (uint32_t)sizeof(inact_info);
    if (throw_if_error(env, inact_get_info((inact_engine)engine, &info))) return;
    jlong v[INFO_FIELDS];
    info_to_longs(&info, v);
    write_longs(env, out, v, INFO_FIELDS);
}

static void n_get_policy(JNIEnv *env, jclass cls, jlong engine, jlongArray out) {
    (void)cls;
    inact_policy policy;
    memset(&policy, 0, sizeof(policy));
    policy.size = (uint32_t)sizeof(inact_policy);
    if (throw_if_error(env, inact_get_policy((inact_engine)engine, &policy))) return;
    policy_to_java(env, &policy, out);
}

static void n_clock_now(JNIEnv *env, jclass cls, jlong engine, jlongArray out) {
    (void)cls;
    int64_t monotonic = 0, wall = 0;
    uint64_t boot = 0;
    if (throw_if_error(env, inact_clock_now((inact_engine)engine, &monotonic, &wall, &boot))) {
        return;
    }
    jlong v[CLOCK_FIELDS] = {(jlong)monotonic, (jlong)wall, (jlong)boot};
    write_longs(env, out, v, CLOCK_FIELDS);
}

static jbyteArray n_snapshot(JNIEnv *env, jclass cls, jlong engine) {
    (void)cls;
    uint8_t buffer[INACT_SNAPSHOT_MAX_SIZE];
    size_t written = 0;
    if (throw_if_error(env, inact_snapshot_write((inact_engine)engine, buffer, sizeof(buffer),
                                                 &written))) {
        return NULL;
    }
    jbyteArray bytes = (*env)->NewByteArray(env, (jsize)written);
    if (bytes == NULL) return NULL;
    (*env)->SetByteArrayRegion(env, bytes, 0, (jsize)written, (const jbyte *)buffer);
    return bytes;
}

/* ---------------------------------------------------------------------------------
 * Natives: diagnostics for the tests
 * ------------------------------------------------------------------------------- */

static jlong n_attach_count(JNIEnv *env, jclass cls) {
    (void)env; (void)cls;
    return (jlong)atomic_load(&g_attach_count);
}

static jlong n_detach_count(JNIEnv *env, jclass cls) {
    (void)env; (void)cls;
    return (jlong)atomic_load(&g_detach_count);
}

static jlong n_escaped_exception_count(JNIEnv *env, jclass cls) {
    (void)env; (void)cls;
    return (jlong)atomic_load(&g_escaped_exception_count);
}

/* ---------------------------------------------------------------------------------
 * Registration
 * ------------------------------------------------------------------------------- */

#define NATIVE(name, sig, fn) {(char *)(name), (char *)(sig), (void *)(fn)}

static const JNINativeMethod k_natives[] = {
    NATIVE("libraryVersionNumber", "()I", n_library_version_number),
    NATIVE("headerVersionNumber", "()I", n_header_version_number),
    NATIVE("libraryVersionString", "()Ljava/lang/String;", n_library_version_string),
    NATIVE("schedulerFaults", "([J)V", n_scheduler_faults),
    NATIVE("statusString", "(I)Ljava/lang/String;", n_status_string),
    NATIVE("name", "(II)Ljava/lang/String;", n_name),
    NATIVE("parseName", "(ILjava/lang/String;)I", n_parse_name),
    NATIVE("policyPreset", "(I[J)V", n_policy_preset),
    NATIVE("policyValidate", "([J)V", n_policy_validate),
    NATIVE("create", "([J[JLjava/lang/Object;)J", n_create),
    NATIVE("restore", "(J[B)V", n_restore),
    NATIVE("continueSession", "(J)V", n_continue),
    NATIVE("refreshResult", "(JI[BJ)I", n_refresh_result),
    NATIVE("setCeilings", "(J[J)V", n_set_ceilings),
    NATIVE("getCeilings", "(J[J)V", n_get_ceilings),
    NATIVE("ceilingsInit", "([J)V", n_ceilings_init),
    NATIVE("setPolicy", "(J[J)V", n_set_policy),
    NATIVE("getInfo", "(J[J)V", n_get_info),
    NATIVE("getPolicy", "(J[J)V", n_get_policy),
    NATIVE("clockNow", "(J[J)V", n_clock_now),
    NATIVE("snapshot", "(J)[B", n_snapshot),
    NATIVE("attachCount", "()J", n_attach_count),
    NATIVE("detachCount", "()J", n_detach_count),
    NATIVE("escapedExceptionCount", "()J", n_escaped_exception_count),
};

/* The natives of conventional shape, generated from the header, on NativeCalls. */
static const JNINativeMethod k_generated_natives[] = {GENERATED_NATIVES};

static int register_natives(JNIEnv *env, const char *class_name, const JNINativeMethod *natives, jint count) {
    jclass cls = (*env)->FindClass(env, class_name);
    if (cls == NULL) return 0;
    jint registered = (*env)->RegisterNatives(env, cls, natives, count);
    (*env)->DeleteLocalRef(env, cls);
    return registered == JNI_OK;
}

static jclass global_class(JNIEnv *env, const char *name) {
    jclass local = (*env)->FindClass(env, name);
    if (local == NULL) return NULL;
    jclass global = (jclass)(*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    return global;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) return JNI_ERR;
    g_vm = vm;
    if (pthread_key_create(&g_attached_key, detach_at_thread_exit) != 0) return JNI_ERR;

    if (!register_natives(env, BRIDGE_CLASS, k_natives, (jint)(sizeof(k_natives) / sizeof(k_natives[0]))) ||
        !register_natives(env, CALLS_CLASS, k_generated_natives,
                          (jint)(sizeof(k_generated_natives) / sizeof(k_generated_natives[0])))) {
        return JNI_ERR;
    }

    g_dispatcher_class = global_class(env, EVENT_UPCALL_CLASS);
    if (g_dispatcher_class == NULL) return JNI_ERR;
    g_dispatcher_on_event =
        (*env)->GetMethodID(env, g_dispatcher_class, EVENT_UPCALL_NAME, EVENT_UPCALL_SIGNATURE);
    if (g_dispatcher_on_event == NULL) return JNI_ERR;

    g_exception_class = global_class(env, EXCEPTION_CLASS);
    if (g_exception_class == NULL) return JNI_ERR;
    g_exception_from_status = (*env)->GetStaticMethodID(
        env, g_exception_class, "fromStatus", "(ILjava/lang/String;I)Ljava/lang/Throwable;");
    if (g_exception_from_status == NULL) return JNI_ERR;
    return JNI_VERSION_1_6;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK) return;
    if (g_dispatcher_class != NULL) (*env)->DeleteGlobalRef(env, g_dispatcher_class);
    if (g_exception_class != NULL) (*env)->DeleteGlobalRef(env, g_exception_class);
    g_dispatcher_class = NULL;
    g_exception_class = NULL;
}
