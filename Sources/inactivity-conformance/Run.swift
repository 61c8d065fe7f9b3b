// The Swift runner: executes an op list through InactivityCore (the Swift host's API) and
// prints the canonical output (verify/conformance/README.md). The C, Python and Kotlin runners print
// the same text through their own bindings; the conformance suite compares them byte for byte.

import CInactivity   // the library's names (inact_*_string, inact_*_from_string): Swift reads them as C does
import InactivityCore
import InactivityScenarios

final class SwiftRunner {
    private var out: [String] = []
    private var engine: InactivityEngine?
    private var policy = SessionPolicy()
    private let inbox = EventInbox()
    private var snapshot: [UInt8] = []
    private var scopes: [String: UInt64] = [:]
    private var holds: [String: UInt64] = [:]

    func run(_ ops: [String]) -> [String] {
        for line in ops where !line.isEmpty && !line.hasPrefix("#") {
            out.append("> " + line)
            let words = line.split(separator: " ").map(String.init)
            let result: String
            do throws(InactivityError) {
                result = try execute(words[0], Array(words.dropFirst()))
            } catch {
                result = "error \(error.code.rawValue) \(error.message)"
            }
            flushEvents()
            out.append("= " + result)
        }
        engine?.close()
        return out
    }

    private func flushEvents() {
        for e in inbox.drain() {
            out.append("event \(e.kind.rawValue) \(e.state.rawValue) \(e.previousState.rawValue) \(e.reason.rawValue) \(e.requiredAuth.rawValue) "
                       + "\(e.remainingMs) \(e.timeMs) \(e.nowMs)")
        }
    }

    /// One op; returns the text after "= ". Each input is one line of the switch.
    private func execute(_ op: String, _ a: [String]) throws(InactivityError) -> String {
        if op == "launch" { return try launch(a) }
        guard let e = engine else { return "no-engine" }
        switch op {
        case "kill": e.close(); engine = nil; scopes = [:]; holds = [:]
        case "advance": try e.advanceClock(byMs: Int64(a[0])!)
        case "freeze": try e.freezeClock(forMs: Int64(a[0])!)
        case "wall-jump": try e.jumpWallClock(byMs: Int64(a[0])!)
        case "activity": try e.recordActivity(ActivityKind(rawValue: UInt32(a[0])!))
        case "continue": try e.continueSession()
        case "unlock": try e.unlock(method: AuthStrength(rawValue: Int32(a[0])!) ?? .none)
        case "unlock-failed": return "ok failures=\(try e.unlockFailed(method: AuthStrength(rawValue: Int32(a[0])!) ?? .none))"
        case "token-rotated": try e.tokenRotated(generation: UInt64(a[0])!)
        case "expect-interruption": try e.expectInterruption(maxMs: Int64(a[0])!)
        case "set-ceilings": try e.setCeilings(try SwiftRunner.ceilings(a))
        case "end": try e.end(reason: Reason(rawValue: Int32(a[0])!)!)
        case "refresh":
            let outcome = try e.refreshResult(httpStatus: Int32(a[0])!, oauthError: a.count > 2 ? a[2] : nil,
                                              generation: UInt64(a[1])!)
            return "ok outcome=\(outcome.rawValue)"
        case "background": try e.enterBackground()
        case "foreground": try e.enterForeground()
        case "push-scope": let id = try e.pushScope(idleTimeoutMs: Int64(a[1])!); scopes[a[0]] = id; return "ok id=\(id)"
        case "pop-scope": try e.popScope(scopes[a[0]] ?? 0); scopes[a[0]] = nil
        case "hold": let id = try e.acquireHold(); holds[a[0]] = id; return "ok id=\(id)"
        case "release": try e.releaseHold(holds[a[0]] ?? 0); holds[a[0]] = nil
        case "set-policy": try e.setPolicy(try SwiftRunner.policy(a))
        case "holder-report": try e.holderReport(kind: Int32(a[0])!, reason: Int32(a[1])!, ms: Int64(a[2])!)
        case "save": snapshot = try e.snapshot(); return "ok snapshot=" + SwiftRunner.hex(snapshot)
        case "restore": try e.restore(snapshot)
        case "restore-corrupt": try e.restore(SwiftRunner.corrupted(snapshot))
        case "info": return "ok " + SwiftRunner.info(try e.info())
        case "policy": return "ok " + OpCompiler.fields(try e.policy())
        case "next-deadline": return "ok delay=\(try e.nextDeadlineDelayMs() ?? SessionPolicy.never)"
        case "clock": let c = e.clockNow(); return "ok monotonic=\(c.monotonicMs) wall=\(c.wallMs) boot=\(c.bootID)"
        case "poll": try e.poll()
        // names (issue 32): the library's reading and printing, as every binding
        case "preset-name":
            let preset = try SwiftRunner.name(a[0], inact_preset_from_string)
            guard let p = SessionPolicy.Preset(rawValue: preset) else { return "unknown-preset" }
            return "ok idle_timeout_ms=\(SessionPolicy(preset: p).idleTimeoutMs)"
        case "activity-name":
            var kind: UInt32 = 0
            let rc = a[0].withCString { inact_activity_kind_from_string($0, &kind) }
            if rc != 0 { throw InactivityError(InactivityError.Code(rawValue: rc) ?? .internal, String(cString: inact_last_error())) }
            try e.recordActivity(ActivityKind(rawValue: kind))
        case "end-name": try e.end(reason: Reason(rawValue: try SwiftRunner.name(a[0], inact_reason_from_string))!)
        case "names":
            let state = try e.state(), reason = try e.reason()
            return "ok state=\(String(cString: inact_state_string(state.rawValue))) reason=\(String(cString: inact_reason_string(reason.rawValue)))"
        case "closed-call": e.close(); engine = nil; scopes = [:]; holds = [:]; try e.lock()
        default: if try !generatedOp(e, op, a) { return "unknown-op" }  // GeneratedOps.swift
        }
        return "ok"
    }

