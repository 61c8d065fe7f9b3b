// The Apple mapping on the engine's manual clock: signals in, engine state out, exact times.

import Synchronization
import Testing
import InactivityCore
import InactivityAppleMapping

let second: Int64 = 1_000

/// Collects an engine's events.
final class Recorder: Sendable {
    private let storage = Mutex<[SessionEvent]>([])
    var events: [SessionEvent] { storage.withLock { $0 } }
    func record(_ e: SessionEvent) { storage.withLock { $0.append(e) } }
}

/// An engine on its own manual clock (host delivery), its events, and a mapper.
final class Host {
    let clock: ManualClock
    let engine: InactivityEngine
    let recorder = Recorder()
    var mapper = SignalMapper()

    /// idle 60 s, warning 20 s, tick 1 s, background 5 s, grace 700 ms.
    init(_ edit: (inout SessionPolicy) -> Void = { _ in }) {
        var policy = SessionPolicy()
        policy.idleTimeoutMs = 60 * second
        policy.warningMs = 20 * second
        policy.backgroundTimeoutMs = 5 * second
        edit(&policy)
        let clock = try! ManualClock()
        let recorder = self.recorder
        self.clock = clock
        engine = try! InactivityEngine(policy: policy, clock: .manual(clock), delivery: .host,
                                       onEvent: { recorder.record($0) })
    }

    var events: [SessionEvent] { recorder.events }
    var changes: [SessionEvent] { events.filter { $0.kind == .stateChanged } }
    var state: SessionState { try! engine.state() }
    var info: InactivityEngine.Info { try! engine.info() }
    var now: Int64 { clock.now().monotonicMs }

    func send(_ signals: PlatformSignal...) throws {
        for s in signals { try mapper.send(s, to: engine) }
    }

    /// Moves the clock to absolute time `t`, delivering what falls due on the way.
    func at(_ t: Int64) { try! clock.advance(by: t - now) }

    /// A scene connected and brought on screen with `windows` windows, as UIKit reports it.
    func showScene(_ id: SceneID, windows: Int = 1) throws {
        try send(.sceneWillConnect(id), .sceneWindows(id, notHidden: windows),
                 .sceneWillEnterForeground(id), .sceneDidBecomeActive(id))
    }
}

let sceneA = SceneID(1)
let sceneB = SceneID(2)

@Suite("Signals to engine inputs")
struct SignalTableTests {
    @Test func each_user_signal_is_one_activity_kind() {
        let table: [(PlatformSignal, ActivityKind)] = [
            (.touchBegan, .touchDown), (.touchHeld, .touchDown), (.touchMoved, .touchMove),
            (.touchEnded, .touchUp), (.keyPressed, .key), (.textChanged, .key),
            (.scrolled, .scroll), (.pointerMoved, .pointer),
        ]
        var mapper = SignalMapper()
        for (signal, kind) in table {
            #expect(signal.activityKind == kind, "\(signal)")
            #expect(mapper.map(signal) == [.activity(kind)], "\(signal)")
        }
    }

    @Test func signals_that_are_not_the_person_are_no_activity() {
        var mapper = SignalMapper()
        let notThePerson: [PlatformSignal] = [
            .touchCancelled, .sceneWillConnect(sceneA), .sceneWillResignActive(sceneA),
            .sceneDidBecomeActive(sceneA), .sceneDidEnterBackground(sceneA), .appDidEnterBackground,
            .appWillEnterForeground, .protectedDataWillBecomeUnavailable,
            .protectedDataDidBecomeAvailable, .systemSheetWillPresent(maxMs: 30 * second),
        ]
        for signal in notThePerson {
            #expect(signal.activityKind == nil, "\(signal)")
            #expect(!mapper.map(signal).contains { if case .activity = $0 { true } else { false } }, "\(signal)")
        }
    }

    @Test func app_lifecycle_device_lock_and_system_sheets() {
        var mapper = SignalMapper()
        #expect(mapper.map(.appDidEnterBackground) == [.enterBackground])
        #expect(mapper.map(.appWillEnterForeground) == [.enterForeground])
        #expect(mapper.map(.protectedDataWillBecomeUnavailable) == [.deviceLocked])
        #expect(mapper.map(.protectedDataDidBecomeAvailable) == [])   // a device unlock unlocks nothing
        #expect(mapper.map(.systemSheetWillPresent(maxMs: 30 * second)) == [.expectInterruption(maxMs: 30 * second)])
    }

