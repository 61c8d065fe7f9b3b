// The session's rules, as tables: what every input does in every state, every deadline (when it
// falls, where it runs, where it leads, which wins a tie), and the named conditions and refusals
// the tables use. SessionMachine.swift executes them; nothing else decides a state.
//
// Theory of operation
// -------------------
// The machine (SessionMachine.swift, its fields in SessionFields.swift) is a value with no clock,
// no lock and no thread. Two things move a session between its five states:
//
// 1. Inputs. `Input.cell(in:)` is the transition table: one `Cell` per (input, state) with its
//    outcome (`refused`: INACT_E_INVALID_STATE, nothing changes; `noOp`: success, nothing
//    changes; `applied`; `appliedIf` a condition holds, else a no-op), its move (where the
//    applied input takes the session, possibly only when a condition holds) and its refusals
//    (what can still refuse the applied input, each named, with its status). Every input method
//    of the machine starts with `admits(.input)`, raises a refusal only through
//    `refuse(.input, .refusal, if:)` (which asserts that the cell lists it) and changes the state
//    only through `move(by: .input)`. A condition never tests the state: the state is the
//    table's column, so a cell says everything the input does in that state. The refusals that
//    only check an argument's own range (a kind 0, a negative duration, an invalid policy) are
//    not in the table: they are the same in every state, and the engine's boundary checks them
//    (EngineAPI.swift, the C shims).
// 2. Deadlines. `DeadlineKind` lists them in tie order (most severe first); `rule` says where
//    each runs and where it leads, and `SessionMachine.time(of:)` when it falls, derived from
//    the fields on demand (never stored, so never stale). `time(of:)` is a switch with no default:
//    a new kind does not compile without its time, and every reader of deadlines (evaluation,
//    the next wake-up, the next lock or expiry a countdown shows, the activity gate's horizon)
//    goes through it.
//
// Three more rules move the state, each a constant here: WARNING ends when its deadline is no
// longer due (`warningEnds`), a clock that jumps back or changes boots locks a live session
// (`clockDiscontinuity`), and a restore lands where `RestoreRule` says.
//
// Generated from these tables, with a test that fails when a copy is stale (StateDiagramTests,
// rewritten by scripts/state-diagram): the README's state diagram, docs/design.md's transition,
// deadline and reason tables, and Tests/CTests/state_edges.inc, the edge list the C test
// `every_input_in_every_state_makes_only_the_diagram_edges` checks against behaviour.

/// An input the host gives the engine. Its row in the transition table is `cell(in:)`.
///
/// Adding an input: a case here, its row in `cell(in:)` and its `name`, and a method on
/// `SessionMachine` that starts with `guard try admits(.input) else { return }` and ends with
/// `move(by: .input, at: now)` (CONTRIBUTING.md lists the rest).
enum Input: CaseIterable {
    case start, restore, activity, continueSession, lock, unlock, unlockFailed, end
    case refreshResult, refreshRevoked, background, foreground, windowShown, windowHidden
    case pushScope, popScope, acquireHold, releaseHold, setPolicy
    case expectInterruption, deviceLocked, biometricsChanged, tokenRotated
    case serverContact, setCeilings, snapshot
    // What another holder of the session reports (inact_holder_report), one case per kind.
    case holderActivity, holderLocked, holderExpired, holderIdleDeadline, holderAbsoluteDeadline

    /// The transition table: what the input does in `state`, and where it leads.
    func cell(in state: SessionState) -> Cell {
        let row = self.row
        switch state {
        case .loading: return row.0
        case .active: return row.1
        case .warning: return row.2
        case .locked: return row.3
        case .expired: return row.4
        }
    }

