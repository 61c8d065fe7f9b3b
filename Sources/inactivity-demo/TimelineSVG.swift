// `--svg OUT.svg`: one self-contained SVG picture of a run, drawn from the run's Timeline (the
// same record the text timeline is printed from). No dependency: the file is written here.
//
// Top to bottom: the title and policy, one lane of marks per kind of step (TimelineMarks says
// which), the deadlines that fired, the state band (one span per state, coloured, with the reason
// that opened it), the countdown ticks, the time axis and a legend, then the notes. Background
// periods are shaded, suspended (frozen) periods hatched. Stretches where nothing happens are
// compressed to a short break that shows their length, so that hours and seconds share a picture.
//
// The drawn elements carry data-* attributes (state, reason, times in ms) so that a test can read
// the picture back and compare it with the text timeline.

import Foundation
import InactivityCore
import InactivityScenarios

struct TimelineSVG {
    // MARK: The model

    struct Band {
        /// nil: no process runs (between kill and launch).
        var state: SessionState?
        var reason: Reason
        var startMs: Int64
        var endMs: Int64
    }

    struct StepMark {
        var timeMs: Int64
        var step: Step
        var outcome: StepOutcome
        var mark: Mark
        /// The number of a note (1, 2, ...), listed under the picture.
        var noteNumber: Int?
    }

    struct Deadline {
        var effectiveMs: Int64
        var deliveredMs: Int64
        var state: SessionState
        var reason: Reason
    }

    let scenario: Scenario
    let result: RunResult
    let bands: [Band]
    let marks: [StepMark]
    let deadlines: [Deadline]
    let ticks: [Int64]
    let background: [(startMs: Int64, endMs: Int64)]
    let frozen: [(startMs: Int64, endMs: Int64)]
    let notes: [(timeMs: Int64, text: String)]
    let endMs: Int64

    /// `showTicks: false` (the demo's --no-ticks) leaves the ticks out, as from the text.
    init(scenario: Scenario, result: RunResult, showTicks: Bool = true) {
        self.scenario = scenario
        self.result = result
        let timeline = result.timeline
        endMs = timeline.endMs

        // Bands: the run starts with an engine in LOADING at 0. A transition opens a band at the
        // instant it took effect, but never before the band it ends began (a restore that finds
        // a deadline passed while no process ran opens its band at the launch).
        var bands = [Band(state: .loading, reason: .none, startMs: 0, endMs: 0)]
        func open(_ state: SessionState?, _ reason: Reason, at ms: Int64) {
            let start = max(ms, bands[bands.count - 1].startMs)
            bands[bands.count - 1].endMs = start
            bands.append(Band(state: state, reason: reason, startMs: start, endMs: start))
        }
        var marks: [StepMark] = []
        var deadlines: [Deadline] = []
        var ticks: [Int64] = []
        var background: [(Int64, Int64)] = []
        var backgroundSince: Int64?
        var frozen: [(Int64, Int64)] = []
        var notes: [(Int64, String)] = []
        for entry in timeline.entries {
            switch entry.kind {
            case .step(let step, let outcome):
                switch step.command {
                case .kill: open(nil, .none, at: entry.timeMs)
                case .launch: open(.loading, .none, at: entry.timeMs)
                case .freeze(let ms): frozen.append((entry.timeMs, entry.timeMs + ms))
                default: break
                }
                if outcome.inBackground == true, backgroundSince == nil {
                    backgroundSince = outcome.backgroundSinceMs ?? entry.timeMs
                } else if outcome.inBackground != true, let since = backgroundSince {
                    // Background then kill at one instant shades nothing (and is not in the legend).
                    if entry.timeMs > since { background.append((since, entry.timeMs)) }
                    backgroundSince = nil
                }
                var number: Int?
                if case .note(let text) = step.command {
                    if text.isEmpty { continue }   // a bare time line
                    notes.append((entry.timeMs, text))
                    number = notes.count
                }
                marks.append(StepMark(timeMs: entry.timeMs, step: step, outcome: outcome,
                                      mark: TimelineMarks.mark(step.command, outcome), noteNumber: number))
            case .event(let event, _):
                switch event.kind {
                case .stateChanged:
                    open(event.state, event.reason, at: entry.effectiveMs)
                    if TimelineMarks.deadlineReasons.contains(event.reason) {
                        deadlines.append(Deadline(effectiveMs: entry.effectiveMs, deliveredMs: entry.timeMs,
                                                  state: event.state, reason: event.reason))
                    }
                case .tick:
                    if showTicks { ticks.append(entry.timeMs) }
                case .keepalive:
                    break   // the picture shows states and deadlines; the text timeline lists pings
                }
            }
        }
        bands[bands.count - 1].endMs = endMs
        if let since = backgroundSince, endMs > since { background.append((since, endMs)) }
        self.bands = bands
        self.marks = marks
        self.deadlines = deadlines
        self.ticks = ticks
        self.background = background
        self.frozen = frozen
        self.notes = notes
    }

    // MARK: The time scale

    /// Piecewise linear: linear segments at one scale, and compressed segments (the long quiet
    /// stretches) of a short fixed width each.
    struct Scale {
        struct Segment {
            var startMs: Int64
            var endMs: Int64
            var x0: Double
            var x1: Double
            var compressed: Bool
        }
        var segments: [Segment]
        var pxPerMs: Double

        var width: Double { segments.last?.x1 ?? 0 }

        func x(_ ms: Int64) -> Double {
            guard let first = segments.first else { return 0 }
            if ms <= first.startMs { return first.x0 }
            for s in segments where ms <= s.endMs {
                let span = Double(s.endMs - s.startMs)
                return span == 0 ? s.x0 : s.x0 + (s.x1 - s.x0) * Double(ms - s.startMs) / span
            }
            return segments.last!.x1
        }
    }

