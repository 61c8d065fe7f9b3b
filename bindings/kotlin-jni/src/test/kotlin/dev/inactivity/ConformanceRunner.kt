package dev.inactivity

import java.io.File
import kotlin.system.exitProcess
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

/**
 * The Kotlin runner of the conformance suite (verify/conformance/README.md): executes op lists
 * through the binding's public API and prints the canonical output.
 *
 *     java ... dev.inactivity.ConformanceRunner OUTDIR FILE.ops...   writes OUTDIR/FILE.out
 *
 * Not a test class: scripts/lib/test-conformance runs it. An op is interpreted from the op
 * vocabulary: generated/OpTable.kt (tools/generate, from the header and names.toml) converts
 * each word by its argument's kind with the converters below, calls InactivityEngine's member
 * and prints the result by its kind. Only the ops with host state are written in [Run.execute].
 */
object ConformanceRunner {
    private const val NEVER = Long.MAX_VALUE

    @JvmStatic
    fun main(args: Array<String>) {
        if (args.size < 2) {
            System.err.println("usage: ConformanceRunner OUTDIR FILE.ops...")
            exitProcess(2)
        }
        // A hand-written op left for a generated one would hide it (and names.toml's convention).
        val stray = Run().hostOps.keys intersect generatedOps
        if (stray.isNotEmpty()) {
            System.err.println("ConformanceRunner: hand-written ops that generated/OpTable.kt has: ${stray.sorted().joinToString()}")
            exitProcess(2)
        }
        for (name in args.drop(1)) {
            val file = File(name)
            val lines = Run().run(file.readText().split("\n"))
            File(args[0], file.name.substringBefore('.') + ".out").writeText(lines.joinToString("\n") + "\n")
        }
        exitProcess(0)
    }

    // The converters and printers by kind that generated/OpTable.kt calls.
    /** A duration (INACT_MS) as the binding takes it: NEVER is INFINITE. */
    internal fun ms(v: Long): Duration = if (v == NEVER) Duration.INFINITE else v.milliseconds
    internal fun msOut(d: Duration): Long = if (d == Duration.INFINITE) NEVER else d.inWholeMilliseconds
    private fun msOut(instant: Long?): Long = instant ?: NEVER

    /** `name=value` policy fields; each field is one line. */
    internal fun policy(pairs: List<String>): Policy {
        val v = pairs.associate { it.substringBefore('=') to it.substringAfter('=').toLong() }
        return Policy.defaults().copy(
            idleAction = IdleAction.entries.first { it.code.toLong() == v.getValue("idle_action") },
            idleTimeout = ms(v.getValue("idle_timeout_ms")),
            warning = ms(v.getValue("warning_ms")),
            backgroundTimeout = ms(v.getValue("background_timeout_ms")),
            absoluteTimeout = ms(v.getValue("absolute_timeout_ms")),
            lockedTimeout = ms(v.getValue("locked_timeout_ms")),
            maxUnlockFailures = v.getValue("max_unlock_failures").toUInt(),
            tick = ms(v.getValue("tick_ms")),
            backgroundGrace = ms(v.getValue("background_grace_ms")),
            activityKinds = ActivityKind.entries.filter { v.getValue("activity_kinds").toInt() and it.bit != 0 }.toSet(),
            activityDismissesWarning = v.getValue("activity_dismisses_warning") != 0L,
            pauseIdleInBackground = v.getValue("pause_idle_in_background") != 0L,
            lockOnDeviceLock = v.getValue("lock_on_device_lock") != 0L,
            lockOnRestart = v.getValue("lock_on_restart") != 0L,
            strongAuthTimeout = ms(v.getValue("strong_auth_timeout_ms")),
            expectedInterruptionMax = ms(v.getValue("expected_interruption_max_ms")),
            offlineTimeout = ms(v.getValue("offline_timeout_ms")),
            offlineExpiry = ms(v.getValue("offline_expiry_ms")),
            keepaliveInterval = ms(v.getValue("keepalive_interval_ms")),
        )
    }