    // The rows, one cell per state. Shorthands: `no` refused, `noOp`, `stay` applied without a
    // move, `go(state, reason)` applied and moves.
    private var row: (Cell, Cell, Cell, Cell, Cell) {
        let no = Cell.refused, noOp = Cell.noOp, stay = Cell.stays
        switch self {
        //                       LOADING        ACTIVE         WARNING        LOCKED         EXPIRED
        case .start:           return (go(.active, .started), no, no, no, go(.active, .started))
        case .restore:         return (Cell(.applied, .toSnapshot), no, no, no, no)
        case .activity:        return (noOp, Cell(.appliedIf(.activityCounts), .stays),
                                       Cell(.appliedIf(.activityDismissesWarning), .to(.active, .activity)), noOp, noOp)
        case .continueSession: return (no, no, go(.active, .continued), no, no)
        // LOCKED: a lock screen is never shown twice.
        case .lock:            return (no, go(.locked, .manualLock), go(.locked, .manualLock), noOp, no)
        case .unlock:          return (no, no, no,
                                       go(.active, .unlocked, refusing: [.backgroundTimeoutPassed, .offline, .weakMethod]), no)
        case .unlockFailed:    return (no, no, no,
                                       Cell(.applied, .toIf(.failuresAtLimit, .expired, .unlockFailures), [.weakMethod]), no)
        case .end:             let end = Cell(.applied, .toNamedReason(.expired))
                               return (end, end, end, end, noOp)
        case .refreshResult:   return (noOp, noOp, noOp, noOp, noOp)
        case .refreshRevoked:  let revoked = go(.expired, .revoked)
                               return (revoked, revoked, revoked, revoked, noOp)
        // Only a live session has a background timeout to spare.
        case .expectInterruption:
                               let announce = Cell(.applied, .stays, [.overInterruptionCap, .announcedInBackground])
                               return (no, announce, announce, no, no)
        // Background starts in every state; a live session locks too when the policy says so.
        case .deviceLocked:    let lock = Cell(.applied, .toIf(.lockOnDeviceLock, .locked, .deviceLocked))
                               return (stay, lock, lock, stay, stay)
        case .windowShown:     return every(Cell(.applied, .stays, [.windowLimit]))
        case .windowHidden:    return every(Cell(.applied, .stays, [.noWindowShown]))
        case .pushScope:       return every(Cell(.applied, .stays, [.scopeNotAboveWarning, .scopeLimit]))
        case .popScope:        return every(Cell(.applied, .stays, [.scopeNotOpen]))
        case .acquireHold:     return every(Cell(.applied, .stays, [.holdLimit]))
        case .releaseHold:     return every(Cell(.applied, .stays, [.holdNotOpen]))
        // A failure limit brought to or below the failures counted: the attempts allowed are
        // spent, as at the failed unlock that reaches it.
        case .setPolicy:       let refusals: [Refusal] = [.laxerThanCeiling, .warningNotBelowScopes]
                               let set = Cell(.applied, .stays, refusals)
                               return (set, set, set, Cell(.applied, .toIf(.failuresAtLimit, .expired, .unlockFailures), refusals), set)
        case .setCeilings:     let set = Cell(.applied, .stays, [.tightenedPolicyInvalid])
                               return (set, set, set, Cell(.applied, .toIf(.failuresAtLimit, .expired, .unlockFailures),
                                                           [.tightenedPolicyInvalid]), set)
        case .tokenRotated:    return every(Cell(.applied, .stays, [.olderGeneration]))
        // No session to save in LOADING.
        case .snapshot:        return (no, stay, stay, stay, stay)
        case .background, .foreground, .biometricsChanged, .serverContact:
                               return every(stay)
        // A holder only makes the session stricter: nothing it reports unlocks or extends.
        // Its activity counts as the user's where local activity would (whatever this
        // engine's background: the holder saw the user), and dismisses a warning only where
        // the policy lets activity do so.
        case .holderActivity:  return (noOp, stay, Cell(.appliedIf(.holderActivityDismissesWarning), .to(.active, .activity)),
                                       noOp, noOp)
        // Strictest wins: a session already LOCKED or EXPIRED keeps its own reason.
        case .holderLocked:    let follow = Cell(.applied, .toNamedReason(.locked))
                               return (no, follow, follow, noOp, noOp)
        case .holderExpired:   let follow = Cell(.applied, .toNamedReason(.expired))
                               return (follow, follow, follow, follow, noOp)
        // The earlier of this engine's deadline and the holder's; only where that deadline
        // runs (no session to adopt it in LOADING: refused, so that it is not lost unsaid).
        case .holderIdleDeadline:
                               return (no, stay, stay, noOp, noOp)
        case .holderAbsoluteDeadline:
                               return (no, stay, stay, stay, noOp)
        }
    }

    /// The reasons a `toNamedReason` move may name: what the input's boundary accepts.
    var namedReasons: [Reason] {
        switch self {
        case .end: Reason.allCases.filter { $0.isEnding }
        case .holderLocked: Reason.allowed(in: .locked)
        case .holderExpired: Reason.allowed(in: .expired)
        default: []
        }
    }

    private func go(_ state: SessionState, _ reason: Reason, refusing refusals: [Refusal] = []) -> Cell {
        Cell(.applied, .to(state, reason), refusals)
    }

