/*
 * empty_jni.c -- the JNI baselines, static natives with the same signature as the binding's
 * NativeCalls.activity(long, int):
 *   empty  does nothing: the cost of a JNI transition from Kotlin, which no binding avoids;
 *   floor  the C floor behind that transition (a CLOCK_BOOTTIME read to ms and a relaxed atomic
 *          store): the least any activity call that reads the clock can cost from the JVM.
 */
#define _GNU_SOURCE 1
#include <jni.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

JNIEXPORT void JNICALL Java_dev_inactivity_bench_JniBaseline_empty(JNIEnv *env, jclass cls, jlong handle,
                                                                    jint kind);

JNIEXPORT void JNICALL Java_dev_inactivity_bench_JniBaseline_empty(JNIEnv *env, jclass cls, jlong handle,
                                                                    jint kind) {
    (void)env;
    (void)cls;
    (void)handle;
    (void)kind;
}

static _Atomic int64_t last_activity_ms;

JNIEXPORT void JNICALL Java_dev_inactivity_bench_JniBaseline_floor(JNIEnv *env, jclass cls, jlong handle,
                                                                    jint kind);

JNIEXPORT void JNICALL Java_dev_inactivity_bench_JniBaseline_floor(JNIEnv *env, jclass cls, jlong handle,
                                                                    jint kind) {
    (void)env;
    (void)cls;
    (void)handle;
    (void)kind;
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    atomic_store_explicit(&last_activity_ms, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, memory_order_relaxed);
}
