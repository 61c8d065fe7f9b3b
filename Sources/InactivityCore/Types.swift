// The session vocabulary: states, reasons, activity kinds, events and errors.
// Raw values are the C ABI's values (include/inactivity.h); a test pins them.

/// The five states of a session (docs/design.md section 2).
public enum SessionState: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// Created; the session is not known yet (cold start, tokens being checked).
    case loading = 0
    /// A session is running and the user is present.
    case active = 1
    /// The idle action is near; a countdown runs.
    case warning = 2
    /// The session exists but the user must re-verify.
    case locked = 3
    /// The session is over; a full sign-in is needed.
    case expired = 4

    public var description: String {
        switch self {
        case .loading: "LOADING"
        case .active: "ACTIVE"
        case .warning: "WARNING"
        case .locked: "LOCKED"
        case .expired: "EXPIRED"
        }
    }
}

/// Why the engine entered its current state.
public enum Reason: Int32, Sendable, CaseIterable, CustomStringConvertible {
    case none = 0
    case started = 1
    case restored = 2
    case continued = 3
    case activity = 4
    case unlocked = 5
    case extended = 6
    case idle = 7
    case idleTimeout = 8
    case backgroundTimeout = 9
    case manualLock = 10
    case untrustedClock = 11
    case absoluteTimeout = 12
    case lockedTimeout = 13
    case unlockFailures = 14
    case logout = 15
    case revoked = 16
    case passwordChanged = 17
    case restoreFailed = 18
    /// LOCKED: the device locked and the policy locks with it.
    case deviceLocked = 19
    /// LOCKED: no successful server contact for the policy's offline timeout.
    case offlineTimeout = 20
    /// EXPIRED: no successful server contact for the policy's offline expiry.
    case offlineExpiry = 21
    /// LOCKED: a cold start with a policy that locks on every restart.
    case restart = 22
    /// EXPIRED: pushed out by a newer sign-in on another device (the user's device limit).
    case deviceLimit = 23

    /// The reason's name as the C ABI prints it (`inact_reason_string`: `IDLE_TIMEOUT`), the same
    /// in every binding; ReasonNameTests checks each case against the C table.
    public var description: String {
        switch self {
        case .none: "NONE"
        case .started: "STARTED"
        case .restored: "RESTORED"
        case .continued: "CONTINUED"
        case .activity: "ACTIVITY"
        case .unlocked: "UNLOCKED"
        case .extended: "EXTENDED"
        case .idle: "IDLE"
        case .idleTimeout: "IDLE_TIMEOUT"
        case .backgroundTimeout: "BACKGROUND_TIMEOUT"
        case .manualLock: "MANUAL_LOCK"
        case .untrustedClock: "UNTRUSTED_CLOCK"
        case .absoluteTimeout: "ABSOLUTE_TIMEOUT"
        case .lockedTimeout: "LOCKED_TIMEOUT"
        case .unlockFailures: "UNLOCK_FAILURES"
        case .logout: "LOGOUT"
        case .revoked: "REVOKED"
        case .passwordChanged: "PASSWORD_CHANGED"
        case .restoreFailed: "RESTORE_FAILED"
        case .deviceLocked: "DEVICE_LOCKED"
        case .offlineTimeout: "OFFLINE_TIMEOUT"
        case .offlineExpiry: "OFFLINE_EXPIRY"
        case .restart: "RESTART"
        case .deviceLimit: "DEVICE_LIMIT"
        }
    }

    /// The reasons an engine may carry in `state` (docs/design.md section 2, "Reasons").
    /// An array, not a Set: hashing would pull the stdlib's hash tables (random seeding, libm) into the
    /// C library for a membership test over at most ten values.
    /// `untrustedClock` is also used for EXPIRED when a restore finds the wall clock set back.
    public static func allowed(in state: SessionState) -> [Reason] {
        switch state {
        case .loading: [.none]
        case .active: [.started, .restored, .continued, .activity, .unlocked, .extended]
        case .warning: [.idle, .restored]
        case .locked:
            [.idleTimeout, .backgroundTimeout, .manualLock, .restored, .untrustedClock, .deviceLocked,
             .offlineTimeout, .restart]
        case .expired:
            [.idleTimeout, .absoluteTimeout, .lockedTimeout, .unlockFailures, .logout, .revoked,
             .passwordChanged, .restoreFailed, .restored, .untrustedClock, .offlineExpiry, .deviceLimit]
        }
    }
}

