import Testing
@testable import InactivityCore

/// ErrorText writes a message's bytes without String (the Embedded builds' messages): each piece
/// must read exactly as Swift's own String interpolation writes it, so the text is the same in
/// every build and binding (the conformance suite compares them across five bindings).
@Suite("Error text")
struct ErrorTextTests {
    static func text(_ t: ErrorText) -> String { String(decoding: t.utf8, as: UTF8.self) }

    @Test("integers read as String(describing:) writes them, at every edge")
    func integers() {
        for v: Int64 in [0, 1, -1, 9, 10, -10, 99, 100, 1_000_000, .max, .min, .max - 1, .min + 1] {
            #expect(Self.text("(\(v))") == "(\(String(describing: v)))")
        }
        for v: UInt64 in [0, 1, 10, .max, .max - 1] { #expect(Self.text("\(v)") == String(v)) }
        for v: Int32 in [0, -1, .max, .min] { #expect(Self.text("\(v)") == String(v)) }
        for v: UInt32 in [0, .max] { #expect(Self.text("\(v)") == String(v)) }
        for v: Int in [0, -7, .max, .min] { #expect(Self.text("\(v)") == String(v)) }
        for v: UInt16 in [0, .max] { #expect(Self.text("\(v)") == String(v)) }
        for v: UInt8 in [0, 7, .max] { #expect(Self.text("\(v)") == String(v)) }
    }

    @Test("hex reads as String(value, radix: 16): lower case, no prefix")
    func hex() {
        for v: UInt64 in [0, 1, 9, 10, 15, 16, 0xabcdef, 0x7f, .max] {
            #expect(Self.text("0x\(hex: v)") == "0x" + String(v, radix: 16))
        }
    }

    @Test("static text, C strings, other texts and the vocabulary's names")
    func pieces() {
        let name: StaticString = "idle_timeout_ms"
        let inner: ErrorText = "at most \(Int64(5)) ms"
        #expect(Self.text("policy.\(name) (\(Int64(-5))) must be >= 0; \(inner)") ==
                "policy.idle_timeout_ms (-5) must be >= 0; at most 5 ms")
        #expect(Self.text("snapshot does not start with the magic \"INAS\"") == "snapshot does not start with the magic \"INAS\"")
        "errno text".withCString { p in #expect(Self.text("scheduler: \(cString: p) (errno 5)") == "scheduler: errno text (errno 5)") }
        for s in SessionState.allCases { #expect(Self.text("\(s)") == "\(s.description)") }
        for r in Reason.allCases { #expect(Self.text("\(r)") == r.description) }
        for a in [AuthStrength.none, .biometric, .credential] { #expect(Self.text("\(a)") == a.description) }
        #expect(Self.text("") == "")
    }

    @Test("an error's message is its text, and a host's String message round-trips")
    func message() {
        let e = InactivityError(.invalidArgument, "kind (0x\(hex: UInt64(0x80))) must be exactly one known activity kind")
        #expect(e.message == "kind (0x80) must be exactly one known activity kind")
        #expect(e.description == e.message)
        let host = InactivityError(.internal, message: "héllo \u{1F600}")
        #expect(host.message == "héllo \u{1F600}")
        #expect(host.text.utf8 == Array("héllo \u{1F600}".utf8))
    }

    @Test("the refusals that nest a text read as plain text, never as a value's dump")
    func nested() throws {
        // PolicyCeilings.check interpolates an ErrorText (the value or INACT_NEVER); a String
        // chosen by overload ranking once printed "ErrorText(utf8: [...])" here.
        var ceilings = PolicyCeilings()
        ceilings.absoluteTimeoutMs = 90_000
        var policy = SessionPolicy()
        policy.absoluteTimeoutMs = 3_600_000
        #expect(throws: InactivityError.self) { try ceilings.check(policy) }
        do { try ceilings.check(policy) } catch {
            #expect(error.message == "policy.absolute_timeout_ms (3600000) exceeds the managed ceiling (90000)")
        }
        policy.absoluteTimeoutMs = SessionPolicy.never
        do { try ceilings.check(policy) } catch {
            #expect(error.message == "policy.absolute_timeout_ms (INACT_NEVER) exceeds the managed ceiling (90000)")
        }
    }
}
