// Plays a Scenario on a manual clock and prints its timeline.
//
// The runner stands for the host app and its device: it owns the clock while the app is
// "killed", creates a new engine on "launch", and moves time. Between two steps it lets time
// run the way it runs for a live process: it advances the manual clock to each of the engine's
// deadlines in turn (as the scheduler thread wakes at each one), so the WARNING and every
// countdown tick show up at their own instant. `freeze` is the exception: time passes with
// nothing delivered, as when the OS suspends the process, and the next call into the engine
// catches up in one event.

import InactivityCore
import Synchronization

/// Events arrive on the calling thread inside each engine call (manual clock), and are
/// collected here until the runner prints them.
public final class EventInbox: Sendable {
    private let events = Mutex<[SessionEvent]>([])

    public init() {}

    public func push(_ event: SessionEvent) { events.withLock { $0.append(event) } }

    public func drain() -> [SessionEvent] {
        events.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}

public struct RunOptions: Sendable {
    /// Print each expectation as it is checked (scenario files), or only failed ones (the demo).
    public var showChecks = true
    /// Print countdown ticks.
    public var showTicks = true
    /// Print nothing but failures and the summary.
    public var quiet = false

    public init(showChecks: Bool = true, showTicks: Bool = true, quiet: Bool = false) {
        self.showChecks = showChecks
        self.showTicks = showTicks
        self.quiet = quiet
    }
}

public struct RunResult: Sendable {
    public var checksPassed = 0
    /// (line, message) for each failed expectation or unexpected engine error.
    public var failures: [(line: Int, message: String)] = []
    public var passed: Bool { failures.isEmpty }
    /// Everything the run did, in order, whatever the print options were.
    public var timeline = Timeline()
}

/// What a run did, in scenario time: every step as it was executed and every event the engine
/// delivered, in the order they happened. The text timeline is one rendering of it, the SVG
/// another; a conformance runner can compare its own run with it.
public struct Timeline: Sendable {
    public var entries: [TimelineEntry] = []
    /// Scenario time when the last step had run.
    public var endMs: Int64 = 0
}

public struct TimelineEntry: Sendable {
    public enum Kind: Sendable {
        /// A step of the scenario ran (an input, a process or device event, a note, a check).
        case step(Step, StepOutcome)
        /// The engine delivered an event (a state change or a countdown tick): inside the call
        /// of an engine input (`byInput`), or while time ran between steps (a deadline fired,
        /// or the engine caught up after a freeze).
        case event(SessionEvent, byInput: Bool)
    }

    /// Scenario time when it happened (for an event: when it was delivered).
    public var timeMs: Int64
    /// For an event, when it took effect in scenario time: earlier than `timeMs` when the
    /// engine caught up after a freeze. For a step, `timeMs`.
    public var effectiveMs: Int64
    public var kind: Kind
}

/// What one step returned.
public struct StepOutcome: Sendable {
    /// The error an engine input failed with (expected or not); nil when it succeeded.
    public var error: InactivityError?
    /// `refresh`: what the engine made of the result.
    public var refresh: RefreshOutcome?
    /// `unlock-failed`: the failures in a row, as the engine counts them.
    public var unlockFailures: UInt32?
    /// `save`: the size of the snapshot.
    public var snapshotBytes: Int?
    /// `expect`: nil when it held, else what was found instead.
    public var problem: String?
    /// After the step, whether the engine was in background, and since when (scenario time,
    /// which is earlier than the step after a window grace); nil when no app runs.
    public var inBackground: Bool?
    public var backgroundSinceMs: Int64?
}

public final class ScenarioRunner {
    public let scenario: Scenario
    public let options: RunOptions
    private let emit: (String) -> Void
    private var result = RunResult()

    // The device and the app.
    private var clock: ManualClock?
    /// The device clock while no app runs.
    private var deviceClock = ClockReading(monotonicMs: 0, wallMs: 1_700_000_000_000, bootID: 1)
    /// Scenario time = engine clock + offset (changes only on reboot).
    private var offsetMs: Int64 = 0
    private var engine: InactivityEngine?
    private let inbox = EventInbox()
    private var policy: SessionPolicy
    private var nowMs: Int64 = 0
    private var savedSnapshot: [UInt8]?

    // What the host remembers.
    private var scopes: [String: UInt64] = [:]
    private var holds: [String: UInt64] = [:]
    private var lastRefresh: RefreshOutcome?
    private var ticksSinceChange = 0
    private var eventsSinceCheck = 0
    private var keepalivesSinceCheck = 0
    private var lastChangeMs: Int64?
    /// An engine input's call and its printing are under way (for TimelineEntry.byInput).
    private var inInput = false

    public init(_ scenario: Scenario, options: RunOptions = RunOptions(), emit: @escaping (String) -> Void) {
        self.scenario = scenario
        self.options = options
        self.emit = emit
        self.policy = scenario.policy
    }

