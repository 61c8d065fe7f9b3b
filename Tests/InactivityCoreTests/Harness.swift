import Synchronization
import Testing
@testable import InactivityCore

/// Collects an engine's events (thread-safe).
final class Recorder: Sendable {
    private let storage = Mutex<[SessionEvent]>([])
    var events: [SessionEvent] { storage.withLock { $0 } }
    var changes: [SessionEvent] { events.filter { $0.kind == .stateChanged } }
    var ticks: [SessionEvent] { events.filter { $0.kind == .tick } }
    func record(_ e: SessionEvent) { storage.withLock { $0.append(e) } }
    func clear() { storage.withLock { $0.removeAll() } }
    /// (state, reason, time) of each state change.
    var transitions: [Transition] { changes.map { Transition($0.state, $0.reason, $0.timeMs) } }
}

struct Transition: Equatable, CustomStringConvertible {
    var state: SessionState
    var reason: Reason
    var time: Int64
    init(_ s: SessionState, _ r: Reason, _ t: Int64) { state = s; reason = r; time = t }
    var description: String { "\(state)/\(reason)@\(time)" }
}

let second: Int64 = 1_000
let minute: Int64 = 60_000
let hour: Int64 = 3_600_000

/// A host-mode engine on its own manual clock at 0 ms, with a recorder.
struct Rig {
    let clock: ManualClock
    let engine: InactivityEngine
    let recorder: Recorder

    init(_ policy: SessionPolicy = SessionPolicy(), clock: ManualClock? = nil,
         delivery: InactivityEngine.Delivery = .host) {
        let c = clock ?? (try! ManualClock())
        let r = Recorder()
        self.clock = c
        self.recorder = r
        self.engine = try! InactivityEngine(policy: policy, clock: .manual(c), delivery: delivery,
                                            onEvent: { r.record($0) })
    }

    var now: Int64 { clock.now().monotonicMs }
    var state: SessionState { try! engine.state() }
    var reason: Reason { try! engine.reason() }

    /// Moves the clock to absolute time `t`.
    func at(_ t: Int64) {
        precondition(t >= now, "time goes forward only")
        try! clock.advance(by: t - now)
    }

    func advance(_ ms: Int64) { try! clock.advance(by: ms) }

    /// Moves time as for a frozen process (nothing delivered), then makes one call: catch-up.
    func freezeThenPoll(_ ms: Int64) {
        try! clock.freeze(for: ms)
        try! engine.poll()
    }
}

/// A small test policy: idle 10 s, warning 3 s, tick 1 s, background 5 s, grace 700 ms.
func smallPolicy(_ edit: (inout SessionPolicy) -> Void = { _ in }) -> SessionPolicy {
    var p = SessionPolicy()
    p.idleTimeoutMs = 10 * second
    p.warningMs = 3 * second
    p.tickMs = 1 * second
    p.backgroundTimeoutMs = 5 * second
    p.absoluteTimeoutMs = 1 * hour
    edit(&p)
    return p
}

/// The error code a call throws, or nil when it succeeds.
func errorCode(_ body: () throws -> Void) -> InactivityError.Code? {
    do {
        try body()
        return nil
    } catch let error as InactivityError {
        return error.code
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

func errorMessage(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as InactivityError {
        return error.message
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}
