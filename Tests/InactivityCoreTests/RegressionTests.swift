// Regression tests for engine bugs found by the reliability harness (verify/fuzz/, verify/stress/,
// scripts/memcheck). One test per finding, named after the behaviour the design promises; each
// failed before its fix. RELIABILITY.md lists them with the input that found them.

#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import InactivityCore

@Suite("Regressions found by the fuzzer")
struct RegressionTests {
    // Found by verify/fuzz/inact_fuzz.c: "activity: 0 event(s) delivered, the model expects 1
    // (ACTIVE -> LOCKED (BACKGROUND_TIMEOUT) at 5600)". Every API call first evaluates every
    // deadline (docs/design.md section 2, "Deadlines, precedence and catch-up"), so a frozen process that wakes
    // up sees the lock inside the first call, whatever that call is. Activity that is ignored
    // (background, LOCKED, a WARNING it may not dismiss) was dropped on the fast path before
    // any evaluation, so the overdue transition waited for some later call.

    @Test func ignored_activity_in_background_still_delivers_the_overdue_lock() throws {
        let rig = Rig(smallPolicy())   // background timeout 5 s
        try rig.engine.start()
        try rig.engine.enterBackground()
        rig.recorder.clear()
        try rig.clock.freeze(for: 6 * second)   // the process was frozen past the background lock
        try rig.engine.recordActivity(.touchDown)
        // Delivered inside the call, before any query: the recorder is read directly.
        #expect(rig.recorder.transitions == [Transition(.locked, .backgroundTimeout, 5 * second)])
    }

    @Test func ignored_activity_in_warning_still_delivers_the_overdue_lock() throws {
        let rig = Rig(smallPolicy { $0.tickMs = 0 })   // warning at 7 s, lock at 10 s
        try rig.engine.start()
        rig.at(7 * second)
        #expect(rig.recorder.transitions.last == Transition(.warning, .idle, 7 * second))
        rig.recorder.clear()
        try rig.clock.freeze(for: 5 * second)
        try rig.engine.recordActivity(.key)   // may not dismiss the warning: ignored
        #expect(rig.recorder.transitions == [Transition(.locked, .idleTimeout, 10 * second)])
    }

    @Test func ignored_activity_in_locked_still_delivers_the_overdue_expiry() throws {
        let rig = Rig(smallPolicy { $0.lockedTimeoutMs = 20 * second })
        try rig.engine.start()
        try rig.engine.lock()
        rig.recorder.clear()
        try rig.clock.freeze(for: 21 * second)
        try rig.engine.recordActivity(.key)
        #expect(rig.recorder.transitions == [Transition(.expired, .lockedTimeout, 20 * second)])
    }
}

@Suite("Regressions found by the fuzzer: simulated reboots")
struct RebootRegressionTests {
    // Found by verify/fuzz/inact_fuzz.c: "event.time_ms 33924 after now_ms 7000". A LOADING engine
    // whose manual clock is rebooted (the documented way to prepare a restore test) and then
    // started kept its pre-reboot evaluation time as a floor for every transition: WARNING and
    // LOCKED came at the right instants but carried time_ms 30000 (after now_ms), and
    // locked_at was 30000, so a locked timeout would have run 20 s late.
    @Test func a_session_started_after_a_reboot_uses_the_new_clock() throws {
        let clock = try ManualClock(monotonicMs: 30 * second)
        let rig = Rig(smallPolicy { $0.tickMs = 0; $0.lockedTimeoutMs = 20 * second }, clock: clock)
        try clock.reboot(downtimeMs: 300)
        try rig.engine.start()
        rig.at(20 * second)
        #expect(rig.recorder.transitions == [
            Transition(.active, .started, 0), Transition(.warning, .idle, 7 * second),
            Transition(.locked, .idleTimeout, 10 * second),
        ])
        #expect(rig.recorder.events.allSatisfy { $0.timeMs <= $0.nowMs })
        rig.at(30 * second)
        #expect(rig.recorder.transitions.last == Transition(.expired, .lockedTimeout, 30 * second))
    }
}

