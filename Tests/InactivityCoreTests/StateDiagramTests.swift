// The README's state diagram is generated from the transition table (`Input.rule`) and the
// deadline table (`DeadlineKind.rule`): this test fails when they differ, and
// `scripts/state-diagram` rewrites the README's block from the tables.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import InactivityCore

enum StateDiagram {
    static let begin = "<!-- state diagram: generated from SessionMachine.swift by scripts/state-diagram -->"
    static let end = "<!-- end of the generated state diagram -->"

    static func label(_ reason: Reason) -> String {
        reason.description.uppercased().replacingDashes()
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
        }
    }

    static func label(_ condition: Condition) -> String {
        switch condition {
        case .activityCounts: "if counted"
        case .activityDismissesWarning: "if it may dismiss"
        case .backgroundTimeoutPassed: "unless in background past the timeout"
        case .locksOnDeviceLock: "with lock on device lock"
        }
    }

    /// Every edge between two different states, each label once, in table order.
    static func edges() -> [(from: SessionState, to: SessionState, labels: [String])] {
        var edges: [(from: SessionState, to: SessionState, labels: [String])] = []
        func add(_ from: SessionState, _ to: SessionState, _ label: String) {
            guard from != to else { return }
            if let i = edges.firstIndex(where: { $0.from == from && $0.to == to }) {
                if !edges[i].labels.contains(label) { edges[i].labels.append(label) }
            } else {
                edges.append((from, to, [label]))
            }
        }
        for input in Input.allCases {
            for from in SessionState.allCases {
                let outcome = input.rule[from]
                guard outcome != .refused && outcome != .noOp else { continue }
                var name = input.name
                if case .appliedIf(let condition) = outcome {
                    name += " " + StateDiagram.label(condition)
                }
                switch input.rule.move {
                case .stays: break
                case .to(let to, let reason): add(from, to, "\(name) (\(label(reason)))")
                case .toNamedReason(let to):
                    add(from, to, "\(name) (\(Reason.allCases.filter(\.isEnding).map(label).joined(separator: ", ")))")
                case .atFailureLimit(let to, let reason): add(from, to, "\(name) at the limit (\(label(reason)))")
                case .toWhen(let condition, let to, let reason): add(from, to, "\(name) \(label(condition)) (\(label(reason)))")
                case .toSnapshot:
                    for to in SessionState.allCases where to != .loading { add(from, to, name) }
                    add(from, .expired, "\(name) corrupt (\(label(.restoreFailed)))")
                }
            }
        }
        for kind in DeadlineKind.allCases {
            guard let to = kind.rule.to else { continue }
            for from in SessionState.allCases where kind.runs(in: from) {
                add(from, to.state, "\(label(kind)) (\(label(to.reason)))")
            }
        }
        let ends = SessionMachine.warningEnds
        add(ends.from, ends.to, "idle deadline moved later (\(label(ends.reason)))")
        for from in SessionMachine.clockDiscontinuity.from {
            add(from, SessionMachine.clockDiscontinuity.to, "clock discontinuity (\(label(SessionMachine.clockDiscontinuity.reason)))")
        }
        let order = { (s: SessionState) in Int(s.rawValue) }
        return edges.sorted { (order($0.from), order($0.to)) < (order($1.from), order($1.to)) }
    }

    /// The README block: markers, a Mermaid state diagram, markers.
    static func block() -> String {
        var lines = [begin, "```mermaid", "stateDiagram-v2", "    [*] --> LOADING"]
        for e in edges() {
            lines.append("    \(e.from) --> \(e.to): \(e.labels.joined(separator: ", "))")
        }
        lines += ["```", end]
        return lines.joined(separator: "\n")
    }

    static var readmePath: String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)   // Tests/InactivityCoreTests/StateDiagramTests.swift
        return parts.joined(separator: "/") + "/README.md"
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

    /// The README with its block replaced by `block()`; nil when the markers are missing.
    static func updated(_ readme: String) -> String? {
        let text = Array(readme.utf8)
        guard let a = find(Array(begin.utf8), in: text, from: 0),
              let b = find(Array(end.utf8), in: text, from: a) else { return nil }
        let tail = b + end.utf8.count
        return String(decoding: text[..<a], as: UTF8.self) + block() + String(decoding: text[tail...], as: UTF8.self)
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
}

private extension String {
    func replacingDashes() -> String { String(map { $0 == "-" ? "_" : $0 }) }
}

@Suite("State diagram")
struct StateDiagramTests {
    @Test func the_readme_diagram_is_the_transition_table() throws {
        let path = StateDiagram.readmePath
        let readme = try #require(StateDiagram.read(path), "cannot read \(path)")
        let updated = try #require(StateDiagram.updated(readme),
                                   "README.md has no block between \"\(StateDiagram.begin)\" and \"\(StateDiagram.end)\"")
        if getenv("INACT_WRITE_STATE_DIAGRAM") != nil {
            #expect(StateDiagram.write(updated, to: path), "cannot write \(path)")
            return
        }
        #expect(updated == readme, "README.md's state diagram differs from the tables in SessionMachine.swift: run scripts/state-diagram")
    }

    @Test func every_state_other_than_loading_is_reachable_and_loading_is_left() throws {
        let edges = StateDiagram.edges()
        for s in SessionState.allCases where s != .loading {
            #expect(edges.contains { $0.to == s }, "\(s) has no way in")
        }
        #expect(edges.contains { $0.from == .loading })
        #expect(!edges.contains { $0.to == .loading })
    }
}
