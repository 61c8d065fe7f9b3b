// How the --svg picture draws each scenario command: the lane it goes in, its glyph, its
// colour and its legend entry. This is the one place to edit when the scenario language gets a
// new command: the switch has no default, so the compiler asks for the new case here.

import InactivityCore
import InactivityScenarios

/// The rows above the state band, top to bottom. A lane with no mark is left out.
enum Lane: CaseIterable {
    case notes, user, session, app, process, checks

    var title: String {
        switch self {
        case .notes: "notes"
        case .user: "user"
        case .session: "session"
        case .app: "app"
        case .process: "process"
        case .checks: "checks"
        }
    }
}

/// The shapes a mark can have (drawn by TimelineSVG.glyph).
enum Glyph {
    case dot, ring, play, diamond, diamondOpen, square, squareOpen, cross, bar
    case triangleUp, triangleDown, triangleUpOpen, triangleDownOpen
    case bracketOpen, bracketClose, pause, pauseOpen, check, number
}

struct Mark {
    var lane: Lane
    var glyph: Glyph
    var colour: String
    /// The legend's words for this mark; marks with the same legend share one entry.
    var legend: String
}

enum Palette {
    static let green = "#2f855a"
    static let blue = "#2b6cb0"
    static let red = "#c53030"
    static let amber = "#b7791f"
    static let purple = "#6b46c1"
    static let slate = "#4a5568"
    static let ink = "#1a202c"
    static let grey = "#718096"
    static let brown = "#975a16"
}

enum TimelineMarks {
    /// The mark of a plain input (Scenario's PlainInput), by its command; an input the demo has
    /// no drawing for gets a grey ring with its command as the legend.
    static func plainMark(_ command: String) -> Mark {
        switch command {
        case "start": Mark(lane: .session, glyph: .play, colour: Palette.green, legend: "start (sign-in)")
        case "continue": Mark(lane: .user, glyph: .diamond, colour: Palette.green, legend: "continue")
        case "lock": Mark(lane: .session, glyph: .square, colour: Palette.red, legend: "lock")
        case "biometrics-changed": Mark(lane: .session, glyph: .diamondOpen, colour: Palette.red, legend: "biometrics changed")
        case "token-rotated": Mark(lane: .session, glyph: .ring, colour: Palette.blue, legend: "token rotated")
        case "server-contact": Mark(lane: .session, glyph: .ring, colour: Palette.green, legend: "server contact")
        case "expect-interruption": Mark(lane: .app, glyph: .bracketOpen, colour: Palette.slate, legend: "expected interruption")
        case "device-locked": Mark(lane: .app, glyph: .square, colour: Palette.slate, legend: "device locked")
        case "background": Mark(lane: .app, glyph: .triangleDown, colour: Palette.slate, legend: "background")
        case "foreground": Mark(lane: .app, glyph: .triangleUp, colour: Palette.slate, legend: "foreground")
        case "window-shown": Mark(lane: .app, glyph: .triangleUpOpen, colour: Palette.slate, legend: "window shown")
        case "window-hidden": Mark(lane: .app, glyph: .triangleDownOpen, colour: Palette.slate, legend: "window hidden")
        default: Mark(lane: .session, glyph: .ring, colour: Palette.grey, legend: command)
        }
    }

