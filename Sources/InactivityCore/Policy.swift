// The session policy: timeouts and switches, defaults, named presets and validation.

/// A session policy. All durations are milliseconds; `SessionPolicy.never` turns a timeout off.
public struct SessionPolicy: Sendable, Equatable {
    /// "Never": the maximum 64-bit value. Deadline arithmetic saturates at it.
    public static let never: Int64 = .max
    /// The longest finite duration accepted: 100 years. Anything longer is a mistake, and the
    /// bound keeps every deadline sum (a time plus up to two durations) far from overflow.
    public static let maxFiniteMs: Int64 = 100 * 31_557_600_000

    /// No counted activity this long -> the idle action. > 0; `never` turns idle off.
    public var idleTimeoutMs: Int64 = 15 * 60_000
    /// WARNING starts this long before the idle action; 0 = no warning. Shorter than idle.
    public var warningMs: Int64 = 30_000
    public var idleAction: IdleAction = .lock
    /// In background this long -> LOCKED; 0 = lock on entering background; `never` = off.
    public var backgroundTimeoutMs: Int64 = 60_000
    /// This long after sign-in -> EXPIRED, whatever the activity; > 0; `never` = off.
    public var absoluteTimeoutMs: Int64 = 12 * 3_600_000
    /// LOCKED this long -> EXPIRED; `never` = off.
    public var lockedTimeoutMs: Int64 = never
    /// This many failed unlocks in a row -> EXPIRED; 0 = unlimited.
    public var maxUnlockFailures: UInt32 = 0
    /// Countdown tick period while in WARNING; 0 = no ticks.
    public var tickMs: Int64 = 1_000
    /// All windows hidden this long -> background (debounces activity transitions, rotation).
    public var backgroundGraceMs: Int64 = 700
    /// The activity kinds that count.
    public var activityKinds: ActivityKind = .user
    /// Activity in WARNING returns to ACTIVE; otherwise only an explicit continue does.
    public var activityDismissesWarning: Bool = false
    /// The idle countdown stops while in background.
    public var pauseIdleInBackground: Bool = false

    /// The defaults: PCI DSS 8.2.8 (15 min idle), NIST SP 800-63B 12 h absolute, WCAG 2.2.1
    /// (at least 20 s to extend).
    public init() {}

    /// Named presets.
    public enum Preset: Int32, Sendable, CaseIterable {
        case `default` = 0
        /// NIST SP 800-63B AAL2: reauthenticate after 30 min idle, 12 h absolute.
        case nistAAL2 = 1
        /// NIST SP 800-63B AAL3: reauthenticate after 15 min idle, 12 h absolute.
        case nistAAL3 = 2
        /// PCI DSS v4.0 requirement 8.2.8: re-authenticate after 15 min idle.
        case pciDSS = 3
        /// A strict banking app: 5 min idle with a 30 s warning that only Continue dismisses,
        /// 30 s in background, 8 h absolute, LOCKED for 15 min or 5 failed unlocks -> EXPIRED.
        case banking = 4
    }

    public init(preset: Preset) {
        self.init()
        switch preset {
        case .default:
            break
        // Each preset sets what it changes; the test of the presets pins every figure a preset
        // promises, so a change of default that would move a preset fails it.
        case .nistAAL2:
            idleTimeoutMs = 30 * 60_000
            absoluteTimeoutMs = 12 * 3_600_000
        case .nistAAL3, .pciDSS:
            idleTimeoutMs = 15 * 60_000
            absoluteTimeoutMs = 12 * 3_600_000
        case .banking:
            idleTimeoutMs = 5 * 60_000
            backgroundTimeoutMs = 30_000
            absoluteTimeoutMs = 8 * 3_600_000
            lockedTimeoutMs = 15 * 60_000
            maxUnlockFailures = 5
        }
    }

    /// Checks every rule; throws `invalidArgument` naming the field and the rule.
    /// Field names are the C ABI's (`idle_timeout_ms`), which every binding shares.
    public func validate() throws(InactivityError) {
        func duration(_ name: String, _ value: Int64, allowNever: Bool, positive: Bool = false) throws(InactivityError) {
            if value < 0 {
                throw InactivityError(.invalidArgument, "policy.\(name) (\(value)) must be >= 0")
            }
            if positive && value == 0 {
                throw InactivityError(.invalidArgument, "policy.\(name) (0) must be > 0")
            }
            if value == SessionPolicy.never {
                if !allowNever {
                    throw InactivityError(.invalidArgument, "policy.\(name) cannot be INACT_NEVER")
                }
                return
            }
            if value > SessionPolicy.maxFiniteMs {
                throw InactivityError(
                    .invalidArgument,
                    "policy.\(name) (\(value)) must be at most 100 years (\(SessionPolicy.maxFiniteMs) ms) or INACT_NEVER")
            }
        }
        try duration("idle_timeout_ms", idleTimeoutMs, allowNever: true, positive: true)
        try duration("warning_ms", warningMs, allowNever: false)
        try duration("background_timeout_ms", backgroundTimeoutMs, allowNever: true)
        try duration("absolute_timeout_ms", absoluteTimeoutMs, allowNever: true, positive: true)
        try duration("locked_timeout_ms", lockedTimeoutMs, allowNever: true)
        try duration("tick_ms", tickMs, allowNever: false)
        try duration("background_grace_ms", backgroundGraceMs, allowNever: false)
        if warningMs >= idleTimeoutMs {
            throw InactivityError(
                .invalidArgument,
                "policy.warning_ms (\(warningMs)) must be shorter than policy.idle_timeout_ms (\(idleTimeoutMs))")
        }
        let unknown = activityKinds.rawValue & ~ActivityKind.all.rawValue
        if unknown != 0 {
            throw InactivityError(
                .invalidArgument,
                "policy.activity_kinds (0x\(String(activityKinds.rawValue, radix: 16))) has unknown bits 0x\(String(unknown, radix: 16))")
        }
    }
}

/// Saturating deadline arithmetic: `time + duration`, `never` when either is `never` or the sum
/// would overflow.
@inline(__always)
func deadline(_ time: Int64, plus duration: Int64) -> Int64 {
    if duration == SessionPolicy.never || time == SessionPolicy.never { return SessionPolicy.never }
    let (sum, overflow) = time.addingReportingOverflow(duration)
    if overflow { return duration > 0 ? SessionPolicy.never : .min }
    return sum
}
