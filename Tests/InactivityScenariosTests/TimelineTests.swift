import InactivityCore
import InactivityScenarios
import Testing

// The recorded timeline is what the SVG and the conformance runners read: it must hold every
// step at its own time, and every event the text timeline prints, whatever the print options.
@Suite("Scenario timeline")
struct TimelineTests {
    static func run(_ text: String, options: RunOptions = RunOptions()) throws -> (Scenario, RunResult, [String]) {
        let scenario = try ScenarioParser.parse(text, source: "test")
        var lines: [String] = []
        let result = ScenarioRunner(scenario, options: options) { lines.append($0) }.run()
        return (scenario, result, lines)
    }

    @Test func every_step_is_recorded_once_in_order_at_its_time() throws {
        let (scenario, result, _) = try Self.run(DemoScenario.text, options: RunOptions(showChecks: false))
        #expect(result.passed)
        let steps = result.timeline.entries.compactMap { entry -> (Int64, Step)? in
            if case .step(let step, _) = entry.kind { return (entry.timeMs, step) }
            return nil
        }
        #expect(steps.count == scenario.steps.count)
        for ((timeMs, recorded), step) in zip(steps, scenario.steps) {
            #expect(recorded.line == step.line && recorded.text == step.text)
            // A step runs at its own time (a freeze ends later, but starts at its time).
            #expect(timeMs == step.timeMs)
        }
        #expect(result.timeline.endMs == scenario.steps.last!.timeMs)
    }

    @Test func quiet_and_loud_runs_record_the_same_timeline() throws {
        func summary(_ r: RunResult) -> [String] {
            r.timeline.entries.map { entry in
                switch entry.kind {
                case .step(let s, let o): "\(entry.timeMs) step \(s.line) \(o.error?.code.rawValue ?? 0) \(o.problem ?? "")"
                case .event(let e, let byInput): "\(entry.timeMs) \(entry.effectiveMs) \(e.kind) \(e.state) \(e.reason) \(byInput)"
                }
            }
        }
        let loud = try Self.run(DemoScenario.text).1
        let quiet = try Self.run(DemoScenario.text, options: RunOptions(showTicks: false, quiet: true)).1
        #expect(summary(loud) == summary(quiet))
        #expect(!summary(loud).isEmpty)
    }

    @Test func a_catch_up_event_took_effect_before_it_was_delivered() throws {
        let text = """
        policy banking
        at 0:00 start
        at 1:00 background
                freeze 5m
        at 6:00 foreground
        """
        let (_, result, _) = try Self.run(text)
        // The state changes, each with its event: no entry of another kind can reach the checks
        // below (a guard that returned early there would pass the test without checking).
        let changes = result.timeline.entries.compactMap { entry -> (entry: TimelineEntry, event: SessionEvent, byInput: Bool)? in
            if case .event(let e, let byInput) = entry.kind, e.kind == .stateChanged { return (entry, e, byInput) }
            return nil
        }
        // ACTIVE (start), then LOCKED background-timeout delivered at 6:00 but effective at 1:30.
        let (locked, e, byInput) = try #require(changes.last, "the scenario made no state change")
        #expect(e.state == .locked && e.reason == .backgroundTimeout)
        #expect(locked.timeMs == 6 * 60_000)
        #expect(locked.effectiveMs == 90_000)
        // Nothing ran during the freeze: the first call after it (the foreground) delivers it.
        #expect(byInput)
    }

    @Test func events_tell_a_deadline_from_an_input() throws {
        let (_, result, _) = try Self.run(DemoScenario.text)
        let changes = result.timeline.entries.compactMap { entry -> (Int64, SessionState, Bool)? in
            if case .event(let e, let byInput) = entry.kind, e.kind == .stateChanged { return (entry.timeMs, e.state, byInput) }
            return nil
        }
        // WARNING at 3:40 is the idle deadline; ACTIVE at 3:52 is the Continue.
        #expect(changes.contains { $0 == (220_000, .warning, false) })
        #expect(changes.contains { $0 == (232_000, .active, true) })
    }

    @Test func outcomes_of_inputs_and_checks_are_recorded() throws {
        let text = """
        at 0:00 start
        at 0:10 refresh 503
                unlock
                expect error invalid-state
                expect LOCKED
        """
        let (_, result, _) = try Self.run(text)
        let outcomes = result.timeline.entries.compactMap { entry -> (Step, StepOutcome)? in
            if case .step(let s, let o) = entry.kind { return (s, o) }
            return nil
        }
        #expect(outcomes.count == 4)
        #expect(outcomes[1].1.refresh == .retry)
        #expect(outcomes[2].1.error?.code == .invalidState)
        #expect(outcomes[3].1.problem != nil)
        #expect(!result.passed)
    }
}
