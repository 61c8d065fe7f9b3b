// The session object for SwiftUI and UIKit hosts: one engine, the UIKit observation feeding it,
// and what the UI must show, as observable properties.
//
// Threading: everything here is on the main actor. The engine delivers timer-caused events on
// its scheduler thread and call-caused events on the calling thread; an EventMailbox brings them
// to the main thread in order, and applies an event caused on the main thread before the call
// that caused it returns (a foreground that catches up to LOCKED shows the lock screen before
// any content).

#if canImport(UIKit)
import Foundation
import Observation
import UIKit

@MainActor
@Observable
public final class InactivitySession {
    /// Every input the adapter does not make itself (start, restore, unlock, snapshot, scopes,
    /// holds, refresh results) is the host's, on this engine.
    public let engine: InactivityEngine
    public private(set) var state: SessionState = .loading
    public private(set) var reason: Reason = .none
    /// What is on screen: the cover at LOADING, content, the warning, the lock screen, or the
    /// signed-out screen.
    public private(set) var screen: PresentationRule.Screen = .loading
    /// The warning's countdown in whole seconds; nil when no warning shows.
    public private(set) var secondsLeft: Int64?
    /// What an unlock needs (`.none` unless LOCKED): a lock screen offers Face ID only for
    /// `.biometric`, and asks for the PIN or password for `.credential`.
    public private(set) var requiredAuth: AuthStrength = .none
    /// The last error a platform signal met in the engine (nil when none did). The adapter never
    /// crashes the host on one; it keeps it here and passes it to `onError`.
    public private(set) var lastError: InactivityError?

    /// Called with each error a platform signal meets in the engine.
    @ObservationIgnored public var onError: ((InactivityError) -> Void)?
    /// The host's lock screen (UIKit), shown above every window of every scene, once per lock.
    @ObservationIgnored public var lockScreen: (() -> UIViewController)? { didSet { overlays.refreshAll() } }
    /// The host's sign-in screen for EXPIRED.
    @ObservationIgnored public var signedOutScreen: (() -> UIViewController)? { didSet { overlays.refreshAll() } }
    /// What covers content in the app switcher and at cold start; a plain system-background view
    /// when nil.
    @ObservationIgnored public var coverScreen: (() -> UIViewController)? { didSet { overlays.refreshAll() } }
    /// The warning's words.
    @ObservationIgnored public var warningText = WarningText() { didSet { overlays.refreshAll() } }

    @ObservationIgnored private var rule = PresentationRule()
    @ObservationIgnored private var mapper = SignalMapper()
    private let mailbox = EventMailbox()
    @ObservationIgnored private var observerID: UInt64?
    @ObservationIgnored private var activity: ActivityObserver?
    @ObservationIgnored private var handlers: [UInt64: (PresentationChange) -> Void] = [:]
    @ObservationIgnored private var nextHandler: UInt64 = 1
    private let overlays = OverlayWindows()

    /// A session on a new engine with `policy` (system clock, the scheduler thread).
    /// Throws if the policy is invalid, or if its warning is shorter than the presentation needs
    /// (at least 20 s, WCAG 2.2.1) or has no countdown ticks.
    public convenience init(policy: SessionPolicy = SessionPolicy()) throws(InactivityError) {
        try self.init(engine: InactivityEngine(policy: policy))
    }

    /// A session over an engine the host created (its own policy, delivery or clock).
    public init(engine: InactivityEngine) throws(InactivityError) {
        try PresentationRule.check(engine.policy())
        self.engine = engine
        overlays.session = self
        let mailbox = self.mailbox
        observerID = engine.addObserver(onEvent: { [weak self] event in
            let mustSchedule = mailbox.post(event)
            if Thread.isMainThread {
                MainActor.assumeIsolated { self?.deliverEvents() }
            } else if mustSchedule {
                // Its own weak capture: a sendable closure may not capture the outer `self` variable.
                DispatchQueue.main.async { [weak self] in MainActor.assumeIsolated { self?.deliverEvents() } }
            }
        })
        let info = try engine.info()
        show(rule.observe(info.state, remainingMs: info.remainingMs), state: info.state, reason: info.reason,
             requiredAuth: info.requiredAuth)
        let observer = ActivityObserver(report: { [weak self] signal in self?.handle(signal) },
                                        sceneSeen: { [weak self] scene in self?.overlays.ensure(scene) })
        activity = observer
        observer.start()
    }

