// The policies and ceilings that engines share: one immutable box per distinct value, so a
// process of a million engines with one policy keeps one copy of it (BENCHMARKS.md, "Memory
// per engine"). Nothing here decides anything: the rules stay in SessionRules.swift and SessionMachine.swift.

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
