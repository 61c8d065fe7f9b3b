// The Swift snippets of README.md, compiled and run: the quick start cannot rot.
import InactivityAsync
import InactivityCore
import Testing

@Test func readme_swift_snippets_compile_and_run() async throws {
    let engine = try InactivityEngine(policy: SessionPolicy(preset: .nistAAL3)) { event in
        print(event)
    }
    try engine.start()
    try engine.recordActivity(.touchDown)
    try engine.enterBackground()
    let bytes = try engine.snapshot()
    #expect(bytes.count == 104)
    engine.close()
    for await _ in engine.events() {}

    let clock = try ManualClock()
    let e2 = try InactivityEngine(policy: SessionPolicy(), clock: .manual(clock), delivery: .host)
    try e2.start()
    try clock.advance(by: 15 * 60_000)
    #expect(try e2.state() == .locked)
    try clock.freeze(for: 2 * 3_600_000)
    try e2.poll()
}
