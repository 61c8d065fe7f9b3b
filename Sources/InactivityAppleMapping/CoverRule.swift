// When content must be covered. The app switcher shows a picture of each scene taken when it
// resigns active; Control Centre and notification banners show the app behind them. Neither is
// background (no background time starts), but both must show no session content. And at cold
// start nothing may show before the restore has decided (LOADING), or content flashes before the
// lock screen.

import InactivityCore

public enum CoverRule {
    /// Whether a scene in `phase` must cover its content while the session is in `state`.
    public static func covers(_ state: SessionState, phase: SceneActivation) -> Bool {
        switch state {
        case .loading:
            return true
        case .locked:
            // The lock screen is already on top and shows nothing of the session. Covering it too
            // would flash a cover over it while Face ID's sheet keeps the app inactive.
            return false
        case .active, .warning, .expired:
            return phase != .active
        }
    }
}
