// Everything generated from the rule tables (SessionRules.swift): the README's state diagram,
// docs/design.md's transition, deadline and reason tables, and Tests/CTests/state_edges.inc, the
// edge and cell list the C test `every_input_in_every_state_makes_only_the_diagram_edges` checks
// against the library's behaviour. These tests fail when a copy differs from the tables;
// `scripts/state-diagram` rewrites every copy (INACT_WRITE_STATE_DIAGRAM=1).
//
// A generated block in a Markdown file sits between `<!-- generated: NAME -->` and
// `<!-- end generated -->`; other generators (the field tables) use the same markers with their
// own names, and each rewrites only its own blocks.

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
                var name = input.name
                if case .appliedIf(let condition) = cell.outcome { name += " " + label(condition) }
                switch cell.move {
                case .stays: break
                case .to(let to, let reason): add(from, to, reason, .input, input.name, name)
                case .toIf(let condition, let to, let reason):
                    add(from, to, reason, .input, input.name, name + " " + label(condition))
                case .toNamedReason(let to):
                    for reason in input.namedReasons { add(from, to, reason, .input, input.name, name) }
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

    /// The README block: a Mermaid state diagram, one arrow per pair of states, each cause once
    /// with its reasons.
    static func diagram() -> String {
        var pairs: [(from: SessionState, to: SessionState, labels: [(String, [String])])] = []
        for e in edges() {
            let i = pairs.firstIndex { $0.from == e.from && $0.to == e.to } ?? {
                pairs.append((e.from, e.to, []))
                return pairs.count - 1
            }()
            let reason = label(e.reason)
            if let j = pairs[i].labels.firstIndex(where: { $0.0 == e.label }) {
                if !pairs[i].labels[j].1.contains(reason) { pairs[i].labels[j].1.append(reason) }
            } else {
                pairs[i].labels.append((e.label, [reason]))
            }
        }
        pairs.sort { ($0.from.rawValue, $0.to.rawValue) < ($1.from.rawValue, $1.to.rawValue) }
        var lines = ["```mermaid", "stateDiagram-v2", "    [*] --> LOADING"]
        for p in pairs {
            let text = p.labels.map { "\($0.0) (\($0.1.joined(separator: ", ")))" }.joined(separator: ", ")
            lines.append("    \(p.from) --> \(p.to): \(text)")
        }
        lines.append("```")
        return lines.joined(separator: "\n")
    }

    static func cellText(_ input: Input, _ state: SessionState) -> String {
        let cell = input.cell(in: state)
        var text: String
        switch cell.outcome {
        case .refused: return "refused"
        case .noOp: return "no-op"
        case .applied: text = "applied"
        case .appliedIf(let c): text = "if \(docs(c))"
        }
        switch cell.move {
        case .stays: break
        case .to(let s, let r): text = cell.outcome == .applied ? "→ \(s) (`\(label(r))`)" : text + ": → \(s) (`\(label(r))`)"
        case .toIf(let c, let s, let r): text += "; → \(s) (`\(label(r))`) \(docs(c))"
        case .toNamedReason(let s): text = "→ \(s) (the reason given)"
        case .toSnapshot:
            text = "→ the snapshot's state (section 4); corrupt bytes: → \(RestoreRule.corrupt.state) (`\(label(RestoreRule.corrupt.reason))`) and the snapshot's error"
        }
        if !cell.refusals.isEmpty {
            text += "; refused: " + cell.refusals.map { "\($0.rule) (`\(status($0.status))`)" }.joined(separator: ", ")
        }
        return text
    }

    /// docs/design.md: what every input does in every state.
    static func transitionTable() -> String {
        var lines = ["| input | " + SessionState.allCases.map { "\($0)" }.joined(separator: " | ") + " |",
                     "|---|" + String(repeating: "---|", count: SessionState.allCases.count)]
        for input in Input.allCases {
            lines.append("| \(input.name) | " + SessionState.allCases.map { cellText(input, $0) }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    static func states(_ set: StateSet) -> String {
        set == .all ? "every state" : SessionState.allCases.filter { set.contains($0) }.map { "\($0)" }.joined(separator: ", ")
    }

    /// docs/design.md: the deadline table, in tie order.
    static func deadlineTable() -> String {
        var lines = ["| at a tie | deadline | instant | runs in | leads to | moved by activity |", "|---|---|---|---|---|---|"]
        for kind in DeadlineKind.allCases {
            let to = kind.rule.to.map { "\($0.state) (`\(label($0.reason))`)" }
                ?? (kind == .tick ? "a TICK event" : kind == .keepalive ? "a KEEPALIVE event" : "background takes effect")
            lines.append("| \(kind.rawValue + 1) | \(label(kind)) | \(instant(kind)) | \(states(kind.rule.runsIn)) | \(to) | \(kind.rule.movesWithActivity ? "yes" : "no") |")
        }
        return lines.joined(separator: "\n")
    }

    /// docs/design.md: the reasons each state may carry.
    static func reasonTable() -> String {
        var lines = ["| state | reasons |", "|---|---|"]
        for state in SessionState.allCases {
            lines.append("| \(state) | " + Reason.allowed(in: state).map { "`\(label($0))`" }.joined(separator: ", ") + " |")
        }
        return lines.joined(separator: "\n")
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

    /// Tests/CTests/state_edges.inc.
    static func cInclude() -> String {
        var lines = ["/* Generated from Sources/InactivityCore/SessionRules.swift by scripts/state-diagram; do not edit.",
                     " * EDGE(from, to, reason, kind, cause): a transition of the state diagram.",
                     " * CELL(input, state, outcome, move): the transition table's cell. */"]
        for e in edges() {
            lines.append("EDGE(\(e.from), \(e.to), \(label(e.reason)), \(e.kind.rawValue), \"\(e.kind == .deadline ? e.cause : e.cause)\")")
        }
        for input in Input.allCases {
            for state in SessionState.allCases {
                let cell = input.cell(in: state)
                let outcome = switch cell.outcome {
                case .refused: "REFUSED"
                case .noOp: "NOOP"
                case .applied: "APPLIED"
                case .appliedIf: "APPLIED_IF"
                }
                let move = switch cell.move {
                case .stays: "STAYS"
                case .to: "TO"
                case .toIf: "TO_IF"
                case .toNamedReason: "TO_NAMED"
                case .toSnapshot: "TO_SNAPSHOT"
                }
                lines.append("CELL(\"\(input.name)\", \(state), \(outcome), \(move))")
            }
        }
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
    static func beginMarker(_ name: String) -> String { "<!-- generated: \(name) -->" }

    /// `text` with block `name` replaced by `body`; nil when the block's markers are missing.
    static func replacing(block name: String, in text: String, with body: String) -> String? {
        let bytes = Array(text.utf8), begin = Array(beginMarker(name).utf8)
        guard let a = find(begin, in: bytes, from: 0),
              let b = find(Array(endMarker.utf8), in: bytes, from: a + begin.count) else { return nil }
        return String(decoding: bytes[..<(a + begin.count)], as: UTF8.self) + "\n" + body + "\n"
            + String(decoding: bytes[b...], as: UTF8.self)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var i = start
        while i + needle.count <= haystack.count {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// The generated files: path, and what it must read given what it reads now (nil: the
    /// markers are missing).
    static var targets: [(path: String, update: (String) -> String?)] { [
        ("README.md", { replacing(block: "state-diagram", in: $0, with: diagram()) }),
        ("docs/design.md", { text in
            replacing(block: "transitions", in: text, with: transitionTable())
                .flatMap { replacing(block: "deadlines", in: $0, with: deadlineTable()) }
                .flatMap { replacing(block: "reasons", in: $0, with: reasonTable()) }
        }),
        ("Tests/CTests/state_edges.inc", { _ in cInclude() }),
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
            // "    int64_t idle_timeout_ms;   /* ... */": the name before the ';' of the code part.
            let code = line.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let tokens = code.split(separator: " ")
            guard let type = tokens.first, type.hasSuffix("_t"), let semicolon = code.firstIndex(of: ";"),
                  let name = code[..<semicolon].split(separator: " ").last, name != "size" else { continue }
            #expect(design.contains("`\(name)`"), "docs/design.md does not name policy field \(name)")
        }
    }
}