    public func run() -> RunResult {
        printHeader()
        launchEngine()
        for step in scenario.steps {
            advance(to: step.timeMs, line: step.line)
            execute(step)
        }
        result.timeline.endMs = nowMs
        return result
    }

    private func record(_ step: Step, _ outcome: StepOutcome = StepOutcome()) {
        var outcome = outcome
        // Every deadline due by now has been delivered (time runs deadline by deadline and
        // every input evaluates), so this query delivers nothing and changes no output.
        if let engine, let info = try? engine.info() {
            outcome.inBackground = info.inBackground
            if info.backgroundSinceMs != SessionPolicy.never { outcome.backgroundSinceMs = info.backgroundSinceMs + offsetMs }
        }
        result.timeline.entries.append(TimelineEntry(timeMs: nowMs, effectiveMs: nowMs, kind: .step(step, outcome)))
    }

    // MARK: Time

    /// Lets time run to `target` as it runs for a live process: wake at every deadline.
    private func advance(to target: Int64, line: Int) {
        while nowMs < target {
            guard let engine else {
                deviceClock.monotonicMs += target - nowMs
                deviceClock.wallMs += target - nowMs
                nowMs = target
                return
            }
            var stepTo = target
            if let info = query(line, { try engine.info() }), info.nextDeadlineMs != SessionPolicy.never {
                let due = info.nextDeadlineMs + offsetMs
                if due > nowMs && due < target { stepTo = due }
            }
            call(line) { try engine.advanceClock(byMs: stepTo - nowMs) }
            nowMs = stepTo
            printEvents(inbox.drain())
        }
    }

    // MARK: Steps

    private func execute(_ step: Step) {
        switch step.command {
        case .note(let text):
            record(step)
            if !text.isEmpty && !options.quiet { emit(ScenarioRunner.timeColumn(nowMs) + "-- " + text) }
        case .expect(let expectation):
            check(expectation, step: step)
        case .save:
            if let bytes = query(step.line, { try engine!.snapshot() }) {
                savedSnapshot = bytes
                record(step, StepOutcome(snapshotBytes: bytes.count))
                printInput(step, [], note: "snapshot of \(bytes.count) bytes stored")
            }
        case .kill:
            if let clock { deviceClock = clock.now() }
            engine?.close()
            engine = nil
            clock = nil
            scopes = [:]
            holds = [:]
            record(step)
            printInput(step, [], note: "the process dies")
        case .launch:
            launchEngine()
            record(step)
            printInput(step, [], note: "cold start: a new engine")
        case .reboot:
            deviceClock.bootID = deviceClock.bootID &* 0x9E37_79B9_7F4A_7C15 &+ 0x6A09_E667
            if deviceClock.bootID == 0 { deviceClock.bootID = 1 }
            deviceClock.monotonicMs = 0
            offsetMs = nowMs
            record(step)
            printInput(step, [], note: "new boot id; the monotonic clock restarts")
        case .wallJump(let ms):
            if let engine {
                call(step.line) { try engine.jumpWallClock(byMs: ms) }
            } else {
                deviceClock.wallMs += ms
            }
            record(step)
            printInput(step, [], note: "only the wall clock moves")
        case .freeze(let ms):
            record(step)
            if !options.quiet { emit(row(nowMs, "> " + step.text, note: "suspended: no timer runs")) }
            // Nothing runs while suspended: the next input (or the next timer) catches up.
            call(step.line) { try engine!.freezeClock(forMs: ms) }
            nowMs += ms
            printEvents(inbox.drain())
        default:
            input(step)
        }
    }

