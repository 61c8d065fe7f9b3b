// What covers the app: one overlay window per scene, above every window of the scene (alerts
// included), holding the cover, the warning, the host's lock screen or its sign-in screen.
//
// A window, not a view in the app's hierarchy: a SwiftUI overlay or a presented view controller
// sits below the sheets, popovers and alerts the content has presented, which would stay
// visible and usable over a lock screen. The overlay window is above them all, and it is not
// counted as one of the app's windows (its showing and hiding is not the app's visibility).
//
// The overlay shows what the session's presentation rule says: the lock screen is installed
// once when the screen becomes the lock screen and stays until the screen changes, however often
// the overlay is refreshed. A lock or sign-in screen the host has not provided yet is the cover
// (fail closed), until it is.

#if canImport(UIKit)
import UIKit

/// The adapter's own window. ActivityObserver does not count it.
final class OverlayWindow: UIWindow {}

@MainActor
final class OverlayWindows {
    /// The session whose screens these are (it owns this object).
    weak var session: InactivitySession?
    private var overlays: [SceneID: (window: OverlayWindow, controller: OverlayController)] = [:]

    /// Gives `scene` its overlay window if it has none, and brings it up to date.
    func ensure(_ scene: UIWindowScene) {
        let id = SceneID(scene)
        if overlays[id] == nil {
            let controller = OverlayController()
            let window = OverlayWindow(windowScene: scene)
            window.windowLevel = UIWindow.Level(rawValue: UIWindow.Level.alert.rawValue + 1)
            window.rootViewController = controller
            window.isHidden = true
            // Stored before the first refresh: showing the window posts a visibility notification
            // that comes back here.
            overlays[id] = (window, controller)
        }
        refresh(id)
    }

    func remove(_ id: SceneID) {
        guard let overlay = overlays.removeValue(forKey: id) else { return }
        overlay.window.isHidden = true
    }

    func removeAll() {
        for id in Array(overlays.keys) { remove(id) }
    }

    func refreshAll() {
        for id in Array(overlays.keys) { refresh(id) }
    }

    /// Tells VoiceOver what appeared.
    func announce(_ change: PresentationChange) {
        for (_, overlay) in overlays where !overlay.window.isHidden {
            switch change {
            case .presentWarning, .presentLockScreen, .presentSignedOut:
                UIAccessibility.post(notification: .screenChanged, argument: overlay.controller.view)
            case .updateCountdown, .dismissWarning, .dismissLockScreen, .dismissSignedOut:
                break
            }
        }
    }

    private func refresh(_ id: SceneID) {
        guard let session, let overlay = overlays[id], let scene = overlay.window.windowScene else { return }
        let window = overlay.window
        let controller = overlay.controller
        let layers = OverlayLayers.showing(
            session.screen, secondsLeft: session.secondsLeft,
            covered: CoverRule.covers(session.state, phase: session.phase(of: scene)),
            lockScreenProvided: session.lockScreen != nil, signedOutProvided: session.signedOutScreen != nil)
        controller.show(layers, session: session)
        let contentWindows = scene.windows.filter { !($0 is OverlayWindow) }
        if layers.isVisible {
            if layers.takesInput {
                for w in contentWindows { w.endEditing(true) }
            }
            if window.isHidden { window.isHidden = false }
            if layers.takesInput && !window.isKeyWindow { window.makeKey() }
        } else if !window.isHidden {
            let wasKey = window.isKeyWindow
            window.isHidden = true
            if wasKey { contentWindows.first { !$0.isHidden }?.makeKey() }
        }
    }
}

/// The overlay window's root: cover, warning, lock screen and sign-in screen.
@MainActor
final class OverlayController: UIViewController {
    private var lockScreen: UIViewController?
    private var signedOut: UIViewController?
    private var cover: UIViewController?
    private var warning: WarningView?

    override func viewDidLoad() {
        super.viewDidLoad()
        view.backgroundColor = .clear
    }

    /// Adds and removes views to match `layers`. The lock screen is made once when its layer
    /// appears and kept until it goes, however often this runs.
    func show(_ layers: OverlayLayers, session: InactivitySession) {
        if layers.lockScreen {
            if lockScreen == nil, let make = session.lockScreen { lockScreen = install(make()) }
        } else if let old = lockScreen {
            uninstall(old)
            lockScreen = nil
        }
        if layers.signedOut {
            if signedOut == nil, let make = session.signedOutScreen { signedOut = install(make()) }
        } else if let old = signedOut {
            uninstall(old)
            signedOut = nil
        }
        if let secondsLeft = layers.warningSecondsLeft {
            let card = warning ?? makeWarning(session)
            card.update(session.warningText, secondsLeft: secondsLeft)
        } else if let card = warning {
            card.removeFromSuperview()
            warning = nil
        }
        if layers.cover {
            let c = cover ?? install(session.coverScreen?() ?? PlainCover())
            cover = c
            view.bringSubviewToFront(c.view)
        } else if let c = cover {
            uninstall(c)
            cover = nil
        }
    }

