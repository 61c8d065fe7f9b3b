// Which platform signals become which engine inputs, and the per-scene visible-window count.
//
// The engine counts visible windows (window shown / hidden) and debounces the drop to zero with
// its background grace. On iPad an app has several scenes (Split View, Slide Over, Stage
// Manager, an external display), each with its own windows and its own phase: one scene going to
// background while another stays on screen is not "the app went to background". So the mapper
// keeps, per scene, its phase and how many of its windows are not hidden, and tells the engine
// only the changes of the sum.
//
// Resigning active (app switcher, Control Centre, a system alert, Face ID's sheet) is not
// background: the scene's windows are still on screen. It changes only the cover (CoverRule),
// never the engine, so a glance at Control Centre starts no background time.

import InactivityCore

public struct SignalMapper: Sendable, Equatable {
    struct Scene: Sendable, Equatable {
        var phase: SceneActivation = .background
        var notHidden = 0
        /// Windows of a scene in background are not on screen, whatever their `isHidden`.
        var visible: Int { phase == .background ? 0 : notHidden }
    }

    private var scenes: [SceneID: Scene] = [:]
    /// The visible windows the engine has been told about (shown minus hidden).
    public private(set) var visibleWindows = 0

    public init() {}

    /// The scene's phase as last reported; nil for a scene that is not connected.
    public func phase(of scene: SceneID) -> SceneActivation? { scenes[scene]?.phase }

    public var connectedScenes: Int { scenes.count }

    /// The engine inputs `signal` stands for, in the order they must be applied.
    public mutating func map(_ signal: PlatformSignal) -> [SessionInput] {
        switch signal {
        case .sceneWillConnect(let id):
            if scenes[id] == nil { scenes[id] = Scene() }
            return []
        case .sceneDidDisconnect(let id):
            guard let old = scenes.removeValue(forKey: id) else { return [] }
            return change(by: -old.visible)
        case .sceneWillEnterForeground(let id):
            return update(id) { $0.phase = .inactive }
        case .sceneDidEnterBackground(let id):
            return update(id) { $0.phase = .background }
        case .sceneWillResignActive(let id):
            return update(id) { if $0.phase == .active { $0.phase = .inactive } }
        case .sceneDidBecomeActive(let id):
            return update(id) { $0.phase = .active }
        case .sceneWindows(let id, let notHidden):
            return update(id) { $0.notHidden = max(0, notHidden) }
        case .appDidEnterBackground:
            return [.enterBackground]
        case .appWillEnterForeground:
            return [.enterForeground]
        case .protectedDataWillBecomeUnavailable:
            return [.deviceLocked]
        case .systemSheetWillPresent(let maxMs):
            return [.expectInterruption(maxMs: maxMs)]
        case .protectedDataDidBecomeAvailable, .touchCancelled:
            return []
        case .touchBegan, .touchMoved, .touchEnded, .touchHeld, .keyPressed, .textChanged,
             .scrolled, .pointerMoved:
            return signal.activityKind.map { [.activity($0)] } ?? []
        }
    }

    /// Maps `signal` and applies its inputs to `engine`. Every input is applied even when an
    /// earlier one fails (a window count must not drift because an activity was refused); the
    /// first error is thrown afterwards.
    public mutating func send(_ signal: PlatformSignal, to engine: InactivityEngine) throws(InactivityError) {
        var first: InactivityError?
        for input in map(signal) {
            do throws(InactivityError) {
                try engine.apply(input)
            } catch {
                if first == nil { first = error }
            }
        }
        if let first { throw first }
    }

    /// Changes one scene (connecting it if a signal arrives before its connect) and returns the
    /// window inputs for the change of its visible windows.
    private mutating func update(_ id: SceneID, _ body: (inout Scene) -> Void) -> [SessionInput] {
        var scene = scenes[id] ?? Scene()
        let before = scene.visible
        body(&scene)
        scenes[id] = scene
        return change(by: scene.visible - before)
    }

    private mutating func change(by delta: Int) -> [SessionInput] {
        visibleWindows += delta
        return delta >= 0 ? Array(repeating: .windowShown, count: delta)
                          : Array(repeating: .windowHidden, count: -delta)
    }
}

extension InactivityEngine {
    /// Applies one mapped input.
    public func apply(_ input: SessionInput) throws(InactivityError) {
        switch input {
        case .activity(let kind): try recordActivity(kind)
        case .windowShown: try windowShown()
        case .windowHidden: try windowHidden()
        case .enterBackground: try enterBackground()
        case .enterForeground: try enterForeground()
        case .deviceLocked: try deviceLocked()
        case .expectInterruption(let maxMs): try expectInterruption(maxMs: maxMs)
        }
    }
}
