// One passive gesture recognizer per window: it sees every touch of the window without taking
// part in gesture recognition. It never recognizes (it stays possible, and fails when the touch
// sequence ends), cannot prevent or be prevented by another recognizer, recognizes
// simultaneously with all of them, delays nothing and cancels nothing. No UIApplication or
// UIWindow subclass is needed, so it works under a SwiftUI `@main` app whose windows SwiftUI
// owns.

#if canImport(UIKit)
import UIKit
import UIKit.UIGestureRecognizerSubclass

final class PassiveActivityRecognizer: UIGestureRecognizer, UIGestureRecognizerDelegate {
    /// The observer that attached it (an observer removes only its own recognizers).
    weak var owner: ActivityObserver?
    private let report: (PlatformSignal) -> Void
    private var held = HeldTouches()
    private var heldTimer: Timer?

    init(owner: ActivityObserver, report: @escaping (PlatformSignal) -> Void) {
        self.owner = owner
        self.report = report
        super.init(target: nil, action: nil)
        cancelsTouchesInView = false
        delaysTouchesBegan = false
        delaysTouchesEnded = false
        delegate = self
    }

    override func touchesBegan(_ touches: Set<UITouch>, with event: UIEvent) {
        super.touchesBegan(touches, with: event)
        report(.touchBegan)
        if held.began(touches.count) { startRepeating() }
    }

    override func touchesMoved(_ touches: Set<UITouch>, with event: UIEvent) {
        super.touchesMoved(touches, with: event)
        report(.touchMoved)
    }

    override func touchesEnded(_ touches: Set<UITouch>, with event: UIEvent) {
        super.touchesEnded(touches, with: event)
        report(.touchEnded)
        if !held.ended(touches.count) { endSequence() }
    }

    override func touchesCancelled(_ touches: Set<UITouch>, with event: UIEvent) {
        super.touchesCancelled(touches, with: event)
        report(.touchCancelled)
        if !held.ended(touches.count) { endSequence() }
    }

    // Hardware keys that reach the window (those a text field consumes show as text changes).
    override func pressesBegan(_ presses: Set<UIPress>, with event: UIPressesEvent) {
        super.pressesBegan(presses, with: event)
        report(.keyPressed)
    }

    override func reset() {
        super.reset()
        held.reset()
        stopRepeating()
    }

    override func canPrevent(_ preventedGestureRecognizer: UIGestureRecognizer) -> Bool { false }
    override func canBePrevented(by preventingGestureRecognizer: UIGestureRecognizer) -> Bool { false }

    func gestureRecognizer(_ gestureRecognizer: UIGestureRecognizer,
                           shouldRecognizeSimultaneouslyWith other: UIGestureRecognizer) -> Bool { true }

    /// The last finger is up: fail, so that UIKit resets the recognizer for the next sequence.
    private func endSequence() {
        stopRepeating()
        if state == .possible { state = .failed }
    }

    private func startRepeating() {
        guard heldTimer == nil else { return }
        let interval = TimeInterval(HeldTouches.repeatIntervalMs) / 1000
        heldTimer = Timer.scheduledTimer(timeInterval: interval, target: self, selector: #selector(fingerStillDown),
                                         userInfo: nil, repeats: true)
    }

    private func stopRepeating() {
        heldTimer?.invalidate()   // the timer retains its target until invalidated
        heldTimer = nil
    }

    @objc private func fingerStillDown() {
        if held.isDown { report(.touchHeld) } else { stopRepeating() }
    }
}
#endif
