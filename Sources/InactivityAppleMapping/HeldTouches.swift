// A finger that stays down without moving produces no touch events, yet the person is there
// (reading with a thumb on the screen, holding a scrubber). The adapter's gesture recognizer
// counts the fingers down and, while any is, repeats `touchHeld` every `repeatIntervalMs`.

public struct HeldTouches: Sendable, Equatable {
    /// How often a held finger is reported again: far below any useful time to the warning.
    public static let repeatIntervalMs: Int64 = 1_000

    public private(set) var fingersDown = 0

    public init() {}

    public var isDown: Bool { fingersDown > 0 }

    /// `count` fingers touched down; returns whether the repeat must run.
    public mutating func began(_ count: Int) -> Bool {
        fingersDown += max(0, count)
        return isDown
    }

    /// `count` fingers lifted or were cancelled; returns whether the repeat must run.
    public mutating func ended(_ count: Int) -> Bool {
        fingersDown = max(0, fingersDown - max(0, count))
        return isDown
    }

    /// The touch sequence is over (the recognizer was reset, the scene resigned active): no finger
    /// is down, whatever was missed.
    public mutating func reset() { fingersDown = 0 }
}
