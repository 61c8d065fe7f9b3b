// What an Apple host observes, and what the engine is told. This module needs no Apple SDK: the
// UIKit / SwiftUI adapter (module InactivityApple) turns notifications and touches into
// `PlatformSignal`s and lets `SignalMapper` decide which engine inputs they are, so the mapping
// is compiled and tested on every platform the core runs on.
//
// No session decision lives here: timeouts, precedence, catch-up and restore stay in the core.
// The mapping only says "this signal is this input"; what the input does is the engine's.

import InactivityCore

/// Identifies one scene (a `UIWindowScene`): its object identity in the adapter, any stable
/// number in tests.
public struct SceneID: Hashable, Sendable, CustomStringConvertible {
    public let value: UInt

    public init(_ value: UInt) { self.value = value }

    /// The identity of a live object. Valid while the object lives; a scene's entry is removed
    /// at its disconnect, before its address can be reused.
    public init(_ object: AnyObject) { value = UInt(bitPattern: ObjectIdentifier(object)) }

    public var description: String { "scene \(value)" }
}

/// A scene's activation, as UIKit's `UIScene.ActivationState` and SwiftUI's `ScenePhase`
/// (named apart from SwiftUI's type so that hosts importing both need no qualification).
public enum SceneActivation: Sendable, Equatable, CaseIterable {
    /// Not on screen (`.background`, `.unattached`).
    case background
    /// On screen but not receiving events: app switcher, Control Centre, a system alert, the
    /// Face ID sheet (`.foregroundInactive`, SwiftUI `.inactive`).
    case inactive
    /// On screen and receiving events (`.foregroundActive`).
    case active
}

/// One thing the platform reported.
public enum PlatformSignal: Sendable, Equatable {
    // Scene lifecycle (UIScene notifications, or SwiftUI's per-scene scenePhase).
    /// `UIScene.willConnectNotification`: the scene exists, not yet on screen.
    case sceneWillConnect(SceneID)
    /// `UIScene.didDisconnectNotification`: the scene and its windows are gone.
    case sceneDidDisconnect(SceneID)
    /// `UIScene.willEnterForegroundNotification`.
    case sceneWillEnterForeground(SceneID)
    /// `UIScene.didEnterBackgroundNotification`.
    case sceneDidEnterBackground(SceneID)
    /// `UIScene.willDeactivateNotification`: the app switcher, Control Centre, a system sheet.
    case sceneWillResignActive(SceneID)
    /// `UIScene.didActivateNotification`.
    case sceneDidBecomeActive(SceneID)
    /// The scene's windows that are not hidden, counted again after a window was shown or hidden
    /// (`UIWindow.didBecomeVisibleNotification` / `didBecomeHiddenNotification`) or the scene
    /// changed phase. Multi-window iPad and Stage Manager have several scenes, each with its own.
    case sceneWindows(SceneID, notHidden: Int)

    // The application as a whole.
    /// `UIApplication.didEnterBackgroundNotification`: the last scene left the screen.
    case appDidEnterBackground
    /// `UIApplication.willEnterForegroundNotification`.
    case appWillEnterForeground
    /// `UIApplication.protectedDataWillBecomeUnavailableNotification`: the device is locking (the
    /// only public device-lock signal; posted only when a passcode is set).
    case protectedDataWillBecomeUnavailable
    /// `UIApplication.protectedDataDidBecomeAvailableNotification`: the device was unlocked. It
    /// unlocks nothing: the session's own lock is the user's to lift.
    case protectedDataDidBecomeAvailable
    /// The app is about to present one of its own system sheets (photo picker, share sheet,
    /// document picker, payment sheet), which sends it to background for up to `maxMs`.
    case systemSheetWillPresent(maxMs: Int64)

    // The person using the device.
    case touchBegan
    case touchMoved
    case touchEnded
    /// A finger stayed down without moving; the adapter repeats this while it stays down
    /// (`HeldTouches.repeatIntervalMs`), so reading with a finger on the screen is not "idle".
    case touchHeld
    /// The system took the touch away (a call, an alert, resign active): not the person.
    case touchCancelled
    /// A hardware key (`pressesBegan`).
    case keyPressed
    /// The text of a text field or view changed by the user (`UITextField` / `UITextView`
    /// `textDidChangeNotification`): typing on the software keyboard produces no touches in the
    /// app's windows.
    case textChanged
    /// A trackpad or mouse-wheel scroll (touch scrolling is already a touch).
    case scrolled
    /// A pointer moving over the app (iPad trackpad or mouse hover).
    case pointerMoved
}

/// One input to the engine.
public enum SessionInput: Sendable, Equatable {
    case activity(ActivityKind)
    case windowShown
    case windowHidden
    case enterBackground
    case enterForeground
    /// The device locked (`deviceLocked()`): background starts, and with
    /// `policy.lockOnDeviceLock` the session locks at once (DEVICE_LOCKED).
    case deviceLocked
    /// An expected interruption (`expectInterruption(maxMs:)`): a background that begins within
    /// `maxMs` and ends by then does not count toward the background timeout.
    case expectInterruption(maxMs: Int64)
}

extension PlatformSignal {
    /// The activity kind a user signal is, or nil for signals that are not the person (a
    /// cancelled touch, every lifecycle signal).
    public var activityKind: ActivityKind? {
        switch self {
        case .touchBegan, .touchHeld: .touchDown
        case .touchMoved: .touchMove
        case .touchEnded: .touchUp
        // A key, and text typed on the software keyboard, dictated or pasted, are all keys.
        case .keyPressed, .textChanged: .key
        case .scrolled: .scroll
        case .pointerMoved: .pointer
        case .touchCancelled, .sceneWillConnect, .sceneDidDisconnect, .sceneWillEnterForeground,
             .sceneDidEnterBackground, .sceneWillResignActive, .sceneDidBecomeActive, .sceneWindows,
             .appDidEnterBackground, .appWillEnterForeground, .protectedDataWillBecomeUnavailable,
             .protectedDataDidBecomeAvailable, .systemSheetWillPresent:
            nil
        }
    }
}

extension PlatformSignal {
    /// The scene a scene signal is about; nil for the others.
    public var scene: SceneID? {
        switch self {
        case .sceneWillConnect(let id), .sceneDidDisconnect(let id), .sceneWillEnterForeground(let id),
             .sceneDidEnterBackground(let id), .sceneWillResignActive(let id), .sceneDidBecomeActive(let id),
             .sceneWindows(let id, _):
            id
        default:
            nil
        }
    }
}