    private func every(_ cell: Cell) -> (Cell, Cell, Cell, Cell, Cell) { (cell, cell, cell, cell, cell) }

    var name: StaticString {
        switch self {
        case .start: "start"
        case .restore: "restore"
        case .activity: "activity"
        case .continueSession: "continue"
        case .lock: "lock"
        case .unlock: "unlock"
        case .unlockFailed: "unlock failed"
        case .end: "end"
        case .refreshResult: "refresh result"
        case .refreshRevoked: "revoked refresh"
        case .background: "background"
        case .foreground: "foreground"
        case .windowShown: "window shown"
        case .windowHidden: "window hidden"
        case .pushScope: "push scope"
        case .popScope: "pop scope"
        case .acquireHold: "acquire hold"
        case .releaseHold: "release hold"
        case .setPolicy: "set policy"
        case .expectInterruption: "expect interruption"
        case .deviceLocked: "device locked"
        case .biometricsChanged: "biometrics changed"
        case .tokenRotated: "token rotated"
        case .serverContact: "server contact"
        case .setCeilings: "set ceilings"
        case .snapshot: "snapshot"
        case .holderActivity: "holder activity"
        case .holderLocked: "holder locked"
        case .holderExpired: "holder expired"
        case .holderIdleDeadline: "holder idle deadline"
        case .holderAbsoluteDeadline: "holder absolute deadline"
        }
    }
}

/// What an input does in one state, where it takes the session, and what can still refuse it.
struct Cell: Equatable {
    var outcome: Outcome
    var move: Move
    /// The refusals of an admitted input, in the order the machine checks them (the first that
    /// holds is the error). Each is raised only through `SessionMachine.refuse`.
    var refusals: [Refusal]

    init(_ outcome: Outcome, _ move: Move, _ refusals: [Refusal] = []) {
        (self.outcome, self.move, self.refusals) = (outcome, move, refusals)
    }

    static let refused = Cell(.refused, .stays)
    static let noOp = Cell(.noOp, .stays)
    static let stays = Cell(.applied, .stays)
}

/// Whether an input is taken in one state.
enum Outcome: Equatable {
    /// Refused with `invalidState`; nothing changes.
    case refused
    /// Accepted; nothing changes.
    case noOp
    /// The input's effect is applied.
    case applied
    /// Applied when the condition holds at the time of the call; a no-op otherwise.
    case appliedIf(Condition)
}

/// Where an applied input takes the session.
enum Move: Equatable {
    /// The input does not change the state (fields may; in WARNING an idle deadline moved
    /// later ends the warning by its own rule, `warningEnds`).
    case stays
    /// To this state and reason (from the same state: the fields change, the state does not).
    case to(SessionState, Reason)
    /// To this state and reason when the condition holds; else stays.
    case toIf(Condition, SessionState, Reason)
    /// To this state, with the reason the input names (`end`).
    case toNamedReason(SessionState)
    /// To the snapshot's state, judged at this clock (`RestoreRule`).
    case toSnapshot
}

/// What an outcome or a move may depend on besides the state. Never the state itself: the
/// state is the table's column.
enum Condition: Equatable, CaseIterable {
    /// The policy counts the activity's kind and the app is in foreground.
    case activityCounts
    /// As `activityCounts`, and `policy.activityDismissesWarning` is set.
    case activityDismissesWarning
    /// `policy.lockOnDeviceLock` is set.
    case lockOnDeviceLock
    /// The failures in a row reached `policy.maxUnlockFailures` (not 0, unlimited).
    case failuresAtLimit
    /// `policy.activityDismissesWarning` is set (a holder's activity: the holder judged its
    /// kind, and saw the user whatever this engine's background).
    case holderActivityDismissesWarning
}

