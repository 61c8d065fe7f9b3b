// UIKit: a container that embeds the app's content and gives the session its screens. Make it
// the window's root view controller (in `scene(_:willConnectTo:options:)`).

#if canImport(UIKit)
import UIKit

open class InactivityHostViewController: UIViewController {
    public let session: InactivitySession
    public let content: UIViewController

    /// - Parameters:
    ///   - content: the app's own root view controller.
    ///   - lockScreen: makes the lock screen; called once per lock.
    ///   - signedOut: makes the sign-in screen for EXPIRED.
    public init(session: InactivitySession, content: UIViewController,
                lockScreen: @escaping () -> UIViewController,
                signedOut: @escaping () -> UIViewController) {
        self.session = session
        self.content = content
        super.init(nibName: nil, bundle: nil)
        session.lockScreen = lockScreen
        session.signedOutScreen = signedOut
    }

    @available(*, unavailable)
    public required init?(coder: NSCoder) { fatalError("InactivityHostViewController is created in code") }

    open override func viewDidLoad() {
        super.viewDidLoad()
        addChild(content)
        content.view.frame = view.bounds
        content.view.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        view.addSubview(content.view)
        content.didMove(toParent: self)
    }

    open override var childForStatusBarStyle: UIViewController? { content }
    open override var childForHomeIndicatorAutoHidden: UIViewController? { content }

    /// Hardware keys that travel up the responder chain to here count as activity.
    open override func pressesBegan(_ presses: Set<UIPress>, with event: UIPressesEvent?) {
        session.handle(.keyPressed)
        super.pressesBegan(presses, with: event)
    }
}
#endif