    /** `name=value` ceiling fields. */
    internal fun ceilings(pairs: List<String>): Ceilings {
        val v = pairs.associate { it.substringBefore('=') to it.substringAfter('=').toLong() }
        return Ceilings(
            idleTimeout = ms(v.getValue("idle_timeout_ms")),
            backgroundTimeout = ms(v.getValue("background_timeout_ms")),
            absoluteTimeout = ms(v.getValue("absolute_timeout_ms")),
            lockedTimeout = ms(v.getValue("locked_timeout_ms")),
            strongAuthTimeout = ms(v.getValue("strong_auth_timeout_ms")),
            expectedInterruptionMax = ms(v.getValue("expected_interruption_max_ms")),
            offlineTimeout = ms(v.getValue("offline_timeout_ms")),
            offlineExpiry = ms(v.getValue("offline_expiry_ms")),
            maxUnlockFailures = v.getValue("max_unlock_failures").toUInt(),
            lockOnDeviceLock = v.getValue("lock_on_device_lock") != 0L,
            lockOnRestart = v.getValue("lock_on_restart") != 0L,
        )
    }

    internal fun printPolicy(p: Policy): String = policyFields(p)
    internal fun printInfo(i: EngineInfo): String = info(i)
    internal fun printClock(c: ClockReading): String = "monotonic=${c.monotonicMs} wall=${c.wallMs} boot=${c.bootId.toULong()}"

    private fun policyFields(p: Policy): String =
        "idle_action=${p.idleAction.code} idle_timeout_ms=${msOut(p.idleTimeout)} warning_ms=${msOut(p.warning)} " +
            "background_timeout_ms=${msOut(p.backgroundTimeout)} absolute_timeout_ms=${msOut(p.absoluteTimeout)} " +
            "locked_timeout_ms=${msOut(p.lockedTimeout)} max_unlock_failures=${p.maxUnlockFailures} " +
            "tick_ms=${msOut(p.tick)} background_grace_ms=${msOut(p.backgroundGrace)} " +
            "activity_kinds=${p.activityKinds.fold(0) { m, k -> m or k.bit }} " +
            "activity_dismisses_warning=${if (p.activityDismissesWarning) 1 else 0} " +
            "pause_idle_in_background=${if (p.pauseIdleInBackground) 1 else 0} " +
            "lock_on_device_lock=${if (p.lockOnDeviceLock) 1 else 0} lock_on_restart=${if (p.lockOnRestart) 1 else 0} " +
            "strong_auth_timeout_ms=${msOut(p.strongAuthTimeout)} " +
            "expected_interruption_max_ms=${msOut(p.expectedInterruptionMax)} " +
            "offline_timeout_ms=${msOut(p.offlineTimeout)} offline_expiry_ms=${msOut(p.offlineExpiry)} " +
            "keepalive_interval_ms=${msOut(p.keepaliveInterval)}"

    private fun info(i: EngineInfo): String =
        "state=${i.state.code} reason=${i.reason.code} background=${if (i.inBackground) 1 else 0} " +
            "windows=${i.visibleWindows} scopes=${i.openScopes} holds=${i.openHolds} failures=${i.unlockFailures} " +
            "now=${i.nowMs} remaining=${msOut(i.remaining)} next=${msOut(i.nextDeadlineAtMs)} " +
            "idle=${msOut(i.effectiveIdleTimeout)} started=${msOut(i.startedAtMs)} " +
            "activity=${msOut(i.lastActivityMs)} background_since=${msOut(i.backgroundSinceMs)} " +
            "locked=${msOut(i.lockedAtMs)} auth=${i.requiredAuth.code} needs_contact=${if (i.needsServerContact) 1 else 0} " +
            "credential=${msOut(i.lastCredentialMs)} strong_auth=${msOut(i.strongAuthDeadlineMs)} " +
            "contact=${msOut(i.lastServerContactMs)} generation=${i.tokenGeneration} " +
            "interruption=${msOut(i.interruptionUntilMs)}"

    private class Run {
        val out = mutableListOf<String>()
        val events = mutableListOf<SessionEvent>()
        var engine: InactivityEngine? = null
        var snapshot = ByteArray(0)
        val scopes = HashMap<String, Long>()
        val holds = HashMap<String, Long>()

