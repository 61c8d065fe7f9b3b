// The session machine's fields and how they are packed: an engine holds one machine, and a
// process may hold a million engines (BENCHMARKS.md, "Memory per engine"), so the Optional
// fields keep their presence in one bit each (`Present`) and the fields few sessions use live in
// a side allocation (`Side<MachineRare>`), both in RareFields.swift. Nothing here decides anything:
// the rules are in SessionRules.swift (the tables), SessionMachine.swift (inputs, deadlines,
// evaluation) and SessionRestore.swift
// (snapshot and restore), extensions of this struct.
//
// The packed storage (`present`, `rare`, the `raw` values) is private to this file: only the
// accessors below read or write it. The accessors' setters are internal because Swift has no
// access level for a type's extensions in other files; only the machine's own methods set them.

struct SessionMachine {
    /// The policy in force, shared with the engines that use an equal one (SharedPolicies.swift).
    var sharedPolicy: Shared<SessionPolicy>
    var policy: SessionPolicy {
        @inline(__always) get { sharedPolicy.value }
    }
    var unlockFailures: UInt32 = 0
    var visibleWindows: Int32 = 0

    // Session fields (engine-clock milliseconds).
    var startedAt: Int64? {
        get { present.contains(.startedAt) ? rawStartedAt : nil }
        set { rawStartedAt = present.store(newValue, .startedAt) ?? 0 }
    }
    var lastActivity: Int64 = 0
    var lockedAt: Int64? {
        get { present.contains(.lockedAt) ? rawLockedAt : nil }
        set { rawLockedAt = present.store(newValue, .lockedAt) ?? 0 }
    }
    /// The last credential verification (sign-in or credential unlock).
    var lastCredentialAt: Int64? {
        get { present.contains(.lastCredentialAt) ? rawLastCredentialAt : nil }
        set { rawLastCredentialAt = present.store(newValue, .lastCredentialAt) ?? 0 }
    }
    /// The last successful server contact (sign-in, a 2xx refresh, a reported online check).
    var lastContactAt: Int64? {
        get { present.contains(.lastContactAt) ? rawLastContactAt : nil }
        set { rawLastContactAt = present.store(newValue, .lastContactAt) ?? 0 }
    }
    /// The newest refresh-token generation seen (0: none). A sign-in starts a new family.
    var newestGeneration: UInt64 {
        get { rare.isAllocated ? rare.value.newestGeneration : 0 }
        set { if newValue != 0 || rare.isAllocated { rare.value.newestGeneration = newValue } }
    }
    /// An announced expected interruption: a background beginning in [start, end] does not lock
    /// before `end`. Single use; dropped when it lapses, is used, or the session leaves ACTIVE/WARNING.
    var interruption: (start: Int64, end: Int64)? {
        get { rare.isAllocated ? rare.value.interruption : nil }
        set { if newValue != nil || rare.isAllocated { rare.value.interruption = newValue } }
    }
    /// The administrator's limits; every policy applied must be within them. Shared like the
    /// policy, and in the side allocation: until the first `set_ceilings` the defaults apply.
    var sharedCeilings: Shared<PolicyCeilings>? {
        get { rare.isAllocated ? rare.value.ceilings : nil }
        set { if newValue != nil || rare.isAllocated { rare.value.ceilings = newValue } }
    }
    var ceilings: PolicyCeilings { sharedCeilings?.value ?? PolicyCeilings() }

    // Background: `backgroundSince` is background in effect (activity ignored); `hiddenSince` is
    // the instant the visible-window count dropped to 0 while the grace runs.
    var backgroundSince: Int64? {
        get { present.contains(.backgroundSince) ? rawBackgroundSince : nil }
        set { rawBackgroundSince = present.store(newValue, .backgroundSince) ?? 0 }
    }
    /// Its value in the side allocation: only hosts that report visible windows start a grace.
    var hiddenSince: Int64? {
        get { present.contains(.hiddenSince) ? rare.value.rawHiddenSince : nil }
        set {
            if let newValue { rare.value.rawHiddenSince = newValue }
            present.set(.hiddenSince, newValue != nil)
        }
    }

    /// Another holder's idle deadline and the instant it was reported (SessionRules.swift,
    /// `holderIdleDeadline`); nil when none is adopted.
    var adoptedIdle: (deadline: Int64, at: Int64)? {
        get { rare.isAllocated ? rare.value.adoptedIdle : nil }
        set { if newValue != nil || rare.isAllocated { rare.value.adoptedIdle = newValue } }
    }
    /// Another holder's absolute deadline (`holderAbsoluteDeadline`); kept for the session.
    var adoptedAbsolute: Int64? {
        get { rare.isAllocated ? rare.value.adoptedAbsolute : nil }
        set { if newValue != nil || rare.isAllocated { rare.value.adoptedAbsolute = newValue } }
    }
    /// The keepalive's fields; written only while the policy has a keepalive interval.
    var keepalive: Keepalive {
        get { rare.isAllocated ? rare.value.keepalive : Keepalive() }
        set { if newValue != Keepalive() || rare.isAllocated { rare.value.keepalive = newValue } }
    }