/// Why an input the state admits is still refused: each a named condition with its status.
/// The cells list which may refuse each input.
enum Refusal: Equatable, CaseIterable {
    /// In background (in effect, not a grace) for at least the background timeout: an ACTIVE
    /// session would lock again at once, LOCKED to LOCKED with no event for the host.
    case backgroundTimeoutPassed
    /// No successful server contact for the offline timeout.
    case offline
    /// The method is weaker than the lock requires (`requiredAuth`).
    case weakMethod
    /// Already in background or its grace: an announcement must come before the sheet.
    case announcedInBackground
    /// `max_ms` above `policy.expected_interruption_max_ms`.
    case overInterruptionCap
    /// The visible-window count is at its leak guard.
    case windowLimit
    /// A window hidden with none shown.
    case noWindowShown
    /// A scope's idle timeout not longer than the policy's warning.
    case scopeNotAboveWarning
    /// `maxOpenScopesOrHolds` scopes already open.
    case scopeLimit
    /// The id names no open scope.
    case scopeNotOpen
    /// `maxOpenScopesOrHolds` holds already open.
    case holdLimit
    /// The id names no open hold.
    case holdNotOpen
    /// A policy laxer than a ceiling set on the engine.
    case laxerThanCeiling
    /// A policy whose warning is not shorter than every open scope's idle timeout.
    case warningNotBelowScopes
    /// Ceilings that make the current policy invalid.
    case tightenedPolicyInvalid
    /// A rotated generation older than the newest seen.
    case olderGeneration

    var status: InactivityError.Code {
        switch self {
        case .backgroundTimeoutPassed, .announcedInBackground, .noWindowShown: .invalidState
        case .offline: .offline
        case .weakMethod: .weakAuth
        case .overInterruptionCap, .scopeNotAboveWarning, .warningNotBelowScopes, .tightenedPolicyInvalid,
             .olderGeneration: .invalidArgument
        case .windowLimit, .scopeLimit, .holdLimit: .limit
        case .scopeNotOpen, .holdNotOpen: .notFound
        case .laxerThanCeiling: .ceiling
        }
    }

    /// The rule, as the docs' transition table states it.
    var rule: String {
        switch self {
        case .backgroundTimeoutPassed: "in background past the background timeout"
        case .offline: "past the offline timeout"
        case .weakMethod: "a method weaker than required"
        case .announcedInBackground: "in background or its grace"
        case .overInterruptionCap: "max_ms above the policy's cap"
        case .windowLimit: "at the window limit"
        case .noWindowShown: "no window shown"
        case .scopeNotAboveWarning: "a timeout not above the warning"
        case .scopeLimit: "1024 scopes open"
        case .scopeNotOpen: "no such scope"
        case .holdLimit: "1024 holds open"
        case .holdNotOpen: "no such hold"
        case .laxerThanCeiling: "laxer than a ceiling"
        case .warningNotBelowScopes: "a warning not below every scope"
        case .tightenedPolicyInvalid: "the tightened policy invalid"
        case .olderGeneration: "an older generation"
        }
    }
}

// MARK: - Deadlines

/// The deadlines, in tie-break order: at the same instant the earlier case is applied first
/// (most severe first), so simultaneous idle lock and absolute expiry end in EXPIRED.
enum DeadlineKind: Int, Comparable, CaseIterable {
    case absolute, offlineExpiry, lockedTimeout, idleExpire, offlineLock, background, idleLock, graceEnd, warning, tick
    case keepalive
    static func < (a: DeadlineKind, b: DeadlineKind) -> Bool { a.rawValue < b.rawValue }

    /// Every kind in tie order, without an array: `allCases` builds one on each call (an
    /// allocation per deadline scan, and a scan runs at every evaluation). The raw values are
    /// the cases' positions, 0 ..< count, so this is `allCases` itself (StateDiagramTests checks it).
    static var inOrder: LazyMapSequence<Range<Int>, DeadlineKind> {
        (0..<(DeadlineKind.keepalive.rawValue + 1)).lazy.map { DeadlineKind(rawValue: $0)! }
    }

    /// The deadline table: the states the deadline runs in, the state and reason it leads to
    /// (nil: the state does not change), and whether counted activity moves it (the activity
    /// gate covers those with its window; the others are its horizon).
    var rule: (runsIn: StateSet, to: (state: SessionState, reason: Reason)?, movesWithActivity: Bool) {
        switch self {
        case .absolute:      ([.active, .warning, .locked], (.expired, .absoluteTimeout), false)
        case .offlineExpiry: ([.active, .warning, .locked], (.expired, .offlineExpiry), false)
        case .lockedTimeout: ([.locked],                    (.expired, .lockedTimeout), false)
        case .idleExpire:    ([.active, .warning],          (.expired, .idleTimeout), true)
        case .offlineLock:   ([.active, .warning],          (.locked, .offlineTimeout), false)
        case .background:    ([.active, .warning],          (.locked, .backgroundTimeout), false)
        case .idleLock:      ([.active, .warning],          (.locked, .idleTimeout), true)
        case .graceEnd:      (.all,                         nil, false)   // background takes effect
        case .warning:       ([.active],                    (.warning, .idle), true)
        case .tick:          ([.warning],                   nil, true)    // a countdown TICK event
        // A KEEPALIVE event when user activity since the last one is to be carried (never in
        // LOADING, LOCKED, EXPIRED: a due one is dropped by the lock or expiry). Activity does not
        // move it: at the interval's end it falls whatever came since (the gate's horizon), and
        // the first activity after a quiet interval takes the lock (`gateMode`).
        case .keepalive:     ([.active, .warning],          nil, false)
        }
    }

