// Reading and writing times and durations as people write them in scenario files and read
// them in a timeline. Everything is integer milliseconds; "never" is SessionPolicy.never.

import InactivityCore

public enum TimeText {
    /// Parses a duration: a sum of `<n>h`, `<n>m`, `<n>s`, `<n>ms` parts (`1h30m`, `90s`,
    /// `500ms`, `2m30s`), a clock time (`15:00` = 15 min, `1:02:03`, `0:05.250`), or `never`
    /// when `allowNever`. A leading `-` is accepted when `allowNegative`.
    public static func parseDuration(_ text: String, allowNever: Bool = false, allowNegative: Bool = false) -> Int64? {
        if text == "never" { return allowNever ? SessionPolicy.never : nil }
        var body = Substring(text)
        var sign: Int64 = 1
        if allowNegative, body.hasPrefix("-") {
            sign = -1
            body = body.dropFirst()
        }
        guard !body.isEmpty else { return nil }
        let value = body.contains(":") ? parseClock(body) : parseUnits(body)
        return value.map { $0 * sign }
    }

    /// `[h:]mm:ss[.mmm]` (minutes and seconds below 60 when a larger field precedes them).
    private static func parseClock(_ text: Substring) -> Int64? {
        var main = text
        var millis: Int64 = 0
        if let dot = text.firstIndex(of: ".") {
            let frac = text[text.index(after: dot)...]
            guard (1...3).contains(frac.count), frac.allSatisfy(\.isASCIIDigit), let f = Int64(frac) else { return nil }
            millis = f * [1, 100, 10, 1][frac.count]
            main = text[..<dot]
        }
        let fields = main.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count),
              fields.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
        let numbers = fields.compactMap { Int64($0) }
        guard numbers.count == fields.count, numbers.dropFirst().allSatisfy({ $0 < 60 }),
              fields.dropFirst().allSatisfy({ $0.count == 2 }) else { return nil }
        var total: Int64 = 0
        for n in numbers { total = total * 60 + n }
        return total * 1000 + millis
    }

    /// `1h30m`, `90s`, `500ms`, `2m30s`, `1500` is rejected (a unit is required).
    private static func parseUnits(_ text: Substring) -> Int64? {
        var total: Int64 = 0
        var rest = text
        var lastUnitScale = Int64.max
        while !rest.isEmpty {
            let digits = rest.prefix(while: \.isASCIIDigit)
            guard !digits.isEmpty, digits.count <= 12, let n = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            let scale: Int64
            if rest.hasPrefix("ms") { scale = 1; rest = rest.dropFirst(2) }
            else if rest.hasPrefix("h") { scale = 3_600_000; rest = rest.dropFirst() }
            else if rest.hasPrefix("m") { scale = 60_000; rest = rest.dropFirst() }
            else if rest.hasPrefix("s") { scale = 1000; rest = rest.dropFirst() }
            else if rest.hasPrefix("d") { scale = 86_400_000; rest = rest.dropFirst() }
            else { return nil }
            // Units must go from large to small, each once: "1h30m", not "30m1h".
            guard scale < lastUnitScale else { return nil }
            lastUnitScale = scale
            let (product, o1) = n.multipliedReportingOverflow(by: scale)
            let (sum, o2) = total.addingReportingOverflow(product)
            guard !o1, !o2 else { return nil }
            total = sum
        }
        return total
    }

    /// A timeline instant: `h:mm:ss`, and `.mmm` only when it is not a whole second.
    public static func clock(_ ms: Int64) -> String {
        let sign = ms < 0 ? "-" : ""
        let v = ms.magnitude
        let h = v / 3_600_000, m = v / 60_000 % 60, s = v / 1000 % 60, f = v % 1000
        let base = "\(sign)\(h):\(pad(m)):\(pad(s))"
        return f == 0 ? base : base + "." + pad3(f)
    }

    /// A remaining time: `m:ss` under an hour, `h:mm:ss` above, `.mmm` only when needed;
    /// `never` for SessionPolicy.never.
    public static func remaining(_ ms: Int64) -> String {
        if ms == SessionPolicy.never { return "never" }
        let v = ms.magnitude
        let h = v / 3_600_000, m = v / 60_000 % 60, s = v / 1000 % 60, f = v % 1000
        var text = h > 0 ? "\(h):\(pad(m)):\(pad(s))" : "\(m):\(pad(s))"
        if f != 0 { text += "." + pad3(f) }
        return (ms < 0 ? "-" : "") + text
    }

    /// A duration as it would be written in a scenario file: `5m`, `1h30m`, `750ms`, `never`.
    public static func duration(_ ms: Int64) -> String {
        if ms == SessionPolicy.never { return "never" }
        if ms == 0 { return "0s" }
        var v = ms.magnitude
        var out = ms < 0 ? "-" : ""
        for (unit, scale) in [("h", UInt64(3_600_000)), ("m", 60_000), ("s", 1000), ("ms", 1)] where v >= scale {
            out += "\(v / scale)\(unit)"
            v %= scale
        }
        return out
    }

    private static func pad(_ v: UInt64) -> String { v < 10 ? "0\(v)" : "\(v)" }
    private static func pad3(_ v: UInt64) -> String { v < 10 ? "00\(v)" : v < 100 ? "0\(v)" : "\(v)" }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
