// The rule tables (SessionRules.swift) as data: tools/codegen/rules.json, from which tools/generate
// renders the README's state diagram, docs/design.md's transition, deadline and reason tables and
// Tests/CTests/state_edges.inc (the edge and cell list the C test
// `every_input_in_every_state_makes_only_the_diagram_edges` checks against the library's
// behaviour). This test only compares: it fails while rules.json differs from the tables;
// `scripts/state-diagram` rewrites it (INACT_WRITE_STATE_DIAGRAM=1), then runs tools/generate.
// The words of the tables (a deadline's label and instant, a condition's wording) are here, next
// to the cases they name, and travel in rules.json; tools/codegen only lays them out.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import InactivityCore

/// One edge of the state diagram: a transition the engine can make, and what causes it.
struct Edge: Equatable {
    enum Kind: String { case input = "INPUT", deadline = "DEADLINE", rule = "RULE", restore = "RESTORE" }
    var from: SessionState
    var to: SessionState
    var reason: Reason
    var kind: Kind
    /// The input's name, the deadline's label, the rule's name, or "restore".
    var cause: String
    /// How the diagram names the cause (with its condition).
    var label: String
}

enum StateDiagram {
    static func label(_ reason: Reason) -> String {
        String(reason.description.uppercased().map { $0 == "-" ? "_" : $0 })
    }

    static func label(_ kind: DeadlineKind) -> String {
        switch kind {
        case .absolute: "absolute timeout"
        case .offlineExpiry: "offline expiry"
        case .offlineLock: "offline timeout"
        case .lockedTimeout: "locked timeout"
        case .idleExpire: "idle timeout with action EXPIRE"
        case .background: "background timeout"
        case .idleLock: "idle timeout"
        case .graceEnd: "grace end"
        case .warning: "warning deadline"
        case .tick: "tick"
        case .keepalive: "keepalive"
        }
    }

    /// The instant, as the docs' deadline table gives it (the code is `SessionMachine.time(of:)`).
    static func instant(_ kind: DeadlineKind) -> String {
        switch kind {
        case .absolute: "start + absolute timeout, or a holder's earlier one"
        case .offlineExpiry: "last server contact + offline expiry"
        case .lockedTimeout: "locked-at + locked timeout"
        case .idleExpire: "last activity + effective idle, or a holder's earlier one (idle action EXPIRE)"
        case .offlineLock: "last server contact + offline timeout"
        case .background: "background start + background timeout, not before an announced interruption's end"
        case .idleLock: "last activity + effective idle, or a holder's earlier one (idle action LOCK)"
        case .graceEnd: "all windows hidden + grace"
        case .warning: "idle deadline - warning"
        case .tick: "idle deadline - k * tick, k >= 1"
        case .keepalive: "user activity not yet carried: at once after a quiet interval, else last keepalive + interval"
        }
    }

    static func label(_ condition: Condition) -> String {
        switch condition {
        case .activityCounts: "if counted"
        case .activityDismissesWarning: "if it may dismiss"
        case .lockOnDeviceLock: "with lock on device lock"
        case .failuresAtLimit: "at the limit"
        case .holderActivityDismissesWarning: "if it may dismiss"
        }
    }

    static func docs(_ condition: Condition) -> String {
        switch condition {
        case .activityCounts: "a counted kind, in foreground"
        case .activityDismissesWarning: "a counted kind, in foreground, with `activity_dismisses_warning`"
        case .lockOnDeviceLock: "with `lock_on_device_lock`"
        case .failuresAtLimit: "once the failures reach `max_unlock_failures`"
        case .holderActivityDismissesWarning: "with `activity_dismisses_warning`"
        }
    }

    static func status(_ code: InactivityError.Code) -> String {
        switch code {
        case .invalidState: "INVALID_STATE"
        case .offline: "OFFLINE"
        case .weakAuth: "WEAK_AUTH"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .limit: "LIMIT"
        case .notFound: "NOT_FOUND"
        case .ceiling: "CEILING"
        default: "\(code)"
        }
    }

