// SwiftUI: `.inactivity(session, lockScreen: { ... }, signedOut: { ... })` on a scene's root view.
// The screens are shown by the session's overlay window, above every sheet and alert the content
// presents; in the view tree the content is only hidden from VoiceOver while it is covered.

#if canImport(UIKit) && canImport(SwiftUI)
import SwiftUI
import UIKit

extension View {
    /// Shows the host's lock screen (once per lock) and sign-in screen for `session`, the warning
    /// with its countdown, Continue and Log out, and the cover while the scene is not active or
    /// the session is LOADING. The screens get `session` in their environment
    /// (`@Environment(InactivitySession.self)`).
    public func inactivity<LockScreen: View, SignedOut: View>(
        _ session: InactivitySession,
        @ViewBuilder lockScreen: @escaping () -> LockScreen,
        @ViewBuilder signedOut: @escaping () -> SignedOut
    ) -> some View {
        modifier(InactivityScreens(session: session, lockScreen: lockScreen, signedOut: signedOut))
    }
}

public struct InactivityScreens<LockScreen: View, SignedOut: View>: ViewModifier {
    let session: InactivitySession
    let lockScreen: () -> LockScreen
    let signedOut: () -> SignedOut
    @Environment(\.scenePhase) private var scenePhase

    public func body(content: Content) -> some View {
        content
            .environment(session)
            .accessibilityHidden(hidden)
            .onAppear(perform: provideScreens)
    }

    /// Whether the overlay hides the content now (then VoiceOver must not read it either).
    private var hidden: Bool {
        session.screen == .lockScreen || session.screen == .signedOut
            || CoverRule.covers(session.state, phase: SceneActivation(scenePhase))
    }

    private func provideScreens() {
        let session = self.session
        let lockScreen = self.lockScreen
        let signedOut = self.signedOut
        session.lockScreen = { UIHostingController(rootView: lockScreen().environment(session)) }
        session.signedOutScreen = { UIHostingController(rootView: signedOut().environment(session)) }
    }
}

extension SceneActivation {
    /// SwiftUI's per-scene phase (read in a View; read in the App it is the aggregate of all
    /// scenes, which is not what a scene's cover needs).
    public init(_ phase: ScenePhase) {
        switch phase {
        case .active: self = .active
        case .inactive: self = .inactive
        case .background: self = .background
        @unknown default: self = .background
        }
    }
}
#endif
