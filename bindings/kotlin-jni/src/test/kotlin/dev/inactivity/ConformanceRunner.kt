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
 * Not a test class: scripts/lib/test-conformance runs it. An input is one line of [execute].
 */
object ConformanceRunner {
    private const val NEVER = Long.MAX_VALUE

    @JvmStatic
    fun main(args: Array<String>) {
        if (args.size < 2) {
            System.err.println("usage: ConformanceRunner OUTDIR FILE.ops...")
            exitProcess(2)
        }
        for (name in args.drop(1)) {
            val file = File(name)
            val lines = Run().run(file.readText().split("\n"))
            File(args[0], file.name.substringBefore('.') + ".out").writeText(lines.joinToString("\n") + "\n")
        }
        exitProcess(0)
    }

    private fun msIn(v: Long): Duration = if (v == NEVER) Duration.INFINITE else v.milliseconds
    private fun msOut(d: Duration): Long = if (d == Duration.INFINITE) NEVER else d.inWholeMilliseconds
    private fun msOut(instant: Long?): Long = instant ?: NEVER

    /** `name=value` policy fields; each field is one line. */
    private fun policy(pairs: List<String>): Policy {
        val v = pairs.associate { it.substringBefore('=') to it.substringAfter('=').toLong() }
        return Policy.defaults().copy(
            idleAction = IdleAction.entries.first { it.code.toLong() == v.getValue("idle_action") },
            idleTimeout = msIn(v.getValue("idle_timeout_ms")),
            warning = msIn(v.getValue("warning_ms")),
            backgroundTimeout = msIn(v.getValue("background_timeout_ms")),
            absoluteTimeout = msIn(v.getValue("absolute_timeout_ms")),
            lockedTimeout = msIn(v.getValue("locked_timeout_ms")),
            maxUnlockFailures = v.getValue("max_unlock_failures").toUInt(),
            tick = msIn(v.getValue("tick_ms")),
            backgroundGrace = msIn(v.getValue("background_grace_ms")),
            activityKinds = ActivityKind.entries.filter { v.getValue("activity_kinds").toInt() and it.bit != 0 }.toSet(),
            activityDismissesWarning = v.getValue("activity_dismisses_warning") != 0L,
            pauseIdleInBackground = v.getValue("pause_idle_in_background") != 0L,
            lockOnDeviceLock = v.getValue("lock_on_device_lock") != 0L,
            lockOnRestart = v.getValue("lock_on_restart") != 0L,
            strongAuthTimeout = msIn(v.getValue("strong_auth_timeout_ms")),
            expectedInterruptionMax = msIn(v.getValue("expected_interruption_max_ms")),
            offlineTimeout = msIn(v.getValue("offline_timeout_ms")),
            offlineExpiry = msIn(v.getValue("offline_expiry_ms")),
            keepaliveInterval = msIn(v.getValue("keepalive_interval_ms")),
        )
    }

    /** `name=value` ceiling fields. */
    private fun ceilings(pairs: List<String>): Ceilings {
        val v = pairs.associate { it.substringBefore('=') to it.substringAfter('=').toLong() }
        return Ceilings(
            idleTimeout = msIn(v.getValue("idle_timeout_ms")),
            backgroundTimeout = msIn(v.getValue("background_timeout_ms")),
            absoluteTimeout = msIn(v.getValue("absolute_timeout_ms")),
            lockedTimeout = msIn(v.getValue("locked_timeout_ms")),
            strongAuthTimeout = msIn(v.getValue("strong_auth_timeout_ms")),
            expectedInterruptionMax = msIn(v.getValue("expected_interruption_max_ms")),
            offlineTimeout = msIn(v.getValue("offline_timeout_ms")),
            offlineExpiry = msIn(v.getValue("offline_expiry_ms")),
            maxUnlockFailures = v.getValue("max_unlock_failures").toUInt(),
            lockOnDeviceLock = v.getValue("lock_on_device_lock") != 0L,
            lockOnRestart = v.getValue("lock_on_restart") != 0L,
        )
    }

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
            when (op) {
                "kill" -> { e.close(); engine = null; scopes.clear(); holds.clear() }
                // names (issue 32): read and printed by the binding as its users write them
                "preset-name" -> return "ok idle_timeout_ms=${msOut(Policy.preset(a[0]).idleTimeout)}"
                "activity-name" -> e.activity(a[0])
                "end-name" -> e.end(a[0])
                "names" -> return "ok state=${e.state.libraryName} reason=${e.reason.libraryName}"
                "closed-call" -> {
                    e.close(); engine = null; scopes.clear(); holds.clear()
                    // Kotlin's closed engine is an IllegalStateException (its idiom), with the
                    // message of every binding; the canonical form prints it as INVALID_HANDLE.
                    try { e.lock() } catch (x: IllegalStateException) { return "error -2 ${x.message}" }
                }
                "advance" -> e.advanceClock(a[0].toLong().milliseconds)
                "freeze" -> e.freezeClock(a[0].toLong().milliseconds)
                "wall-jump" -> e.jumpWallClock(a[0].toLong().milliseconds)
                "activity" -> e.activity(ActivityKind.entries.first { it.bit == a[0].toInt() })
                "continue" -> e.continueSession()
                "unlock" -> e.unlock(AuthStrength.entries.first { it.code == a[0].toInt() })
                "unlock-failed" -> return "ok failures=${e.unlockFailed(AuthStrength.entries.first { it.code == a[0].toInt() })}"
                "token-rotated" -> e.tokenRotated(a[0].toULong())
                "expect-interruption" -> e.expectInterruption(a[0].toLong().milliseconds)
                "set-ceilings" -> e.ceilings = ceilings(a)
                "end" -> e.end(Reason.entries.first { it.code == a[0].toInt() })
                "holder-report" -> e.holderReport(HolderKind.entries.first { it.code == a[0].toInt() },
                                                  msIn(a[2].toLong()), Reason.entries.first { it.code == a[1].toInt() })
                "refresh" -> return "ok outcome=${e.refreshResult(a[0].toInt(), a.getOrNull(2), a[1].toULong()).code}"
                "push-scope" -> return "ok id=${e.pushScope(a[1].toLong().milliseconds).id.also { scopes[a[0]] = it }}"
                "pop-scope" -> { e.popScope(scopes[a[0]] ?: 0); scopes.remove(a[0]) }
                "hold" -> return "ok id=${e.acquireHold().id.also { holds[a[0]] = it }}"
                "release" -> { e.releaseHold(holds[a[0]] ?: 0); holds.remove(a[0]) }
                "set-policy" -> e.policy = policy(a)
                "save" -> return "ok snapshot=" + e.snapshot().also { snapshot = it }.joinToString("") { "%02x".format(it) }
                "restore" -> e.restore(snapshot)
                "restore-corrupt" -> e.restore(corrupted())
                "info" -> return "ok " + info(e.info())
                "policy" -> return "ok " + policyFields(e.policy)
                "next-deadline" -> return "ok delay=${msOut(e.nextDeadline())}"
                "clock" -> return e.clockNow().let { "ok monotonic=${it.monotonicMs} wall=${it.wallMs} boot=${it.bootId.toULong()}" }
                "poll" -> e.poll()
                else -> if (!generatedOp(e, op, a)) return "unknown-op" // GeneratedOps.kt
            }
            return "ok"
        }
    }
}
