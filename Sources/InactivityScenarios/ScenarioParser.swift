// Reads the scenario text format (docs/scenarios.md) into a Scenario, or fails with a one-line
// ScenarioError naming the line. Everything that can be checked without running the engine is
// checked here (times in order, arguments, the initial and every later policy, which commands
// need a running app), so a scenario that parses fails only on its expectations.

import Foundation
import InactivityCore

public enum ScenarioParser {
    /// The commands, for the "unknown command" message: the plain inputs (generated), then those
    /// with a syntax of their own.
    public static let commandNames = PlainInput.all.map(\.command) + [
        "activity", "unlock", "unlock-failed", "end", "refresh", "holder", "push-scope",
        "pop-scope", "hold", "release", "policy", "set", "ceiling", "save", "kill", "launch",
        "restore", "reboot", "wall-jump", "freeze", "note", "expect",
    ]

    public static func parse(_ text: String, source: String) throws(ScenarioError) -> Scenario {
        var state = ParseState()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, raw) in lines.enumerated() {
            try state.parseLine(String(raw), number: index + 1)
        }
        try state.finish()
        return Scenario(name: state.name, source: source, policy: state.initialPolicy,
                        policyLabel: state.policyLabel, steps: try state.orderedSteps())
    }
}

/// What other modes share with the parser.
public enum ScenarioParserSupport {
    /// Applies `[FIELD, VALUE]` as a `set` line would; returns the field's name.
    public static func applySet(_ args: [String], to policy: inout SessionPolicy) throws(ScenarioError) -> String {
        try ParseState.applySet(args, to: &policy, line: 0)
    }
}

private struct ParseState {
    var name: String?
    var initialPolicy = SessionPolicy()
    var policyLabel = "default"
    /// Still reading the header (name, policy, set) before the first other command.
    var inHeader = true
    var presetLine: Int?
    /// The line that last set each field, to blame an invalid policy on it.
    var fieldLines: [String: Int] = [:]

    /// The policy as the timed `policy`/`set` lines leave it.
    var runningPolicy = SessionPolicy()
    /// An open group of adjacent `policy`/`set` lines at one instant (one set-policy call).
    var policyGroup: (stepIndex: Int, firstLine: Int, fieldLines: [String: Int])?
    /// The policy before the latest group, restored when that group must fail (`expect error`).
    var policyBefore: (stepIndex: Int, policy: SessionPolicy)?
    /// The ceilings as the `ceiling` lines leave them, and those before the latest one
    /// (restored when it must fail).
    var runningCeilings = PolicyCeilings()
    var ceilingsBefore: (stepIndex: Int, ceilings: PolicyCeilings)?

    var steps: [(step: Step, order: Int, repeatOf: (everyMs: Int64, untilMs: Int64)?)] = []
    var previousTimeMs: Int64 = 0
    /// The index of the step on the previous non-blank line, if it was an engine input.
    var previousInputStep: Int?

