// Swift prints a state and a reason with the names every other binding prints: the C ABI's
// inact_state_string / inact_reason_string (generated from the header's enums into names.h),
// so `print(engine.reason())` reads IDLE_TIMEOUT in Swift as in C, Python, Kotlin and JS.

import CInactivity
import InactivityCore
import Testing

@Suite("Names")
struct NameTests {
    @Test("every Reason prints the C ABI's name (inact_reason_string)")
    func reasonNames() {
        for reason in Reason.allCases {
            let c = String(cString: inact_reason_string(reason.rawValue))
            #expect(reason.description == c, "Reason.\(reason.rawValue)")
            #expect("\(reason)" == c)
        }
        #expect(Reason.idleTimeout.description == "IDLE_TIMEOUT")
    }

    @Test("every SessionState prints the C ABI's name (inact_state_string)")
    func stateNames() {
        for state in SessionState.allCases {
            #expect(state.description == String(cString: inact_state_string(state.rawValue)))
        }
    }

    @Test("the C table names no reason Swift lacks")
    func noReasonMissing() {
        // Reasons are numbered 0..<count: the next number must be one the C table lacks too.
        let next = Int32(Reason.allCases.count)
        #expect(String(cString: inact_reason_string(next)) == "unknown", "C names reason \(next), Swift has no case for it")
    }
}
