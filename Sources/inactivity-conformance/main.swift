// inactivity-conformance: the Swift half of the conformance suite (verify/conformance/README.md).
//
//   inactivity-conformance compile OUTDIR SCENARIO...   each FILE.scenario -> OUTDIR/FILE.ops
//   inactivity-conformance run OUTDIR OPS...            each FILE.ops -> OUTDIR/FILE.out (Swift)
//
// Exit 0 on success, 2 on bad input (usage, an unreadable file, a scenario that does not parse).

import Foundation
import InactivityScenarios

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(("inactivity-conformance: " + message + "\n").data(using: .utf8)!)
    exit(2)
}

func read(_ path: String) -> String {
    guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
        fail("cannot read \(path)")
    }
    return text
}

func write(_ lines: [String], to path: String) {
    guard FileManager.default.createFile(atPath: path, contents: (lines.joined(separator: "\n") + "\n").data(using: .utf8)) else {
        fail("cannot write \(path)")
    }
}

/// `dir/name.ext` -> `outdir/name.newExt`.
func outPath(_ outdir: String, _ path: String, _ newExt: String) -> String {
    var name = String(path.split(separator: "/").last ?? Substring(path))
    if let dot = name.lastIndex(of: ".") { name = String(name[..<dot]) }
    return outdir + "/" + name + "." + newExt
}

let args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 2 else { fail("usage: inactivity-conformance compile|run OUTDIR FILE...") }
let outdir = args[1]
switch args[0] {
case "compile":
    for path in args.dropFirst(2) {
        let scenario: Scenario
        do throws(ScenarioError) {
            scenario = try ScenarioParser.parse(read(path), source: path)
        } catch {
            fail("\(path): \(error)")
        }
        write(OpCompiler(scenario).lines, to: outPath(outdir, path, "ops"))
    }
case "run":
    // A hand-written op left for a generated one would hide it (and names.toml's convention).
    let stray = Set(SwiftRunner.hostOps.keys).intersection(generatedOps)
    if !stray.isEmpty { fail("Run.swift: hand-written ops that generated/OpTable.swift has: \(stray.sorted().joined(separator: ", "))") }
    for path in args.dropFirst(2) {
        let ops = read(path).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        write(SwiftRunner().run(ops), to: outPath(outdir, path, "out"))
    }
default:
    fail("unknown command \(args[0]) (compile, run)")
}
