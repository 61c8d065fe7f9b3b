// Policy fields as written in scenario files (`set idle-timeout 3m`) and a one-line summary.

import InactivityCore

public enum PolicyText {
    /// Every settable field: name, the kind of value it takes, and how to apply it.
    /// The names are the C fields without `_ms`, in kebab case.
    public static let fields: [(name: String, value: String, apply: @Sendable (inout SessionPolicy, String) -> Bool)] = [
        ("idle-timeout", "a duration or never", { p, v in set(&p.idleTimeoutMs, v, never: true) }),
        ("warning", "a duration (0s = no warning)", { p, v in set(&p.warningMs, v, never: false) }),
        ("idle-action", "lock or expire", { p, v in
            switch v {
            case "lock": p.idleAction = .lock
            case "expire": p.idleAction = .expire
            default: return false
            }
            return true
        }),
        ("background-timeout", "a duration or never", { p, v in set(&p.backgroundTimeoutMs, v, never: true) }),
        ("absolute-timeout", "a duration or never", { p, v in set(&p.absoluteTimeoutMs, v, never: true) }),
        ("locked-timeout", "a duration or never", { p, v in set(&p.lockedTimeoutMs, v, never: true) }),
        ("tick", "a duration (0s = no ticks)", { p, v in set(&p.tickMs, v, never: false) }),
        ("background-grace", "a duration", { p, v in set(&p.backgroundGraceMs, v, never: false) }),
        ("max-unlock-failures", "a count (0 = unlimited)", { p, v in
            guard let n = UInt32(v) else { return false }
            p.maxUnlockFailures = n
            return true
        }),
        ("activity-kinds", "user, all, or kinds joined by commas (touch-down,key,...)", { p, v in
            guard let kinds = activityKinds(v) else { return false }
            p.activityKinds = kinds
            return true
        }),
        ("activity-dismisses-warning", "yes or no", { p, v in setBool(&p.activityDismissesWarning, v) }),
        ("pause-idle-in-background", "yes or no", { p, v in setBool(&p.pauseIdleInBackground, v) }),
        ("strong-auth-timeout", "a duration or never", { p, v in set(&p.strongAuthTimeoutMs, v, never: true) }),
        ("expected-interruption-max", "a duration (0s = refused)", { p, v in set(&p.expectedInterruptionMaxMs, v, never: false) }),
        ("lock-on-device-lock", "yes or no", { p, v in setBool(&p.lockOnDeviceLock, v) }),
        ("lock-on-restart", "yes or no", { p, v in setBool(&p.lockOnRestart, v) }),
        ("offline-timeout", "a duration or never", { p, v in set(&p.offlineTimeoutMs, v, never: true) }),
        ("offline-expiry", "a duration or never", { p, v in set(&p.offlineExpiryMs, v, never: true) }),
        ("keepalive-interval", "a duration (0s = off)", { p, v in set(&p.keepaliveIntervalMs, v, never: false) }),
    ]

    /// Every limit a `ceiling` line can set: name, the kind of value, how to apply it.
    public static let ceilingFields: [(name: String, value: String, apply: @Sendable (inout PolicyCeilings, String) -> Bool)] = [
        ("idle-timeout", "a duration or never", { c, v in set(&c.idleTimeoutMs, v, never: true) }),
        ("background-timeout", "a duration or never", { c, v in set(&c.backgroundTimeoutMs, v, never: true) }),
        ("absolute-timeout", "a duration or never", { c, v in set(&c.absoluteTimeoutMs, v, never: true) }),
        ("locked-timeout", "a duration or never", { c, v in set(&c.lockedTimeoutMs, v, never: true) }),
        ("strong-auth-timeout", "a duration or never", { c, v in set(&c.strongAuthTimeoutMs, v, never: true) }),
        ("expected-interruption-max", "a duration or never", { c, v in set(&c.expectedInterruptionMaxMs, v, never: true) }),
        ("offline-timeout", "a duration or never", { c, v in set(&c.offlineTimeoutMs, v, never: true) }),
        ("offline-expiry", "a duration or never", { c, v in set(&c.offlineExpiryMs, v, never: true) }),
        ("max-unlock-failures", "a count (0 = no limit)", { c, v in
            guard let n = UInt32(v) else { return false }
            c.maxUnlockFailures = n
            return true
        }),
        ("lock-on-device-lock", "yes or no", { c, v in setBool(&c.lockOnDeviceLock, v) }),
        ("lock-on-restart", "yes or no", { c, v in setBool(&c.lockOnRestart, v) }),
    ]