    /// Layout constants of the scale.
    enum Fit {
        /// The plot width to aim for: the picture stays readable at a README's column width.
        static let plotWidth = 960.0
        /// Once seconds get this many pixels, no more stretches are compressed.
        static let enoughPxPerMs = 1.6 / 1000
        /// A short scenario is not stretched beyond this.
        static let maxPxPerMs = 30.0 / 1000
        /// Stretches under 3 minutes are never compressed (a warning, a short suspension or a
        /// background timeout keep their length).
        static let minCompressedMs: Int64 = 180_000

        /// A compressed stretch is 44 to 84 px wide, a little wider the longer it is.
        static func compressedWidth(_ ms: Int64) -> Double {
            min(84, max(44, 44 + 6 * log2(Double(ms) / 60_000)))
        }
    }

    /// The instants that need room: every step and event, except repeated inputs that did
    /// nothing (those are drawn, but may fall inside a compressed stretch).
    func anchors() -> [Int64] {
        var times: Set<Int64> = [0, endMs]
        var lastRepeat: (index: Int, timeMs: Int64)?
        for (i, entry) in result.timeline.entries.enumerated() {
            switch entry.kind {
            case .step(let step, let outcome):
                if step.isRepeat && outcome.error == nil {
                    lastRepeat = (i, entry.timeMs)
                } else {
                    times.insert(entry.timeMs)
                }
                if case .freeze(let ms) = step.command { times.insert(entry.timeMs + ms) }
                if let since = outcome.backgroundSinceMs { times.insert(since) }
            case .event:
                // A repeat that caused an event is an instant that matters after all.
                if let r = lastRepeat, r.index == i - 1 { times.insert(r.timeMs) }
                times.insert(entry.timeMs)
                times.insert(entry.effectiveMs)
            }
        }
        return times.sorted()
    }

    func makeScale() -> Scale {
        let times = anchors()
        let gaps = zip(times, times.dropFirst()).map { ($0, $1) }
        var compressed = Set<Int>()
        var k = Fit.maxPxPerMs
        while true {
            let linearMs = gaps.indices.filter { !compressed.contains($0) }.reduce(Int64(0)) { $0 + gaps[$1].1 - gaps[$1].0 }
            let fixed = compressed.reduce(0.0) { $0 + Fit.compressedWidth(gaps[$1].1 - gaps[$1].0) }
            k = linearMs > 0 ? min(Fit.maxPxPerMs, max(0, Fit.plotWidth - fixed) / Double(linearMs)) : Fit.maxPxPerMs
            if k >= Fit.enoughPxPerMs { break }
            // The longest stretch left, if compressing it gains room.
            let candidate = gaps.indices
                .filter { !compressed.contains($0) && gaps[$0].1 - gaps[$0].0 >= Fit.minCompressedMs }
                .max { gaps[$0].1 - gaps[$0].0 < gaps[$1].1 - gaps[$1].0 }
            guard let c = candidate else { break }
            let ms = gaps[c].1 - gaps[c].0
            guard Double(ms) * k > 2 * Fit.compressedWidth(ms) else { break }
            compressed.insert(c)
        }
        var segments: [Scale.Segment] = []
        var x = 0.0
        for (i, gap) in gaps.enumerated() {
            let isCompressed = compressed.contains(i)
            let width = isCompressed ? Fit.compressedWidth(gap.1 - gap.0) : Double(gap.1 - gap.0) * k
            if !isCompressed, let last = segments.last, !last.compressed {
                segments[segments.count - 1].endMs = gap.1
                segments[segments.count - 1].x1 = x + width
            } else {
                segments.append(Scale.Segment(startMs: gap.0, endMs: gap.1, x0: x, x1: x + width, compressed: isCompressed))
            }
            x += width
        }
        if segments.isEmpty { segments = [Scale.Segment(startMs: 0, endMs: 0, x0: 0, x1: 0, compressed: false)] }
        return Scale(segments: segments, pxPerMs: k)
    }

    // MARK: Drawing

    enum Layout {
        static let left = 76.0          // room for the lane titles
        static let right = 28.0
        static let tail = 26.0          // at least: the last band runs on past the end, to an arrow
        static let laneRow = 12.0       // one glyph of a stack
        static let lanePad = 12.0
        static let maxStack = 4
        static let font = 11.0
        static let small = 10.0
    }

    /// Approximate text width for the fonts named in the file (no metrics available here).
    static func textWidth(_ text: String, size: Double = Layout.font, bold: Bool = false) -> Double {
        Double(text.count) * size * (bold ? 0.66 : 0.58)
    }

