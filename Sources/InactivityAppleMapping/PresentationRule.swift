// What a host shows for the session, driven only by the engine's events.
//
// The lock screen is presented once per lock, however many LOCKED events or state reads arrive
// (a lock from a timer, a device lock, a manual lock and a state read at attach can all report
// LOCKED): presenting it twice stacks two lock screens, and dismissing one leaves content
// reachable under the other. It is dismissed when the session leaves LOCKED (unlocked, or
// expired: then the signed-out screen replaces it).
//
// The warning shows a countdown, Continue and Log out. The countdown is the engine's remaining
// time, refreshed by the engine's ticks: the presentation runs no timer of its own and decides
// nothing; Continue and Log out are engine inputs.

import InactivityCore

/// One change of what is on screen, in the order to perform it.
public enum PresentationChange: Sendable, Equatable {
    case presentWarning(secondsLeft: Int64)
    case updateCountdown(secondsLeft: Int64)
    case dismissWarning
    case presentLockScreen
    case dismissLockScreen
    case presentSignedOut
    case dismissSignedOut
}

public struct PresentationRule: Sendable, Equatable {
    public enum Screen: Sendable, Equatable {
        /// LOADING: nothing but the cover.
        case loading
        /// ACTIVE: the app's content.
        case content
        /// WARNING: content with the warning on top.
        case warning
        /// LOCKED: the host's lock screen.
        case lockScreen
        /// EXPIRED: the host's sign-in screen.
        case signedOut
    }

    public private(set) var screen: Screen = .loading
    /// Whole seconds left while the warning shows (rounded up, so "0 s" never shows while time is
    /// left); nil otherwise.
    public private(set) var secondsLeft: Int64?
    /// How many times the lock screen has been presented.
    public private(set) var lockScreenPresentations = 0

    public init() {}

    /// Applies one engine event.
    public mutating func apply(_ event: SessionEvent) -> [PresentationChange] {
        observe(event.state, remainingMs: event.remainingMs)
    }

    /// Applies a state read from the engine (`info()`), for a host that attaches to an engine
    /// that is already running.
    public mutating func observe(_ state: SessionState, remainingMs: Int64) -> [PresentationChange] {
        let target = PresentationRule.screen(for: state)
        let seconds = target == .warning ? PresentationRule.wholeSeconds(remainingMs) : nil
        defer {
            screen = target
            secondsLeft = seconds
        }
        if target == screen {
            if target == .warning, let seconds, seconds != secondsLeft {
                return [.updateCountdown(secondsLeft: seconds)]
            }
            return []   // the once-only rule: the same screen is never presented again
        }
        var changes: [PresentationChange] = []
        switch screen {
        case .warning: changes.append(.dismissWarning)
        case .lockScreen: changes.append(.dismissLockScreen)
        case .signedOut: changes.append(.dismissSignedOut)
        case .loading, .content: break
        }
        switch target {
        case .warning: changes.append(.presentWarning(secondsLeft: seconds ?? 0))
        case .lockScreen:
            lockScreenPresentations += 1
            changes.append(.presentLockScreen)
        case .signedOut: changes.append(.presentSignedOut)
        case .loading, .content: break
        }
        return changes
    }

    public static func screen(for state: SessionState) -> Screen {
        switch state {
        case .loading: .loading
        case .active: .content
        case .warning: .warning
        case .locked: .lockScreen
        case .expired: .signedOut
        }
    }

    static func wholeSeconds(_ remainingMs: Int64) -> Int64? {
        guard remainingMs != SessionPolicy.never else { return nil }
        return (max(0, remainingMs) + 999) / 1000
    }

    /// The shortest warning the presentation accepts: WCAG 2.2.1 (Timing Adjustable) gives the
    /// user at least 20 seconds to extend the time with a simple action.
    public static let minimumWarningMs: Int64 = 20_000

    /// What the warning presentation needs from a policy: a warning of at least 20 s, and
    /// countdown ticks (the countdown moves only on the engine's ticks). Throws
    /// `invalidArgument` naming the field and the rule; the policy itself stays the engine's.
    public static func check(_ policy: SessionPolicy) throws(InactivityError) {
        guard policy.warningMs >= minimumWarningMs else {
            throw InactivityError(.invalidArgument,
                                  "policy.warning_ms (\(policy.warningMs)) must be at least \(minimumWarningMs) for the warning presentation: WCAG 2.2.1 gives the user at least 20 s to extend")
        }
        guard policy.tickMs > 0 else {
            throw InactivityError(.invalidArgument,
                                  "policy.tick_ms (0) must be > 0 for the warning presentation: its countdown moves on the engine's ticks")
        }
    }
}
