// inactivity-demo: shows what the engine does, runs scenario files, and drives an engine live.
//
//   inactivity-demo                       the built-in demo on a manual clock (about a second)
//   inactivity-demo --scenario FILE       run a scenario file; exit 1 if an expectation fails
//   ... --svg OUT.svg                      also draw the run as a picture (TimelineSVG.swift)
//   inactivity-demo --live [--preset P] [--set FIELD=VALUE]...   the real clock in a terminal
//
// Exit codes: 0 success, 1 an expectation failed, 2 bad input (usage, file, scenario text).

import Foundation
import InactivityCore
import InactivityScenarios

enum Exit {
    static let ok: Int32 = 0
    static let failed: Int32 = 1
    static let badInput: Int32 = 2
}

let usage = """
    usage: inactivity-demo [--no-ticks] [--quiet] [--svg OUT.svg]
           inactivity-demo --scenario FILE [--no-ticks] [--quiet] [--svg OUT.svg]
           inactivity-demo --check FILE...
           inactivity-demo --live [--preset NAME] [--set FIELD=VALUE]...

      (no arguments)    play the built-in banking demo on a manual clock
      --scenario FILE   play a scenario file (format: docs/scenarios.md); exit 1 if an
                        expectation fails, 2 if the file cannot be read or parsed
      --check FILE...   parse scenario files only
      --live            drive an engine on the real clock from the keyboard
      --preset NAME     the policy for --live: \(Names.list(Names.presets.map(\.0))), or demo (default: short timeouts)
      --set FIELD=VALUE change one policy field for --live: --set idle-timeout=1m (a scenario
                        file writes the same change with a space: set idle-timeout 1m)
      --no-ticks        leave countdown ticks out of the timeline
      --quiet           print only failures and the summary
      --svg OUT.svg     also write the run as one self-contained SVG picture (a band per
                        state, the inputs, deadlines, ticks, background; see docs/scenarios.md)
      --help            this text
    """

func standardError(_ text: String) {
    FileHandle.standardError.write((text + "\n").data(using: .utf8)!)
}

/// Unbuffered, so that the timeline and the failure messages on stderr stay in order.
func standardOutput(_ text: String) {
    FileHandle.standardOutput.write((text + "\n").data(using: .utf8)!)
}

/// A one-line error for bad input, exit 2.
func badInput(_ message: String) -> Never {
    standardError("inactivity-demo: \(message)")
    exit(Exit.badInput)
}

struct Arguments {
    enum Mode { case demo, scenario(String), check([String]), live }
    var mode = Mode.demo
    var options = RunOptions()
    var preset: String?
    var sets: [String] = []
    var svgPath: String?

    static func parse(_ args: [String]) -> Arguments {
        var result = Arguments()
        var i = 0
        func value(_ flag: String) -> String {
            i += 1
            guard i < args.count, !args[i].hasPrefix("--") else { badInput("\(flag) needs a value (see --help)") }
            return args[i]
        }
        var modeSet = false
        func setMode(_ mode: Mode, _ flag: String) {
            if modeSet { badInput("\(flag) cannot be combined with another mode (see --help)") }
            modeSet = true
            result.mode = mode
        }
        while i < args.count {
            let arg = args[i]
            switch arg {
            case "--help", "-h":
                print(usage)
                exit(Exit.ok)
            case "--scenario": setMode(.scenario(value(arg)), arg)
            case "--check":
                var files: [String] = []
                while i + 1 < args.count, !args[i + 1].hasPrefix("--") { i += 1; files.append(args[i]) }
                if files.isEmpty { badInput("--check needs at least one file") }
                setMode(.check(files), arg)
            case "--live": setMode(.live, arg)
            case "--preset": result.preset = value(arg)
            case "--set": result.sets.append(value(arg))
            case "--no-ticks": result.options.showTicks = false
            case "--quiet": result.options.quiet = true
            case "--svg": result.svgPath = value(arg)
            default:
                badInput(arg.hasPrefix("-") ? "unknown option '\(arg)' (see --help)" : "unexpected argument '\(arg)' (see --help)")
            }
            i += 1
        }
        if case .live = result.mode {} else if result.preset != nil || !result.sets.isEmpty {
            badInput("--preset and --set apply to --live only")
        }
        switch result.mode {
        case .demo, .scenario: break
        case .check, .live: if result.svgPath != nil { badInput("--svg applies to the built-in demo and --scenario only") }
        }
        return result
    }
}

func loadScenario(_ path: String) -> Scenario {
    let text: String
    do {
        text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let reason = !exists ? "no such file" : isDirectory.boolValue ? "is a directory" : "cannot be read as UTF-8 text"
        badInput("\(path): \(reason)")
    }
    do throws(ScenarioError) {
        return try ScenarioParser.parse(text, source: path)
    } catch {
        badInput(error.line.map { "\(path):\($0): \(error.message)" } ?? "\(path): \(error.message)")
    }
}

/// Plays a scenario, prints the timeline and a summary, writes the picture if asked; returns
/// the exit code. The picture is written whether or not the expectations held (it shows them).
func play(_ scenario: Scenario, options: RunOptions, label: String, svgPath: String?) -> Int32 {
    let runner = ScenarioRunner(scenario, options: options) { standardOutput($0) }
    let result = runner.run()
    if let svgPath {
        let svg = TimelineSVG(scenario: scenario, result: result, showTicks: options.showTicks).render()
        do {
            try svg.write(toFile: svgPath, atomically: true, encoding: .utf8)
        } catch {
            badInput("--svg \(svgPath): cannot write the file (\(error.localizedDescription))")
        }
    }
    if !options.quiet { standardOutput("") }
    if result.passed {
        standardOutput("\(label): \(result.checksPassed) expectations met")
        return Exit.ok
    }
    for f in result.failures {
        standardError("inactivity-demo: \(scenario.source):\(f.line): \(f.message)")
    }
    standardOutput("\(label): \(result.failures.count) failed, \(result.checksPassed) met")
    return Exit.failed
}

let arguments = Arguments.parse(Array(CommandLine.arguments.dropFirst()))
switch arguments.mode {
case .demo:
    let scenario: Scenario
    do throws(ScenarioError) {
        scenario = try ScenarioParser.parse(DemoScenario.text, source: "built-in demo")
    } catch {
        fatalError("the built-in demo does not parse: \(error)")
    }
    var options = arguments.options
    options.showChecks = false
    exit(play(scenario, options: options, label: "demo", svgPath: arguments.svgPath))
case .scenario(let path):
    exit(play(loadScenario(path), options: arguments.options, label: path, svgPath: arguments.svgPath))
case .check(let paths):
    for path in paths {
        let s = loadScenario(path)
        standardOutput("\(path): ok (\(s.steps.count) steps)")
    }
    exit(Exit.ok)
case .live:
    exit(LiveMode.run(presetName: arguments.preset, sets: arguments.sets))
}