    /// The C field name that a validation message names, mapped back to the scenario's name
    /// (so that an invalid policy can be blamed on the line that set that field).
    public static func field(inValidationMessage message: String) -> String? {
        let cNames = [
            ("policy.idle_timeout_ms", "idle-timeout"), ("policy.warning_ms", "warning"),
            ("policy.background_timeout_ms", "background-timeout"),
            ("policy.absolute_timeout_ms", "absolute-timeout"), ("policy.locked_timeout_ms", "locked-timeout"),
            ("policy.tick_ms", "tick"), ("policy.background_grace_ms", "background-grace"),
            ("policy.activity_kinds", "activity-kinds"),
            ("policy.strong_auth_timeout_ms", "strong-auth-timeout"),
            ("policy.expected_interruption_max_ms", "expected-interruption-max"),
            ("policy.offline_timeout_ms", "offline-timeout"), ("policy.offline_expiry_ms", "offline-expiry"),
            ("policy.keepalive_interval_ms", "keepalive-interval"),
        ]
        return cNames.first { message.hasPrefix($0.0) }?.1
    }

    private static func set(_ field: inout Int64, _ text: String, never: Bool) -> Bool {
        // Negative values parse so that validation, not the parser, explains the rule.
        guard let v = TimeText.parseDuration(text, allowNever: never, allowNegative: true) else { return false }
        field = v
        return true
    }

    private static func setBool(_ field: inout Bool, _ text: String) -> Bool {
        switch text {
        case "yes", "true", "on": field = true
        case "no", "false", "off": field = false
        default: return false
        }
        return true
    }

    public static func activityKinds(_ text: String) -> ActivityKind? {
        if text == "user" { return .user }
        if text == "all" { return .all }
        var kinds: ActivityKind = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let kind = Names.activityKinds.first(where: { $0.0 == part })?.1 else { return nil }
            kinds.insert(kind)
        }
        return kinds
    }

    /// "idle 5m (warning 30s, tick 1s, lock), background 30s, absolute 8h, locked 15m, 5 unlock failures"
    public static func summary(_ p: SessionPolicy) -> String {
        let d = TimeText.duration
        var idle = "idle \(d(p.idleTimeoutMs)) -> \(p.idleAction == .lock ? "lock" : "expire")"
        var details: [String] = []
        details.append(p.warningMs > 0 ? "warning \(d(p.warningMs))" : "no warning")
        if p.warningMs > 0 { details.append(p.tickMs > 0 ? "tick \(d(p.tickMs))" : "no ticks") }
        if p.activityDismissesWarning { details.append("activity dismisses it") }
        idle += " (" + details.joined(separator: ", ") + ")"
        var parts = [idle]
        parts.append(p.backgroundTimeoutMs == SessionPolicy.never ? "background never"
                     : "background \(d(p.backgroundTimeoutMs))" + (p.pauseIdleInBackground ? " (idle paused)" : ""))
        parts.append("absolute \(d(p.absoluteTimeoutMs))")
        if p.lockedTimeoutMs != SessionPolicy.never { parts.append("locked \(d(p.lockedTimeoutMs))") }
        if p.maxUnlockFailures > 0 { parts.append("\(p.maxUnlockFailures) unlock failures") }
        if p.strongAuthTimeoutMs != SessionPolicy.never { parts.append("credential after \(d(p.strongAuthTimeoutMs))") }
        if p.offlineTimeoutMs != SessionPolicy.never { parts.append("offline \(d(p.offlineTimeoutMs))") }
        if p.offlineExpiryMs != SessionPolicy.never { parts.append("offline expiry \(d(p.offlineExpiryMs))") }
        if p.lockOnDeviceLock { parts.append("locks with the device") }
        if p.lockOnRestart { parts.append("locks on restart") }
        if p.keepaliveIntervalMs > 0 { parts.append("keepalive \(d(p.keepaliveIntervalMs))") }
        return parts.joined(separator: ", ")
    }
}
