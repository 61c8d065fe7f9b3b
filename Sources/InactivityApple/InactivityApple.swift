// The Apple adapter: UIKit observation (ActivityObserver.swift), the SwiftUI session and view
// modifier (InactivitySession.swift, InactivityModifier.swift) and a UIKit host view controller
// (InactivityHostController.swift). Every decision is the engine's; which signal is which input
// is InactivityAppleMapping's. `import InactivityApple` is all a host needs.
//
// Everything but these re-exports compiles only where UIKit exists (iOS, iPadOS, Mac Catalyst,
// visionOS); on other platforms the module is empty.

@_exported import InactivityAppleMapping
@_exported import InactivityCore