    /// Stops observing the app and closes the engine.
    public func close() {
        activity?.stop()
        activity = nil
        if let observerID { engine.removeObserver(observerID) }
        observerID = nil
        overlays.removeAll()
        engine.close()
    }

    // MARK: The warning's and the host's actions (engine inputs; the engine decides)

    /// Continue on the warning.
    public func continueSession() { report { () throws(InactivityError) in try engine.continueSession() } }

    /// Log out (the warning's second button, or the host's own).
    public func logOut() { report { () throws(InactivityError) in try engine.end(reason: .logout) } }

    /// Call right before presenting one of the app's own system sheets (photo picker, share
    /// sheet, document picker, payment sheet) that may send the app to background for up to
    /// `maxMs`; that background then does not count toward the background timeout.
    public func willPresentSystemSheet(maxMs: Int64) throws(InactivityError) {
        try mapper.send(.systemSheetWillPresent(maxMs: maxMs), to: engine)
    }

    /// Whether `scene` must cover its content now (SwiftUI views use their own `scenePhase` with
    /// `CoverRule`; this is for UIKit).
    public func covers(_ scene: UIScene) -> Bool {
        CoverRule.covers(state, phase: mapper.phase(of: SceneID(scene)) ?? .background)
    }

    /// Receives every presentation change, in order (for a UIKit host that shows more than the
    /// overlay does). Returns an id for `removeHandler`.
    @discardableResult
    public func addHandler(_ handler: @escaping (PresentationChange) -> Void) -> UInt64 {
        let id = nextHandler
        nextHandler += 1
        handlers[id] = handler
        return id
    }

    public func removeHandler(_ id: UInt64) { handlers[id] = nil }

    // MARK: Internals

    func handle(_ signal: PlatformSignal) {
        if case .sceneDidDisconnect(let id) = signal { overlays.remove(id) }
        let phaseBefore = signal.scene.flatMap { mapper.phase(of: $0) }
        report { () throws(InactivityError) in try mapper.send(signal, to: engine) }
        if let scene = signal.scene, mapper.phase(of: scene) != phaseBefore {
            overlays.refreshAll()   // the cover follows the scene's phase
        }
    }

    private func report(_ body: () throws(InactivityError) -> Void) {
        do throws(InactivityError) {
            try body()
        } catch {
            lastError = error
            onError?(error)
        }
    }

    private func deliverEvents() {
        mailbox.drain { event in
            show(rule.apply(event), state: event.state, reason: event.reason, requiredAuth: event.requiredAuth)
        }
    }

    private func show(_ changes: [PresentationChange], state newState: SessionState, reason newReason: Reason,
                      requiredAuth newAuth: AuthStrength) {
        if state != newState { state = newState }
        if reason != newReason { reason = newReason }
        if requiredAuth != newAuth { requiredAuth = newAuth }
        if screen != rule.screen { screen = rule.screen }
        if secondsLeft != rule.secondsLeft { secondsLeft = rule.secondsLeft }
        overlays.refreshAll()
        for change in changes {
            overlays.announce(change)
            for handler in handlers.values { handler(change) }
        }
    }

    func phase(of scene: UIWindowScene) -> SceneActivation { mapper.phase(of: SceneID(scene)) ?? .background }
}

/// The warning's words. `message` receives the whole seconds left.
public struct WarningText: Sendable {
    public var title: String
    public var message: @Sendable (Int64) -> String
    public var continueTitle: String
    public var logOutTitle: String

    public init(title: String = "Are you still there?",
                message: @escaping @Sendable (Int64) -> String = { "For your security you will be signed out in \($0) s." },
                continueTitle: String = "Continue", logOutTitle: String = "Log out") {
        self.title = title
        self.message = message
        self.continueTitle = continueTitle
        self.logOutTitle = logOutTitle
    }
}

#endif