extension Reason {
    /// LOGOUT, REVOKED, PASSWORD_CHANGED or DEVICE_LIMIT: the reasons `end` accepts.
    public var isEnding: Bool { self == .logout || self == .revoked || self == .passwordChanged || self == .deviceLimit }

    /// The ending reason with this raw value (an `end` argument); `invalidArgument` naming the
    /// rule for any other value.
    public static func ending(rawValue: Int32) throws(InactivityError) -> Reason {
        guard let reason = Reason(rawValue: rawValue), reason.isEnding else {
            throw InactivityError(.invalidArgument, "reason (\(rawValue)) must be LOGOUT, REVOKED, PASSWORD_CHANGED or DEVICE_LIMIT")
        }
        return reason
    }
}

/// Kinds of user activity. A policy counts a set of them; an activity call names one.
public struct ActivityKind: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let touchDown = ActivityKind(rawValue: 1 << 0)
    public static let touchUp = ActivityKind(rawValue: 1 << 1)
    public static let touchMove = ActivityKind(rawValue: 1 << 2)
    public static let key = ActivityKind(rawValue: 1 << 3)
    public static let scroll = ActivityKind(rawValue: 1 << 4)
    public static let pointer = ActivityKind(rawValue: 1 << 5)
    public static let programmatic = ActivityKind(rawValue: 1 << 6)

    /// Every kind a person produces: the default that a policy counts.
    public static let user: ActivityKind = [.touchDown, .touchUp, .touchMove, .key, .scroll, .pointer]
    /// Every defined kind.
    public static let all: ActivityKind = [.user, .programmatic]

    /// True when this is exactly one known kind (what an activity call must name).
    public var isSingleKnownKind: Bool {
        rawValue != 0 && rawValue & (rawValue - 1) == 0 && ActivityKind.all.contains(self)
    }

    /// Checks an activity call's argument: `invalidArgument` naming the rule unless it is
    /// exactly one known kind.
    public func checkSingleKnownKind() throws(InactivityError) {
        guard isSingleKnownKind else {
            throw InactivityError(.invalidArgument,
                                  "kind (0x\(String(rawValue, radix: 16))) must be exactly one known activity kind")
        }
    }
}

/// What another holder of the session (a tab, the server) reports (`InactivityEngine.holderReport`).
/// Times travel as ages or times left, relative to the moment of the report: holders do not
/// share this engine's clock.
public enum HolderKind: Int32, Sendable, CaseIterable {
    /// The user's activity the holder saw; `ms`: its age.
    case activity = 1
    /// The holder locked, with a LOCKED reason; `ms`: the lock's age.
    case locked = 2
    /// The holder's session expired or ended, with an EXPIRED reason; `ms`: its age.
    case expired = 3
    /// `ms`: the time left to the holder's idle action.
    case idleDeadline = 4
    /// `ms`: the time left to the holder's absolute expiry.
    case absoluteDeadline = 5
}

/// What happens when the idle timeout is reached.
public enum IdleAction: Int32, Sendable, CaseIterable {
    case lock = 0
    case expire = 1
}

/// The strength of a user verification: what an unlock needs (in LOCKED) and what verified the
/// user (the method an unlock names). Ordered: a credential is stronger than a biometric.
public enum AuthStrength: Int32, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    /// Nothing is required (the session is not LOCKED).
    case none = 0
    /// A biometric (Face ID, fingerprint) is enough, or the credential.
    case biometric = 1
    /// The credential (PIN, password) is required.
    case credential = 2

    public static func < (a: AuthStrength, b: AuthStrength) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .none: "none"
        case .biometric: "biometric"
        case .credential: "credential"
        }
    }
}