    mutating func parseLine(_ raw: String, number line: Int) throws(ScenarioError) {
        var tokens = ParseState.tokens(raw)
        guard !tokens.isEmpty else { return }   // blank or comment: keeps `expect error` adjacency

        // The time: `at TIME`, `+DURATION`, or none (the previous line's time).
        var timeMs = previousTimeMs
        var hasTime = false
        if tokens[0] == "at" {
            guard tokens.count >= 2 else { throw ScenarioError(line: line, message: "'at' needs a time (at 15:00, at 90s)") }
            guard let t = TimeText.parseDuration(tokens[1]) else {
                throw ScenarioError(line: line, message: "'\(tokens[1])' is not a time (write 15:00, 1:02:03, 90s or 1h30m)")
            }
            timeMs = t
            hasTime = true
            tokens.removeFirst(2)
        } else if tokens[0].hasPrefix("+") {
            guard let d = TimeText.parseDuration(String(tokens[0].dropFirst())) else {
                throw ScenarioError(line: line, message: "'\(tokens[0])' is not a relative time (write +30s, +5m)")
            }
            timeMs = previousTimeMs + d
            hasTime = true
            tokens.removeFirst()
        }
        if timeMs < previousTimeMs {
            throw ScenarioError(line: line, message:
                "time \(TimeText.clock(timeMs)) is before the previous line's \(TimeText.clock(previousTimeMs))")
        }

        // A bare time lets the clock run to it.
        guard let word = tokens.first else {
            try endHeader()
            try closeAndValidatePolicyGroup()
            append(Step(timeMs: timeMs, line: line, command: .note(""), text: ""), line: line)
            previousTimeMs = timeMs
            previousInputStep = nil
            return
        }
        let args = Array(tokens.dropFirst())

        // The header: name, policy and set before anything else, at time 0.
        if inHeader && !hasTime && ["name", "policy", "set"].contains(word) {
            try parseHeader(word, args, raw: raw, line: line)
            return
        }
        if word == "name" {
            throw ScenarioError(line: line, message: "'name' belongs in the header, before the first timed line")
        }
        try endHeader()

        if word == "policy" || word == "set" {
            try parsePolicyChange(word, args, timeMs: timeMs, line: line)
            previousTimeMs = timeMs
            previousInputStep = policyGroup?.stepIndex
            return
        }
        try closeAndValidatePolicyGroup()

        if word == "expect", args.first == "error" {
            guard args.count == 2 else { throw ScenarioError(line: line, message: "usage: expect error CODE (e.g. invalid-state)") }
            guard let code = Names.errorCode(args[1]) else {
                throw ScenarioError(line: line, message: "unknown error code '\(args[1])' (one of: "
                    + Names.list(InactivityError.Code.allCases.map(Names.errorCodeName)) + ")")
            }
            guard let input = previousInputStep, !hasTime || timeMs == steps[input].step.timeMs else {
                throw ScenarioError(line: line, message: "'expect error' must directly follow the engine input it is about, at the same time")
            }
            steps[input].step.expectedError = (code, line)
            if let before = policyBefore, before.stepIndex == input {
                // A policy change that must fail leaves the policy as it was.
                runningPolicy = before.policy
            }
            if let before = ceilingsBefore, before.stepIndex == input {
                runningCeilings = before.ceilings
            }
            previousInputStep = nil
            return
        }

        if word == "ceiling" {
            // ceiling FIELD VALUE: one more limit; the engine gets all of them at once.
            guard args.count == 2, let field = PolicyText.ceilingFields.first(where: { $0.name == args[0] }) else {
                throw ScenarioError(line: line, message: "usage: ceiling FIELD VALUE (FIELD one of: "
                    + Names.list(PolicyText.ceilingFields.map(\.name)) + ")")
            }
            var next = runningCeilings
            guard field.apply(&next, args[1]) else {
                throw ScenarioError(line: line, message: "'\(args[1])' is not a valid ceiling \(field.name): expected \(field.value)")
            }
            ceilingsBefore = (steps.count, runningCeilings)
            runningCeilings = next
            let index = append(Step(timeMs: timeMs, line: line, command: .setCeilings(next),
                                    text: "ceiling " + args.joined(separator: " ")), line: line)
            previousInputStep = index
            previousTimeMs = timeMs
            return
        }

        // `... every D until T` repeats a line.
        var commandTokens = args
        var repeatSpec: (everyMs: Int64, untilMs: Int64)? = nil
        if let e = commandTokens.lastIndex(of: "every"), word != "note" {
            guard commandTokens.count == e + 4, commandTokens[e + 2] == "until" else {
                throw ScenarioError(line: line, message: "a repeat is written '... every DURATION until TIME'")
            }
            guard let every = TimeText.parseDuration(commandTokens[e + 1]), every > 0 else {
                throw ScenarioError(line: line, message: "'every \(commandTokens[e + 1])': the period must be a duration > 0")
            }
            guard let until = TimeText.parseDuration(commandTokens[e + 3]), until >= timeMs else {
                throw ScenarioError(line: line, message: "'until \(commandTokens[e + 3])' must be a time at or after the line's own time")
            }
            guard (until - timeMs) / every < 100_000 else {
                throw ScenarioError(line: line, message: "the repeat runs more than 100000 times")
            }
            repeatSpec = (every, until)
            commandTokens.removeSubrange(e...)
        }

        let command = try ParseState.command(word, commandTokens, raw: raw, line: line)
        if repeatSpec != nil && !command.isEngineInput {
            throw ScenarioError(line: line, message: "only engine inputs can repeat ('\(word)' cannot)")
        }
        if case .restore = command, repeatSpec != nil {
            throw ScenarioError(line: line, message: "'restore' cannot repeat")
        }
        var text = ([word] + args).joined(separator: " ")   // with any repeat suffix
        if case .note(let note) = command { text = note }
        let index = append(Step(timeMs: timeMs, line: line, command: command, text: text), line: line, repeatOf: repeatSpec)
        previousInputStep = command.isEngineInput ? index : nil
        if case .freeze(let ms) = command {
            previousTimeMs = timeMs + ms
        } else {
            previousTimeMs = timeMs
        }
    }