    @Test func scene_signals_name_their_scene() {
        let sceneSignals: [PlatformSignal] = [
            .sceneWillConnect(sceneA), .sceneDidDisconnect(sceneA), .sceneWillEnterForeground(sceneA),
            .sceneDidEnterBackground(sceneA), .sceneWillResignActive(sceneA), .sceneDidBecomeActive(sceneA),
            .sceneWindows(sceneA, notHidden: 2),
        ]
        for signal in sceneSignals { #expect(signal.scene == sceneA, "\(signal)") }
        #expect(PlatformSignal.appDidEnterBackground.scene == nil)
        #expect(PlatformSignal.touchBegan.scene == nil)
    }

    @Test func resigning_active_is_no_engine_input() {
        var mapper = SignalMapper()
        _ = mapper.map(.sceneWindows(sceneA, notHidden: 1))
        _ = mapper.map(.sceneWillEnterForeground(sceneA))
        _ = mapper.map(.sceneDidBecomeActive(sceneA))
        #expect(mapper.map(.sceneWillResignActive(sceneA)) == [])
        #expect(mapper.phase(of: sceneA) == .inactive)
        #expect(mapper.map(.sceneDidBecomeActive(sceneA)) == [])
        #expect(mapper.phase(of: sceneA) == .active)
    }
}

@Suite("Scenes and windows")
struct SceneWindowTests {
    @Test func a_scene_connected_in_background_shows_no_window() throws {
        let host = Host()
        try host.send(.sceneWillConnect(sceneA), .sceneWindows(sceneA, notHidden: 1))
        #expect(host.info.visibleWindows == 0)
        #expect(host.mapper.phase(of: sceneA) == .background)
        try host.send(.sceneWillEnterForeground(sceneA))
        #expect(host.info.visibleWindows == 1)
    }

    @Test func each_scene_counts_its_own_windows() throws {
        let host = Host()
        try host.showScene(sceneA, windows: 2)
        try host.showScene(sceneB)
        #expect(host.info.visibleWindows == 3)
        try host.send(.sceneWindows(sceneA, notHidden: 1))   // one of A's windows hidden
        #expect(host.info.visibleWindows == 2)
        try host.send(.sceneWindows(sceneA, notHidden: -4))  // nonsense counts as none
        #expect(host.info.visibleWindows == 1)
        #expect(host.mapper.visibleWindows == 1)
    }

    @Test func one_scene_in_background_while_another_stays_on_screen_is_not_background() throws {
        let host = Host()
        try host.engine.start()
        try host.showScene(sceneA)
        try host.showScene(sceneB)
        try host.send(.sceneWillResignActive(sceneA), .sceneDidEnterBackground(sceneA))
        host.at(30 * second)   // far past the grace and the 5 s background timeout
        #expect(host.state == .active)
        #expect(host.info.inBackground == false)
        #expect(host.info.visibleWindows == 1)
    }

    @Test func the_last_scene_leaving_starts_background_at_the_hide() throws {
        let host = Host()
        try host.engine.start()
        try host.showScene(sceneA)
        try host.showScene(sceneB)
        host.at(1 * second)
        try host.send(.sceneWillResignActive(sceneA), .sceneDidEnterBackground(sceneA))
        host.at(2 * second)
        try host.send(.sceneWillResignActive(sceneB), .sceneDidEnterBackground(sceneB), .appDidEnterBackground)
        #expect(host.info.backgroundSinceMs == 2 * second)
        host.at(7 * second - 1)
        #expect(host.state == .active)
        host.at(7 * second)
        let last = try #require(host.changes.last)
        #expect(last.state == .locked && last.reason == .backgroundTimeout && last.timeMs == 7 * second)
    }

    @Test func a_window_hidden_and_shown_again_within_the_grace_is_no_background() throws {
        let host = Host()
        try host.engine.start()
        try host.showScene(sceneA)
        try host.send(.sceneWindows(sceneA, notHidden: 0))   // a window swap during rotation
        host.at(500)
        try host.send(.sceneWindows(sceneA, notHidden: 1))
        host.at(30 * second)
        #expect(host.state == .active)
        #expect(host.info.inBackground == false)
    }

    @Test func disconnecting_a_scene_hides_its_windows() throws {
        let host = Host()
        try host.showScene(sceneA, windows: 2)
        try host.showScene(sceneB)
        try host.send(.sceneDidDisconnect(sceneA))
        #expect(host.info.visibleWindows == 1)
        #expect(host.mapper.connectedScenes == 1)
        try host.send(.sceneDidDisconnect(sceneA))   // twice: nothing more
        #expect(host.info.visibleWindows == 1)
    }

    @Test func a_glance_at_control_centre_starts_no_background_time() throws {
        let host = Host()
        try host.engine.start()
        try host.showScene(sceneA)
        try host.send(.sceneWillResignActive(sceneA))
        host.at(20 * second)   // four background timeouts
        #expect(host.state == .active)
        #expect(host.info.backgroundSinceMs == SessionPolicy.never)
        #expect(CoverRule.covers(host.state, phase: host.mapper.phase(of: sceneA)!))
        try host.send(.sceneDidBecomeActive(sceneA))
        #expect(!CoverRule.covers(host.state, phase: host.mapper.phase(of: sceneA)!))
    }

