// The cost of activity from the JVM, against its baselines, measured in the same process.
//
//   binding    InactivityEngine.activity(ActivityKind.TOUCH_MOVE): the public Kotlin API
//   glue       NativeCalls.activity(handle, bit): the binding's JNI glue without the Kotlin
//              wrapper (open check, exception mapping); for attribution, not a target
//   emptyJni   JniBaseline.empty(handle, bit): a static native with the same signature that
//              does nothing (verify/bench/jvm/empty_jni.c)
//   floorJni   JniBaseline.floor(handle, bit): the same, doing the C floor (a CLOCK_BOOTTIME
//              read and a relaxed atomic store): the least a clock-reading activity can cost
//   executor   the naive pattern (Android's Handler.postDelayed in onUserInteraction): per
//              event, cancel the pending 15-minute task of a ScheduledThreadPoolExecutor
//              (remove-on-cancel, like Handler.removeCallbacks) and schedule a new one
//
// Every benchmark is warmed up (JIT) before the timed runs; the runs are interleaved and each
// figure is the median of ns per call over the runs. The engine is on the SYSTEM clock, THREAD
// delivery, default policy (15 min idle), started; the run fails if it leaves ACTIVE or the
// activity is not recorded. Prints one JSON object.
//
// Compiled in the binding's module (scripts/bench) so that the internal NativeCalls is visible.
package dev.inactivity.bench

import dev.inactivity.ActivityKind
import dev.inactivity.InactivityEngine
import dev.inactivity.NativeCalls
import dev.inactivity.SessionState
import java.util.concurrent.ScheduledFuture
import java.util.concurrent.ScheduledThreadPoolExecutor
import java.util.concurrent.TimeUnit

object JniBaseline {
    init {
        System.load(System.getProperty("inactivity.bench.empty_jni"))
    }

    @JvmStatic external fun empty(handle: Long, kind: Int)

    @JvmStatic external fun floor(handle: Long, kind: Int)
}

private class Bench(val name: String, val body: (Long) -> Unit) {
    var calls = 0L
    val samples = ArrayList<Double>()
}

private fun timeNs(body: (Long) -> Unit, n: Long): Long {
    val t0 = System.nanoTime()
    body(n)
    return System.nanoTime() - t0
}

private fun median(v: List<Double>): Double {
    val s = v.sorted()
    return if (s.size % 2 == 1) s[s.size / 2] else (s[s.size / 2 - 1] + s[s.size / 2]) / 2
}

@Volatile private var sink = 0L

fun main(args: Array<String>) {
    val runs = args.getOrNull(0)?.toInt() ?: 11
    val targetMs = args.getOrNull(1)?.toDouble() ?: 60.0
    val warmupMs = args.getOrNull(2)?.toDouble() ?: 1500.0

    val engine = InactivityEngine.create()
    engine.start()
    val handle = engine.nativeHandle
    val kind = ActivityKind.TOUCH_MOVE
    val bit = kind.bit

    val executor = ScheduledThreadPoolExecutor(1).apply { removeOnCancelPolicy = true }
    var fired = 0
    val onIdle = Runnable { fired++ }
    var pending: ScheduledFuture<*> = executor.schedule(onIdle, 15, TimeUnit.MINUTES)

    val benches = listOf(
        Bench("binding") { n -> var i = 0L; while (i < n) { engine.activity(kind); i++ } },
        Bench("glue") { n -> var i = 0L; while (i < n) { NativeCalls.activity(handle, bit); i++ } },
        Bench("emptyJni") { n -> var i = 0L; while (i < n) { JniBaseline.empty(handle, bit); i++ } },
        Bench("floorJni") { n -> var i = 0L; while (i < n) { JniBaseline.floor(handle, bit); i++ } },
        Bench("executor") { n ->
            var i = 0L
            while (i < n) {
                pending.cancel(false)
                pending = executor.schedule(onIdle, 15, TimeUnit.MINUTES)
                i++
            }
            sink += executor.queue.size.toLong()
        },
    )

    // Warm-up: each benchmark runs for warmupMs (the JIT compiles the loops), then calibrates.
    for (b in benches) {
        var n = 1000L
        val end = System.nanoTime() + (warmupMs * 1e6).toLong()
        while (System.nanoTime() < end) {
            val ns = timeNs(b.body, n)
            if (ns < 20_000_000) n *= 2
        }
        val per = timeNs(b.body, n).toDouble() / n
        b.calls = maxOf(1000L, (targetMs * 1e6 / per).toLong())
    }

    fun lastActivityMs(): Long {
        val info = engine.info()
        check(info.state == SessionState.ACTIVE) { "the engine left ACTIVE (${info.state}): the benchmark is void" }
        return info.lastActivityMs ?: error("no last activity")
    }

    repeat(runs) {
        for (b in benches) {
            val before = engine.clockNow().monotonicMs
            b.samples.add(timeNs(b.body, b.calls).toDouble() / b.calls)
            if (b.name == "binding" || b.name == "glue") {
                check(lastActivityMs() >= before) { "${b.name}: the activity was not recorded" }
            }
        }
    }
    pending.cancel(false)
    executor.shutdownNow()
    engine.close()
    check(fired == 0) { "a 15-minute task ran: the naive benchmark is void" }
    check(executor.queue.size <= 1) { "cancelled tasks piled up in the executor queue" }

    val sb = StringBuilder()
    sb.append("{\n \"runs\": ").append(runs)
    sb.append(",\n \"java\": \"").append(System.getProperty("java.vm.name")).append(' ')
        .append(System.getProperty("java.version")).append('"')
    sb.append(",\n \"benchmarks\": {\n")
    benches.forEachIndexed { i, b ->
        sb.append("  \"").append(b.name).append("\": {\"calls_per_run\": ").append(b.calls)
            .append(", \"ns\": ").append(String.format(java.util.Locale.ROOT, "%.3f", median(b.samples)))
            .append(", \"ns_runs\": [").append(b.samples.joinToString(", ") { String.format(java.util.Locale.ROOT, "%.2f", it) }).append("]}")
        sb.append(if (i + 1 < benches.size) ",\n" else "\n")
    }
    sb.append(" }\n}")
    println(sb)
}