    private func install(_ child: UIViewController) -> UIViewController {
        addChild(child)
        child.view.frame = view.bounds
        child.view.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        view.addSubview(child.view)
        child.didMove(toParent: self)
        return child
    }

    private func uninstall(_ child: UIViewController) {
        child.willMove(toParent: nil)
        child.view.removeFromSuperview()
        child.removeFromParent()
    }

    private func makeWarning(_ session: InactivitySession) -> WarningView {
        let card = WarningView(onContinue: { [weak session] in session?.continueSession() },
                               onLogOut: { [weak session] in session?.logOut() })
        card.frame = view.bounds
        card.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        if let cover { view.insertSubview(card, belowSubview: cover.view) } else { view.addSubview(card) }
        warning = card
        return card
    }
}

/// The default cover: the system background, nothing of the app.
final class PlainCover: UIViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
        view.backgroundColor = .systemBackground
        view.accessibilityLabel = "Content hidden"
    }
}

/// The warning: dimmed content, a card with the countdown, Continue and Log out.
final class WarningView: UIView {
    private let titleLabel = UILabel()
    private let messageLabel = UILabel()
    private let continueButton = UIButton(configuration: .borderedProminent())
    private let logOutButton = UIButton(configuration: .bordered())

    /// The actions are sendable main-actor closures, so they fit `UIAction`'s handler whatever
    /// the SDK's annotation of it.
    init(onContinue: @escaping @MainActor @Sendable () -> Void, onLogOut: @escaping @MainActor @Sendable () -> Void) {
        super.init(frame: .zero)
        backgroundColor = UIColor.black.withAlphaComponent(0.4)
        accessibilityViewIsModal = true

        titleLabel.font = .preferredFont(forTextStyle: .headline)
        messageLabel.font = .preferredFont(forTextStyle: .body)
        messageLabel.accessibilityTraits.insert(.updatesFrequently)
        for label in [titleLabel, messageLabel] {
            label.adjustsFontForContentSizeCategory = true
            label.numberOfLines = 0
            label.textAlignment = .center
        }
        continueButton.addAction(UIAction { _ in onContinue() }, for: .primaryActionTriggered)
        logOutButton.addAction(UIAction { _ in onLogOut() }, for: .primaryActionTriggered)

        let buttons = UIStackView(arrangedSubviews: [logOutButton, continueButton])
        buttons.axis = .horizontal
        buttons.spacing = 12
        buttons.distribution = .fillEqually
        let stack = UIStackView(arrangedSubviews: [titleLabel, messageLabel, buttons])
        stack.axis = .vertical
        stack.spacing = 16
        stack.translatesAutoresizingMaskIntoConstraints = false

        let card = UIView()
        card.backgroundColor = .secondarySystemBackground
        card.layer.cornerRadius = 16
        card.translatesAutoresizingMaskIntoConstraints = false
        card.addSubview(stack)
        addSubview(card)
        NSLayoutConstraint.activate([
            stack.topAnchor.constraint(equalTo: card.topAnchor, constant: 24),
            stack.bottomAnchor.constraint(equalTo: card.bottomAnchor, constant: -24),
            stack.leadingAnchor.constraint(equalTo: card.leadingAnchor, constant: 24),
            stack.trailingAnchor.constraint(equalTo: card.trailingAnchor, constant: -24),
            card.centerXAnchor.constraint(equalTo: centerXAnchor),
            card.centerYAnchor.constraint(equalTo: centerYAnchor),
            card.widthAnchor.constraint(lessThanOrEqualToConstant: 420),
            card.leadingAnchor.constraint(greaterThanOrEqualTo: layoutMarginsGuide.leadingAnchor),
            card.trailingAnchor.constraint(lessThanOrEqualTo: layoutMarginsGuide.trailingAnchor),
        ])
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { fatalError("WarningView is created in code") }

    func update(_ text: WarningText, secondsLeft: Int64) {
        titleLabel.text = text.title
        messageLabel.text = text.message(secondsLeft)
        continueButton.configuration?.title = text.continueTitle
        logOutButton.configuration?.title = text.logOutTitle
    }
}
#endif