    /// Every edge, in table order: inputs' cells, deadlines, the rules, restore.
    static func edges() -> [Edge] {
        var edges: [Edge] = []
        func add(_ from: SessionState, _ to: SessionState, _ reason: Reason, _ kind: Edge.Kind, _ cause: String, _ label: String) {
            guard from != to else { return }
            let e = Edge(from: from, to: to, reason: reason, kind: kind, cause: cause, label: label)
            if !edges.contains(e) { edges.append(e) }
        }
        for input in Input.allCases where input != .restore {
            for from in SessionState.allCases {
                let cell = input.cell(in: from)
                guard cell.outcome != .refused && cell.outcome != .noOp else { continue }
                var name = input.name.description
                if case .appliedIf(let condition) = cell.outcome { name += " " + label(condition) }
                switch cell.move {
                case .stays: break
                case .to(let to, let reason): add(from, to, reason, .input, input.name.description, name)
                case .toIf(let condition, let to, let reason):
                    add(from, to, reason, .input, input.name.description, name + " " + label(condition))
                case .toNamedReason(let to):
                    for reason in input.namedReasons { add(from, to, reason, .input, input.name.description, name) }
                case .toSnapshot: Issue.record("\(input.name) moves to a snapshot: only restore does")
                }
            }
        }
        for kind in DeadlineKind.allCases {
            guard let to = kind.rule.to else { continue }
            for from in SessionState.allCases where kind.runs(in: from) {
                add(from, to.state, to.reason, .deadline, label(kind), label(kind))
            }
        }
        let ends = SessionMachine.warningEnds
        add(ends.from, ends.to, ends.reason, .rule, "warning ends", "idle deadline moved later")
        let jump = SessionMachine.clockDiscontinuity
        for from in jump.from { add(from, jump.to, jump.reason, .rule, "clock discontinuity", "clock discontinuity") }
        // Restore, from LOADING (the only state whose cell applies it).
        for from in SessionState.allCases where Input.restore.cell(in: from).move == .toSnapshot {
            for to in SessionState.allCases where to != .loading {
                add(from, to, RestoreRule.asSaved, .restore, "restore", "restore")
            }
            add(from, RestoreRule.corrupt.state, RestoreRule.corrupt.reason, .restore, "restore", "restore corrupt")
            add(from, RestoreRule.estimated.state, RestoreRule.estimated.reason, .restore, "restore", "restore on another boot")
            add(from, RestoreRule.unknown.state, RestoreRule.unknown.reason, .restore, "restore", "restore with the wall clock back")
            add(from, RestoreRule.lockOnRestart.state, RestoreRule.lockOnRestart.reason, .restore, "restore", "restore with lock on restart")
            add(from, RestoreRule.failuresSpent.state, RestoreRule.failuresSpent.reason, .restore, "restore",
                "restore under a failure limit spent")
            for kind in DeadlineKind.allCases where kind.locksOrExpires {
                let to = kind.rule.to!
                add(from, to.state, to.reason, .restore, "restore", "restore past the \(label(kind))")
            }
        }
        return edges
    }

    static func states(_ set: StateSet) -> String {
        set == .all ? "every state" : SessionState.allCases.filter { set.contains($0) }.map { "\($0)" }.joined(separator: ", ")
    }

    /// The tie order as the header states it (inactivity.h, Conventions).
    static func tieOrder() -> String {
        DeadlineKind.allCases.map { kind -> String in
            let name: String = switch kind {
            case .absolute: "absolute lifetime"
            case .idleExpire: "idle action EXPIRE"
            case .idleLock: "idle action LOCK"
            case .warning: "warning"
            default: label(kind)
            }
            return kind.rule.to.map { "\(name) (\(label($0.reason)))" } ?? name
        }.joined(separator: ", ")
    }