@Suite("Regressions found by the TSan stress")
struct PausedIdleRegressionTests {
    // Found by verify/stress/inact_stress.c: "restore of a fresh snapshot: -12 (snapshot times must
    // satisfy start (2130790) <= last activity (2130813) <= snapshot clock (2130807))", then
    // reduced to one thread on the manual clock. With pause_idle_in_background, an unlock (or
    // the last hold release) in background sets last activity = now; on foreground the pause
    // was undone by shifting last activity by the whole background time, although the
    // countdown had restarted during it: last activity landed in the future. The idle lock then
    // came later than the policy's idle timeout (11 s after foreground for a 10 s timeout), and
    // the snapshot was one that restore rejects (EXPIRED, RESTORE_FAILED at the next cold start).

    static func pausedPolicy() -> SessionPolicy {
        smallPolicy { $0.backgroundTimeoutMs = SessionPolicy.never; $0.pauseIdleInBackground = true }
    }

    @Test func unlock_in_background_with_paused_idle_never_extends_the_idle_timeout() throws {
        let rig = Rig(PausedIdleRegressionTests.pausedPolicy())
        try rig.engine.start()
        rig.at(1 * second)
        try rig.engine.enterBackground()
        try rig.engine.lock()
        rig.at(2 * second)
        try rig.engine.unlock()
        rig.at(5 * second)
        try rig.engine.enterForeground()
        let info = try rig.engine.info()
        #expect(info.lastActivityMs <= rig.now)
        #expect(info.remainingMs <= 10 * second)
        #expect(throws: Never.self) { _ = try Snapshot.decode(try rig.engine.snapshot()) }
    }

    @Test func last_hold_release_in_background_with_paused_idle_never_extends_the_idle_timeout() throws {
        let rig = Rig(PausedIdleRegressionTests.pausedPolicy())
        try rig.engine.start()
        rig.at(1 * second)
        try rig.engine.enterBackground()
        let hold = try rig.engine.acquireHold()
        rig.at(2 * second)
        try rig.engine.releaseHold(hold)
        rig.at(5 * second)
        try rig.engine.enterForeground()
        let info = try rig.engine.info()
        #expect(info.lastActivityMs <= rig.now)
        #expect(info.remainingMs <= 10 * second)
        #expect(throws: Never.self) { _ = try Snapshot.decode(try rig.engine.snapshot()) }
    }
}

@Suite("Regressions found by the fuzzer: wall-clock extremes")
struct WallClockExtremesRegressionTests {
    // Found by verify/fuzz/inact_fuzz.c: "restore: LOADING -> EXPIRED (ABSOLUTE_TIMEOUT) time
    // -2305843009210101452; the model expects EXPIRED (UNTRUSTED_CLOCK) time 0". A snapshot taken
    // with the wall clock at its maximum, restored after a reboot with a normal wall clock: the
    // wall clock went back, so the restore is EXPIRED (UNTRUSTED_CLOCK). The wall-clock delta
    // (now - snapshot) overflowed and wrapped to a huge positive elapsed time instead, which
    // gave ABSOLUTE_TIMEOUT at an absurd time. Still fail-secure (EXPIRED), but the wrong rule.
    @Test func a_wall_clock_that_went_back_from_its_maximum_is_untrusted() throws {
        let source = Rig(smallPolicy(), clock: try ManualClock(monotonicMs: 0, wallMs: .max, bootID: 1))
        try source.engine.start()
        let bytes = try source.engine.snapshot()
        let rig = Rig(smallPolicy(), clock: try ManualClock(monotonicMs: 0, wallMs: -77_763_328_000, bootID: 2))
        try rig.engine.restore(bytes)
        #expect(rig.recorder.transitions == [Transition(.expired, .untrustedClock, 0)])
    }
}

/// What the threads of the close-race regression share.
final class CloseRace: @unchecked Sendable {
    var engine: InactivityEngine?
    let armed = Atomic<Bool>(false)
    let inCallback = Atomic<Bool>(false)
    let release = Atomic<Bool>(false)
    let closeReturned = Atomic<Bool>(false)
}