    /// An engine input: call it, compare any error with the expected one, print the result.
    private func input(_ step: Step) {
        guard let engine else { return }   // the parser guarantees a running app
        inInput = true
        defer { inInput = false }
        var note: String? = nil
        var failure: InactivityError? = nil
        var outcome = StepOutcome()
        do throws(InactivityError) {
            switch step.command {
            case .input(let plain, let values): try plain.run(engine, values)
            case .activity(let kind): try engine.recordActivity(kind)
            case .unlock(let method): try engine.unlock(method: method)
            case .unlockFailed(let method):
                let n = try engine.unlockFailed(method: method)
                outcome.unlockFailures = n
                note = "\(n) in a row"
            case .end(let reason): try engine.end(reason: reason)
            case .holderReport(let kind, let reason, let ms): try engine.holderReport(kind, reason: reason, ms: ms)
            case .setCeilings(let ceilings):
                try engine.setCeilings(ceilings)
                policy = try engine.policy()   // tightened: a later launch uses it
            case .refresh(let status, let oauthError, let generation):
                let refreshed = try engine.refreshResult(httpStatus: status, oauthError: oauthError,
                                                         generation: generation)
                lastRefresh = refreshed
                outcome.refresh = refreshed
                note = "=> \(Names.refreshOutcome(refreshed))"
            case .pushScope(let name, let ms): scopes[name] = try engine.pushScope(idleTimeoutMs: ms)
            case .popScope(let name):
                // An unknown name is passed as id 0, which no scope has: the engine says NOT_FOUND.
                try engine.popScope(scopes[name] ?? 0)
                scopes[name] = nil
            case .hold(let name): holds[name] = try engine.acquireHold()
            case .release(let name):
                try engine.releaseHold(holds[name] ?? 0)
                holds[name] = nil
            case .setPolicy(let newPolicy):
                try engine.setPolicy(newPolicy)
                policy = newPolicy
            case .restore(let corrupt):
                var bytes = savedSnapshot ?? []
                if corrupt && !bytes.isEmpty { bytes[bytes.count / 2] ^= 0x5A }
                try engine.restore(bytes)
            default:
                return
            }
        } catch {
            failure = error
        }
        let events = inbox.drain()

        switch (failure, step.expectedError) {
        case (nil, nil):
            break
        case (let error?, let expected?) where error.code == expected.code:
            result.checksPassed += 1
            note = "error \(Names.errorCodeName(error.code)) (expected): \(error.message)"
        case (let error?, let expected):
            note = "error \(Names.errorCodeName(error.code)): \(error.message)"
            let wanted = expected.map { ", expected \(Names.errorCodeName($0.code))" } ?? ""
            fail(step.line, "'\(step.text)' failed with \(Names.errorCodeName(error.code)): \(error.message)\(wanted)")
        case (nil, let expected?):
            fail(expected.line, "expected '\(step.text)' (line \(step.line)) to fail with \(Names.errorCodeName(expected.code)), but it succeeded")
        }
        outcome.error = failure
        record(step, outcome)
        printInput(step, events, note: note)
    }

    private func launchEngine() {
        do throws(InactivityError) {
            let manual = try ManualClock(monotonicMs: deviceClock.monotonicMs, wallMs: deviceClock.wallMs,
                                         bootID: deviceClock.bootID)
            let inbox = self.inbox
            engine = try InactivityEngine(policy: policy, clock: .manual(manual), onEvent: { inbox.push($0) })
            clock = manual
            ticksSinceChange = 0
            lastChangeMs = nil
        } catch {
            fail(0, "cannot create an engine: \(error.message)")
        }
    }

    // MARK: Expectations

    private func check(_ expectation: Expectation, step: Step) {
        guard let engine, let info = query(step.line, { try engine.info() }) else { return }
        printEvents(inbox.drain())
        let problem: String?
        switch expectation {
        case .state(let state, let reason, let since):
            let sinceText = lastChangeMs.map { " since \(TimeText.clock($0))" } ?? ""
            if info.state != state || (reason != nil && info.reason != reason) || (since != nil && lastChangeMs != since) {
                problem = "got \(info.state) \(Names.reasonText(info.reason))\(sinceText)"
            } else {
                problem = nil
            }
        case .remaining(let ms):
            problem = info.remainingMs == ms ? nil : "got \(TimeText.remaining(info.remainingMs))"
        case .refresh(let outcome):
            problem = lastRefresh == outcome ? nil
                : "got \(lastRefresh.map(Names.refreshOutcome) ?? "no refresh yet")"
        case .unlockFailures(let n):
            problem = info.unlockFailures == n ? nil : "got \(info.unlockFailures)"
        case .background(let yes):
            problem = info.inBackground == yes ? nil : "got \(info.inBackground ? "yes" : "no")"
        case .idleTimeout(let ms):
            problem = info.effectiveIdleTimeoutMs == ms ? nil : "got \(TimeText.duration(info.effectiveIdleTimeoutMs))"
        case .ticks(let n):
            problem = ticksSinceChange == n ? nil : "got \(ticksSinceChange)"
        case .events(let n):
            problem = eventsSinceCheck == n ? nil : "got \(eventsSinceCheck)"
        case .keepalives(let n):
            problem = keepalivesSinceCheck == n ? nil : "got \(keepalivesSinceCheck)"
        case .requiredAuth(let strength):
            problem = info.requiredAuth == strength ? nil : "got \(info.requiredAuth)"
        }
        eventsSinceCheck = 0
        keepalivesSinceCheck = 0
        record(step, StepOutcome(problem: problem))
        if let problem {
            fail(step.line, "at \(TimeText.clock(nowMs)): \(step.text): \(problem)")
            if !options.quiet { emit(row(nowMs, "  " + step.text, note: "FAILED: \(problem)")) }
        } else {
            result.checksPassed += 1
            if options.showChecks && !options.quiet { emit(row(nowMs, "  " + step.text, note: "ok")) }
        }
    }