    @discardableResult
    mutating func append(_ step: Step, line: Int, repeatOf: (everyMs: Int64, untilMs: Int64)? = nil) -> Int {
        steps.append((step, steps.count, repeatOf))
        return steps.count - 1
    }

    // MARK: Header and policy

    mutating func parseHeader(_ word: String, _ args: [String], raw: String, line: Int) throws(ScenarioError) {
        switch word {
        case "name":
            name = ParseState.rest(of: raw, after: "name")
            if name?.isEmpty ?? true { throw ScenarioError(line: line, message: "'name' needs a text") }
        case "policy":
            guard presetLine == nil, fieldLines.isEmpty else {
                throw ScenarioError(line: line, message: "'policy' must come once, before any 'set' line")
            }
            initialPolicy = try ParseState.preset(args, line: line)
            policyLabel = args[0]
            presetLine = line
        default:
            let field = try ParseState.applySet(args, to: &initialPolicy, line: line)
            fieldLines[field] = line
            if !policyLabel.hasSuffix("+ overrides") { policyLabel += " + overrides" }
        }
    }

    mutating func endHeader() throws(ScenarioError) {
        guard inHeader else { return }
        inHeader = false
        do throws(InactivityError) {
            try initialPolicy.validate()
        } catch {
            let blamed = PolicyText.field(inValidationMessage: error.message).flatMap { fieldLines[$0] }
            throw ScenarioError(line: blamed ?? fieldLines.values.max() ?? presetLine,
                                message: "invalid policy: \(error.message)")
        }
        runningPolicy = initialPolicy
    }

    mutating func parsePolicyChange(_ word: String, _ args: [String], timeMs: Int64, line: Int) throws(ScenarioError) {
        if let g = policyGroup, steps[g.stepIndex].step.timeMs != timeMs {
            try closeAndValidatePolicyGroup()
        }
        if policyGroup == nil {
            policyBefore = (steps.count, runningPolicy)
            let index = append(Step(timeMs: timeMs, line: line, command: .setPolicy(runningPolicy), text: ""), line: line)
            policyGroup = (index, line, [:])
        }
        var text: String
        if word == "policy" {
            runningPolicy = try ParseState.preset(args, line: line)
            policyGroup!.fieldLines = [:]
            text = "policy \(args[0])"
        } else {
            let field = try ParseState.applySet(args, to: &runningPolicy, line: line)
            policyGroup!.fieldLines[field] = line
            text = "set \(args.joined(separator: " "))"
        }
        let i = policyGroup!.stepIndex
        steps[i].step.command = .setPolicy(runningPolicy)
        steps[i].step.text = steps[i].step.text.isEmpty ? text : steps[i].step.text + "; " + text
    }

    mutating func closeAndValidatePolicyGroup() throws(ScenarioError) {
        guard let g = policyGroup else { return }
        policyGroup = nil
        do throws(InactivityError) {
            try runningPolicy.validate()
        } catch {
            let blamed = PolicyText.field(inValidationMessage: error.message).flatMap { g.fieldLines[$0] }
            throw ScenarioError(line: blamed ?? g.firstLine, message: "invalid policy: \(error.message)")
        }
    }

    mutating func finish() throws(ScenarioError) {
        try endHeader()
        try closeAndValidatePolicyGroup()
    }

    static func preset(_ args: [String], line: Int) throws(ScenarioError) -> SessionPolicy {
        let names = Names.presets.map(\.0)
        guard args.count == 1, let preset = Names.presets.first(where: { $0.0 == args[0] })?.1 else {
            throw ScenarioError(line: line, message: "usage: policy PRESET (one of: \(Names.list(names)))")
        }
        return SessionPolicy(preset: preset)
    }