/// How a token refresh was classified by `refreshResult`.
public enum RefreshOutcome: Int32, Sendable, CaseIterable {
    /// 2xx: the session goes on.
    case ok = 0
    /// No network, 408, 429, 5xx: nothing changes; retry later.
    case retry = 1
    /// 401, or 400 with `invalid_grant`: the session is now EXPIRED (REVOKED).
    case revoked = 2
    /// Any other status: nothing changes; retrying will not help.
    case failed = 3
    /// A REVOKED answer for a refresh token older than the newest generation seen: a rotation
    /// race (another refresh already replaced that token). Nothing changes.
    case stale = 4
}

/// One event delivered to the host.
public struct SessionEvent: Sendable, Equatable, CustomStringConvertible {
    /// `keepalive`: "ping your server now"; `timeMs` is the instant of the last user activity
    /// it carries (its age is `nowMs - timeMs`).
    public enum Kind: Int32, Sendable { case stateChanged = 1, tick = 2, keepalive = 3 }

    public var kind: Kind
    /// The state after the event.
    public var state: SessionState
    /// The state the host saw before (equal to `state` for a tick).
    public var previousState: SessionState
    public var reason: Reason
    /// Milliseconds from `nowMs` to the next lock or expiry; `Policy.never` if none.
    public var remainingMs: Int64
    /// When the change took effect (the deadline applied), engine clock.
    public var timeMs: Int64
    /// When it was evaluated, engine clock (at or after `timeMs`).
    public var nowMs: Int64
    /// The engine's handle.
    public var engine: UInt64
    /// What an unlock needs at `nowMs`: `.none` unless the state is LOCKED.
    public var requiredAuth: AuthStrength

    public init(kind: Kind, state: SessionState, previousState: SessionState, reason: Reason,
                remainingMs: Int64, timeMs: Int64, nowMs: Int64, engine: UInt64 = 0,
                requiredAuth: AuthStrength = .none) {
        self.kind = kind
        self.state = state
        self.previousState = previousState
        self.reason = reason
        self.remainingMs = remainingMs
        self.timeMs = timeMs
        self.nowMs = nowMs
        self.engine = engine
        self.requiredAuth = requiredAuth
    }

    public var description: String {
        let rem = remainingMs == SessionPolicy.never ? "never" : "\(remainingMs) ms"
        switch kind {
        case .stateChanged:
            return "\(previousState) -> \(state) (\(reason)) at \(timeMs) ms, remaining \(rem)"
        case .tick:
            return "tick \(state) at \(timeMs) ms, remaining \(rem)"
        case .keepalive:
            return "keepalive \(state) activity at \(timeMs) ms, remaining \(rem)"
        }
    }
}

/// An error from the engine. `code` matches the C ABI's status codes; `message` names the
/// argument and the rule that failed.
public struct InactivityError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Int32, Sendable, CaseIterable {
        case nullPointer = -1
        case invalidHandle = -2
        case invalidArgument = -3
        case invalidState = -4
        case structSize = -5
        case bufferTooSmall = -6
        case notFound = -7
        case wrongClock = -8
        case snapshotTruncated = -9
        case snapshotChecksum = -10
        case snapshotVersion = -11
        case snapshotInvalid = -12
        case limit = -13
        case `internal` = -14
        case system = -15
        /// An unlock named a method weaker than the strength the lock requires.
        case weakAuth = -16
        /// An unlock while the offline timeout has passed: a server contact must succeed first.
        case offline = -17
        /// A policy is laxer than a managed ceiling set on the engine.
        case ceiling = -18
    }

    public var code: Code
    public var message: String
    /// The system's error number when the system refused a resource (`.system`), else 0: it
    /// reaches C callers as a value (inact_last_errno), so no binding parses it from `message`.
    public var errorNumber: Int32

    public init(_ code: Code, _ message: String, errorNumber: Int32 = 0) {
        self.code = code
        self.message = message
        self.errorNumber = errorNumber
    }

    public var description: String { message }

    static func invalidState(_ input: String, _ state: SessionState) -> InactivityError {
        InactivityError(.invalidState, "\(input) is not allowed in state \(state)")
    }
}
