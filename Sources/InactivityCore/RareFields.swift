// The session fields most engines never use, and which optional fields hold a value: presence
// bits instead of Optional tags, and a side block (scopes, holds, an announced interruption,
// ticks, token generations, ceilings) allocated at its first change, because a process may hold
// a million engines (BENCHMARKS.md, "Memory per engine"). Nothing here decides anything: the
// rules stay in SessionRules.swift and SessionMachine.swift; these types only change where and in how many bytes the
// fields live.

/// Which Optional fields of a `SessionMachine` hold a value, one bit each: an `Int64?` takes 9
/// bytes, 16 with its padding; its value alone takes 8, and the bits of all of them share 2 bytes.
/// No sentinel value stands for nil, so every value stays possible (a crafted snapshot may give
/// any start time, and `Int64.min` must not turn into "no start").
struct Present: OptionSet {
    let rawValue: UInt16

    static let startedAt = Present(rawValue: 1 << 0)
    static let lockedAt = Present(rawValue: 1 << 1)
    static let lastCredentialAt = Present(rawValue: 1 << 2)
    static let lastContactAt = Present(rawValue: 1 << 3)
    static let backgroundSince = Present(rawValue: 1 << 4)
    static let lastBootID = Present(rawValue: 1 << 5)
    /// Its value is in the side allocation (`MachineRare.rawHiddenSince`).
    static let hiddenSince = Present(rawValue: 1 << 6)
}

extension OptionSet {
    /// Sets or clears `member` (a flag of a packed flags byte).
    @inline(__always)
    mutating func set(_ member: Element, _ on: Bool) where Element == Self {
        if on { insert(member) } else { remove(member) }
    }

    /// Sets `field`'s bit when `value` is not nil, clears it otherwise; returns `value`: a
    /// presence bit instead of an Optional's tag byte (and its padding).
    @inline(__always)
    mutating func store<T>(_ value: T?, _ field: Element) -> T? where Element == Self {
        set(field, value != nil)
        return value
    }
}

/// Fields an engine may never use, kept out of it until it does: `Side` holds them in a
/// separate allocation, made at their first change (a million engines that never open a scope
/// pay 8 bytes each for it, not the fields' size). The allocation is kept from then on, so
/// counters such as the next scope id keep counting.
protocol SideFields {
    init()
    /// A box of the defaults that is never written, read while a `Side` has no box of its own.
    static var defaults: SideBox<Self> { get }
}

final class SideBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A value of fields in a side allocation, with value semantics (copied on write when shared:
/// the machine is a value type). Reads before the first change see the fields' defaults.
struct Side<Value: SideFields> {
    private var box: SideBox<Value>?

    init() {}

    var isAllocated: Bool { box != nil }

    var value: Value {
        // Lent, not copied: a read of one field must not copy the whole side struct (its arrays
        // included) on every call. The defaults come from a shared box rather than a temporary:
        // a temporary `Value` would make the accessor's frame too big for the caller's buffer,
        // and the Embedded build then takes every read's frame from malloc.
        _read {
            let lender = box ?? Value.defaults
            yield lender.value
        }
        _modify {
            if box == nil {
                box = SideBox(Value())
            } else if !isKnownUniquelyReferenced(&box!) {
                box = SideBox(box!.value)
            }
            yield &box!.value
        }
    }
}

private let machineRareDefaults = SideBox(MachineRare())

/// `SessionMachine`'s rarely used fields (see `SessionMachine.rare`).
struct MachineRare: SideFields {
    static var defaults: SideBox<MachineRare> { machineRareDefaults }

    var scopes: [(id: UInt64, idleMs: Int64)] = []
    var holds: [UInt64] = []
    var nextScopeID: UInt64 = 1
    var nextHoldID: UInt64 = 1
    var interruption: (start: Int64, end: Int64)?
    var tickIndex: Int64?
    var pendingTick: (index: Int64, time: Int64)?
    var newestGeneration: UInt64 = 0
    /// The administrator's ceilings, nil until the first `set_ceilings` (most engines have none):
    /// the default ones then apply.
    var ceilings: Shared<PolicyCeilings>?
    /// The hidden-grace start's value (see `SessionMachine.hiddenSince`; its presence bit stays
    /// in the machine): only hosts that report visible windows start a grace.
    var rawHiddenSince: Int64 = 0
    /// Another holder's idle deadline, adopted while earlier than this engine's own, and the
    /// instant it was reported (counted activity after that supersedes it).
    var adoptedIdle: (deadline: Int64, at: Int64)?
    /// Another holder's absolute deadline, adopted for the rest of the session.
    var adoptedAbsolute: Int64?
    /// The keepalive (only with `policy.keepaliveIntervalMs` > 0): the instant of the last
    /// KEEPALIVE (or of what stands for one: a sign-in), the user activity it carried, the
    /// last user activity, and a KEEPALIVE due for the host (the activity instant it carries).
    var keepalive = Keepalive()
}

/// The keepalive's fields (`MachineRare.keepalive`). `Int64.min` is "long ago": a session that
/// never pinged is quiet, and activity at any instant is newer than none.
struct Keepalive: Equatable {
    var pingedAt: Int64 = .min
    var carried: Int64 = .min
    var userActivity: Int64 = .min
    var due: Int64?
}
