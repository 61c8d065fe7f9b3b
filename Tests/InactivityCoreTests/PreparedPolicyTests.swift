import Testing
@testable import InactivityCore

/// `PreparedPolicy` (inact_server_policy_prepare) and the decision under it
/// (inact_server_decide_prepared): the same decision as under the policy itself, for any
/// policy, record, instant and input; and a block that is not what `prepare` wrote is refused.
/// The C suite (test_server.c) and the Python suite (test_server_core.py) check the same
/// through the ABI.
@Suite("Prepared policy")
struct PreparedPolicyTests {
    static let t0: Int64 = 1_700_000_000_000

    /// A small deterministic generator (the tests are reproducible).
    struct Draw {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        mutating func below(_ n: Int64) -> Int64 { Int64(next() % UInt64(n)) }
        mutating func pick<T>(_ xs: [T]) -> T { xs[Int(next() % UInt64(xs.count))] }
    }

    /// A valid policy: a preset, or the small test policy, with some of its fields redrawn.
    static func policy(_ g: inout Draw) -> SessionPolicy {
        while true {
            var p = g.below(3) == 0 ? smallPolicy() : SessionPolicy(preset: g.pick(SessionPolicy.Preset.allCases))
            if g.below(2) == 0 { p.idleTimeoutMs = g.pick([5 * second, 10 * second, minute, SessionPolicy.never]) }
            if g.below(2) == 0 { p.warningMs = g.pick([0, 1 * second, 3 * second]) }
            if g.below(2) == 0 { p.idleAction = g.pick([.lock, .expire]) }
            if g.below(2) == 0 { p.maxUnlockFailures = UInt32(g.below(4)) }
            if g.below(2) == 0 { p.lockedTimeoutMs = g.pick([SessionPolicy.never, 20 * second]) }
            if g.below(2) == 0 { p.absoluteTimeoutMs = g.pick([SessionPolicy.never, 30 * second, hour]) }
            if g.below(2) == 0 { p.tickMs = g.pick([0, 1 * second, 700]) }
            if g.below(2) == 0 { p.activityDismissesWarning.toggle() }
            if g.below(2) == 0 { p.activityKinds = g.pick([.user, .all, .programmatic, [.key, .pointer]]) }
            if g.below(4) == 0 { p.strongAuthTimeoutMs = g.pick([0, minute]) }
            if g.below(4) == 0 { p.lockOnRestart.toggle() }
            if (try? p.validate()) != nil { return p }
        }
    }

    static func prepared(_ policy: SessionPolicy) throws -> [UInt8] {
        var block = [UInt8](repeating: 0xA5, count: PreparedPolicy.size)
        try block.withUnsafeMutableBytes { b in try PreparedPolicy.prepare(policy, into: b.baseAddress!) }
        return block
    }

    static func read(_ block: [UInt8]) throws -> SessionPolicy {
        try block.withUnsafeBytes { b in try PreparedPolicy.read(b.baseAddress!) }
    }

    /// The decision under the prepared block, with its record as `decide` gives it.
    static func decidePrepared(_ block: [UInt8], _ record: [UInt8]?, at now: Int64, _ input: Int32, _ arg: Int64,
                               precision: Int64) throws -> ServerDecision {
        var out = [UInt8](repeating: 0, count: Snapshot.byteCount)
        let (d, written) = try out.withUnsafeMutableBytes { o in
            try block.withUnsafeBytes { b in
                if let record {
                    return try record.withUnsafeBytes { r in
                        try ServerRecord.decide(prepared: b.baseAddress!, record: r, nowMs: now, input: input, arg: arg,
                                                precisionMs: precision, into: o.baseAddress!)
                    }
                }
                return try ServerRecord.decide(prepared: b.baseAddress!, record: nil, nowMs: now, input: input, arg: arg,
                                               precisionMs: precision, into: o.baseAddress!)
            }
        }
        var result = d
        result.record = written ? out : nil
        return result
    }