@Suite("Regressions found by scripts/memcheck")
struct CloseRaceRegressionTests {
    // Found by the C suite under valgrind (scripts/memcheck; Tests/CTests
    // destroy_while_other_threads_use_the_engine: "ok_after_invalid == 99"). While a close waits
    // for a callback running on another thread, the engine already answers INVALID_HANDLE to
    // every call, but the lock-free activity path still found the gate open and returned OK:
    // a thread saw its handle invalid, then valid again. The gate must close when the engine
    // does, not when the wait is over.
    @Test func activity_is_refused_once_a_close_has_begun() throws {
        let race = CloseRace()
        let engine = try InactivityEngine(policy: SessionPolicy(), clock: .system, delivery: .host, onEvent: { _ in
            guard race.armed.load(ordering: .acquiring) else { return }
            race.inCallback.store(true, ordering: .releasing)
            while !race.release.load(ordering: .acquiring) { sched_yield() }
        })
        race.engine = engine
        try engine.start()   // its event passes: the callback blocks only once armed
        race.armed.store(true, ordering: .releasing)
        let handle = engine.handle
        // Thread A: an input whose event blocks in the callback.
        var a = pthread_t()
        pthread_create(&a, nil, { p in
            let r = Unmanaged<CloseRace>.fromOpaque(p!).takeUnretainedValue()
            try? r.engine!.lock()
            return nil
        }, Unmanaged.passUnretained(race).toOpaque())
        while !race.inCallback.load(ordering: .acquiring) { sched_yield() }
        // Thread B: close, which waits for A's callback.
        var b = pthread_t()
        pthread_create(&b, nil, { p in
            let r = Unmanaged<CloseRace>.fromOpaque(p!).takeUnretainedValue()
            r.engine!.close()
            r.closeReturned.store(true, ordering: .releasing)
            return nil
        }, Unmanaged.passUnretained(race).toOpaque())
        while !engine.isClosed { sched_yield() }
        let closeReturnedEarly = race.closeReturned.load(ordering: .acquiring)
        #expect(!closeReturnedEarly)   // B is waiting for A's callback
        var stateCode: InactivityError.Code? = nil
        do { _ = try engine.state() } catch { stateCode = error.code }
        var activityCode: InactivityError.Code? = nil
        do { try InactivityEngine.recordActivity(handle: handle, kind: ActivityKind.key.rawValue) } catch { activityCode = error.code }
        race.release.store(true, ordering: .releasing)
        pthread_join(a, nil)
        pthread_join(b, nil)
        #expect(stateCode == .invalidHandle)
        #expect(activityCode == .invalidHandle, "activity on a closing engine: \(String(describing: activityCode))")
    }
}

@Suite("Regressions found by the fuzzer: inputs made by callbacks during an advance")
struct AdvanceCallbackRegressionTests {
    // Found by verify/fuzz/inact_fuzz.c (90 s run): "advance with lock in the callback: LOCKED -> EXPIRED
    // (LOCKED_TIMEOUT) time 78294 now 79194; the model expects now 78294". The manual clock read
    // the engine's next deadline before the callbacks of that step had run; a lock made by a
    // callback brought the locked timeout closer, and the advance stepped past it, delivering
    // the expiry late (at the end of the advance) instead of at its own time.
    @Test func a_lock_made_by_a_callback_during_an_advance_expires_on_time() throws {
        let clock = try ManualClock()
        let box = EngineBox()
        let recorder = Recorder()
        let engine = try InactivityEngine(policy: smallPolicy { $0.lockedTimeoutMs = 100; $0.tickMs = 0 },
                                          clock: .manual(clock), delivery: .host, onEvent: { e in
            recorder.record(e)
            if e.state == .warning { try? box.engine!.lock() }
        })
        box.engine = engine
        try engine.start()
        try clock.advance(by: 20 * second)
        #expect(recorder.transitions == [
            Transition(.active, .started, 0), Transition(.warning, .idle, 7 * second),
            Transition(.locked, .manualLock, 7 * second), Transition(.expired, .lockedTimeout, 7_100),
        ])
        #expect(recorder.events.allSatisfy { $0.nowMs == $0.timeMs })
        engine.close()
    }
}
