/*
 * empty_jni.c -- the JNI baseline: a static native with the same signature as the binding's
 * NativeBridge.activity(long, int) that does nothing. What is left is the cost of a JNI
 * transition from Kotlin, which no binding can avoid.
 */
#include <jni.h>

JNIEXPORT void JNICALL Java_dev_inactivity_bench_JniBaseline_empty(JNIEnv *env, jclass cls, jlong handle,
                                                                    jint kind);

JNIEXPORT void JNICALL Java_dev_inactivity_bench_JniBaseline_empty(JNIEnv *env, jclass cls, jlong handle,
                                                                    jint kind) {
    (void)env;
    (void)cls;
    (void)handle;
    (void)kind;
}
