// The cover and presentation rules, driven by a real engine's events on the manual clock.

import Testing
import InactivityCore
import InactivityAppleMapping

/// A host that feeds every engine event to a presentation rule and keeps the changes.
final class Screen {
    let host: Host
    var rule = PresentationRule()
    var changes: [PresentationChange] = []
    private var seen = 0

    init(_ edit: (inout SessionPolicy) -> Void = { _ in }) { host = Host(edit) }

    /// Applies the events that arrived since the last call.
    @discardableResult
    func update() -> [PresentationChange] {
        let events = host.events
        var new: [PresentationChange] = []
        for e in events[seen...] { new += rule.apply(e) }
        seen = events.count
        changes += new
        return new
    }
}

@Suite("Cover rule")
struct CoverRuleTests {
    @Test func covers_while_loading_whatever_the_phase() {
        for phase in SceneActivation.allCases { #expect(CoverRule.covers(.loading, phase: phase)) }
    }

    @Test func covers_session_content_whenever_the_scene_is_not_active() {
        for state in [SessionState.active, .warning, .expired] {
            #expect(!CoverRule.covers(state, phase: .active), "\(state)")
            #expect(CoverRule.covers(state, phase: .inactive), "\(state)")
            #expect(CoverRule.covers(state, phase: .background), "\(state)")
        }
    }

    @Test func never_covers_the_lock_screen() {
        for phase in SceneActivation.allCases { #expect(!CoverRule.covers(.locked, phase: phase)) }
    }

    @Test func a_cold_start_is_covered_until_the_restore_has_decided() throws {
        let host = Host()
        #expect(CoverRule.covers(host.state, phase: .active))
        try host.engine.start()
        #expect(!CoverRule.covers(host.state, phase: .active))
    }
}

@Suite("Presentation rule")
struct PresentationRuleTests {
    @Test func the_warning_counts_down_on_the_engines_ticks_and_continue_dismisses_it() throws {
        let screen = Screen()
        try screen.host.engine.start()
        screen.update()
        #expect(screen.rule.screen == .content)
        screen.host.at(40 * second)
        #expect(screen.update() == [.presentWarning(secondsLeft: 20)])
        screen.host.at(45 * second)
        #expect(screen.update() == (15...19).reversed().map { .updateCountdown(secondsLeft: Int64($0)) })
        #expect(screen.rule.secondsLeft == 15)
        try screen.host.engine.continueSession()
        #expect(screen.update() == [.dismissWarning])
        #expect(screen.rule.secondsLeft == nil)
    }

    @Test func a_warning_left_to_run_out_becomes_the_lock_screen() throws {
        let screen = Screen()
        try screen.host.engine.start()
        screen.host.at(60 * second)
        #expect(screen.changes.isEmpty)
        let changes = screen.update()
        #expect(changes.first == .presentWarning(secondsLeft: 20))
        #expect(Array(changes.suffix(2)) == [.dismissWarning, .presentLockScreen])
        #expect(changes.count == 1 + 19 + 2)   // 19 ticks, 19 s .. 1 s
    }

    @Test func the_lock_screen_is_presented_once_however_many_locked_events_arrive() throws {
        let screen = Screen { $0.warningMs = 0; $0.lockOnDeviceLock = true }
        try screen.host.engine.start()
        try screen.host.send(.sceneWindows(sceneA, notHidden: 1), .sceneWillEnterForeground(sceneA))
        try screen.host.engine.lock()
        try screen.host.engine.lock()                                  // a no-op in LOCKED
        try screen.host.send(.protectedDataWillBecomeUnavailable)      // the device locks too (a LOCKED input)
        try screen.host.send(.sceneDidEnterBackground(sceneA), .appDidEnterBackground)
        screen.host.at(10 * second)                                   // past the background timeout
        screen.update()
        let info = screen.host.info
        screen.changes += screen.rule.observe(info.state, remainingMs: info.remainingMs)   // a state read at attach
        screen.changes += screen.rule.observe(.locked, remainingMs: SessionPolicy.never)
        #expect(screen.changes == [.presentLockScreen])
        #expect(screen.rule.lockScreenPresentations == 1)

        try screen.host.send(.appWillEnterForeground, .sceneWillEnterForeground(sceneA))
        try screen.host.engine.unlock()
        #expect(screen.update() == [.dismissLockScreen])
        try screen.host.engine.lock()
        #expect(screen.update() == [.presentLockScreen])   // a new lock is a new presentation
        #expect(screen.rule.lockScreenPresentations == 2)
    }

    @Test func an_expiry_replaces_the_lock_screen_with_the_signed_out_screen() throws {
        let screen = Screen { $0.lockedTimeoutMs = 30 * second }
        try screen.host.engine.start()
        try screen.host.engine.lock()
        #expect(screen.update() == [.presentLockScreen])
        screen.host.at(30 * second)
        #expect(screen.update() == [.dismissLockScreen, .presentSignedOut])
        try screen.host.engine.start()   // signed in again
        #expect(screen.update() == [.dismissSignedOut])
    }

    @Test func log_out_from_the_warning_is_the_signed_out_screen() throws {
        let screen = Screen()
        try screen.host.engine.start()
        screen.host.at(40 * second)
        screen.update()
        try screen.host.engine.end(reason: .logout)
        #expect(screen.update() == [.dismissWarning, .presentSignedOut])
    }

    @Test func a_restore_straight_to_locked_presents_only_the_lock_screen() throws {
        let first = Host()
        try first.engine.start()
        let bytes = try first.engine.snapshot()
        let screen = Screen()
        try screen.host.clock.freeze(for: 10 * 60 * second)
        try screen.host.engine.restore(bytes)   // another clock: untrusted elapsed time
        #expect(screen.update() == [.presentLockScreen])
    }

    @Test func seconds_left_round_up() {
        var rule = PresentationRule()
        let steps = [19_001, 19_000, 18_500, 1].map { rule.observe(.warning, remainingMs: $0) }
        #expect(steps == [[.presentWarning(secondsLeft: 20)], [.updateCountdown(secondsLeft: 19)],
                          [],   // the same second: no update
                          [.updateCountdown(secondsLeft: 1)]])
    }