    func render() -> String {
        let scale = makeScale()
        var svg = SVGText()
        let left = Layout.left
        // The last state runs on past the end of the scenario, to an arrow, with room for its name.
        let last = bands[bands.count - 1]
        let lastName = Self.textWidth(last.state.map(\.description) ?? "no process", size: Layout.font, bold: true)
        let lastReason = Self.textWidth(last.state == nil || last.reason == .none ? "" : Names.reasonText(last.reason), size: Layout.small)
        let tail = max(Layout.tail, max(lastName, lastReason) + 24)
        let plotWidth = scale.width + tail
        let X = { (ms: Int64) -> Double in left + scale.x(ms) }

        // Lanes, in order, only those with a mark; each as tall as its tallest stack.
        // Repeated inputs that did nothing are a comb of thin marks, not stacks.
        let isComb = { (m: StepMark) in m.step.isRepeat && m.outcome.error == nil }
        let clustersByLane = Dictionary(grouping: marks.filter { !isComb($0) }, by: \.mark.lane).mapValues { laneMarks in
            cluster(laneMarks, x: { X($0.timeMs) })
        }
        let combByLane = Dictionary(grouping: marks.filter(isComb), by: \.mark.lane)
        let lanes = Lane.allCases.filter { clustersByLane[$0] != nil || combByLane[$0] != nil }

        var body = SVGText()

        // Title, policy, result.
        let title = scenario.name ?? scenario.source
        body.text(title, x: 16, y: 26, size: 16, weight: "bold", fill: Palette.ink)
        body.text("policy \(scenario.policyLabel): \(PolicyText.summary(scenario.policy))", x: 16, y: 45, size: Layout.font, fill: Palette.slate)
        let verdict = result.passed ? "\(result.checksPassed) expectations met"
            : "\(result.failures.count) FAILED, \(result.checksPassed) met"

        // Lanes.
        var y = 60.0
        var laneTop: [Lane: Double] = [:]
        var laneHeight: [Lane: Double] = [:]
        for lane in lanes {
            let tallest = clustersByLane[lane, default: []].map { min($0.count, Layout.maxStack) }.max() ?? 1
            laneTop[lane] = y
            laneHeight[lane] = Double(tallest) * Layout.laneRow + Layout.lanePad
            y += laneHeight[lane]!
        }
        let deadlineTop = y
        let deadlineRow = deadlines.isEmpty ? 0.0 : 24.0
        y += deadlineRow
        let bandTop = y + 2
        let bandHeight = 34.0
        let bandBottom = bandTop + bandHeight
        let tickLength = 6.0
        let bandLabelTop = bandBottom + tickLength + 4
        let bandLabelRows = 3
        let axisY = bandLabelTop + Double(bandLabelRows) * 13 + 6

        let plotTop = 56.0
        let shadeTop = plotTop
        let shadeBottom = bandBottom

        // Shading first, under everything: background, suspended.
        for span in background {
            let x0 = X(span.startMs), x1 = max(X(span.endMs), x0 + 1)
            body.raw("<rect class=\"background\" data-start-ms=\"\(span.startMs)\" data-end-ms=\"\(span.endMs)\" x=\"\(f(x0))\" y=\"\(f(shadeTop))\" width=\"\(f(x1 - x0))\" height=\"\(f(shadeBottom - shadeTop))\" fill=\"url(#background)\">")
            body.title("in background \(clock(span.startMs)) to \(clock(span.endMs))")
            body.raw("</rect>")
        }
        for span in frozen {
            let x0 = X(span.startMs), x1 = max(X(span.endMs), x0 + 1)
            body.raw("<rect class=\"frozen\" data-start-ms=\"\(span.startMs)\" data-end-ms=\"\(span.endMs)\" x=\"\(f(x0))\" y=\"\(f(shadeTop))\" width=\"\(f(x1 - x0))\" height=\"\(f(shadeBottom - shadeTop))\" fill=\"url(#frozen)\">")
            body.title("process suspended \(clock(span.startMs)) to \(clock(span.endMs)): no timer runs")
            body.raw("</rect>")
        }

        // Lane titles and guide lines.
        for lane in lanes {
            let mid = laneTop[lane]! + laneHeight[lane]! / 2
            body.text(lane.title, x: left - 10, y: mid + 4, size: Layout.small, fill: Palette.grey, anchor: "end")
            body.raw("<line x1=\"\(f(left))\" y1=\"\(f(mid))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(mid))\" stroke=\"#e2e8f0\" stroke-width=\"1\"/>")
        }

        // The state band.
        body.raw("<g id=\"bands\">")
        var labelRows = RowPacker(rows: bandLabelRows)
        var bandLabels = SVGText()   // drawn over the tears
        /// A band's label below it, on a leader; near the right edge it ends at the leader.
        func belowBand(_ text: String, x0: Double, colour: String) {
            let w = Self.textWidth(text, size: Layout.small)
            let lx = min(x0 + 2, left + plotWidth + Layout.right - 4 - w)
            guard let row = labelRows.place(lx, lx + w) else { return }
            let ly = bandLabelTop + 10 + Double(row) * 13
            bandLabels.raw("<line x1=\"\(f(x0 + 0.5))\" y1=\"\(f(bandBottom))\" x2=\"\(f(x0 + 0.5))\" y2=\"\(f(ly - 8))\" stroke=\"\(colour == "#ffffff" ? "#a0aec0" : colour)\" stroke-width=\"1\"/>")
            bandLabels.text(text, x: lx, y: ly, size: Layout.small, fill: Palette.ink, halo: true)
        }
        for (i, band) in bands.enumerated() {
            let x0 = X(band.startMs)
            var x1 = X(band.endMs)
            if i == bands.count - 1 { x1 += tail - 8 }
            let (fill, ink) = TimelineMarks.colours(band.state)
            let name = band.state.map(\.description) ?? "no process"
            let reason = band.state == nil || band.reason == .none ? "" : Names.reasonText(band.reason)
            body.raw("<rect class=\"band\" data-state=\"\(band.state.map(\.description) ?? "none")\" data-reason=\"\(reason)\" data-start-ms=\"\(band.startMs)\" data-end-ms=\"\(band.endMs)\" x=\"\(f(x0))\" y=\"\(f(bandTop))\" width=\"\(f(x1 - x0))\" height=\"\(f(bandHeight))\" fill=\"\(band.state == nil ? "url(#noprocess)" : fill)\"\(band.state == nil ? " stroke=\"#a0aec0\" stroke-width=\"0.8\"" : "")>")
            body.title("\(name)\(reason.isEmpty ? "" : " (\(reason))") from \(clock(band.startMs)) to \(clock(band.endMs))")
            body.raw("</rect>")
            guard x1 - x0 >= 1 else { continue }
            let full = reason.isEmpty ? name : "\(name) \(reason)"
            // Inside the band, the label must end before a compressed stretch tears it.
            let tear = scale.segments.first { $0.compressed && left + ($0.x0 + $0.x1) / 2 > x0 + 1 }
            let room = min(x1, tear.map { left + ($0.x0 + $0.x1) / 2 - 4 } ?? x1) - x0
            if Self.textWidth(name, size: Layout.font, bold: true) + 8 <= room {
                bandLabels.text(name, x: x0 + 4, y: bandTop + 15, size: Layout.font, weight: "bold", fill: ink)
                if !reason.isEmpty {
                    if Self.textWidth(reason, size: Layout.small) + 8 <= room {
                        bandLabels.text(reason, x: x0 + 4, y: bandTop + 28, size: Layout.small, fill: ink)
                    } else {
                        belowBand(reason, x0: x0, colour: fill)
                    }
                }
            } else {
                belowBand(full, x0: x0, colour: fill)
            }
        }
        // The arrow at the end: the session goes on.
        let endX = X(endMs) + tail - 8
        body.raw("<path d=\"M\(f(endX)) \(f(bandTop)) l8 \(f(bandHeight / 2)) l-8 \(f(bandHeight / 2)) z\" fill=\"\(TimelineMarks.colours(bands.last!.state).fill)\"/>")
        body.raw("</g>")

        // Ticks.
        body.raw("<g id=\"ticks\">")
        for t in ticks {
            let x = X(t)
            body.raw("<line class=\"tick\" data-time-ms=\"\(t)\" x1=\"\(f(x))\" y1=\"\(f(bandBottom + 1))\" x2=\"\(f(x))\" y2=\"\(f(bandBottom + tickLength))\" stroke=\"#975a16\" stroke-width=\"1\"/>")
        }
        body.raw("</g>")

        // Compressed stretches: a torn band, a broken axis and the length that was left out.
        for s in scale.segments where s.compressed {
            let mid = left + (s.x0 + s.x1) / 2
            var zig = "M\(f(mid - 3)) \(f(plotTop))"
            var yy = plotTop
            var right = true
            while yy < axisY + 6 {
                yy = min(yy + 6, axisY + 6)
                zig += " L\(f(mid + (right ? 3 : -3))) \(f(yy))"
                right.toggle()
            }
            body.raw("<path class=\"break\" data-start-ms=\"\(s.startMs)\" data-end-ms=\"\(s.endMs)\" d=\"\(zig)\" fill=\"none\" stroke=\"#ffffff\" stroke-width=\"5\"/>")
            body.raw("<path d=\"\(zig)\" fill=\"none\" stroke=\"#a0aec0\" stroke-width=\"1\"/>")
            body.text(Self.roughDuration(s.endMs - s.startMs), x: mid, y: axisY + 30, size: 9.5, fill: Palette.grey,
                      anchor: "middle", italic: true)
        }
        body.raw(bandLabels.text)

        // Marks, lane by lane: a stack per instant, a label where there is room.
        body.raw("<g id=\"marks\">")
        for lane in lanes {
            let clusters = clustersByLane[lane, default: []]
            let top = laneTop[lane]!, height = laneHeight[lane]!
            for m in combByLane[lane, default: []] {
                let x = X(m.timeMs), mid = top + height / 2
                body.raw("<g class=\"mark\" data-lane=\"\(lane.title)\" data-line=\"\(m.step.line)\" data-time-ms=\"\(m.timeMs)\">")
                body.title("\(clock(m.timeMs))  \(describe(m)) (a repeat)")
                body.raw("<line x1=\"\(f(x))\" y1=\"\(f(mid - 4))\" x2=\"\(f(x))\" y2=\"\(f(mid + 4))\" stroke=\"\(m.mark.colour)\" stroke-width=\"1\" stroke-opacity=\"0.7\"/>")
                body.raw("</g>")
            }
            for (ci, cluster) in clusters.enumerated() {
                let x = X(cluster[0].timeMs)
                let shown = min(cluster.count, Layout.maxStack)
                // The stack is centred in the lane.
                let stackTop = top + (height - Double(shown) * Layout.laneRow) / 2 + Layout.laneRow / 2
                for (i, m) in cluster.enumerated() {
                    let row = min(i, shown - 1)
                    let gy = stackTop + Double(row) * Layout.laneRow
                    body.raw("<g class=\"mark\" data-lane=\"\(lane.title)\" data-line=\"\(m.step.line)\" data-time-ms=\"\(m.timeMs)\"\(i >= shown ? " visibility=\"hidden\"" : "")>")
                    body.title("\(clock(m.timeMs))  \(describe(m))")
                    body.raw(glyph(m.mark.glyph, x: x, y: gy, colour: m.mark.colour, number: m.noteNumber))
                    if m.outcome.error != nil {
                        body.raw("<circle cx=\"\(f(x))\" cy=\"\(f(gy))\" r=\"6.5\" fill=\"none\" stroke=\"\(Palette.red)\" stroke-width=\"1.2\" stroke-dasharray=\"2 1.5\"/>")
                    }
                    body.raw("</g>")
                }
                if cluster.count > shown {
                    body.text("+\(cluster.count - shown + 1)", x: x + 7, y: stackTop + Double(shown - 1) * Layout.laneRow + 3.5,
                              size: 8, fill: Palette.slate)
                }
                // The label: to the right of the stack's top glyph, up to the next stack.
                let next = ci + 1 < clusters.count ? X(clusters[ci + 1][0].timeMs) - 8 : left + plotWidth + Layout.right
                let labelX = x + (cluster.count > shown ? 22 : 8)
                if let label = fitted(label(cluster), width: next - labelX, size: Layout.small) {
                    body.text(label, x: labelX, y: stackTop + 3.5, size: Layout.small, fill: Palette.ink, halo: true)
                }
            }
        }
        body.raw("</g>")

        // Deadlines that fired: a red flag at the instant it took effect; a catch-up also shows
        // the dashed wait until the engine delivered it.
        body.raw("<g id=\"deadlines\">")
        let flagY = deadlineTop + 15
        var deadlineLabelEnd = -Double.infinity
        for (i, d) in deadlines.enumerated() {
            let x = X(d.effectiveMs)
            body.raw("<g class=\"deadline\" data-reason=\"\(Names.reasonText(d.reason))\" data-time-ms=\"\(d.effectiveMs)\" data-delivered-ms=\"\(d.deliveredMs)\">")
            let late = d.deliveredMs > d.effectiveMs ? ", delivered at \(clock(d.deliveredMs)) (caught up)" : ""
            body.title("\(clock(d.effectiveMs))  deadline \(Names.reasonText(d.reason)): \(d.state)\(late)")
            if d.deliveredMs > d.effectiveMs {
                let xd = X(d.deliveredMs)
                body.raw("<line x1=\"\(f(x))\" y1=\"\(f(flagY))\" x2=\"\(f(xd))\" y2=\"\(f(flagY))\" stroke=\"\(Palette.red)\" stroke-width=\"1.2\" stroke-dasharray=\"3 2\"/>")
                body.raw("<circle cx=\"\(f(xd))\" cy=\"\(f(flagY))\" r=\"2.5\" fill=\"#fff\" stroke=\"\(Palette.red)\" stroke-width=\"1.2\"/>")
            }
            body.raw("<line x1=\"\(f(x))\" y1=\"\(f(flagY))\" x2=\"\(f(x))\" y2=\"\(f(bandBottom))\" stroke=\"\(Palette.red)\" stroke-width=\"1.2\"/>")
            body.raw("<path d=\"M\(f(x - 5)) \(f(flagY - 8)) h10 l-5 8 z\" fill=\"\(Palette.red)\"/>")
            body.raw("</g>")
            let next = i + 1 < deadlines.count ? X(deadlines[i + 1].effectiveMs) - 5 : left + plotWidth + Layout.right
            let labelX = max(x + 6, d.deliveredMs > d.effectiveMs ? X(d.deliveredMs) + 5 : 0)
            let text = Names.reasonText(d.reason)
            let w = Self.textWidth(text, size: Layout.small)
            if labelX + w <= next {
                body.text(text, x: labelX, y: flagY - 1, size: Layout.small, fill: Palette.red, halo: true)
                deadlineLabelEnd = labelX + w
            } else if x - 7 - w >= deadlineLabelEnd + 6 {
                // No room after it (the last one, near the end): before it.
                body.text(text, x: x - 7, y: flagY - 1, size: Layout.small, fill: Palette.red, anchor: "end", halo: true)
                deadlineLabelEnd = x
            } else if let label = fitted(text, width: next - labelX, size: Layout.small) {
                body.text(label, x: labelX, y: flagY - 1, size: Layout.small, fill: Palette.red, halo: true)
                deadlineLabelEnd = next
            }
        }
        body.raw("</g>")

        // The axis, in the scenario's own units.
        body.raw("<g id=\"axis\">")
        var placed: [(Double, Double)] = []
        func axisLabel(_ ms: Int64, strong: Bool) {
            let x = X(ms)
            let text = clock(ms)
            let w = Self.textWidth(text, size: Layout.small)
            let span = (x - w / 2 - 3, x + w / 2 + 3)
            guard !placed.contains(where: { $0.0 < span.1 && span.0 < $0.1 }) else { return }
            placed.append(span)
            body.raw("<line x1=\"\(f(x))\" y1=\"\(f(axisY))\" x2=\"\(f(x))\" y2=\"\(f(axisY + 4))\" stroke=\"\(Palette.slate)\" stroke-width=\"1\"/>")
            body.text(text, x: x, y: axisY + 15, size: Layout.small, weight: strong ? "bold" : nil, fill: Palette.slate, anchor: "middle")
        }
        for s in scale.segments {
            if s.compressed { continue }
            body.raw("<line x1=\"\(f(left + s.x0))\" y1=\"\(f(axisY))\" x2=\"\(f(left + s.x1 + (s.endMs == endMs ? tail - 8 : 0)))\" y2=\"\(f(axisY))\" stroke=\"\(Palette.slate)\" stroke-width=\"1\"/>")
        }
        body.text("time", x: left - 10, y: axisY + 4, size: Layout.small, fill: Palette.grey, anchor: "end")
        // Segment ends first (they say where a break lands), then round times.
        axisLabel(0, strong: true)
        for s in scale.segments where s.compressed { axisLabel(s.endMs, strong: true) }
        axisLabel(endMs, strong: true)
        for s in scale.segments where !s.compressed {
            let step = Self.axisStep(pxPerMs: scale.pxPerMs)
            var t = (s.startMs / step + 1) * step
            while t < s.endMs {
                axisLabel(t, strong: false)
                t += step
            }
        }
        body.raw("</g>")

        // Legend.
        var ly = axisY + 48
        body.text(verdict, x: left + plotWidth + Layout.right - 16, y: 26, size: Layout.font, weight: "bold",
                  fill: result.passed ? Palette.green : Palette.red, anchor: "end")
        let legendRight = left + plotWidth
        var lx = left
        /// One legend entry: a symbol `symbolWidth` wide (markup drawn at x, y), then its words.
        func legendItem(_ words: String, symbolWidth: Double, _ symbol: (Double, Double) -> String) {
            let width = symbolWidth + 4 + Self.textWidth(words, size: Layout.small)
            if lx + width > legendRight, lx > left {
                lx = left
                ly += 18
            }
            body.raw(symbol(lx, ly))
            body.text(words, x: lx + symbolWidth + 4, y: ly + 3.5, size: Layout.small, fill: Palette.ink)
            lx += width + 14
        }
        func swatch(_ fill: String, outline: Double) -> (Double, Double) -> String {
            { x, y in "<rect x=\"\(f(x))\" y=\"\(f(y - 6))\" width=\"14\" height=\"11\" fill=\"\(fill)\" stroke=\"#a0aec0\" stroke-width=\"\(f(outline))\"/>" }
        }
        body.text("legend", x: left - 10, y: ly + 4, size: Layout.small, fill: Palette.grey, anchor: "end")
        var states: [SessionState?] = SessionState.allCases.map { $0 }
        if bands.contains(where: { $0.state == nil }) { states.append(nil) }
        for state in states {
            legendItem(state.map(\.description) ?? "no process", symbolWidth: 14,
                       swatch(state == nil ? "url(#noprocess)" : TimelineMarks.colours(state).fill, outline: state == nil ? 0.8 : 0))
        }
        var seen = Set<String>()
        for lane in lanes {
            for m in marks where m.mark.lane == lane && seen.insert(m.mark.legend).inserted {
                legendItem(m.mark.legend, symbolWidth: 10) { x, y in
                    glyph(m.mark.glyph, x: x + 5, y: y, colour: m.mark.colour, number: m.noteNumber == nil ? nil : 1)
                }
            }
        }
        if marks.contains(where: { $0.outcome.error != nil }) {
            legendItem("input refused (error)", symbolWidth: 11) { x, y in
                "<circle cx=\"\(f(x + 5))\" cy=\"\(f(y))\" r=\"6\" fill=\"none\" stroke=\"\(Palette.red)\" stroke-width=\"1.2\" stroke-dasharray=\"2 1.5\"/>"
            }
        }
        if !deadlines.isEmpty {
            legendItem("deadline fired", symbolWidth: 10) { x, y in
                "<path d=\"M\(f(x)) \(f(y - 5)) h10 l-5 8 z\" fill=\"\(Palette.red)\"/>"
            }
        }
        if deadlines.contains(where: { $0.deliveredMs > $0.effectiveMs }) {
            legendItem("delivered later (catch-up)", symbolWidth: 23) { x, y in
                "<line x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x + 18))\" y2=\"\(f(y))\" stroke=\"\(Palette.red)\" stroke-width=\"1.2\" stroke-dasharray=\"3 2\"/>"
                    + "<circle cx=\"\(f(x + 20))\" cy=\"\(f(y))\" r=\"2.5\" fill=\"#fff\" stroke=\"\(Palette.red)\" stroke-width=\"1.2\"/>"
            }
        }
        if !ticks.isEmpty {
            legendItem("countdown tick", symbolWidth: 9) { x, y in
                "<line x1=\"\(f(x + 5))\" y1=\"\(f(y - 4))\" x2=\"\(f(x + 5))\" y2=\"\(f(y + 3))\" stroke=\"#975a16\" stroke-width=\"1\"/>"
            }
        }
        if !background.isEmpty { legendItem("in background", symbolWidth: 14, swatch("url(#background)", outline: 0.5)) }
        if !frozen.isEmpty { legendItem("suspended (frozen)", symbolWidth: 14, swatch("url(#frozen)", outline: 0.5)) }
        if scale.segments.contains(where: \.compressed) {
            legendItem("quiet stretch left out (its length below)", symbolWidth: 10) { x, y in
                "<path d=\"M\(f(x + 2)) \(f(y - 7)) l6 4 l-6 4 l6 4\" fill=\"none\" stroke=\"#a0aec0\" stroke-width=\"1.2\"/>"
            }
        }
        ly += 14

        // Notes, numbered as in the notes lane.
        if !notes.isEmpty {
            ly += 10
            body.text("notes", x: left - 10, y: ly + 4, size: Layout.small, fill: Palette.grey, anchor: "end")
            for (i, note) in notes.enumerated() {
                body.raw(glyph(.number, x: left + 6, y: ly, colour: Palette.slate, number: i + 1))
                body.text(clock(note.timeMs), x: left + 18, y: ly + 3.5, size: Layout.small, weight: "bold", fill: Palette.slate)
                body.text(note.text, x: left + 70, y: ly + 3.5, size: Layout.small, fill: Palette.ink)
                ly += 15
            }
        }
        // Failures, as the text run reports them.
        if !result.failures.isEmpty {
            ly += 6
            for failure in result.failures {
                body.text("\(scenario.source):\(failure.line): \(failure.message)", x: left, y: ly + 3.5, size: Layout.small, fill: Palette.red, halo: true)
                ly += 15
            }
        }

        let width = (left + plotWidth + Layout.right).rounded(.up)
        let notesWidth = notes.map { left + 70 + Self.textWidth($0.text, size: Layout.small) + 16 }.max() ?? 0
        let titleWidth = 16 + Self.textWidth(title, size: 16) + Self.textWidth(verdict) + 40
        let fullWidth = max(width, notesWidth.rounded(.up), titleWidth.rounded(.up), 640)
        let height = (ly + 12).rounded(.up)

        svg.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        svg.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(fullWidth))\" height=\"\(f(height))\" viewBox=\"0 0 \(f(fullWidth)) \(f(height))\" data-end-ms=\"\(endMs)\" font-family=\"DejaVu Sans, Arial, Helvetica, sans-serif\">")
        svg.raw("<title>\(SVGText.escape("Inactivity: " + title))</title>")
        svg.raw("""
            <defs>
            <pattern id="background" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#4a5568" fill-opacity="0.07"/><line x1="0" y1="0" x2="0" y2="6" stroke="#4a5568" stroke-width="2" stroke-opacity="0.22"/></pattern>
            <pattern id="frozen" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="5" height="5" fill="#3182ce" fill-opacity="0.06"/><line x1="0" y1="0" x2="0" y2="5" stroke="#3182ce" stroke-width="1.5" stroke-opacity="0.35"/></pattern>
            <pattern id="noprocess" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#a0aec0" stroke-width="1"/></pattern>
            </defs>
            """)
        svg.raw("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>")
        svg.raw(body.text)
        svg.raw("</svg>")
        return svg.text
    }

    // MARK: Pieces

    /// Marks of one lane in time order, grouped when they would be drawn on top of each other.
    func cluster(_ laneMarks: [StepMark], x: (StepMark) -> Double) -> [[StepMark]] {
        var clusters: [[StepMark]] = []
        for m in laneMarks {
            if let last = clusters.last, x(m) - x(last[0]) < 7 {
                clusters[clusters.count - 1].append(m)
            } else {
                clusters.append([m])
            }
        }
        return clusters
    }

    /// What a stack of marks says next to it: the first step as written (repeats stay quiet).
    func label(_ cluster: [StepMark]) -> String {
        let first = cluster[0]
        if first.noteNumber != nil || first.mark.lane == .checks {
            let failed = cluster.filter { $0.outcome.problem != nil }.count
            return failed > 0 ? "\(failed) FAILED" : ""
        }
        if first.step.isRepeat { return "" }
        let items = cluster.filter { !$0.step.isRepeat }
        // Several of one command: counted ("refresh ×8: ok, retry ×4, failed ×2, refused").
        let words = Set(items.map { $0.step.text.prefix { $0 != " " } })
        if items.count > 2, words.count == 1, let word = words.first {
            var text = "\(word) ×\(items.count)"
            var outcomes: [(String, Int)] = []
            for item in items {
                let name = item.outcome.refresh.map(Names.refreshOutcome) ?? (item.outcome.error != nil ? "refused" : nil)
                guard let name else { continue }
                if let i = outcomes.firstIndex(where: { $0.0 == name }) { outcomes[i].1 += 1 } else { outcomes.append((name, 1)) }
            }
            if !outcomes.isEmpty { text += ": " + outcomes.map { $0.1 > 1 ? "\($0.0) ×\($0.1)" : $0.0 }.joined(separator: ", ") }
            if let n = items.last?.outcome.unlockFailures { text += " (\(n) in a row)" }
            return text
        }
        return items.map(short).joined(separator: ", ")
    }

    /// A step as written, with what it returned, for labels.
    func short(_ m: StepMark) -> String {
        var text = m.step.text
        if case .activity = m.step.command, text.hasPrefix("activity ") { text.removeFirst("activity ".count) }
        if let r = text.range(of: " every ") { text = String(text[..<r.lowerBound]) + " (repeats)" }
        if let refresh = m.outcome.refresh { text += " → " + Names.refreshOutcome(refresh) }
        if let n = m.outcome.unlockFailures { text += " (\(n))" }
        return text
    }

    /// A mark's tooltip.
    func describe(_ m: StepMark) -> String {
        var text = m.step.text.isEmpty ? "note" : m.step.text
        if case .note(let note) = m.step.command { text = "note: " + note }
        if let r = m.outcome.refresh { text += " => \(Names.refreshOutcome(r))" }
        if let n = m.outcome.unlockFailures { text += " (\(n) in a row)" }
        if let bytes = m.outcome.snapshotBytes { text += " (\(bytes) bytes)" }
        if let e = m.outcome.error { text += "  error \(Names.errorCodeName(e.code)): \(e.message)" }
        if case .expect = m.step.command { text += m.outcome.problem.map { "  FAILED: \($0)" } ?? "  ok" }
        return "line \(m.step.line): " + text
    }

    /// `text`, cut to fit `width` with an ellipsis, or nil when not even a few letters fit.
    func fitted(_ text: String, width: Double, size: Double) -> String? {
        guard !text.isEmpty else { return nil }
        if Self.textWidth(text, size: size) <= width { return text }
        let fits = Int(width / (size * 0.6)) - 1
        guard fits >= 6 else { return nil }
        return String(text.prefix(fits)) + "…"
    }

    /// A compressed stretch's length for its label: the two largest units, rounded to the
    /// second, with "≈" when that rounding changed it (`7h59m`, `≈15m`).
    static func roughDuration(_ ms: Int64) -> String {
        let seconds = (ms + 500) / 1000
        var parts: [(Int64, String)] = [(seconds / 86_400, "d"), (seconds / 3600 % 24, "h"), (seconds / 60 % 60, "m"), (seconds % 60, "s")]
        while let first = parts.first, first.0 == 0, parts.count > 1 { parts.removeFirst() }
        let kept = parts.prefix(2).filter { $0.0 > 0 }
        let text = kept.isEmpty ? "0s" : kept.map { "\($0.0)\($0.1)" }.joined()
        let exact = parts.dropFirst(2).allSatisfy { $0.0 == 0 } && seconds * 1000 == ms
        return exact ? text : "≈" + text
    }

    /// The axis step: a round duration at least 70 px wide at this scale.
    static func axisStep(pxPerMs: Double) -> Int64 {
        let steps: [Int64] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
            .map { $0 * 1000 }
        return steps.first { Double($0) * pxPerMs >= 70 } ?? 86_400_000
    }

    /// Scenario time as the scenario writes it: `3:40`, `8:14:30`, `14:59.999`.
    func clock(_ ms: Int64) -> String { TimeText.remaining(ms) }

    /// A glyph centred on (x, y), about 10 px across.
    func glyph(_ g: Glyph, x: Double, y: Double, colour c: String, number: Int?) -> String {
        let (X, Y) = (f(x), f(y))
        switch g {
        case .dot: return "<circle cx=\"\(X)\" cy=\"\(Y)\" r=\"3.6\" fill=\"\(c)\"/>"
        case .ring: return "<circle cx=\"\(X)\" cy=\"\(Y)\" r=\"3.4\" fill=\"#fff\" stroke=\"\(c)\" stroke-width=\"1.4\"/>"
        case .play: return "<path d=\"M\(f(x - 4)) \(f(y - 5)) l9 5 l-9 5 z\" fill=\"\(c)\"/>"
        case .diamond: return "<path d=\"M\(X) \(f(y - 5)) l5 5 l-5 5 l-5 -5 z\" fill=\"\(c)\"/>"
        case .diamondOpen: return "<path d=\"M\(X) \(f(y - 4.5)) l4.5 4.5 l-4.5 4.5 l-4.5 -4.5 z\" fill=\"#fff\" stroke=\"\(c)\" stroke-width=\"1.4\"/>"
        case .square: return "<rect x=\"\(f(x - 4))\" y=\"\(f(y - 4))\" width=\"8\" height=\"8\" fill=\"\(c)\"/>"
        case .squareOpen: return "<rect x=\"\(f(x - 3.5))\" y=\"\(f(y - 3.5))\" width=\"7\" height=\"7\" fill=\"#fff\" stroke=\"\(c)\" stroke-width=\"1.5\"/>"
        case .cross: return "<path d=\"M\(f(x - 3.5)) \(f(y - 3.5)) l7 7 m0 -7 l-7 7\" stroke=\"\(c)\" stroke-width=\"2\" stroke-linecap=\"round\"/>"
        case .bar: return "<rect x=\"\(f(x - 1.5))\" y=\"\(f(y - 5))\" width=\"3\" height=\"10\" fill=\"\(c)\"/>"
        case .triangleUp: return "<path d=\"M\(X) \(f(y - 4.5)) l5 8.5 h-10 z\" fill=\"\(c)\"/>"
        case .triangleDown: return "<path d=\"M\(X) \(f(y + 4.5)) l5 -8.5 h-10 z\" fill=\"\(c)\"/>"
        case .triangleUpOpen: return "<path d=\"M\(X) \(f(y - 4)) l4.5 7.5 h-9 z\" fill=\"#fff\" stroke=\"\(c)\" stroke-width=\"1.4\"/>"
        case .triangleDownOpen: return "<path d=\"M\(X) \(f(y + 4)) l4.5 -7.5 h-9 z\" fill=\"#fff\" stroke=\"\(c)\" stroke-width=\"1.4\"/>"
        case .bracketOpen: return "<path d=\"M\(f(x + 2.5)) \(f(y - 5)) h-4 v10 h4\" fill=\"none\" stroke=\"\(c)\" stroke-width=\"2\"/>"
        case .bracketClose: return "<path d=\"M\(f(x - 2.5)) \(f(y - 5)) h4 v10 h-4\" fill=\"none\" stroke=\"\(c)\" stroke-width=\"2\"/>"
        case .pause: return "<path d=\"M\(f(x - 4)) \(f(y - 4.5)) h3 v9 h-3 z M\(f(x + 1)) \(f(y - 4.5)) h3 v9 h-3 z\" fill=\"\(c)\"/>"
        case .pauseOpen: return "<path d=\"M\(f(x - 3.5)) \(f(y - 4)) h2.5 v8 h-2.5 z M\(f(x + 1)) \(f(y - 4)) h2.5 v8 h-2.5 z\" fill=\"#fff\" stroke=\"\(c)\" stroke-width=\"1.2\"/>"
        case .check: return "<path d=\"M\(f(x - 4)) \(Y) l3 3.5 l5 -7\" fill=\"none\" stroke=\"\(c)\" stroke-width=\"1.8\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/>"
        case .number:
            let n = number.map(String.init) ?? ""
            return "<circle cx=\"\(X)\" cy=\"\(Y)\" r=\"5.5\" fill=\"\(c)\"/><text x=\"\(X)\" y=\"\(f(y + 3))\" font-size=\"\(n.count > 1 ? 7 : 8)\" font-weight=\"bold\" fill=\"#fff\" text-anchor=\"middle\">\(n)</text>"
        }
    }
}

/// Finds the first of a few rows where a label still fits (labels come in x order).
struct RowPacker {
    var ends: [Double]
    init(rows: Int) { ends = Array(repeating: -Double.infinity, count: rows) }

