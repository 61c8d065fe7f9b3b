// An error message as UTF-8 bytes, written by string interpolation from static text, integers
// and the vocabulary's names: the core's messages never touch Swift's `String`.
//
// Why: in the Embedded builds (the WebAssembly module above all) `String` interpolation pulls
// in the standard library's string machinery (growth, UTF-8 validation and repair, UTF-16
// index conversion, C-string bridging, integer description): about 50 KB of the wasm module's
// code for nothing but error messages (BENCHMARKS.md, "JavaScript"). The text is the same byte
// for byte (the conformance suite compares messages across the five bindings); only the way
// it is assembled differs. The native build's `InactivityError.message` reads it as a String.
//
// The interpolation accepts only what a message needs: static text, integers (decimal, or
// `hex:`), a C string, another `ErrorText` and the enums' names. There is deliberately no
// generic `appendInterpolation` over `CustomStringConvertible`: one would bring `String` back.

public struct ErrorText: Sendable, Equatable, ExpressibleByStringInterpolation {
    /// The message, UTF-8, without a terminating NUL.
    public var utf8: [UInt8]

    public init(utf8: [UInt8]) { self.utf8 = utf8 }

    public init(stringLiteral value: StaticString) {
        utf8 = []
        ErrorText.append(value, to: &utf8)
    }

    public init(stringInterpolation: Interpolation) { utf8 = stringInterpolation.utf8 }

    /// Calls `body` with the text as a NUL-terminated C string.
    public func withCString<R>(_ body: (UnsafePointer<CChar>) -> R) -> R {
        var bytes = utf8
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
    }

    @inline(never)
    static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        // Every literal of a message is a pointer literal (ASCII or UTF-8 text, never a lone
        // scalar), so its bytes are read as they are.
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public struct Interpolation: StringInterpolationProtocol {
        public typealias StringLiteralType = StaticString
        var utf8: [UInt8] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            utf8.reserveCapacity(literalCapacity + 12 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: StaticString) { ErrorText.append(literal, to: &utf8) }
        public mutating func appendInterpolation(_ text: StaticString) { ErrorText.append(text, to: &utf8) }
        public mutating func appendInterpolation(_ text: ErrorText) { utf8.append(contentsOf: text.utf8) }

        /// A NUL-terminated C string (strerror's text), as its bytes.
        public mutating func appendInterpolation(cString: UnsafePointer<CChar>) {
            var p = UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self)
            while p.pointee != 0 { utf8.append(p.pointee); p += 1 }
        }

        // Integers in decimal, as `String(describing:)` writes them ("-5", "0", "18446744073709551615").
        public mutating func appendInterpolation(_ value: Int64) { decimal(value < 0, value.magnitude) }
        public mutating func appendInterpolation(_ value: Int32) { decimal(value < 0, UInt64(value.magnitude)) }
        public mutating func appendInterpolation(_ value: Int) { decimal(value < 0, UInt64(value.magnitude)) }
        public mutating func appendInterpolation(_ value: UInt64) { decimal(false, value) }
        public mutating func appendInterpolation(_ value: UInt32) { decimal(false, UInt64(value)) }
        public mutating func appendInterpolation(_ value: UInt16) { decimal(false, UInt64(value)) }
        public mutating func appendInterpolation(_ value: UInt8) { decimal(false, UInt64(value)) }
        public mutating func appendInterpolation(_ value: UInt) { decimal(false, UInt64(value)) }

        /// Lower-case hexadecimal without a prefix, as `String(value, radix: 16)` writes it.
        public mutating func appendInterpolation(hex value: UInt64) { digits(value, radix: 16) }

        // The vocabulary, by the names their `description` gives.
        public mutating func appendInterpolation(_ state: SessionState) { appendInterpolation(state.staticName) }
        public mutating func appendInterpolation(_ reason: Reason) { appendInterpolation(reason.staticName) }
        public mutating func appendInterpolation(_ strength: AuthStrength) { appendInterpolation(strength.staticName) }

        @inline(never)
        private mutating func decimal(_ negative: Bool, _ magnitude: UInt64) {
            if negative { utf8.append(UInt8(ascii: "-")) }
            digits(magnitude, radix: 10)
        }

        @inline(never)
        private mutating func digits(_ value: UInt64, radix: UInt64) {
            var reversed: [UInt8] = []
            var v = value
            repeat {
                let d = UInt8(truncatingIfNeeded: v % radix)
                reversed.append(d < 10 ? UInt8(ascii: "0") + d : UInt8(ascii: "a") + d - 10)
                v /= radix
            } while v != 0
            var i = reversed.count
            while i > 0 { i -= 1; utf8.append(reversed[i]) }
        }
    }
}

#if !hasFeature(Embedded)
extension ErrorText: CustomStringConvertible {
    /// The text as a String (native builds only).
    public var description: String { String(decoding: utf8, as: UTF8.self) }
}
#endif