    private func fail(_ line: Int, _ message: String) {
        result.failures.append((line, message))
    }

    // MARK: Engine calls that should not fail

    private func call(_ line: Int, _ body: () throws -> Void) {
        _ = query(line, body)
    }

    private func query<T>(_ line: Int, _ body: () throws -> T) -> T? {
        do { return try body() } catch {
            fail(line, "engine call failed: \((error as? InactivityError)?.message ?? "\(error)")")
            return nil
        }
    }

    // MARK: Printing

    static let header = "  time       " + "event".rightPad(whatWidth) + " state    reason             remaining"
    static let whatWidth = 47

    /// ` 0:03:40     ` or ` 0:03:40.250 `: the time column, 13 wide.
    static func timeColumn(_ ms: Int64) -> String {
        let text = TimeText.clock(ms)
        let whole = text.split(separator: ".").first.map(String.init) ?? text
        return (String(repeating: " ", count: max(0, 8 - whole.count)) + text).rightPad(13)
    }

    private func printHeader() {
        guard !options.quiet else { return }
        emit("Inactivity: \(scenario.name ?? scenario.source)")
        emit("policy \(scenario.policyLabel): \(PolicyText.summary(scenario.policy))")
        emit("manual clock: virtual time, nothing waits")
        emit("")
        emit(ScenarioRunner.header)
    }

    /// One input line; an input that caused exactly one transition, right now, shares its line.
    private func printInput(_ step: Step, _ events: [SessionEvent], note: String? = nil) {
        guard !options.quiet else { recordEvents(events); return }
        if step.isRepeat && events.isEmpty && !(note?.hasPrefix("error") ?? false) { return }
        var what = "> " + step.text
        var rest = events
        if let first = events.first, events.count == 1, first.kind == .stateChanged, first.timeMs == first.nowMs {
            what += "  " + "\(first.previousState) -> \(first.state)"
            recordEvents([first])
            rest = []
        }
        emit(row(nowMs, what, note: note))
        printEvents(rest)
    }

    private func printEvents(_ events: [SessionEvent]) {
        recordEvents(events)
        guard !options.quiet else { return }
        for e in events {
            let at = e.nowMs + offsetMs
            switch e.kind {
            case .stateChanged:
                let late = e.timeMs < e.nowMs ? "took effect at \(TimeText.clock(e.timeMs + offsetMs))" : nil
                emit(row(at, "  \(e.previousState) -> \(e.state)", state: e.state, reason: e.reason,
                         remainingMs: e.remainingMs, note: late))
            case .tick:
                if options.showTicks {
                    emit(row(at, "  tick", state: e.state, reason: e.reason, remainingMs: e.remainingMs))
                }
            case .keepalive:
                emit(row(at, "  keepalive", state: e.state, reason: e.reason, remainingMs: e.remainingMs,
                         note: "activity \(TimeText.duration(e.nowMs - e.timeMs)) ago"))
            }
        }
    }

    private func recordEvents(_ events: [SessionEvent]) {
        eventsSinceCheck += events.count
        for e in events {
            result.timeline.entries.append(TimelineEntry(timeMs: e.nowMs + offsetMs, effectiveMs: e.timeMs + offsetMs,
                                                         kind: .event(e, byInput: inInput)))
            switch e.kind {
            case .stateChanged:
                ticksSinceChange = 0
                lastChangeMs = e.timeMs + offsetMs
            case .tick:
                ticksSinceChange += 1
            case .keepalive:
                keepalivesSinceCheck += 1
            }
        }
    }

    /// A timeline row with the engine's state now (or "-" when no app runs).
    private func row(_ timeMs: Int64, _ what: String, note: String? = nil) -> String {
        if let engine, let info = try? engine.info() {
            printEvents(inbox.drain())   // a query may deliver a catch-up event; none is expected here
            return row(timeMs, what, state: info.state, reason: info.reason, remainingMs: info.remainingMs, note: note)
        }
        return format(timeMs, what, "-", "-", "-", note)
    }

    private func row(_ timeMs: Int64, _ what: String, state: SessionState, reason: Reason, remainingMs: Int64,
                     note: String? = nil) -> String {
        format(timeMs, what, "\(state)", Names.reasonText(reason), TimeText.remaining(remainingMs), note)
    }

    private func format(_ timeMs: Int64, _ what: String, _ state: String, _ reason: String, _ remaining: String,
                        _ note: String?) -> String {
        var line = ScenarioRunner.timeColumn(timeMs) + what.rightPad(ScenarioRunner.whatWidth) + " "
            + state.rightPad(8) + " " + reason.rightPad(18) + " " + remaining.rightPad(8)
        if let note { line += "  " + note }
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }
}

// Column padding for the text timelines (this runner's and the demo's live mode).
extension String {
    package func leftPad(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
    package func rightPad(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
