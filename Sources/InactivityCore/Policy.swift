// The session policy: timeouts and switches, defaults, named presets and validation.

/// A session policy. All durations are milliseconds; `SessionPolicy.never` turns a timeout off.
public struct SessionPolicy: Sendable, Equatable {
    /// "Never": the maximum 64-bit value. Deadline arithmetic saturates at it.
    public static let never: Int64 = .max
    /// The longest finite duration accepted: 100 years. Anything longer is a mistake, and the
    /// bound keeps every deadline sum (a time plus up to two durations) far from overflow.
    public static let maxFiniteMs: Int64 = 100 * 31_557_600_000
    /// The shortest keepalive interval: a ping a second is the most a server should take.
    public static let minKeepaliveIntervalMs: Int64 = 1_000

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
    /// This long since the last credential verification (sign-in or credential unlock) -> a
    /// biometric no longer unlocks: the credential is required. 0 = always the credential;
    /// `never` (the default) = a biometric is always enough (until the biometrics change).
    public var strongAuthTimeoutMs: Int64 = never
    /// The longest expected interruption (system sheet) a host may announce; 0 = announcements
    /// are refused. Finite. Default 60 s.
    public var expectedInterruptionMaxMs: Int64 = 60_000
    /// The device locked -> LOCKED (DEVICE_LOCKED) at once; otherwise it only starts background.
    public var lockOnDeviceLock: Bool = false
    /// No successful server contact this long -> LOCKED (OFFLINE_TIMEOUT), and unlock is refused
    /// until a contact succeeds. > 0; `never` (the default) = off.
    public var offlineTimeoutMs: Int64 = never
    /// No successful server contact this long -> EXPIRED (OFFLINE_EXPIRY). > 0; `never` = off.
    public var offlineExpiryMs: Int64 = never
    /// Every cold start (restore) is LOCKED at least, whatever the elapsed time.
    public var lockOnRestart: Bool = false
    /// The keepalive: after user activity the engine asks the host to ping its server (a
    /// KEEPALIVE event) at once after a quiet interval, then at most once per this interval.
    /// 0 (the default) = off; else at least 1 s, finite, and shorter than the idle timeout.
    public var keepaliveIntervalMs: Int64 = 0

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
        /// EU PSD2 RTS (Delegated Regulation 2018/389): art. 4(3)(d) at most 5 min without
        /// activity after authentication; art. 4(3)(b) at most 5 failed attempts in a row.
        case psd2 = 5
        /// Modelled on Microsoft Intune app protection defaults: recheck after 30 min of
        /// inactivity, PIN instead of biometrics after 30 min, offline grace 720 min (block) and
        /// 90 days (wipe), 5 PIN attempts.
        case enterprise = 6
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
        case .psd2:
            idleTimeoutMs = 5 * 60_000          // art. 4(3)(d)
            maxUnlockFailures = 5               // art. 4(3)(b)
            // Background time is time without activity too: never longer than the idle limit.
            backgroundTimeoutMs = 60_000
        case .enterprise:
            idleTimeoutMs = 30 * 60_000         // "recheck the access requirements after 30 min"
            backgroundTimeoutMs = 30 * 60_000   // the recheck applies to inactivity in background too
            strongAuthTimeoutMs = 30 * 60_000   // "override biometrics with PIN after timeout": 30 min
            offlineTimeoutMs = 720 * 60_000     // offline grace period, block access: 720 min
            offlineExpiryMs = 90 * 86_400_000   // offline grace period, wipe data: 90 days
            maxUnlockFailures = 5               // max PIN attempts: 5
            absoluteTimeoutMs = SessionPolicy.never   // Intune has no session lifetime; the offline limits bound it
        }
    }

    /// Checks every rule; throws `invalidArgument` naming the field and the rule.
    /// Field names are the C ABI's (`idle_timeout_ms`), which every binding shares.
    public func validate() throws(InactivityError) {
        func duration(_ name: StaticString, _ value: Int64, allowNever: Bool, positive: Bool = false) throws(InactivityError) {
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
        try duration("strong_auth_timeout_ms", strongAuthTimeoutMs, allowNever: true)
        try duration("expected_interruption_max_ms", expectedInterruptionMaxMs, allowNever: false)
        try duration("offline_timeout_ms", offlineTimeoutMs, allowNever: true, positive: true)
        try duration("offline_expiry_ms", offlineExpiryMs, allowNever: true, positive: true)
        try duration("keepalive_interval_ms", keepaliveIntervalMs, allowNever: false)
        if keepaliveIntervalMs != 0 && keepaliveIntervalMs < SessionPolicy.minKeepaliveIntervalMs {
            throw InactivityError(
                .invalidArgument,
                "policy.keepalive_interval_ms (\(keepaliveIntervalMs)) must be 0 (off) or at least \(SessionPolicy.minKeepaliveIntervalMs)")
        }
        if keepaliveIntervalMs >= idleTimeoutMs {
            throw InactivityError(
                .invalidArgument,
                "policy.keepalive_interval_ms (\(keepaliveIntervalMs)) must be shorter than policy.idle_timeout_ms (\(idleTimeoutMs))")
        }
        if warningMs >= idleTimeoutMs {
            throw InactivityError(
                .invalidArgument,
                "policy.warning_ms (\(warningMs)) must be shorter than policy.idle_timeout_ms (\(idleTimeoutMs))")
        }
        let unknown = activityKinds.rawValue & ~ActivityKind.all.rawValue
        if unknown != 0 {
            throw InactivityError(
                .invalidArgument,
                "policy.activity_kinds (0x\(hex: UInt64(activityKinds.rawValue))) has unknown bits 0x\(hex: UInt64(unknown))")
        }
    }
}