    mutating func place(_ x0: Double, _ x1: Double) -> Int? {
        guard let row = ends.firstIndex(where: { $0 + 6 <= x0 }) else { return nil }
        ends[row] = x1
        return row
    }
}

/// An SVG document being written: raw markup, and text that is always escaped.
struct SVGText {
    var text = ""

    mutating func raw(_ markup: String) {
        text += markup
        text += "\n"
    }

    mutating func text(_ content: String, x: Double, y: Double, size: Double, weight: String? = nil, fill: String,
                       anchor: String? = nil, italic: Bool = false, halo: Bool = false) {
        var attrs = "x=\"\(f(x))\" y=\"\(f(y))\" font-size=\"\(f(size))\" fill=\"\(fill)\""
        // A white outline under the letters keeps a label readable over marks and hatching.
        if halo { attrs += " stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\"" }
        if let weight { attrs += " font-weight=\"\(weight)\"" }
        if let anchor { attrs += " text-anchor=\"\(anchor)\"" }
        if italic { attrs += " font-style=\"italic\"" }
        raw("<text \(attrs)>\(SVGText.escape(content))</text>")
    }

    mutating func title(_ content: String) {
        raw("<title>\(SVGText.escape(content))</title>")
    }

    /// Text for XML content or an attribute value: the five markup characters become entities,
    /// and characters XML 1.0 cannot carry (most control characters, U+FFFE, U+FFFF) become
    /// U+FFFD, so no scenario text can break the file.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out += " "
            default:
                if u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF {
                    out.unicodeScalars.append("\u{FFFD}")
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out
    }
}

/// A coordinate with at most one decimal.
func f(_ v: Double) -> String {
    guard v.isFinite else { return "0" }
    let r = (v * 10).rounded() / 10
    return r == r.rounded() ? String(Int(r)) : String(format: "%.1f", r)
}