    static func applySet(_ args: [String], to policy: inout SessionPolicy, line: Int) throws(ScenarioError) -> String {
        guard args.count == 2 else { throw ScenarioError(line: line, message: "usage: set FIELD VALUE") }
        guard let field = PolicyText.fields.first(where: { $0.name == args[0] }) else {
            throw ScenarioError(line: line, message: "unknown policy field '\(args[0])' (one of: "
                + Names.list(PolicyText.fields.map(\.name)) + ")")
        }
        guard field.apply(&policy, args[1]) else {
            throw ScenarioError(line: line, message: "'\(args[1])' is not a valid \(field.name): expected \(field.value)")
        }
        return field.name
    }

    // MARK: Commands

    static func command(_ word: String, _ args: [String], raw: String, line: Int) throws(ScenarioError) -> Command {
        func arity(_ n: Int, _ usage: String) throws(ScenarioError) {
            if args.count != n { throw ScenarioError(line: line, message: "usage: \(usage)") }
        }
        func duration(_ text: String, _ what: String, negative: Bool = false) throws(ScenarioError) -> Int64 {
            guard let d = TimeText.parseDuration(text, allowNegative: negative) else {
                throw ScenarioError(line: line, message: "'\(text)' is not a \(what) (write 90s, 3m, 1h30m)")
            }
            return d
        }
        func name(_ usage: String) throws(ScenarioError) -> String {
            try arity(1, usage)
            return args[0]
        }

        if let plain = PlainInput.all.first(where: { $0.command == word }) {
            return .input(plain, try plain.parse(args, line: line))
        }
        switch word {
        case "activity":
            guard args.count <= 1 else { throw ScenarioError(line: line, message: "usage: activity [KIND]") }
            guard let kind = args.isEmpty ? .touchDown : Names.activityKinds.first(where: { $0.0 == args[0] })?.1 else {
                throw ScenarioError(line: line, message: "unknown activity kind '\(args[0])' (one of: "
                    + Names.list(Names.activityKinds.map(\.0)) + ")")
            }
            return .activity(kind)
        case "unlock", "unlock-failed":
            // The method that verified the user; the credential when not written.
            guard args.count <= 1, let method = args.isEmpty ? .credential
                    : Names.authStrengths.first(where: { $0.0 == args[0] && $0.1 != .none })?.1 else {
                throw ScenarioError(line: line, message: "usage: \(word) [biometric|credential]")
            }
            return word == "unlock" ? .unlock(method) : .unlockFailed(method)
        case "holder":
            // holder activity [AGE] | holder locked REASON [AGE] | holder expired REASON [AGE]
            // | holder idle-deadline LEFT | holder absolute-deadline LEFT
            let usage = "usage: holder activity [AGE] | holder locked|expired REASON [AGE] | holder idle-deadline|absolute-deadline LEFT"
            guard let first = args.first, let kind = Names.holderKinds.first(where: { $0.0 == first })?.1 else {
                throw ScenarioError(line: line, message: usage + " (kinds: " + Names.list(Names.holderKinds.map(\.0)) + ")")
            }
            var rest = Array(args.dropFirst())
            var reason = Reason.none
            if kind == .locked || kind == .expired {
                guard let word = rest.first, let r = Names.reason(word) else { throw ScenarioError(line: line, message: usage) }
                reason = r
                rest.removeFirst()
            }
            // A deadline needs its time left; an instant's age is 0 (now) unless written.
            let deadline = kind == .idleDeadline || kind == .absoluteDeadline
            guard rest.count == 1 || (!deadline && rest.isEmpty) else { throw ScenarioError(line: line, message: usage) }
            var ms: Int64 = 0
            if let text = rest.first { ms = try duration(text, deadline ? "time left" : "age") }
            return .holderReport(kind, reason, ms)
        case "end":
            let names = Names.endReasons.map(\.0)
            guard args.count == 1, let reason = Names.endReasons.first(where: { $0.0 == args[0] })?.1 else {
                throw ScenarioError(line: line, message: "usage: end REASON (one of: \(Names.list(names)))")
            }
            return .end(reason)
        case "refresh":
            // refresh HTTP_STATUS [OAUTH_ERROR] [gen N]
            var rest = args
            var generation: UInt64 = 0
            if rest.count >= 2, rest[rest.count - 2] == "gen" {
                guard let g = UInt64(rest[rest.count - 1]) else {
                    throw ScenarioError(line: line, message: "'gen \(rest[rest.count - 1])': the generation is a count")
                }
                generation = g
                rest.removeLast(2)
            }
            guard (1...2).contains(rest.count), let status = Int32(rest[0]) else {
                throw ScenarioError(line: line, message: "usage: refresh HTTP_STATUS [OAUTH_ERROR] [gen N] (0 = no network)")
            }
            return .refresh(status: status, oauthError: rest.count == 2 ? rest[1] : nil, generation: generation)
        case "push-scope":
            try arity(2, "push-scope NAME IDLE_TIMEOUT")
            return .pushScope(name: args[0], idleTimeoutMs: try duration(args[1], "duration"))
        case "pop-scope": return .popScope(name: try name("pop-scope NAME"))
        case "hold": return .hold(name: try name("hold NAME"))
        case "release": return .release(name: try name("release NAME"))
        case "save": try arity(0, "save"); return .save
        case "kill": try arity(0, "kill"); return .kill
        case "launch": try arity(0, "launch"); return .launch
        case "restore":
            guard args.isEmpty || args == ["corrupt"] else { throw ScenarioError(line: line, message: "usage: restore [corrupt]") }
            return .restore(corrupt: !args.isEmpty)
        case "reboot": try arity(0, "reboot"); return .reboot
        case "wall-jump":
            try arity(1, "wall-jump DURATION (may be negative: -1h)")
            return .wallJump(try duration(args[0], "duration", negative: true))
        case "freeze":
            try arity(1, "freeze DURATION")
            return .freeze(try duration(args[0], "duration"))
        case "note":
            return .note(rest(of: raw, after: "note"))
        case "expect":
            return .expect(try expectation(args, line: line))
        default:
            throw ScenarioError(line: line, message: "unknown command '\(word)' (one of: \(Names.list(ScenarioParser.commandNames)))")
        }
    }