    /// A JSON string literal.
    static func json(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    static func json(_ list: [String]) -> String { "[" + list.map { json($0) }.joined(separator: ", ") + "]" }

    static func json(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(json($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }


    /// tools/codegen/rules.json: the tables as data, one item a line (diffs stay readable).
    static func rulesJSON() -> String {
        var lines = ["{"]
        lines.append("  \"generated\": \"by the Swift test StateDiagramTests (scripts/state-diagram) from the rule tables of Sources/InactivityCore/SessionRules.swift: do not edit\",")
        lines.append("  \"states\": \(json(SessionState.allCases.map { "\($0)" })),")
        lines.append("  \"reasons\": {")
        lines.append(SessionState.allCases.map { "    \(json("\($0)")): \(json(Reason.allowed(in: $0).map { label($0) }))" }
            .joined(separator: ",\n"))
        lines.append("  },")
        lines.append("  \"inputs\": [")
        var inputs: [String] = []
        for input in Input.allCases {
            var cells: [String] = []
            for state in SessionState.allCases {
                let cell = input.cell(in: state)
                var f: [(String, String)] = [("state", json("\(state)"))]
                switch cell.outcome {
                case .refused: f.append(("outcome", json("refused")))
                case .noOp: f.append(("outcome", json("no-op")))
                case .applied: f.append(("outcome", json("applied")))
                case .appliedIf(let c): f += [("outcome", json("applied-if")), ("if", json(docs(c)))]
                }
                switch cell.move {
                case .stays: f.append(("move", json("stays")))
                case .to(let s, let r): f += [("move", json("to")), ("to", json("\(s)")), ("reason", json(label(r)))]
                case .toIf(let c, let s, let r):
                    f += [("move", json("to-if")), ("move_if", json(docs(c))), ("to", json("\(s)")), ("reason", json(label(r)))]
                case .toNamedReason(let s): f += [("move", json("to-named")), ("to", json("\(s)"))]
                case .toSnapshot: f.append(("move", json("to-snapshot")))
                }
                f.append(("refusals", "[" + cell.refusals.map { json([("rule", json($0.rule)), ("status", json(status($0.status)))]) }
                    .joined(separator: ", ") + "]"))
                cells.append("      " + json(f))
            }
            inputs.append("    {\"name\": \(json(input.name.description)), \"cells\": [\n" + cells.joined(separator: ",\n") + "\n    ]}")
        }
        lines.append(inputs.joined(separator: ",\n"))
        lines.append("  ],")
        lines.append("  \"restore_corrupt\": \(json([("to", json("\(RestoreRule.corrupt.state)")), ("reason", json(label(RestoreRule.corrupt.reason)))])),")
        lines.append("  \"deadlines\": [")
        lines.append(DeadlineKind.allCases.map { kind -> String in
            var f: [(String, String)] = [("tie", "\(kind.rawValue + 1)"), ("label", json(label(kind))), ("instant", json(instant(kind))),
                                         ("runs_in", json(states(kind.rule.runsIn)))]
            if let to = kind.rule.to {
                f += [("to", json("\(to.state)")), ("reason", json(label(to.reason)))]
            } else {
                f.append(("leads_to", json(kind == .tick ? "a TICK event" : kind == .keepalive ? "a KEEPALIVE event" : "background takes effect")))
            }
            f.append(("moved_by_activity", kind.rule.movesWithActivity ? "true" : "false"))
            return "    " + json(f)
        }.joined(separator: ",\n"))
        lines.append("  ],")
        lines.append("  \"edges\": [")
        lines.append(edges().map { e in
            "    " + json([("from", json("\(e.from)")), ("to", json("\(e.to)")), ("reason", json(label(e.reason))),
                          ("kind", json(e.kind.rawValue)), ("cause", json(e.cause)), ("label", json(e.label))])
        }.joined(separator: ",\n"))
        lines.append("  ]")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    static var root: String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)   // Tests/InactivityCoreTests/StateDiagramTests.swift
        return parts.joined(separator: "/")
    }

    static func read(_ path: String) -> String? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func write(_ text: String, to path: String) -> Bool {
        guard let f = fopen(path, "wb") else { return false }
        defer { fclose(f) }
        let bytes = Array(text.utf8)
        return fwrite(bytes, 1, bytes.count, f) == bytes.count
    }

    static let endMarker = "<!-- end generated -->"

    /// The generated files: path, and what it must read given what it reads now (nil: the
    /// markers are missing).
    static var targets: [(path: String, update: (String) -> String?)] { [
        ("tools/codegen/rules.json", { _ in rulesJSON() }),
    ] }
}

@Suite("State diagram")
struct StateDiagramTests {
    @Test func every_generated_copy_of_the_tables_is_current() throws {
        let write = getenv("INACT_WRITE_STATE_DIAGRAM") != nil
        for target in StateDiagram.targets {
            let path = StateDiagram.root + "/" + target.path
            let text = StateDiagram.read(path) ?? ""
            let updated = try #require(target.update(text), "\(target.path) lacks a generated block's markers")
            if write {
                if updated != text { #expect(StateDiagram.write(updated, to: path), "cannot write \(path)") }
            } else {
                #expect(updated == text, "\(target.path) differs from the tables in SessionRules.swift: run scripts/state-diagram")
            }
        }
    }

    @Test func every_state_other_than_loading_is_reachable_and_loading_is_left() throws {
        let edges = StateDiagram.edges()
        for s in SessionState.allCases where s != .loading {
            #expect(edges.contains { $0.to == s }, "\(s) has no way in")
        }
        #expect(edges.contains { $0.from == .loading })
        #expect(!edges.contains { $0.to == .loading })
    }

    /// Every edge carries a reason its target state allows, and every reason a state allows is
    /// the reason of some edge into it (a reason nothing can produce is a stale table).
    @Test func edges_and_reasons_agree() throws {
        let edges = StateDiagram.edges()
        for e in edges {
            #expect(Reason.allowed(in: e.to).contains(e.reason), "\(e.from) -> \(e.to) (\(e.reason)) by \(e.cause)")
        }
        for state in SessionState.allCases where state != .loading {
            for reason in Reason.allowed(in: state) {
                #expect(edges.contains { $0.to == state && $0.reason == reason }, "\(state) (\(reason)): no edge makes it")
            }
        }
    }

    /// The header's sentence on deadlines at one instant names the deadline table's order.
    /// The deadline scan walks `DeadlineKind.inOrder` (raw values, no array): every kind, in the
    /// table's tie order, even after a kind is added.
    @Test func the_deadline_scan_walks_every_kind_in_tie_order() {
        #expect(Array(DeadlineKind.inOrder) == DeadlineKind.allCases)
    }

    @Test func the_header_states_the_tie_order_of_the_deadline_table() throws {
        let header = try #require(StateDiagram.read(StateDiagram.root + "/include/inactivity.h"))
        // The comment's text without its line breaks and leading " * ".
        var words: [Substring] = []
        for line in header.split(separator: "\n") {
            var l = line.drop { $0 == " " }
            if l.hasPrefix("*") { l = l.dropFirst() }
            words += l.split(separator: " ")
        }
        let flat = words.joined(separator: " ")
        #expect(flat.contains("in this order: " + StateDiagram.tieOrder() + "."), "inactivity.h: \(StateDiagram.tieOrder())")
    }

    /// docs/design.md's prose names every input, every reason and every policy field.
    @Test func the_design_document_names_every_input_reason_and_field() throws {
        let design = try #require(StateDiagram.read(StateDiagram.root + "/docs/design.md"))
        var prose = ""
        var inBlock = false
        for line in design.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("<!-- generated:") { inBlock = true }
            if !inBlock { prose += line + "\n" }
            if line.hasPrefix(StateDiagram.endMarker) { inBlock = false }
        }
        // The reasons section's list: one bullet per reason (or per group), "- `NAME`...: prose".
        var named: [Substring] = []
        var inReasons = false
        for line in prose.split(separator: "\n") {
            if line.hasPrefix("### ") { inReasons = line == "### Reasons" }
            guard inReasons, line.hasPrefix("- `"), let colon = line.firstIndex(of: ":") else { continue }
            named += line[..<colon].split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        }
        for reason in Reason.allCases {
            #expect(named.contains(Substring(StateDiagram.label(reason))),
                    "docs/design.md's reasons list has no bullet for \(StateDiagram.label(reason))")
        }
        let header = try #require(StateDiagram.read(StateDiagram.root + "/include/inactivity.h"))
        // Every field of inact_policy, as the header declares it.
        guard let start = header.firstRange(of: "typedef struct inact_policy {"),
              let end = header.firstRange(of: "} inact_policy;") else {
            Issue.record("inactivity.h: no inact_policy")
            return
        }
        for line in header[start.upperBound..<end.lowerBound].split(separator: "\n") {
            // "    INACT_MS int64_t idle_timeout_ms;   /* ... */": the name before the ';' of the code
            // part, after its annotations and its C type.
            let code = line.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let tokens = code.split(separator: " ")
            guard tokens.contains(where: { $0.hasSuffix("_t") }), let semicolon = code.firstIndex(of: ";"),
                  let name = code[..<semicolon].split(separator: " ").last, name != "size" else { continue }
            #expect(design.contains("`\(name)`"), "docs/design.md does not name policy field \(name)")
        }
    }
}
