// Turns UIKit's notifications and every window's input into PlatformSignals. It decides nothing:
// InactivitySession hands each signal to SignalMapper and the engine.
//
// - Scenes: connect, disconnect, foreground, background, resign / become active, for every
//   UIWindowScene, and each scene's count of windows that are not hidden (recounted whenever a
//   window is shown or hidden). The adapter's own overlay windows are not counted.
// - Every window of every connected scene gets one PassiveActivityRecognizer (touches, held
//   fingers, keys), one pan recognizer for trackpad / mouse-wheel scrolls and one hover
//   recognizer for the pointer, attached when the scene connects or a window appears.
// - Text typed into any UITextField / UITextView (the software keyboard is not in the app's
//   windows), the device lock, the app entering background and foreground.

#if canImport(UIKit)
import UIKit

@MainActor
final class ActivityObserver: NSObject, UIGestureRecognizerDelegate {
    private let report: (PlatformSignal) -> Void
    private let sceneSeen: (UIWindowScene) -> Void

    /// - Parameters:
    ///   - report: receives every signal.
    ///   - sceneSeen: called for each connected scene whenever its windows are counted (the
    ///     session keeps its overlay window there).
    init(report: @escaping (PlatformSignal) -> Void, sceneSeen: @escaping (UIWindowScene) -> Void) {
        self.report = report
        self.sceneSeen = sceneSeen
        super.init()
    }

