// Compiles a parsed Scenario into the conformance op list (verify/conformance/README.md): one engine
// call per line, exact integer milliseconds, no scenario syntax left. Every binding's runner
// executes the same list, so none needs a scenario parser, and a difference in their outputs
// can only come from the binding.
//
// The compiler stands for the device, as ScenarioRunner does: it keeps the device clock while
// no app runs (kill ... launch), applies reboots, and turns the time between two steps into one
// `advance` (the library's manual clock wakes at every deadline on the way, inside the call).

import InactivityCore
import InactivityScenarios

struct OpCompiler {
    private(set) var lines: [String] = []

    // The device: its clock is the engine's while an app runs.
    private var monotonicMs: Int64 = 0
    private var wallMs: Int64 = 1_700_000_000_000
    private var bootID: UInt64 = 1
    private var running = false
    private var nowMs: Int64 = 0
    /// The policy a `launch` creates its engine with: the scenario's, then each set-policy
    /// that is not expected to fail.
    private var policy: SessionPolicy

    init(_ scenario: Scenario) {
        policy = scenario.policy
        lines.append("# ops v1: \(scenario.source)")
        launch()
        for step in scenario.steps {
            advance(to: step.timeMs)
            compile(step)
        }
    }

    private mutating func emit(_ line: String) { lines.append(line) }

    private mutating func launch() {
        emit("launch \(monotonicMs) \(wallMs) \(bootID) \(OpCompiler.fields(policy))")
        emit("policy")
        running = true
    }

    private mutating func advance(to target: Int64) {
        guard target > nowMs else { return }
        let ms = target - nowMs
        if running { emit("advance \(ms)") }
        monotonicMs += ms
        wallMs += ms
        nowMs = target
    }

    private mutating func compile(_ step: Step) {
        switch step.command {
        case .note: return
        case .expect:
            // The queries: the full view, then the host-mode and clock reads (each binding
            // converts them its own way: NEVER, durations, wall time, 64-bit boot ids).
            for query in ["info", "next-deadline", "clock", "poll"] { emit(query) }
            return
        case .freeze(let ms):
            emit("freeze \(ms)")   // no query after it: the next call is the one that catches up
            monotonicMs += ms
            wallMs += ms
            nowMs += ms
            return
        case .kill:
            emit("kill")
            running = false
            return
        case .launch:
            launch()
        case .reboot:
            // The library's manual-clock reboot rule (ManualClock.reboot), applied to the device.
            bootID = bootID &* 0x9E37_79B9_7F4A_7C15 &+ 0x6A09_E667
            if bootID == 0 { bootID = 1 }
            monotonicMs = 0
            return
        case .wallJump(let ms):
            wallMs += ms
            if running { emit("wall-jump \(ms)"); emit("clock") }
            return
        case .save: emit("save")
        case .input(let plain, let values): emit(plain.op(values))
        case .activity(let kind): emit("activity \(kind.rawValue)")
        case .unlock(let method): emit("unlock \(method.rawValue)")
        case .unlockFailed(let method): emit("unlock-failed \(method.rawValue)")
        case .holderReport(let kind, let reason, let ms): emit("holder-report \(kind.rawValue) \(reason.rawValue) \(ms)")
        case .setCeilings(let ceilings):
            emit("set-ceilings \(OpCompiler.fields(ceilings))")
            // The engine's policy is tightened to them: a later launch uses it (as ScenarioRunner).
            if step.expectedError == nil { policy = ceilings.tighten(policy) }
        case .end(let reason): emit("end \(reason.rawValue)")
        case .refresh(let status, let error, let generation):
            emit("refresh \(status) \(generation)" + (error.map { " \($0)" } ?? ""))
        case .pushScope(let name, let ms): emit("push-scope \(name) \(ms)")
        case .popScope(let name): emit("pop-scope \(name)")
        case .hold(let name): emit("hold \(name)")
        case .release(let name): emit("release \(name)")
        case .setPolicy(let newPolicy):
            emit("set-policy \(OpCompiler.fields(newPolicy))")
            emit("policy")
            if step.expectedError == nil { policy = newPolicy }
        case .restore(let corrupt): emit(corrupt ? "restore-corrupt" : "restore")
        }
        emit("info") // as ScenarioRunner records the engine after every step
    }

    /// The policy as `name=value` pairs, in the header's inact_policy field order.
    static func fields(_ p: SessionPolicy) -> String {
        [
            "idle_action=\(p.idleAction.rawValue)",
            "idle_timeout_ms=\(p.idleTimeoutMs)",
            "warning_ms=\(p.warningMs)",
            "background_timeout_ms=\(p.backgroundTimeoutMs)",
            "absolute_timeout_ms=\(p.absoluteTimeoutMs)",
            "locked_timeout_ms=\(p.lockedTimeoutMs)",
            "max_unlock_failures=\(p.maxUnlockFailures)",
            "tick_ms=\(p.tickMs)",
            "background_grace_ms=\(p.backgroundGraceMs)",
            "activity_kinds=\(p.activityKinds.rawValue)",
            "activity_dismisses_warning=\(p.activityDismissesWarning ? 1 : 0)",
            "pause_idle_in_background=\(p.pauseIdleInBackground ? 1 : 0)",
            "lock_on_device_lock=\(p.lockOnDeviceLock ? 1 : 0)",
            "lock_on_restart=\(p.lockOnRestart ? 1 : 0)",
            "strong_auth_timeout_ms=\(p.strongAuthTimeoutMs)",
            "expected_interruption_max_ms=\(p.expectedInterruptionMaxMs)",
            "offline_timeout_ms=\(p.offlineTimeoutMs)",
            "offline_expiry_ms=\(p.offlineExpiryMs)",
            "keepalive_interval_ms=\(p.keepaliveIntervalMs)",
        ].joined(separator: " ")
    }

    /// The ceilings as `name=value` pairs, in the header's inact_ceilings field order.
    static func fields(_ c: PolicyCeilings) -> String {
        [
            "max_unlock_failures=\(c.maxUnlockFailures)",
            "idle_timeout_ms=\(c.idleTimeoutMs)",
            "background_timeout_ms=\(c.backgroundTimeoutMs)",
            "absolute_timeout_ms=\(c.absoluteTimeoutMs)",
            "locked_timeout_ms=\(c.lockedTimeoutMs)",
            "strong_auth_timeout_ms=\(c.strongAuthTimeoutMs)",
            "expected_interruption_max_ms=\(c.expectedInterruptionMaxMs)",
            "offline_timeout_ms=\(c.offlineTimeoutMs)",
            "offline_expiry_ms=\(c.offlineExpiryMs)",
            "lock_on_device_lock=\(c.lockOnDeviceLock ? 1 : 0)",
            "lock_on_restart=\(c.lockOnRestart ? 1 : 0)",
        ].joined(separator: " ")
    }
}