    static func expectation(_ args: [String], line: Int) throws(ScenarioError) -> Expectation {
        let usage = "expect STATE [REASON] [since TIME] | remaining D | refresh OUTCOME | unlock-failures N"
            + " | background yes|no | idle-timeout D | ticks N | events N | required-auth none|biometric|credential"
            + " | error CODE"
        guard let first = args.first else { throw ScenarioError(line: line, message: "usage: \(usage)") }
        func one() throws(ScenarioError) -> String {
            guard args.count == 2 else { throw ScenarioError(line: line, message: "usage: expect \(first) VALUE") }
            return args[1]
        }
        func bad(_ what: String) -> ScenarioError {
            ScenarioError(line: line, message: "'\(args.count > 1 ? args[1] : "")' is not \(what)")
        }
        if let state = Names.state(first) {
            var rest = Array(args.dropFirst())
            var since: Int64? = nil
            if let s = rest.firstIndex(of: "since") {
                guard s == rest.count - 2, let t = TimeText.parseDuration(rest[s + 1]) else {
                    throw ScenarioError(line: line, message: "write 'since TIME' last (since 15:00)")
                }
                since = t
                rest.removeSubrange(s...)
            }
            guard rest.count <= 1 else { throw ScenarioError(line: line, message: "usage: expect STATE [REASON] [since TIME]") }
            var reason: Reason? = nil
            if let r = rest.first {
                guard let parsed = Names.reason(r) else {
                    throw ScenarioError(line: line, message: "unknown reason '\(r)' (one of: "
                        + Names.list(Reason.allCases.map(Names.reasonText)) + ")")
                }
                guard Reason.allowed(in: state).contains(parsed) else {
                    throw ScenarioError(line: line, message: "\(state) never has reason \(Names.reasonText(parsed)) (it can be: "
                        + Names.list(Reason.allowed(in: state).map(Names.reasonText).sorted()) + ")")
                }
                reason = parsed
            }
            return .state(state, reason, sinceMs: since)
        }
        switch first {
        case "remaining":
            guard let d = TimeText.parseDuration(try one(), allowNever: true) else { throw bad("a duration or never") }
            return .remaining(d)
        case "refresh":
            guard let o = Names.refreshOutcomes.first(where: { $0.0 == args.dropFirst().first })?.1, args.count == 2 else {
                throw bad("a refresh outcome (ok, retry, revoked, failed, stale)")
            }
            return .refresh(o)
        case "required-auth":
            guard let a = Names.authStrengths.first(where: { $0.0 == args.dropFirst().first })?.1, args.count == 2 else {
                throw bad("none, biometric or credential")
            }
            return .requiredAuth(a)
        case "unlock-failures":
            guard let n = UInt32(try one()) else { throw bad("a count") }
            return .unlockFailures(n)
        case "background":
            switch try one() {
            case "yes": return .background(true)
            case "no": return .background(false)
            default: throw bad("yes or no")
            }
        case "idle-timeout":
            guard let d = TimeText.parseDuration(try one(), allowNever: true) else { throw bad("a duration") }
            return .idleTimeout(d)
        case "ticks":
            guard let n = Int(try one()), n >= 0 else { throw bad("a count") }
            return .ticks(n)
        case "events":
            guard let n = Int(try one()), n >= 0 else { throw bad("a count") }
            return .events(n)
        case "keepalives":
            guard let n = Int(try one()), n >= 0 else { throw bad("a count") }
            return .keepalives(n)
        default:
            throw ScenarioError(line: line, message: "unknown expectation '\(first)' (usage: \(usage))")
        }
    }