    /// True while a hold is open; false without reading the side allocation when it has none.
    var anyHoldOpen: Bool { rare.isAllocated && !rare.value.holds.isEmpty }
    /// The strictest open scope's idle timeout, nil when none is open (nor the side allocated).
    var strictestScopeIdleMs: Int64? {
        rare.isAllocated ? rare.value.scopes.lazy.map { $0.idleMs }.min() : nil
    }

    var scopes: [(id: UInt64, idleMs: Int64)] {
        get { rare.value.scopes }
        _modify { yield &rare.value.scopes }
    }
    var holds: [UInt64] {
        get { rare.value.holds }
        _modify { yield &rare.value.holds }
    }
    var nextScopeID: UInt64 {
        get { rare.value.nextScopeID }
        _modify { yield &rare.value.nextScopeID }
    }
    var nextHoldID: UInt64 {
        get { rare.value.nextHoldID }
        _modify { yield &rare.value.nextHoldID }
    }

    /// The latest instant evaluated; deadlines are never applied before it.
    var cursor: Int64
    /// The countdown tick already covered in WARNING (remaining = k * tick).
    var tickIndex: Int64? {
        get { rare.isAllocated ? rare.value.tickIndex : nil }
        set { if newValue != nil || rare.isAllocated { rare.value.tickIndex = newValue } }
    }
    /// A tick due since the last collect, to deliver if the state did not change.
    var pendingTick: (index: Int64, time: Int64)? {
        get { rare.isAllocated ? rare.value.pendingTick : nil }
        set { if newValue != nil || rare.isAllocated { rare.value.pendingTick = newValue } }
    }
    /// The time of the last change.
    var changedAt: Int64
    /// The boot id of the clock at the last evaluation.
    var lastBootID: UInt64? {
        get { present.contains(.lastBootID) ? rawLastBootID : nil }
        set { rawLastBootID = present.store(newValue, .lastBootID) ?? 0 }
    }

    // The values of the Optional fields above, meaningful while their bit in `present` is set.
    private var rawStartedAt: Int64 = 0
    private var rawLockedAt: Int64 = 0
    private var rawLastCredentialAt: Int64 = 0
    private var rawLastContactAt: Int64 = 0
    private var rawBackgroundSince: Int64 = 0
    private var rawLastBootID: UInt64 = 0
    /// The fields few sessions use (scopes, holds, an announced interruption, the countdown of
    /// WARNING, refresh-token generations, the administrator's ceilings, the hidden-grace start):
    /// in a side allocation made when one of them first takes a value (RareFields.swift). Setting
    /// an Optional of them to nil before then allocates nothing, and a getter reads the value its
    /// setter leaves unallocated (nil, 0, `Keepalive()`) without the shared defaults box: every
    /// deadline scan reads several of them, and each read of the box was a retain and a release
    /// (most of a server decision's time, which never allocates them).
    private var rare = Side<MachineRare>()

    // The one-byte fields last, together: the fields are laid out in this order, and these fill
    // the tail of the machine's last 8 bytes, where the engine's own one-byte fields follow them
    // (a struct's size, not its stride, is where the next field of its container may start).
    // The Optional fields above keep their presence bits in `present`.
    var state: SessionState = .loading
    var reason: Reason = .none
    /// What the host last saw (`collect`).
    var seenState: SessionState = .loading
    /// Sticky until the next credential verification: the enrolled biometrics changed, or a
    /// restore could not tell how long ago the credential was verified.
    var credentialRequired = false
    private var present = Present()

    /// `policy` must be valid (the engine checks it).
    init(policy: SessionPolicy, now: Int64) {
        self.init(policy: Interned.policy(policy), now: now)
    }

    /// With a box of its own, interned nowhere: a server decision (ServerDecision.swift) is a
    /// value computed from its arguments, and takes no lock that another call shares.
    init(unsharedPolicy policy: SessionPolicy, now: Int64) {
        self.init(policy: Shared(policy), now: now)
    }

    private init(policy: Shared<SessionPolicy>, now: Int64) {
        assertValid(policy.value)
        self.sharedPolicy = policy
        self.cursor = now
        self.changedAt = now
    }
}
