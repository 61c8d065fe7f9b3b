// How an engine's state is stored, kept small because a process may hold a million engines
// (BENCHMARKS.md, "Memory per engine"). Nothing here decides anything: the rules stay in
// SessionMachine.swift; these types only change where and in how many bytes the fields live.

/// An immutable value shared by every engine that holds an equal one: a policy (121 bytes) or
/// the administrator's ceilings (70 bytes) changes only on `set_policy` / `set_ceilings`, and
/// most processes give all their engines the same one, so each engine keeps a reference (8
/// bytes) instead of a copy. Never mutated: a new value is a new box.
final class Shared<Value: Equatable>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The boxes last handed out, one per kind of value: an engine given the same policy as the
/// engine before it shares that engine's box. (A one-entry cache, not a table: it costs one
/// comparison, keeps at most one box alive that no engine uses, and covers the common case of
/// many engines created with one policy.)
enum Interned {
    private static let lastPolicy = Locked(Shared(SessionPolicy()))
    private static let lastCeilings = Locked(Shared(PolicyCeilings()))

    static func policy(_ p: SessionPolicy) -> Shared<SessionPolicy> { intern(p, lastPolicy) }
    static func ceilings(_ c: PolicyCeilings) -> Shared<PolicyCeilings> { intern(c, lastCeilings) }

    private static func intern<V>(_ value: V, _ last: Locked<Shared<V>>) -> Shared<V> {
        last.withLock { box in
            if box.value != value { box = Shared(value) }
            return box
        }
    }
}

/// Which Optional fields of a `SessionMachine` hold a value, one bit each: an `Int64?` takes 9
/// bytes, 16 with its padding; its value alone takes 8, and the bits of all ten share 2 bytes.
/// No sentinel value stands for nil, so every value stays possible (a crafted snapshot may give
/// any start time, and `Int64.min` must not turn into "no start").
struct Present: OptionSet {
    let rawValue: UInt16

    static let startedAt = Present(rawValue: 1 << 0)
    static let lockedAt = Present(rawValue: 1 << 1)
    static let lastCredentialAt = Present(rawValue: 1 << 2)
    static let lastContactAt = Present(rawValue: 1 << 3)
    static let interruption = Present(rawValue: 1 << 4)
    static let backgroundSince = Present(rawValue: 1 << 5)
    static let hiddenSince = Present(rawValue: 1 << 6)
    static let tickIndex = Present(rawValue: 1 << 7)
    static let pendingTick = Present(rawValue: 1 << 8)
    static let lastBootID = Present(rawValue: 1 << 9)

    /// Sets `field`'s bit when `value` is not nil, clears it otherwise; returns `value`.
    @inline(__always)
    mutating func store<T>(_ value: T?, _ field: Present) -> T? {
        if value == nil { remove(field) } else { insert(field) }
        return value
    }
}