    // MARK: Ordering and the process checks

    /// Expands repeats, orders by time (ties keep source order) and checks what only the
    /// whole sequence shows: commands that need a running app, restore without save, steps
    /// that fall inside a freeze.
    func orderedSteps() throws(ScenarioError) -> [Step] {
        var all: [(step: Step, order: Int)] = []
        for entry in steps {
            all.append((entry.step, entry.order))
            if let r = entry.repeatOf {
                var t = entry.step.timeMs + r.everyMs
                while t <= r.untilMs {
                    var s = entry.step
                    s.timeMs = t
                    s.isRepeat = true
                    all.append((s, entry.order))
                    t += r.everyMs
                }
            }
        }
        all.sort { ($0.step.timeMs, $0.order) < ($1.step.timeMs, $1.order) }

        var running = true
        var saved = false
        var frozenUntil: (timeMs: Int64, line: Int)? = nil
        for (step, _) in all {
            if let f = frozenUntil, step.timeMs < f.timeMs {
                throw ScenarioError(line: step.line, message:
                    "this runs at \(TimeText.clock(step.timeMs)), inside the freeze on line \(f.line) (until \(TimeText.clock(f.timeMs)))")
            }
            let needsApp: Bool
            switch step.command {
            case .kill, .save, .freeze, .expect: needsApp = true
            case .launch, .reboot, .wallJump, .note: needsApp = false
            default: needsApp = true
            }
            if needsApp && !running {
                throw ScenarioError(line: step.line, message: "'\(step.text)' needs a running app, but it was killed (add 'launch' first)")
            }
            switch step.command {
            case .kill: running = false
            case .launch:
                if running { throw ScenarioError(line: step.line, message: "'launch': the app is already running ('kill' it first)") }
                running = true
            case .reboot:
                if running { throw ScenarioError(line: step.line, message: "'reboot': the app is running ('kill' it first)") }
            case .save: saved = true
            case .restore:
                if !saved { throw ScenarioError(line: step.line, message: "'restore' needs a snapshot: 'save' one first") }
            case .freeze(let ms): frozenUntil = (step.timeMs + ms, step.line)
            default: break
            }
        }
        return all.map(\.step)
    }

    // MARK: Lexing

    /// Whitespace-separated words; `#` starts a comment at the start of a word.
    static func tokens(_ line: String) -> [String] {
        var out: [String] = []
        for word in line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }) {
            if word.hasPrefix("#") { break }
            out.append(String(word))
        }
        return out
    }

    /// The raw text after a leading keyword (with the time prefix, if any, skipped), comment cut.
    static func rest(of raw: String, after keyword: String) -> String {
        guard let range = raw.range(of: keyword) else { return "" }
        var text = String(raw[range.upperBound...])
        if let hash = text.range(of: " #") { text = String(text[..<hash.lowerBound]) }
        return text.trimmingCharacters(in: [" ", "\t", "\r"])
    }
}