    @Test func a_prepared_block_gives_back_every_field_of_the_policy() throws {
        // The block carries as many fields as the policy has: one added to SessionPolicy must be
        // added to the block too (prepare, read) and set apart from its default below.
        #expect(Mirror(reflecting: SessionPolicy()).children.count == PreparedPolicy.fieldCount)
        var g = Draw(state: 11)
        for _ in 0..<200 {
            let p = PreparedPolicyTests.policy(&g)
            #expect(try PreparedPolicyTests.read(try PreparedPolicyTests.prepared(p)) == p)
        }
        // Every field, each set apart from its default, comes back.
        var p = SessionPolicy()
        p.backgroundGraceMs = 1234
        p.pauseIdleInBackground = true
        p.expectedInterruptionMaxMs = 4321
        p.lockOnDeviceLock = true
        p.offlineTimeoutMs = hour
        p.offlineExpiryMs = 2 * hour
        p.keepaliveIntervalMs = 5 * second
        p.backgroundTimeoutMs = 0
        #expect(try PreparedPolicyTests.read(try PreparedPolicyTests.prepared(p)) == p)
    }

    @Test func an_invalid_policy_is_refused_and_nothing_is_written() throws {
        var bad = smallPolicy()
        bad.warningMs = bad.idleTimeoutMs
        var block = [UInt8](repeating: 0xA5, count: PreparedPolicy.size)
        #expect(throws: InactivityError.self) {
            try block.withUnsafeMutableBytes { b in try PreparedPolicy.prepare(bad, into: b.baseAddress!) }
        }
        #expect(block.allSatisfy { $0 == 0xA5 })
    }

    /// Each byte of a block changed (two ways), a block of zeros, of another layout (with its
    /// check word made right), or with a flag out of its range: refused, naming `prepared`.
    @Test func a_block_changed_anywhere_is_refused_naming_prepared() throws {
        let block = try PreparedPolicyTests.prepared(smallPolicy())
        func refusal(_ b: [UInt8]) -> String? {
            do {
                _ = try PreparedPolicyTests.read(b)
                return nil
            } catch let error as InactivityError {
                #expect(error.code == .invalidArgument)
                return error.message
            } catch {
                return "\(error)"
            }
        }
        for i in 0..<PreparedPolicy.size {
            for bit: UInt8 in [0x01, 0x80] {
                var b = block
                b[i] ^= bit
                let m = refusal(b)
                #expect(m?.hasPrefix("prepared ") == true, "byte \(i) bit \(bit): \(m ?? "accepted")")
            }
        }
        #expect(refusal([UInt8](repeating: 0, count: PreparedPolicy.size))?.hasPrefix("prepared is not a prepared policy") == true)
        func resealed(_ edit: (inout [UInt8]) -> Void) -> [UInt8] {
            var b = block
            edit(&b)
            let word = b.withUnsafeBytes { PreparedPolicy.checkWord($0.baseAddress!) }
            withUnsafeBytes(of: word.littleEndian) { for (k, x) in $0.enumerated() { b[PreparedPolicy.checkAt + k] = x } }
            return b
        }
        #expect(refusal(resealed { $0[8] = 2 })?.hasPrefix("prepared has layout 2") == true)
        // The flag activity_dismisses_warning (field 10) as 2; the idle action (field 2) as 7.
        #expect(refusal(resealed { $0[PreparedPolicy.fieldsAt + 8 * 10] = 2 })?.hasPrefix("prepared is corrupt") == true)
        #expect(refusal(resealed { $0[PreparedPolicy.fieldsAt + 8 * 2] = 7 })?.hasPrefix("prepared is corrupt") == true)
        // A duration out of its range, resealed: the idle timeout (field 0) negative, the
        // warning (field 1) past the idle timeout, the keepalive (field 18) at 1 ms.
        func setField(_ i: Int, _ v: Int64) -> [UInt8] {
            resealed { b in withUnsafeBytes(of: v.littleEndian) { for (k, x) in $0.enumerated() { b[PreparedPolicy.fieldsAt + 8 * i + k] = x } } }
        }
        #expect(refusal(setField(0, -5))?.hasPrefix("prepared is corrupt") == true)
        #expect(refusal(setField(1, Int64.max - 1))?.hasPrefix("prepared is corrupt") == true)
        #expect(refusal(setField(18, 1))?.hasPrefix("prepared is corrupt") == true)
        // Resealed unchanged: accepted (the check above refuses for the change, not the reseal).
        #expect(refusal(resealed { _ in }) == nil)
    }

    /// Random policies x records x instants x inputs: the decision under the prepared block is
    /// the decision under the policy, field for field and byte for byte in the written record,
    /// and an argument refused by one is refused by the other with the same message.
    @Test func prepared_and_unprepared_decide_the_same_byte_for_byte() throws {
        var g = Draw(state: 2026)
        var compared = 0, written = 0, refused = 0
        for _ in 0..<60 {
            let policy = PreparedPolicyTests.policy(&g)
            let block = try PreparedPolicyTests.prepared(policy)
            var now = PreparedPolicyTests.t0
            var record = try #require(try ServerRecord.decide(policy: policy, record: nil, nowMs: now, input: ServerInput.signIn.rawValue,
                                                              arg: 0, precisionMs: 0).record)
            for _ in 0..<60 {
                now += g.pick([0, 1, 300, second, 4 * second, 9 * second, minute, hour]) - g.pick([0, 0, 0, 2 * second])
                let input = g.pick(ServerInput.allCases.map(\.rawValue) + [0, 9])
                let arg: Int64
                switch ServerInput(rawValue: input) {
                case .holderActivity: arg = g.pick([0, 500, 3 * second, -1])
                case .lock: arg = Int64(g.pick(Reason.allowed(in: .locked)).rawValue)
                case .end: arg = Int64(g.pick(Reason.allowed(in: .expired)).rawValue)
                default: arg = g.below(8) == 0 ? 1 : 0
                }
                let precision = g.pick([0, 1, 250, second, 60 * second])
                var given: [UInt8]? = record
                if g.below(10) == 0 { given![Int(g.below(Int64(record.count)))] ^= 0x10 }   // a corrupt record
                if g.below(30) == 0 { given = nil }
                let plain = Result { () throws(InactivityError) in
                    try ServerRecord.decide(policy: policy, record: given, nowMs: now, input: input, arg: arg, precisionMs: precision)
                }
                let prepared = Result { () throws(InactivityError) in
                    do {
                        return try PreparedPolicyTests.decidePrepared(block, given, at: now, input, arg, precision: precision)
                    } catch let e as InactivityError {
                        throw e
                    } catch {
                        fatalError("only an InactivityError is thrown")
                    }
                }
                switch (plain, prepared) {
                case (.success(let a), .success(let b)):
                    #expect(a == b, "policy \(policy), input \(input) arg \(arg) at \(now)")
                    compared += 1
                    if let r = a.record {
                        written += 1
                        if a.state != .expired || g.below(4) == 0 { record = r }
                    }
                case (.failure(let a), .failure(let b)):
                    #expect(a.code == b.code && a.message == b.message)
                    refused += 1
                default:
                    Issue.record("one path decided and the other refused: \(plain) vs \(prepared)")
                }
                if (try? Snapshot.decode(record))?.state == .expired && g.below(3) == 0 {
                    record = try #require(try ServerRecord.decide(policy: policy, record: nil, nowMs: now,
                                                                  input: ServerInput.signIn.rawValue, arg: 0, precisionMs: 0).record)
                }
            }
        }
        // The comparison covered decisions that wrote, that did not, and refusals.
        #expect(compared > 2000 && written > 500 && compared - written > 500 && refused > 50)
    }
}