    /// A name read by the library (`parse` is one of inact_*_from_string); its error as thrown.
    static func name(_ text: String, _ parse: (UnsafePointer<CChar>?, UnsafeMutablePointer<Int32>?) -> Int32) throws(InactivityError) -> Int32 {
        var value: Int32 = 0
        let rc = text.withCString { parse($0, &value) }
        if rc != 0 { throw InactivityError(InactivityError.Code(rawValue: rc) ?? .internal, String(cString: inact_last_error())) }
        return value
    }

    private func launch(_ a: [String]) throws(InactivityError) -> String {
        let clock = try ManualClock(monotonicMs: Int64(a[0])!, wallMs: Int64(a[1])!, bootID: UInt64(a[2])!)
        let inbox = self.inbox
        engine = try InactivityEngine(policy: try SwiftRunner.policy(Array(a.dropFirst(3))), clock: .manual(clock),
                                      onEvent: { inbox.push($0) })
        return "ok"
    }

    /// `name=value` policy fields; each field is one line.
    static func policy(_ pairs: [String]) throws(InactivityError) -> SessionPolicy {
        var p = SessionPolicy()
        for pair in pairs {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            let v = Int64(kv[1])!
            switch kv[0] {
            case "idle_action": p.idleAction = IdleAction(rawValue: Int32(v))!
            case "idle_timeout_ms": p.idleTimeoutMs = v
            case "warning_ms": p.warningMs = v
            case "background_timeout_ms": p.backgroundTimeoutMs = v
            case "absolute_timeout_ms": p.absoluteTimeoutMs = v
            case "locked_timeout_ms": p.lockedTimeoutMs = v
            case "max_unlock_failures": p.maxUnlockFailures = UInt32(v)
            case "tick_ms": p.tickMs = v
            case "background_grace_ms": p.backgroundGraceMs = v
            case "activity_kinds": p.activityKinds = ActivityKind(rawValue: UInt32(v))
            case "activity_dismisses_warning": p.activityDismissesWarning = v != 0
            case "pause_idle_in_background": p.pauseIdleInBackground = v != 0
            case "lock_on_device_lock": p.lockOnDeviceLock = v != 0
            case "lock_on_restart": p.lockOnRestart = v != 0
            case "strong_auth_timeout_ms": p.strongAuthTimeoutMs = v
            case "expected_interruption_max_ms": p.expectedInterruptionMaxMs = v
            case "offline_timeout_ms": p.offlineTimeoutMs = v
            case "offline_expiry_ms": p.offlineExpiryMs = v
            case "keepalive_interval_ms": p.keepaliveIntervalMs = v
            default: throw InactivityError(.invalidArgument, "unknown policy field \(kv[0])")
            }
        }
        return p
    }

    /// `name=value` ceiling fields.
    static func ceilings(_ pairs: [String]) throws(InactivityError) -> PolicyCeilings {
        var c = PolicyCeilings()
        for pair in pairs {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            let v = Int64(kv[1])!
            switch kv[0] {
            case "max_unlock_failures": c.maxUnlockFailures = UInt32(v)
            case "idle_timeout_ms": c.idleTimeoutMs = v
            case "background_timeout_ms": c.backgroundTimeoutMs = v
            case "absolute_timeout_ms": c.absoluteTimeoutMs = v
            case "locked_timeout_ms": c.lockedTimeoutMs = v
            case "strong_auth_timeout_ms": c.strongAuthTimeoutMs = v
            case "expected_interruption_max_ms": c.expectedInterruptionMaxMs = v
            case "offline_timeout_ms": c.offlineTimeoutMs = v
            case "offline_expiry_ms": c.offlineExpiryMs = v
            case "lock_on_device_lock": c.lockOnDeviceLock = v != 0
            case "lock_on_restart": c.lockOnRestart = v != 0
            default: throw InactivityError(.invalidArgument, "unknown ceiling field \(kv[0])")
            }
        }
        return c
    }

    static func info(_ i: InactivityEngine.Info) -> String {
        "state=\(i.state.rawValue) reason=\(i.reason.rawValue) background=\(i.inBackground ? 1 : 0) "
            + "windows=\(i.visibleWindows) scopes=\(i.openScopes) holds=\(i.openHolds) failures=\(i.unlockFailures) "
            + "now=\(i.nowMs) remaining=\(i.remainingMs) next=\(i.nextDeadlineMs) idle=\(i.effectiveIdleTimeoutMs) "
            + "started=\(i.startedAtMs) activity=\(i.lastActivityMs) background_since=\(i.backgroundSinceMs) "
            + "locked=\(i.lockedAtMs) auth=\(i.requiredAuth.rawValue) needs_contact=\(i.needsServerContact ? 1 : 0) "
            + "credential=\(i.lastCredentialMs) strong_auth=\(i.strongAuthDeadlineMs) contact=\(i.lastServerContactMs) "
            + "generation=\(i.tokenGeneration) interruption=\(i.interruptionUntilMs)"
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var s = ""
        for b in bytes { s.append(digits[Int(b >> 4)]); s.append(digits[Int(b & 15)]) }
        return s
    }

    /// The scenario runner's corruption: one byte in the middle flipped with 0x5A.
    static func corrupted(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        if !b.isEmpty { b[b.count / 2] ^= 0x5A }
        return b
    }
}
