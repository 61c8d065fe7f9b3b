// A scenario: an initial policy and a list of timed steps (inputs, process events, checks).
// The text format is documented in docs/scenarios.md; ScenarioParser reads it and
// ScenarioRunner plays it on a manual clock. Everything here is public so that the demo, its
// tests and the conformance runners of the bindings read the same parsed steps (exact times).

import InactivityCore

public struct Scenario: Sendable {
    public var name: String?
    /// Where the text came from, for messages ("verify/scenarios/banking.scenario" or "built-in demo").
    public var source: String
    public var policy: SessionPolicy
    /// How the policy was written: the preset's name, plus "+ overrides" when `set` lines follow.
    public var policyLabel: String
    /// In time order (ties keep source order).
    public var steps: [Step]
}

public struct Step: Sendable {
    /// Scenario time (ms since the scenario began).
    public var timeMs: Int64
    /// 1-based line in the source text.
    public var line: Int
    public var command: Command
    /// The text of the command as written (for the timeline), without the time prefix.
    public var text: String
    /// An error this input must fail with (`expect error ...` on the next line), and that line.
    public var expectedError: (code: InactivityError.Code, line: Int)?
    /// A later occurrence of a repeated line (`every ... until ...`): printed only when
    /// something happens.
    public var isRepeat = false
}

public enum Command: Sendable {
    // Engine inputs.
    /// A plain command (generated/GeneratedInputs.swift): the input and its arguments, each an
    /// Int64 (a duration in ms; a UInt64 as its bit pattern).
    case input(PlainInput, [Int64])
    case activity(ActivityKind)
    case unlock(AuthStrength)
    case unlockFailed(AuthStrength)
    case end(Reason)
    case refresh(status: Int32, oauthError: String?, generation: UInt64)
    /// What another holder of the session reports: the kind, its reason (NONE for activity and
    /// deadlines), and the age of what it saw or the time left to its deadline.
    case holderReport(HolderKind, Reason, Int64)
    case pushScope(name: String, idleTimeoutMs: Int64)
    case popScope(name: String)
    case hold(name: String)
    case release(name: String)
    case setPolicy(SessionPolicy)
    /// The ceilings after this line (each `ceiling` line adds one limit to the earlier ones).
    case setCeilings(PolicyCeilings)
    case restore(corrupt: Bool)
    // The process and the device.
    case save
    case kill
    case launch
    case reboot
    case wallJump(Int64)
    case freeze(Int64)
    // Narrative and checks.
    case note(String)
    case expect(Expectation)

    /// True for the calls that go to the engine (and may fail with a status).
    public var isEngineInput: Bool {
        switch self {
        case .save, .kill, .launch, .reboot, .wallJump, .freeze, .note, .expect: false
        default: true
        }
    }
}

/// An engine input whose scenario command is its conformance op and its arguments in the C
/// order (`token-rotated 3`, `expect-interruption 30s`): the table `PlainInput.all` is generated
/// from the header and names.toml (tools/codegen/emit_verify.py), so a new input needs no edit
/// here. Commands with a syntax of their own (names, defaults) are ScenarioParser's.
public struct PlainInput: Sendable {
    /// How an argument is written: a duration as the scenario files write one, or an integer of
    /// the C type.
    public enum Argument: Sendable {
        case duration, int32, uint32, int64, uint64

        /// The value as an Int64 (a UInt64 as its bit pattern), nil if `text` is not one.
        func parse(_ text: String) -> Int64? {
            switch self {
            case .duration: TimeText.parseDuration(text)
            case .int32: Int32(text).map(Int64.init)
            case .uint32: UInt32(text).map(Int64.init)
            case .int64: Int64(text)
            case .uint64: UInt64(text).map { Int64(bitPattern: $0) }
            }
        }

        /// The value as the conformance op writes it: integers (a duration in ms).
        func opText(_ value: Int64) -> String {
            self == .uint64 ? String(UInt64(bitPattern: value)) : String(value)
        }
    }

    /// The command word, which is also the input's conformance op.
    public let command: String
    /// Each argument's placeholder in the usage (`DURATION`) and how it is written.
    public let arguments: [(name: String, kind: Argument)]
    let call: @Sendable (InactivityEngine, [Int64]) throws(InactivityError) -> Void

    init(_ command: String, _ arguments: [(name: String, kind: Argument)],
         _ call: @escaping @Sendable (InactivityEngine, [Int64]) throws(InactivityError) -> Void) {
        self.command = command
        self.arguments = arguments
        self.call = call
    }

    public var usage: String { ([command] + arguments.map(\.name)).joined(separator: " ") }

    /// Calls the input on `engine` with `values` (as parsed).
    public func run(_ engine: InactivityEngine, _ values: [Int64]) throws(InactivityError) {
        try call(engine, values)
    }

    /// The conformance op line: the command and the values as integers.
    public func op(_ values: [Int64]) -> String {
        ([command] + zip(arguments, values).map { $0.kind.opText($1) }).joined(separator: " ")
    }