    @Test func the_warning_needs_at_least_20_seconds_and_ticks() throws {
        var policy = SessionPolicy()
        policy.warningMs = 19_999
        var message: String?
        do { try PresentationRule.check(policy) } catch { message = error.message }
        #expect(message == "policy.warning_ms (19999) must be at least 20000 for the warning presentation: WCAG 2.2.1 gives the user at least 20 s to extend")
        policy.warningMs = 20_000
        try PresentationRule.check(policy)
        policy.tickMs = 0
        #expect(throws: InactivityError.self) { try PresentationRule.check(policy) }
        policy.tickMs = 1_000
        policy.warningMs = 0   // no warning at all: nothing to extend with
        #expect(throws: InactivityError.self) { try PresentationRule.check(policy) }
        try PresentationRule.check(SessionPolicy())   // the default: 30 s, 1 s ticks
        try PresentationRule.check(SessionPolicy(preset: .banking))
    }
}

@Suite("Event mailbox and held touches")
struct MailboxTests {
    func event(_ state: SessionState, _ t: Int64) -> SessionEvent {
        SessionEvent(kind: .stateChanged, state: state, previousState: .active, reason: .none,
                     remainingMs: 0, timeMs: t, nowMs: t)
    }

    @Test func asks_for_one_drain_per_batch() {
        let box = EventMailbox()
        #expect(box.post(event(.warning, 1)))
        #expect(!box.post(event(.locked, 2)))   // the scheduled drain will see it
        var seen: [Int64] = []
        box.drain { seen.append($0.timeMs) }
        #expect(seen == [1, 2])
        #expect(box.post(event(.active, 3)))
    }

    @Test func an_event_posted_while_draining_is_applied_after_the_one_being_applied() {
        let box = EventMailbox()
        _ = box.post(event(.warning, 1))
        _ = box.post(event(.warning, 2))
        var seen: [Int64] = []
        box.drain { e in
            seen.append(e.timeMs)
            if e.timeMs == 1 {
                #expect(!box.post(event(.locked, 3)))   // the running drain takes it
                box.drain { seen.append($0.timeMs + 100) }   // nested: returns at once
            }
        }
        #expect(seen == [1, 2, 3])
    }

    @Test func held_touches_repeat_while_any_finger_is_down() {
        var touches = HeldTouches()
        // More ends than begins (a begin that was missed) stays at zero.
        let repeats = [touches.began(1), touches.began(2), touches.ended(2), touches.ended(1), touches.ended(5)]
        #expect(repeats == [true, true, true, false, false])
        #expect(touches.fingersDown == 0)
        let again = touches.began(1)
        #expect(again && touches.fingersDown == 1)
        touches.reset()
        #expect(!touches.isDown)
    }
}

@Suite("Overlay layers")
struct OverlayLayerTests {
    func layers(_ screen: PresentationRule.Screen, seconds: Int64? = nil, covered: Bool = false,
                lock: Bool = true, signIn: Bool = true) -> OverlayLayers {
        .showing(screen, secondsLeft: seconds, covered: covered, lockScreenProvided: lock, signedOutProvided: signIn)
    }

    @Test func content_on_an_active_scene_needs_no_overlay() {
        #expect(!layers(.content).isVisible)
    }

    @Test func the_cold_start_cover_hides_the_content() {
        let l = layers(.loading, covered: true)
        #expect(l.cover && l.isVisible && l.hidesContent)
        #expect(!l.takesInput)   // a cover alone leaves the keyboard where it is
    }

    @Test func the_warning_dims_but_does_not_hide_and_the_cover_goes_over_it() {
        let l = layers(.warning, seconds: 20)
        #expect(l.warningSecondsLeft == 20 && l.isVisible && !l.hidesContent)
        let inSwitcher = layers(.warning, seconds: 20, covered: true)
        #expect(inSwitcher.warningSecondsLeft == 20 && inSwitcher.cover && inSwitcher.hidesContent)
    }

    @Test func a_missing_lock_or_sign_in_screen_is_the_cover() {
        let lock = layers(.lockScreen, lock: false)
        #expect(!lock.lockScreen && lock.cover && lock.hidesContent && lock.takesInput)
        let signIn = layers(.signedOut, signIn: false)
        #expect(!signIn.signedOut && signIn.cover)
        #expect(layers(.lockScreen) == { var l = OverlayLayers(); l.lockScreen = true; l.takesInput = true; return l }())
    }

    @Test func every_screen_of_a_real_session_gets_its_layers() throws {
        // Driven by the engine: the layers follow the presentation rule's screen.
        let screen = Screen()
        func now() -> OverlayLayers {
            .showing(screen.rule.screen, secondsLeft: screen.rule.secondsLeft,
                     covered: CoverRule.covers(screen.host.state, phase: .active),
                     lockScreenProvided: true, signedOutProvided: true)
        }
        screen.update()
        #expect(now().cover)   // LOADING
        try screen.host.engine.start()
        screen.update()
        #expect(!now().isVisible)
        screen.host.at(45 * second)
        screen.update()
        #expect(now().warningSecondsLeft == 15)
        screen.host.at(60 * second)
        screen.update()
        #expect(now().lockScreen && !now().cover && now().warningSecondsLeft == nil)
    }
}