    /// Starts observing now, and reports the scenes already connected on the next turn of the
    /// main run loop: a session may be created in a SwiftUI `App`'s init, before UIKit's
    /// application object exists. Scenes that connect in between arrive by notification; the
    /// mapper and the recognizer attachment take each scene once.
    func start() {
        let center = NotificationCenter.default
        let observed: [(Notification.Name, Selector)] = [
            (UIScene.willConnectNotification, #selector(sceneWillConnect)),
            (UIScene.didDisconnectNotification, #selector(sceneDidDisconnect)),
            (UIScene.willEnterForegroundNotification, #selector(sceneWillEnterForeground)),
            (UIScene.didEnterBackgroundNotification, #selector(sceneDidEnterBackground)),
            (UIScene.willDeactivateNotification, #selector(sceneWillDeactivate)),
            (UIScene.didActivateNotification, #selector(sceneDidActivate)),
            (UIWindow.didBecomeVisibleNotification, #selector(windowVisibilityChanged)),
            (UIWindow.didBecomeHiddenNotification, #selector(windowVisibilityChanged)),
            (UIApplication.didEnterBackgroundNotification, #selector(appDidEnterBackground)),
            (UIApplication.willEnterForegroundNotification, #selector(appWillEnterForeground)),
            (UIApplication.protectedDataWillBecomeUnavailableNotification, #selector(deviceWillLock)),
            (UIApplication.protectedDataDidBecomeAvailableNotification, #selector(deviceDidUnlock)),
            (UITextField.textDidChangeNotification, #selector(textChanged)),
            (UITextView.textDidChangeNotification, #selector(textChanged)),
        ]
        for (name, selector) in observed {
            center.addObserver(self, selector: selector, name: name, object: nil)
        }
        DispatchQueue.main.async { [weak self] in MainActor.assumeIsolated { self?.reportConnectedScenes() } }
    }

    private var stopped = false

    private func reportConnectedScenes() {
        guard !stopped else { return }
        for case let scene as UIWindowScene in UIApplication.shared.connectedScenes {
            let id = SceneID(scene)
            report(.sceneWillConnect(id))
            switch scene.activationState {
            case .foregroundActive:
                report(.sceneWillEnterForeground(id))
                report(.sceneDidBecomeActive(id))
            case .foregroundInactive:
                report(.sceneWillEnterForeground(id))
            case .background, .unattached:
                break
            @unknown default:
                break
            }
            refresh(scene)
        }
        if UIApplication.shared.applicationState == .background { report(.appDidEnterBackground) }
    }

    /// Stops observing and removes this observer's recognizers from every window.
    func stop() {
        stopped = true
        NotificationCenter.default.removeObserver(self)
        for case let scene as UIWindowScene in UIApplication.shared.connectedScenes {
            for window in scene.windows {
                for recognizer in window.gestureRecognizers ?? [] where isOurs(recognizer) {
                    window.removeGestureRecognizer(recognizer)
                }
            }
        }
    }

    /// Attaches the recognizers to every window of `scene` that has none of ours yet, and reports
    /// the scene's count of windows that are not hidden.
    func refresh(_ scene: UIWindowScene) {
        sceneSeen(scene)
        let windows = scene.windows.filter { !($0 is OverlayWindow) }
        for window in scene.windows where !(window.gestureRecognizers ?? []).contains(where: isOurs) {
            attach(to: window)
        }
        report(.sceneWindows(SceneID(scene), notHidden: windows.filter { !$0.isHidden }.count))
    }

    private func isOurs(_ recognizer: UIGestureRecognizer) -> Bool {
        if let passive = recognizer as? PassiveActivityRecognizer { return passive.owner === self }
        return recognizer.delegate === self
    }

    private func attach(to window: UIWindow) {
        let report = self.report
        window.addGestureRecognizer(PassiveActivityRecognizer(owner: self, report: report))

        // Trackpad and mouse-wheel scrolls only: no touch types, so it never competes for touches.
        let scroll = UIPanGestureRecognizer(target: self, action: #selector(scrolled))
        scroll.allowedScrollTypesMask = .all
        scroll.allowedTouchTypes = []
        scroll.cancelsTouchesInView = false
        scroll.delaysTouchesBegan = false
        scroll.delaysTouchesEnded = false
        scroll.delegate = self
        window.addGestureRecognizer(scroll)

        let hover = UIHoverGestureRecognizer(target: self, action: #selector(pointerMoved))
        hover.cancelsTouchesInView = false
        hover.delegate = self
        window.addGestureRecognizer(hover)
    }

    func gestureRecognizer(_ gestureRecognizer: UIGestureRecognizer,
                           shouldRecognizeSimultaneouslyWith other: UIGestureRecognizer) -> Bool { true }

    @objc private func scrolled(_ recognizer: UIPanGestureRecognizer) { report(.scrolled) }
    @objc private func pointerMoved(_ recognizer: UIHoverGestureRecognizer) { report(.pointerMoved) }

    // MARK: Notifications (UIKit posts all of these on the main thread)

    private func windowScene(_ note: Notification) -> UIWindowScene? { note.object as? UIWindowScene }

    @objc private func sceneWillConnect(_ note: Notification) {
        guard let scene = windowScene(note) else { return }
        report(.sceneWillConnect(SceneID(scene)))
        refresh(scene)
    }

    @objc private func sceneDidDisconnect(_ note: Notification) {
        guard let scene = windowScene(note) else { return }
        report(.sceneDidDisconnect(SceneID(scene)))
    }

    @objc private func sceneWillEnterForeground(_ note: Notification) {
        guard let scene = windowScene(note) else { return }
        refresh(scene)
        report(.sceneWillEnterForeground(SceneID(scene)))
    }

    @objc private func sceneDidEnterBackground(_ note: Notification) {
        guard let scene = windowScene(note) else { return }
        report(.sceneDidEnterBackground(SceneID(scene)))
    }

    @objc private func sceneWillDeactivate(_ note: Notification) {
        guard let scene = windowScene(note) else { return }
        report(.sceneWillResignActive(SceneID(scene)))
    }

    @objc private func sceneDidActivate(_ note: Notification) {
        guard let scene = windowScene(note) else { return }
        refresh(scene)
        report(.sceneDidBecomeActive(SceneID(scene)))
    }

    @objc private func windowVisibilityChanged(_ note: Notification) {
        guard let scene = (note.object as? UIWindow)?.windowScene else { return }
        refresh(scene)
    }

    @objc private func appDidEnterBackground(_ note: Notification) { report(.appDidEnterBackground) }
    @objc private func appWillEnterForeground(_ note: Notification) { report(.appWillEnterForeground) }
    @objc private func deviceWillLock(_ note: Notification) { report(.protectedDataWillBecomeUnavailable) }
    @objc private func deviceDidUnlock(_ note: Notification) { report(.protectedDataDidBecomeAvailable) }
    @objc private func textChanged(_ note: Notification) { report(.textChanged) }
}
#endif
