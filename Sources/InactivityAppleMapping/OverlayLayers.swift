// What one scene's overlay shows, from the session's screen and the scene's cover. The Apple
// adapter draws these layers in an overlay window above everything the scene's content has
// presented; this is the decision, the adapter only adds and removes views to match it.

public struct OverlayLayers: Sendable, Equatable {
    /// The host's lock screen.
    public var lockScreen = false
    /// The host's sign-in screen.
    public var signedOut = false
    /// The warning, with its whole seconds left.
    public var warningSecondsLeft: Int64?
    /// The cover, on top of every other layer.
    public var cover = false
    /// The overlay takes the keyboard (it becomes the key window) and editing in the content
    /// ends, so typing cannot go on into content hidden by the lock or sign-in screen. Not for a
    /// cover alone: a glance at Control Centre must not dismiss the keyboard.
    public var takesInput = false

    public init() {}

    /// Whether the overlay window must be on screen.
    public var isVisible: Bool { lockScreen || signedOut || warningSecondsLeft != nil || cover }

    /// Whether the content is hidden completely (the warning alone dims it but leaves it visible).
    public var hidesContent: Bool { lockScreen || signedOut || cover }

    /// The layers for `screen`, with the scene's cover as `CoverRule` says. A lock or sign-in
    /// screen that the host has not provided (yet) is shown as the cover: fail closed.
    public static func showing(_ screen: PresentationRule.Screen, secondsLeft: Int64?, covered: Bool,
                               lockScreenProvided: Bool, signedOutProvided: Bool) -> OverlayLayers {
        var layers = OverlayLayers()
        layers.lockScreen = screen == .lockScreen && lockScreenProvided
        layers.signedOut = screen == .signedOut && signedOutProvided
        layers.warningSecondsLeft = screen == .warning ? secondsLeft : nil
        layers.takesInput = screen == .lockScreen || screen == .signedOut
        layers.cover = covered
            || (screen == .lockScreen && !lockScreenProvided)
            || (screen == .signedOut && !signedOutProvided)
        return layers
    }
}
