// The activity fast path: a clock read and one compare-and-swap, no lock, no allocation, no
// timer re-arm (docs/design.md, sections 3 and 5).
//
// The engine publishes, under its lock, a word that says whether activity may be recorded
// without it, plus the two limits that make recording safe:
//
//   word    = last activity (44 bits, ms from `base`) | epoch (11) | mode (2) | counted kinds (7)
//   window  = effective idle - warning: activity at or after last activity + window is due
//             for WARNING (or the idle action), so it must go through the lock
//   horizon = the earliest deadline that activity does not move (absolute, background, grace
//             end, offline timeout, offline expiry: every kind of the deadline table
//             (`DeadlineKind`) that activity does not move)
//
// Mode `accept` (ACTIVE, foreground, system clock): the fast path stores `now` with a CAS on
// the word if nothing is due. Mode `acceptListed` (the same with a keepalive and PROGRAMMATIC
// counted): as `accept` for the listed kinds, and the other kinds take the lock, so every
// stamp is the user's activity. Mode `ignore` (LOADING, LOCKED, EXPIRED, background, or WARNING
// that activity may not dismiss; system clock): activity is dropped if nothing is due, `horizon`
// then being the engine's next deadline of any kind. Mode `slow` (manual clocks, WARNING that
// activity dismisses): take the lock. Whatever the mode, a due deadline sends the call through
// the lock, because every call first evaluates the deadlines.
//
// Every locked operation first closes the gate (mode `slow`, epoch + 1) and reads the last
// activity; a fast path that loaded the old word then fails its CAS and retries, so an activity
// can never land on a state it was not judged against. The epoch also makes a stale handle's
// CAS fail once its slot is reused. Only then does the locked operation read the clock: a stamp
// is a clock reading taken before its CAS, so every stamp the close returns is at or before the
// operation's `now` (Engine.perform; read the other way round, a stamp 1 ms after `now` could
// land between the two and was dropped as from the future: issue 26's lost activity).

import Synchronization

struct ActivityGate: ~Copyable {
    /// The handle of the engine that owns this slot. Retired or free: the slot's generation in
    /// the high half and 0 in the low half, which no valid handle has (Registry.swift).
    let handle = Atomic<UInt64>(0)
    let word = Atomic<UInt64>(0)
    let window = Atomic<Int64>(0)
    let horizon = Atomic<Int64>(0)
    let base = Atomic<Int64>(0)

    /// `acceptListed`: as `accept` for the kinds in the word's mask, and every other kind takes
    /// the lock (the machine then decides: a keepalive must not count PROGRAMMATIC activity as
    /// the user's, and a stamp does not say its kind).
    enum Mode: UInt64 {
        case slow = 0, accept = 1, ignore = 2, acceptListed = 3
        /// Activity of a listed kind is stamped without the lock.
        var stamps: Bool { self == .accept || self == .acceptListed }
    }
    /// `handled`: recorded or dropped as the machine's view says, no lock needed; `locked`: the
    /// call must take the engine's lock (a deadline is due, or the mode says so).
    enum FastResult { case handled, locked }

    static let kindMask: UInt64 = 0x7F
    static let modeShift: UInt64 = 7
    static let epochShift: UInt64 = 9
    static let epochMask: UInt64 = 0x7FF
    static let timeShift: UInt64 = 20
    static let timeMax: Int64 = (1 << 44) - 1
    /// How far before the engine's creation the 44-bit time field starts (about 34 years).
    static let baseLead: Int64 = 1 << 40

    /// Prepares the slot for a new engine (called before the handle is published).
    func open(handle h: UInt64, now: Int64) {
        base.store(now &- ActivityGate.baseLead, ordering: .relaxed)
        window.store(0, ordering: .relaxed)
        horizon.store(.min, ordering: .relaxed)
        let old = word.load(ordering: .relaxed)
        let epoch = ((old >> ActivityGate.epochShift) &+ 1) & ActivityGate.epochMask
        word.store(epoch << ActivityGate.epochShift, ordering: .releasing)
        handle.store(h, ordering: .releasing)
    }

    /// Closes the gate for a locked operation and returns the last activity it recorded.
    func close() -> Int64 {
        var w = word.load(ordering: .relaxed)
        while true {
            let epoch = ((w >> ActivityGate.epochShift) &+ 1) & ActivityGate.epochMask
            let closed = (w & ~((ActivityGate.epochMask << ActivityGate.epochShift) | (3 << ActivityGate.modeShift)))
                | (epoch << ActivityGate.epochShift)
            let (done, seen) = word.compareExchange(expected: w, desired: closed, ordering: .acquiringAndReleasing)
            if done { break }
            w = seen
        }
        return base.load(ordering: .relaxed) &+ Int64(w >> ActivityGate.timeShift)
    }

    /// Publishes the machine's view; the gate is closed, so no fast path can race this store.
    func publish(_ view: GateView) {
        window.store(view.window, ordering: .relaxed)
        horizon.store(view.horizon, ordering: .relaxed)
        let w = word.load(ordering: .relaxed)
        let epoch = ((w >> ActivityGate.epochShift) &+ 1) & ActivityGate.epochMask
        let rel = min(max(view.lastActivity &- base.load(ordering: .relaxed), 0), ActivityGate.timeMax)
        let next = (UInt64(rel) << ActivityGate.timeShift) | (epoch << ActivityGate.epochShift)
            | (view.mode.rawValue << ActivityGate.modeShift) | (UInt64(view.kinds.rawValue) & ActivityGate.kindMask)
        word.store(next, ordering: .releasing)
    }

    /// Frees the slot: any fast path still holding the old word fails its CAS. Keeps the
    /// generation (the high half), which the registry still checks handles against.
    /// Sequentially consistent: the registry's release reads the slot's readers after it
    /// (Registry.swift, lock-free lookups).
    func retire() {
        _ = close()
        handle.store(handle.load(ordering: .relaxed) & ~0xFFFF_FFFF, ordering: .sequentiallyConsistent)
    }

    /// The fast path. `expectedHandle` (0 = skip) re-checks that the slot still belongs to the
    /// caller's engine after the word is read.
    @inline(__always)
    func record(kind: UInt32, expectedHandle: UInt64) -> FastResult {
        var w = word.load(ordering: .acquiring)
        while true {
            if expectedHandle != 0 && handle.load(ordering: .acquiring) != expectedHandle { return .locked }
            let mode = (w >> ActivityGate.modeShift) & 3
            if mode == Mode.slow.rawValue { return .locked }
            // Every call first evaluates the deadlines: whatever the activity's fate, if anything
            // is due the locked path must run (and deliver) now.
            let now = SystemClock.monotonicMs()
            let b = base.load(ordering: .relaxed)
            let last = b &+ Int64(w >> ActivityGate.timeShift)
            var due = horizon.load(ordering: .relaxed)
            if mode != Mode.ignore.rawValue {
                due = min(due, deadline(last, plus: window.load(ordering: .relaxed)))
            }
            if now >= due { return .locked }
            if mode == Mode.ignore.rawValue { return .handled }
            if UInt64(kind) & w & ActivityGate.kindMask == 0 {
                return mode == Mode.acceptListed.rawValue ? .locked : .handled
            }
            if now <= last { return .handled }
            let rel = min(now &- b, ActivityGate.timeMax)
            let next = (UInt64(rel) << ActivityGate.timeShift) | (w & ((1 << ActivityGate.timeShift) - 1))
            let (done, seen) = word.compareExchange(expected: w, desired: next, ordering: .acquiringAndReleasing)
            if done { return .handled }
            w = seen
        }
    }
}