    /// The mark for one step of the run, given what it returned.
    static func mark(_ command: Command, _ outcome: StepOutcome) -> Mark {
        switch command {
        case .input(let plain, _): plainMark(plain.command)
        case .activity(let kind):
            kind == .programmatic
                ? Mark(lane: .user, glyph: .ring, colour: Palette.blue, legend: "activity (programmatic)")
                : Mark(lane: .user, glyph: .dot, colour: Palette.blue, legend: "activity")
        case .unlock: Mark(lane: .session, glyph: .squareOpen, colour: Palette.green, legend: "unlock")
        case .unlockFailed: Mark(lane: .session, glyph: .cross, colour: Palette.red, legend: "unlock failed")
        case .end: Mark(lane: .session, glyph: .bar, colour: Palette.ink, legend: "end (logout, ...)")
        case .refresh:
            switch outcome.refresh {
            case .ok: Mark(lane: .session, glyph: .dot, colour: Palette.green, legend: "refresh: ok")
            case .retry: Mark(lane: .session, glyph: .dot, colour: Palette.amber, legend: "refresh: retry")
            case .revoked: Mark(lane: .session, glyph: .dot, colour: Palette.red, legend: "refresh: revoked")
            case .failed: Mark(lane: .session, glyph: .dot, colour: Palette.grey, legend: "refresh: failed")
            case .stale: Mark(lane: .session, glyph: .ring, colour: Palette.amber, legend: "refresh: stale (rotation race)")
            case nil: Mark(lane: .session, glyph: .ring, colour: Palette.grey, legend: "refresh: refused")
            }
        case .setCeilings: Mark(lane: .session, glyph: .bar, colour: Palette.purple, legend: "managed ceiling")
        case .holderReport(let kind, _, _):
            switch kind {
            case .activity: Mark(lane: .user, glyph: .ring, colour: Palette.green, legend: "another holder's activity")
            case .locked, .expired: Mark(lane: .session, glyph: .square, colour: Palette.purple, legend: "another holder locked or ended it")
            case .idleDeadline, .absoluteDeadline:
                Mark(lane: .session, glyph: .diamond, colour: Palette.purple, legend: "another holder's deadline")
            }
        case .pushScope: Mark(lane: .app, glyph: .bracketOpen, colour: Palette.purple, legend: "scope opened")
        case .popScope: Mark(lane: .app, glyph: .bracketClose, colour: Palette.purple, legend: "scope closed")
        case .hold: Mark(lane: .app, glyph: .pause, colour: Palette.amber, legend: "hold")
        case .release: Mark(lane: .app, glyph: .pauseOpen, colour: Palette.amber, legend: "hold released")
        case .setPolicy: Mark(lane: .session, glyph: .diamondOpen, colour: Palette.blue, legend: "policy change")
        case .restore: Mark(lane: .process, glyph: .triangleUpOpen, colour: Palette.green, legend: "restore snapshot")
        case .save: Mark(lane: .process, glyph: .squareOpen, colour: Palette.blue, legend: "save snapshot")
        case .kill: Mark(lane: .process, glyph: .cross, colour: Palette.ink, legend: "process killed")
        case .launch: Mark(lane: .process, glyph: .play, colour: Palette.ink, legend: "launch (new engine)")
        case .reboot: Mark(lane: .process, glyph: .diamond, colour: Palette.brown, legend: "reboot")
        case .wallJump: Mark(lane: .process, glyph: .bar, colour: Palette.brown, legend: "wall clock moved")
        case .freeze: Mark(lane: .process, glyph: .pause, colour: Palette.blue, legend: "freeze (suspended)")
        case .note: Mark(lane: .notes, glyph: .number, colour: Palette.slate, legend: "note (listed below)")
        case .expect:
            outcome.problem == nil
                ? Mark(lane: .checks, glyph: .check, colour: Palette.green, legend: "expectation met")
                : Mark(lane: .checks, glyph: .cross, colour: Palette.red, legend: "expectation FAILED")
        }
    }

    /// The reasons a deadline of the engine gives: a transition with one of them is marked as a
    /// deadline that fired (at the instant it took effect), whoever delivered it.
    static let deadlineReasons: Set<Reason> = [.idle, .idleTimeout, .backgroundTimeout, .absoluteTimeout, .lockedTimeout,
                                               .offlineTimeout, .offlineExpiry]

    /// Band colours, and the colour of text on them.
    static func colours(_ state: SessionState?) -> (fill: String, text: String) {
        switch state {
        case .loading: ("#a0aec0", "#1a202c")
        case .active: ("#38a169", "#ffffff")
        case .warning: ("#ecc94b", "#1a202c")
        case .locked: ("#dd6b20", "#ffffff")
        case .expired: ("#2d3748", "#ffffff")
        case nil: ("#ffffff", "#4a5568")
        }
    }
}
