import Testing
@testable import InactivityCore

/// WebClock, the rule that makes the web's system clock (wasm32) of performance.now() and
/// Date.now(): the pure function, on every platform (bindings/js/test/clock.test.js plays the
/// same cases through the module).
@Suite("The web clock rule")
struct WebClockTests {
    @Test func awake_the_clock_follows_the_monotonic_clock() {
        var c = WebClock()
        #expect(c.read(monotonicMs: 1_000, wallMs: 5_000) == 1_000)
        #expect(c.read(monotonicMs: 1_500, wallMs: 5_500) == 1_500)
        // The wall clock 900 ms ahead, then back: under the 1 s lead, nothing is added.
        #expect(c.read(monotonicMs: 2_500, wallMs: 7_400) == 2_500)
        #expect(c.read(monotonicMs: 3_500, wallMs: 7_500) == 3_500)
    }

    @Test func sleep_time_only_the_wall_clock_saw_counts() {
        var c = WebClock()
        _ = c.read(monotonicMs: 0, wallMs: 1_700_000_000_000)
        // performance.now() stopped for a 10-minute sleep; Date.now() moved.
        #expect(c.read(monotonicMs: 10, wallMs: 1_700_000_600_010) == 600_010)
        #expect(c.read(monotonicMs: 20, wallMs: 1_700_000_600_020) == 600_020)
    }

    @Test func a_wall_clock_set_back_counts_nothing_and_the_clock_never_goes_back() {
        var c = WebClock()
        _ = c.read(monotonicMs: 0, wallMs: 1_700_000_000_000)
        #expect(c.read(monotonicMs: 1_000, wallMs: 1_699_996_401_000) == 1_000)   // set back 1 h
        #expect(c.read(monotonicMs: 2_000, wallMs: 1_699_996_402_000) == 2_000)
        #expect(c.read(monotonicMs: 1_500, wallMs: 1_699_996_402_500) == 2_000)   // monotonic went back
        #expect(c.read(monotonicMs: .min, wallMs: .min) == 2_000)                  // garbage from the host
        #expect(c.read(monotonicMs: 2_500, wallMs: .max) > 2_000)                  // saturates, never wraps
    }
}
