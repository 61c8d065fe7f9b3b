// The Swift runner: executes an op list through InactivityCore (the Swift host's API) and
// prints the canonical output (verify/conformance/README.md). The C, Python and Kotlin runners print
// the same text through their own bindings; the conformance suite compares them byte for byte.
// An op is interpreted from the op vocabulary: generated/OpTable.swift (tools/generate, from the
// header and names.toml) converts each word by its argument's kind with the converters below,
// calls InactivityEngine's member and prints the result by its kind. Only the ops with host
// state, and the names ops that read names through the library, are written here.

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

    /// One op; returns the text after "= ". The host-state ops here, the rest generated.
    private func execute(_ op: String, _ a: [String]) throws(InactivityError) -> String {
        if op == "launch" { return try launch(a) }
        guard let e = engine else { return "no-engine" }
        if let host = SwiftRunner.hostOps[op] { return try host(self, e, a) }
        return try generatedOp(e, op, a, self) ?? "unknown-op"  // generated/OpTable.swift
    }

    typealias HostOp = @Sendable (SwiftRunner, InactivityEngine, [String]) throws(InactivityError) -> String
    /// The ops written by hand: those with host state (names.toml's hand layer `op`: the engine,
    /// the snapshot, the scope and hold names) and the names ops of issue 32. A hand op that is
    /// also generated would hide the generated one: main.swift refuses to run then.
    static let hostOps: [String: HostOp] = [
        "kill": { r, e, _ in r.kill(e); return "ok" },
        "push-scope": { r, e, a throws(InactivityError) in
            let id = try e.pushScope(idleTimeoutMs: Int64(a[1])!); r.scopes[a[0]] = id; return "ok id=\(id)" },
        "pop-scope": { r, e, a throws(InactivityError) in try e.popScope(r.scopes[a[0]] ?? 0); r.scopes[a[0]] = nil; return "ok" },
        "hold": { r, e, a throws(InactivityError) in let id = try e.acquireHold(); r.holds[a[0]] = id; return "ok id=\(id)" },
        "release": { r, e, a throws(InactivityError) in try e.releaseHold(r.holds[a[0]] ?? 0); r.holds[a[0]] = nil; return "ok" },
        "save": { r, e, _ throws(InactivityError) in r.snapshot = try e.snapshot(); return "ok snapshot=" + SwiftRunner.hex(r.snapshot) },
        "restore": { r, e, _ throws(InactivityError) in try e.restore(r.snapshot); return "ok" },
        "restore-corrupt": { r, e, _ throws(InactivityError) in try e.restore(SwiftRunner.corrupted(r.snapshot)); return "ok" },
        // names (issue 32): the library's reading and printing, as every binding; Swift's API
        // takes no names, so these read them through the C library (host code, not generated)
        "preset-name": { _, _, a throws(InactivityError) in
            let preset = try SwiftRunner.name(a[0], inact_preset_from_string)
            guard let p = SessionPolicy.Preset(rawValue: preset) else { return "unknown-preset" }
            return "ok idle_timeout_ms=\(SessionPolicy(preset: p).idleTimeoutMs)"
        },
        "activity-name": { _, e, a throws(InactivityError) in
            var kind: UInt32 = 0
            let rc = a[0].withCString { inact_activity_kind_from_string($0, &kind) }
            if rc != 0 { throw InactivityError(InactivityError.Code(rawValue: rc) ?? .internal, message: String(cString: inact_last_error())) }
            try e.recordActivity(ActivityKind(rawValue: kind))
            return "ok"
        },
        "end-name": { _, e, a throws(InactivityError) in
            try e.end(reason: Reason(rawValue: try SwiftRunner.name(a[0], inact_reason_from_string))!); return "ok" },
        "names": { _, e, _ throws(InactivityError) in
            let state = try e.state(), reason = try e.reason()
            return "ok state=\(String(cString: inact_state_string(state.rawValue))) reason=\(String(cString: inact_reason_string(reason.rawValue)))"
        },
        "closed-call": { r, e, _ throws(InactivityError) in r.kill(e); try e.lock(); return "ok" },
    ]

    private func kill(_ e: InactivityEngine) { e.close(); engine = nil; scopes = [:]; holds = [:] }

    // The converters by kind that generated/OpTable.swift calls: each word as the Swift API takes
    // it (the op lists are the compiler's and differential.py's, so a bad word is a bug: trap).
    func int32(_ word: String) -> Int32 { Int32(word)! }
    func int64(_ word: String) -> Int64 { Int64(word)! }
    func uint64(_ word: String) -> UInt64 { UInt64(word)! }
    /// A duration (INACT_MS): milliseconds, as InactivityCore takes them (NEVER is Int64.max).
    func ms(_ word: String) -> Int64 { Int64(word)! }
    func msOut(_ ms: Int64?) -> Int64 { ms ?? SessionPolicy.never }
    func auth(_ word: String) -> AuthStrength { AuthStrength(rawValue: Int32(word)!) ?? .none }
    func reason(_ word: String) -> Reason { Reason(rawValue: Int32(word)!)! }
    func holderKind(_ word: String) -> HolderKind { HolderKind(rawValue: Int32(word)!)! }
    func activityKind(_ word: String) -> ActivityKind { ActivityKind(rawValue: UInt32(word)!) }
    func policy(_ words: [String]) throws(InactivityError) -> SessionPolicy { try SwiftRunner.policy(words) }
    func ceilings(_ words: [String]) throws(InactivityError) -> PolicyCeilings { try SwiftRunner.ceilings(words) }
    func printInfo(_ i: InactivityEngine.Info) -> String { SwiftRunner.info(i) }
    func printPolicy(_ p: SessionPolicy) -> String { OpCompiler.fields(p) }
    func printClock(_ c: ClockReading) -> String { "monotonic=\(c.monotonicMs) wall=\(c.wallMs) boot=\(c.bootID)" }

    /// A name read by the library (`parse` is one of inact_*_from_string); its error as thrown.
    static func name(_ text: String, _ parse: (UnsafePointer<CChar>?, UnsafeMutablePointer<Int32>?) -> Int32) throws(InactivityError) -> Int32 {
        var value: Int32 = 0
        let rc = text.withCString { parse($0, &value) }
        if rc != 0 { throw InactivityError(InactivityError.Code(rawValue: rc) ?? .internal, message: String(cString: inact_last_error())) }
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
            default: throw InactivityError(.invalidArgument, message: "unknown policy field \(kv[0])")
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
            default: throw InactivityError(.invalidArgument, message: "unknown ceiling field \(kv[0])")
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
