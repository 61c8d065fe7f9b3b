// The two engine inputs of the device-lock / expected-interruption work, in one place so that
// the mapping does not depend on how the engine spells them.

import InactivityCore

enum EngineSeam {
    /// The device locked (iOS: protected data will become unavailable).
    static func deviceLocked(_ engine: InactivityEngine) throws(InactivityError) {
        // SEAM: until the engine has its device-lock input, a device lock is what that input does
        // under the default policy: background time starts (the screen is off).
        try engine.enterBackground()
    }

    /// The app is about to present one of its own system sheets for at most `maxMs`.
    static func expectInterruption(_ engine: InactivityEngine, maxMs: Int64) throws(InactivityError) {
        // SEAM: until the engine has its expected-interruption input, the announcement is refused
        // with an error, so a host knows that the sheet's background time will count.
        throw InactivityError(.invalidState, "expected interruption (max_ms \(maxMs)) is not supported by this engine yet")
    }
}
