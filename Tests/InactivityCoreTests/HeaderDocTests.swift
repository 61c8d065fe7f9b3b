// The header documents every function the same way (docs/design.md, "The C ABI"): each doc
// block says what the function returns, what it owns and where it may be called.

import Testing

@Suite("Header documentation")
struct HeaderDocTests {
    static var headerPath: String {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)   // Tests/InactivityCoreTests/HeaderDocTests.swift
        return parts.joined(separator: "/") + "/include/inactivity.h"
    }

    /// (function name, its doc block) for every INACT_EXPORT declaration.
    static func documentedFunctions(_ header: String) -> [(name: String, doc: String)] {
        var result: [(name: String, doc: String)] = []
        var lines = header.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.reverse()
        var pending: String?
        var docLines: [String] = []
        var inDoc = false
        // Walk backwards: a declaration, then the comment block right above it.
        for line in lines {
            if inDoc {
                docLines.append(line)
                if line.hasPrefix("/**") {
                    result.append((pending!, docLines.reversed().joined(separator: "\n")))
                    pending = nil
                    inDoc = false
                    docLines = []
                }
                continue
            }
            if line.hasPrefix("INACT_EXPORT"), let open = line.firstIndex(of: "(") {
                let head = line[..<open]
                pending = String(head.split(separator: " ").last!).trimmingStars()
                continue
            }
            if pending != nil && line.hasSuffix("*/") {
                inDoc = true
                docLines = [line]
                if line.hasPrefix("/**") {
                    result.append((pending!, line))
                    pending = nil
                    inDoc = false
                    docLines = []
                }
            }
        }
        return result
    }

    @Test func every_function_has_returns_ownership_and_thread_lines() throws {
        let header = try #require(StateDiagram.read(HeaderDocTests.headerPath))
        let functions = HeaderDocTests.documentedFunctions(header)
        let declared = header.split(separator: "\n").filter { $0.hasPrefix("INACT_EXPORT") }.count
        #expect(functions.count == declared, "every INACT_EXPORT has a doc block right above it")
        for (name, doc) in functions {
            for word in ["Returns", "Ownership:", "Thread:"] {
                #expect(doc.contains(word), "\(name): its doc block has no \(word) line")
            }
        }
    }
}

private extension String {
    func trimmingStars() -> String { String(drop { $0 == "*" }) }
}