        fun run(lines: List<String>): List<String> {
            for (line in lines) {
                if (line.isEmpty() || line.startsWith("#")) continue
                out.add("> $line")
                val words = line.split(" ")
                val result = try {
                    execute(words[0], words.drop(1))
                } catch (e: InactivityException) {
                    "error ${e.status.code} ${e.message}"
                }
                for (ev in events) {
                    val kind = when (ev) {
                        is SessionEvent.StateChanged -> 1
                        is SessionEvent.Tick -> 2
                        is SessionEvent.Keepalive -> 3
                    }
                    val previous = if (ev is SessionEvent.StateChanged) ev.previous else ev.state
                    // A tick (WARNING) carries no requiredAuth: the library's is NONE outside LOCKED.
                    val auth = if (ev is SessionEvent.StateChanged) ev.requiredAuth else AuthStrength.NONE
                    out.add("event $kind ${ev.state.code} ${previous.code} ${ev.reason.code} ${auth.code} ${msOut(ev.remaining)} ${ev.timeMs} ${ev.nowMs}")
                }
                events.clear()
                out.add("= $result")
            }
            engine?.close()
            return out
        }

        fun launch(a: List<String>): String {
            val config = EngineConfig.manual(startMs = a[0].toLong(), wallMs = a[1].toLong(), bootId = a[2].toULong().toLong())
            engine = InactivityEngine.create(policy(a.drop(3)), config, { synchronized(events) { events.add(it) } })
            return "ok"
        }

        fun corrupted(): ByteArray = snapshot.copyOf().also { if (it.isNotEmpty()) it[it.size / 2] = (it[it.size / 2].toInt() xor 0x5A).toByte() }

        fun execute(op: String, a: List<String>): String {
            if (op == "launch") return launch(a)
            val e = engine ?: return "no-engine"
            hostOps[op]?.let { return it(e, a) }
            return generatedOp(e, op, a, ConformanceRunner) ?: "unknown-op" // generated/OpTable.kt
        }

        private fun kill(e: InactivityEngine) { e.close(); engine = null; scopes.clear(); holds.clear() }

        /**
         * The ops written by hand: those with host state (names.toml's hand layer `op`: the
         * engine, the snapshot, the scope and hold names) and the names ops of issue 32. A hand op
         * that is also generated would hide the generated one: [main] refuses to run then.
         */
        val hostOps: Map<String, (InactivityEngine, List<String>) -> String> = mapOf(
            "kill" to { e, _ -> kill(e); "ok" },
            // names (issue 32): read and printed by the binding as its users write them
            "preset-name" to { _, a -> "ok idle_timeout_ms=${msOut(Policy.preset(a[0]).idleTimeout)}" },
            "activity-name" to { e, a -> e.activity(a[0]); "ok" },
            "end-name" to { e, a -> e.end(a[0]); "ok" },
            "names" to { e, _ -> "ok state=${e.state.libraryName} reason=${e.reason.libraryName}" },
            "closed-call" to { e, _ ->
                kill(e)
                // Kotlin's closed engine is an IllegalStateException (its idiom), with the
                // message of every binding; the canonical form prints it as INVALID_HANDLE.
                try { e.lock(); "ok" } catch (x: IllegalStateException) { "error -2 ${x.message}" }
            },
            "push-scope" to { e, a -> "ok id=${e.pushScope(a[1].toLong().milliseconds).id.also { scopes[a[0]] = it }}" },
            "pop-scope" to { e, a -> e.popScope(scopes[a[0]] ?: 0); scopes.remove(a[0]); "ok" },
            "hold" to { e, a -> "ok id=${e.acquireHold().id.also { holds[a[0]] = it }}" },
            "release" to { e, a -> e.releaseHold(holds[a[0]] ?: 0); holds.remove(a[0]); "ok" },
            "save" to { e, _ -> "ok snapshot=" + e.snapshot().also { snapshot = it }.joinToString("") { "%02x".format(it) } },
            "restore" to { e, _ -> e.restore(snapshot); "ok" },
            "restore-corrupt" to { e, _ -> e.restore(corrupted()); "ok" },
        )
    }
}