    func runs(in state: SessionState) -> Bool { rule.runsIn.contains(state) }

    /// Only an event for the host (a countdown tick, a keepalive): an engine nobody receives
    /// events from need not wake for it; its next evaluation covers it.
    var onlyEvent: Bool { self == .tick || self == .keepalive }

    /// A lock or an expiry: what a countdown's remaining time counts to.
    var locksOrExpires: Bool {
        guard let to = rule.to?.state else { return false }
        return to == .locked || to == .expired
    }
}

extension SessionMachine {
    /// The deadline table's times: when each deadline falls, from the fields; nil when it does
    /// not run now. A switch with no default: a kind added without its time does not compile.
    func time(of kind: DeadlineKind) -> Int64? {
        guard kind.runs(in: state) else { return nil }
        switch kind {
        case .absolute: return absoluteDeadline
        case .offlineExpiry: return offlineExpiryDeadline
        case .lockedTimeout: return lockedDeadline
        case .idleExpire: return policy.idleAction == .expire ? idleDeadline : nil
        case .offlineLock: return offlineLockDeadline
        case .background: return backgroundDeadline
        case .idleLock: return policy.idleAction == .lock ? idleDeadline : nil
        case .graceEnd: return graceDeadline
        case .warning: return warningDeadline
        case .tick: return tickDeadline?.time
        case .keepalive: return keepaliveDeadline
        }
    }
}

/// A set of states as bits.
struct StateSet: OptionSet {
    let rawValue: UInt8
    static let loading = StateSet(rawValue: 1 << 0)
    static let active = StateSet(rawValue: 1 << 1)
    static let warning = StateSet(rawValue: 1 << 2)
    static let locked = StateSet(rawValue: 1 << 3)
    static let expired = StateSet(rawValue: 1 << 4)
    static let all: StateSet = [.loading, .active, .warning, .locked, .expired]

    func contains(_ state: SessionState) -> Bool { rawValue & (1 << UInt8(state.rawValue)) != 0 }
}

// MARK: - The rules besides inputs and deadlines

extension SessionMachine {
    /// WARNING ends by itself when its deadline is no longer due.
    static let warningEnds = (from: SessionState.warning, to: SessionState.active, reason: Reason.extended)
    /// A running session whose clock jumped back or changed boots (`observe`).
    static let clockDiscontinuity = (from: [SessionState.active, .warning], to: SessionState.locked,
                                     reason: Reason.untrustedClock)
}

/// Where a restore lands (SessionRestore.swift applies them in this order).
enum RestoreRule {
    /// Corrupt bytes: a session that cannot be trusted needs a full sign-in.
    static let corrupt = (state: SessionState.expired, reason: Reason.restoreFailed)
    /// The snapshot's session as it was, with the deadlines that fell due meanwhile applied
    /// (each with its own reason, `DeadlineKind.rule`; a WARNING reached that way reads RESTORED).
    static let asSaved = Reason.restored
    /// The elapsed time is only estimated (another boot, the clock behind): never ACTIVE.
    static let estimated = (from: [SessionState.active, .warning, .locked], state: SessionState.locked,
                            reason: Reason.untrustedClock)
    /// Not even estimated (the wall clock behind the snapshot's too).
    static let unknown = (from: [SessionState.active, .warning, .locked], state: SessionState.expired,
                          reason: Reason.untrustedClock)
    /// `policy.lockOnRestart`: a live outcome is LOCKED at the restore (after the clock's rules:
    /// an untrusted restore keeps UNTRUSTED_CLOCK).
    static let lockOnRestart = (from: [SessionState.active, .warning], state: SessionState.locked,
                                reason: Reason.restart)
    /// The restoring engine's `policy.maxUnlockFailures` at or below the failures the snapshot
    /// counted (`Condition.failuresAtLimit`): the attempts allowed are spent, as at the failed
    /// unlock that reaches the limit.
    static let failuresSpent = (from: [SessionState.locked], state: SessionState.expired,
                                reason: Reason.unlockFailures)
}