/// An administrator's limits on the policies an engine accepts (MDM managed configuration, an
/// organisation maximum). Each field is a limit or "no limit"; a policy is within the ceilings
/// when it is at least as strict in every limited field. Not part of a snapshot: the host sets
/// them on every engine it creates.
public struct PolicyCeilings: Sendable, Equatable {
    /// Upper bounds on durations; `SessionPolicy.never` = no limit. A policy's `never` (off)
    /// exceeds every finite limit.
    public var idleTimeoutMs: Int64 = SessionPolicy.never
    public var backgroundTimeoutMs: Int64 = SessionPolicy.never
    public var absoluteTimeoutMs: Int64 = SessionPolicy.never
    public var lockedTimeoutMs: Int64 = SessionPolicy.never
    public var strongAuthTimeoutMs: Int64 = SessionPolicy.never
    public var expectedInterruptionMaxMs: Int64 = SessionPolicy.never
    public var offlineTimeoutMs: Int64 = SessionPolicy.never
    public var offlineExpiryMs: Int64 = SessionPolicy.never
    /// At most this many failed unlocks; 0 = no limit. A policy's 0 (unlimited) exceeds it.
    public var maxUnlockFailures: UInt32 = 0
    /// true = the policy must lock on device lock / on restart.
    public var lockOnDeviceLock: Bool = false
    public var lockOnRestart: Bool = false

    /// No limits.
    public init() {}

    /// The C ABI's field names, the policy's value, the ceiling's value, for each duration.
    private func durations(_ p: SessionPolicy) -> [(StaticString, Int64, Int64)] {
        [("idle_timeout_ms", p.idleTimeoutMs, idleTimeoutMs),
         ("background_timeout_ms", p.backgroundTimeoutMs, backgroundTimeoutMs),
         ("absolute_timeout_ms", p.absoluteTimeoutMs, absoluteTimeoutMs),
         ("locked_timeout_ms", p.lockedTimeoutMs, lockedTimeoutMs),
         ("strong_auth_timeout_ms", p.strongAuthTimeoutMs, strongAuthTimeoutMs),
         ("expected_interruption_max_ms", p.expectedInterruptionMaxMs, expectedInterruptionMaxMs),
         ("offline_timeout_ms", p.offlineTimeoutMs, offlineTimeoutMs),
         ("offline_expiry_ms", p.offlineExpiryMs, offlineExpiryMs)]
    }

    /// Checks the ceilings themselves: durations >= 0 and at most 100 years or `never`.
    public func validate() throws(InactivityError) {
        for (name, _, limit) in durations(SessionPolicy()) {
            if limit < 0 || (limit > SessionPolicy.maxFiniteMs && limit != SessionPolicy.never) {
                throw InactivityError(.invalidArgument,
                                      "ceilings.\(name) (\(limit)) must be >= 0 and at most 100 years, or INACT_NEVER (no limit)")
            }
        }
    }

    /// Throws `ceiling` naming the first field of `policy` that is laxer than its limit.
    public func check(_ policy: SessionPolicy) throws(InactivityError) {
        func show(_ v: Int64) -> ErrorText { v == SessionPolicy.never ? "INACT_NEVER" : "\(v)" }
        for (name, value, limit) in durations(policy) where value > limit {
            throw InactivityError(.ceiling,
                                  "policy.\(name) (\(show(value))) exceeds the managed ceiling (\(limit))")
        }
        if maxUnlockFailures > 0 && (policy.maxUnlockFailures == 0 || policy.maxUnlockFailures > maxUnlockFailures) {
            throw InactivityError(.ceiling,
                                  "policy.max_unlock_failures (\(policy.maxUnlockFailures)) exceeds the managed ceiling (\(maxUnlockFailures); 0 is unlimited)")
        }
        if lockOnDeviceLock && !policy.lockOnDeviceLock {
            throw InactivityError(.ceiling, "policy.lock_on_device_lock (0) must be 1: the managed ceilings require it")
        }
        if lockOnRestart && !policy.lockOnRestart {
            throw InactivityError(.ceiling, "policy.lock_on_restart (0) must be 1: the managed ceilings require it")
        }
    }

    /// `policy` made as strict as the ceilings in every limited field (other fields unchanged).
    /// The result may still be invalid (a warning no longer shorter than the idle timeout).
    public func tighten(_ policy: SessionPolicy) -> SessionPolicy {
        var p = policy
        p.idleTimeoutMs = min(p.idleTimeoutMs, idleTimeoutMs)
        p.backgroundTimeoutMs = min(p.backgroundTimeoutMs, backgroundTimeoutMs)
        p.absoluteTimeoutMs = min(p.absoluteTimeoutMs, absoluteTimeoutMs)
        p.lockedTimeoutMs = min(p.lockedTimeoutMs, lockedTimeoutMs)
        p.strongAuthTimeoutMs = min(p.strongAuthTimeoutMs, strongAuthTimeoutMs)
        p.expectedInterruptionMaxMs = min(p.expectedInterruptionMaxMs, expectedInterruptionMaxMs)
        p.offlineTimeoutMs = min(p.offlineTimeoutMs, offlineTimeoutMs)
        p.offlineExpiryMs = min(p.offlineExpiryMs, offlineExpiryMs)
        if maxUnlockFailures > 0 && (p.maxUnlockFailures == 0 || p.maxUnlockFailures > maxUnlockFailures) {
            p.maxUnlockFailures = maxUnlockFailures
        }
        p.lockOnDeviceLock = p.lockOnDeviceLock || lockOnDeviceLock
        p.lockOnRestart = p.lockOnRestart || lockOnRestart
        return p
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