    /// Reads the arguments of a line, or fails naming the one that is not what it must be.
    func parse(_ args: [String], line: Int) throws(ScenarioError) -> [Int64] {
        guard args.count == arguments.count else { throw ScenarioError(line: line, message: "usage: \(usage)") }
        var values: [Int64] = []
        for (text, argument) in zip(args, arguments) {
            guard let value = argument.kind.parse(text) else {
                let what = argument.kind == .duration ? "a duration (write 90s, 3m, 1h30m)" : "a number (\(argument.kind))"
                throw ScenarioError(line: line, message: "'\(text)' is not \(argument.name): \(what); usage: \(usage)")
            }
            values.append(value)
        }
        return values
    }
}

public enum Expectation: Sendable {
    /// The state, optionally the reason, optionally the instant of the last state change.
    case state(SessionState, Reason?, sinceMs: Int64?)
    /// Milliseconds to the next lock or expiry (SessionPolicy.never for none).
    case remaining(Int64)
    /// The outcome of the most recent `refresh`.
    case refresh(RefreshOutcome)
    case unlockFailures(UInt32)
    case background(Bool)
    /// The effective idle timeout (the policy's and every open scope's minimum).
    case idleTimeout(Int64)
    /// Countdown ticks delivered since the last state change.
    case ticks(Int)
    /// Events (state changes and ticks) delivered since the previous expectation.
    case events(Int)
    /// What an unlock needs now.
    case requiredAuth(AuthStrength)
    /// KEEPALIVE events (ping the server) delivered since the previous expectation.
    case keepalives(Int)
}

/// A scenario that cannot be run: a one-line message with the line it applies to.
public struct ScenarioError: Error, CustomStringConvertible {
    public var line: Int?
    public var message: String

    public init(line: Int?, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}

// MARK: - Names used in scenario files and in the timeline

public enum Names {
    public static let presets: [(String, SessionPolicy.Preset)] = [
        ("default", .default), ("nist-aal2", .nistAAL2), ("nist-aal3", .nistAAL3),
        ("pci-dss", .pciDSS), ("banking", .banking), ("psd2", .psd2), ("enterprise", .enterprise),
    ]

    public static let authStrengths: [(String, AuthStrength)] = [
        ("none", .none), ("biometric", .biometric), ("credential", .credential),
    ]

    public static let activityKinds: [(String, ActivityKind)] = [
        ("touch-down", .touchDown), ("touch-up", .touchUp), ("touch-move", .touchMove),
        ("key", .key), ("scroll", .scroll), ("pointer", .pointer), ("programmatic", .programmatic),
    ]

    public static let refreshOutcomes: [(String, RefreshOutcome)] = [
        ("ok", .ok), ("retry", .retry), ("revoked", .revoked), ("failed", .failed), ("stale", .stale),
    ]

    public static let endReasons: [(String, Reason)] = [
        ("logout", .logout), ("revoked", .revoked), ("password-changed", .passwordChanged),
        ("device-limit", .deviceLimit),
    ]

    /// `holder KIND ...`: what another holder of the session (a tab, the server) reports.
    public static let holderKinds: [(String, HolderKind)] = [
        ("activity", .activity), ("locked", .locked), ("expired", .expired),
        ("idle-deadline", .idleDeadline), ("absolute-deadline", .absoluteDeadline),
    ]

    public static func state(_ text: String) -> SessionState? {
        SessionState.allCases.first { $0.description == text.uppercased() }
    }

    /// Reasons are written in scenario files and the demo's timeline in lower case with dashes:
    /// `idle-timeout`, `manual-lock`, ... (the core's name, `IDLE_TIMEOUT`, in the demo's style).
    public static func reason(_ text: String) -> Reason? {
        Reason.allCases.first { reasonText($0) == text.lowercased() }
    }

    /// `IDLE_TIMEOUT` -> `idle-timeout`: the demo's and the scenario files' spelling of a reason.
    public static func reasonText(_ reason: Reason) -> String {
        String(reason.description.lowercased().map { $0 == "_" ? "-" : $0 })
    }

    public static func errorCode(_ text: String) -> InactivityError.Code? {
        InactivityError.Code.allCases.first { errorCodeName($0) == text.lowercased() }
    }

    /// `invalidState` -> `invalid-state`.
    public static func errorCodeName(_ code: InactivityError.Code) -> String {
        var out = ""
        for ch in "\(code)" {
            if ch.isUppercase { out += "-" + ch.lowercased() } else { out.append(ch) }
        }
        return out
    }

    public static func refreshOutcome(_ outcome: RefreshOutcome) -> String {
        refreshOutcomes.first { $0.1 == outcome }!.0
    }

    public static func preset(_ preset: SessionPolicy.Preset) -> String {
        presets.first { $0.1 == preset }!.0
    }

    public static func list(_ names: [String]) -> String { names.joined(separator: ", ") }
}