    @Test func touches_keys_and_typing_reset_the_idle_countdown() throws {
        let host = Host()
        try host.engine.start()
        try host.showScene(sceneA)
        for (i, signal) in [PlatformSignal.touchBegan, .touchHeld, .touchMoved, .touchEnded, .keyPressed,
                            .textChanged, .scrolled, .pointerMoved].enumerated() {
            host.at(Int64(i + 1) * 10 * second)
            try host.send(signal)
            #expect(host.info.lastActivityMs == host.now, "\(signal)")
        }
        host.at(host.now + 5 * second)
        try host.send(.touchCancelled)
        #expect(host.info.lastActivityMs == host.now - 5 * second)
        #expect(host.state == .active)
    }

    @Test func every_input_is_applied_and_the_first_error_is_thrown() throws {
        let host = Host()
        try host.showScene(sceneA)
        host.engine.close()
        var mapper = host.mapper
        #expect(throws: InactivityError.self) { try mapper.send(.sceneDidDisconnect(sceneA), to: host.engine) }
        #expect(mapper.connectedScenes == 0)   // the mapper moved on: the scene is gone
    }
}

@Suite("Device lock and system sheets")
struct DeviceSignalTests {
    @Test func a_device_lock_starts_background_time_at_once() throws {
        let host = Host()
        try host.engine.start()
        try host.showScene(sceneA)
        host.at(1 * second)
        try host.send(.protectedDataWillBecomeUnavailable)
        #expect(host.info.backgroundSinceMs == 1 * second)
        #expect(host.state == .active)
        host.at(6 * second)
        let last = try #require(host.changes.last)
        #expect(last.state == .locked && last.reason == .backgroundTimeout && last.timeMs == 6 * second)
        try host.send(.protectedDataDidBecomeAvailable)
        #expect(host.state == .locked)   // unlocking the device does not unlock the session
    }

    @Test func a_policy_that_locks_with_the_device_locks_at_once() throws {
        let host = Host { $0.lockOnDeviceLock = true }
        try host.engine.start()
        try host.showScene(sceneA)
        host.at(2 * second)
        try host.send(.sceneWillResignActive(sceneA), .sceneDidEnterBackground(sceneA), .appDidEnterBackground,
                      .protectedDataWillBecomeUnavailable)
        let last = try #require(host.changes.last)
        #expect(last.state == .locked && last.reason == .deviceLocked && last.timeMs == 2 * second)
    }

    @Test func a_system_sheet_announced_before_it_appears_costs_no_background_time() throws {
        let host = Host()
        try host.engine.start()
        try host.showScene(sceneA)
        try host.send(.systemSheetWillPresent(maxMs: 30 * second))
        // The picker sends the app to background for 20 s: four background timeouts.
        try host.send(.sceneWillResignActive(sceneA), .sceneDidEnterBackground(sceneA), .appDidEnterBackground)
        host.at(20 * second)
        try host.send(.appWillEnterForeground, .sceneWillEnterForeground(sceneA), .sceneDidBecomeActive(sceneA))
        #expect(host.state == .active)
        // Used once: the next background counts again.
        try host.send(.sceneWillResignActive(sceneA), .sceneDidEnterBackground(sceneA), .appDidEnterBackground)
        host.at(26 * second)
        #expect(host.state == .locked)
    }

    @Test func a_sheet_that_outlasts_its_announcement_locks_on_time() throws {
        let host = Host()
        try host.engine.start()
        try host.showScene(sceneA)
        try host.send(.systemSheetWillPresent(maxMs: 10 * second))
        try host.send(.sceneWillResignActive(sceneA), .sceneDidEnterBackground(sceneA), .appDidEnterBackground)
        host.at(30 * second)
        try host.send(.appWillEnterForeground, .sceneWillEnterForeground(sceneA))
        #expect(host.state == .locked)
    }

    @Test func an_announcement_the_engine_refuses_surfaces_its_error() throws {
        let host = Host { $0.expectedInterruptionMaxMs = 30 * second }
        try host.engine.start()
        try host.showScene(sceneA)
        var message: String?
        do { try host.send(.systemSheetWillPresent(maxMs: 60 * second)) } catch { message = (error as? InactivityError)?.message }
        #expect(message == "max_ms (60000) must be at most policy.expected_interruption_max_ms (30000)")
        try host.send(.sceneDidEnterBackground(sceneA), .appDidEnterBackground)
        #expect(throws: InactivityError.self) { try host.send(.systemSheetWillPresent(maxMs: 10 * second)) }
    }
}
