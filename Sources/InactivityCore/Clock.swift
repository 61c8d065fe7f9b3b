// Time. The engine decides only on a monotonic clock that counts deep sleep and cannot be set
// (docs/design.md, "Time"). The wall clock and the boot id are read only to judge a snapshot.

import CInactivityPlatform
import Synchronization

/// One reading of an engine's clock.
public struct ClockReading: Sendable, Equatable {
    /// Milliseconds on the monotonic clock (counts deep sleep; restarts at boot).
    public var monotonicMs: Int64
    /// Milliseconds since 1970 on the wall clock (the user can set it).
    public var wallMs: Int64
    /// Identifies the boot the monotonic clock belongs to.
    public var bootID: UInt64

    public init(monotonicMs: Int64, wallMs: Int64, bootID: UInt64) {
        self.monotonicMs = monotonicMs
        self.wallMs = wallMs
        self.bootID = bootID
    }
}

/// The system clock: Swift's `ContinuousClock` source, read directly so that its value can be
/// stored in a snapshot. On Linux and Android that is `CLOCK_BOOTTIME` (counts deep sleep,
/// cannot be set); on Apple platforms `CLOCK_MONOTONIC_RAW`.
public enum SystemClock {
    // INACTIVITY_LINUX: the Embedded build for ARM compiles for a bare-metal triple (the only one
    // the toolchain's Embedded stdlib has) against Linux headers, so os(Linux) is false there.
    #if arch(wasm32)
    /// The web's one clock, made of the host's two (see WebClock). One thread: no lock.
    nonisolated(unsafe) static var web = WebClock()

    /// The monotonic clock in milliseconds: the host's two clocks under WebClock's rule.
    public static func monotonicMs() -> Int64 {
        web.read(monotonicMs: inactivity_host_monotonic_ms(), wallMs: inactivity_host_wall_ms())
    }
    #else
    #if os(Linux) || os(Android) || INACTIVITY_LINUX
    static let monotonicID = CLOCK_BOOTTIME
    #else
    static let monotonicID = CLOCK_MONOTONIC_RAW
    #endif

    /// The monotonic clock in milliseconds (floor): a vDSO read, no lock, no allocation.
    @inline(__always)
    public static func monotonicMs() -> Int64 { inactivity_monotonic_ms(monotonicID) }
    #endif

    /// The wall clock in milliseconds since 1970 (floor), in 64-bit seconds on every target: on
    /// a 32-bit time_t (armeabi-v7a) through the kernel's 64-bit-time call, so it stays right
    /// after January 2038 (CInactivityPlatform's time helpers).
    public static func wallMs() -> Int64 { inactivity_wall_ms() }

    /// The kernel's boot id (a hash of /proc/sys/kernel/random/boot_id). Where it cannot be
    /// read, a hash of the boot instant by the wall clock to the minute: a wall-clock change
    /// then looks like a reboot, which only makes a restore stricter.
    public static let bootID: UInt64 = {
        var hash = FNV1a64()
        // The path as static bytes (a String argument would bring String's C bridging in).
        let path: StaticString = "/proc/sys/kernel/random/boot_id"
        let fd = inactivity_open_read_only(UnsafeRawPointer(path.utf8Start).assumingMemoryBound(to: CChar.self))
        if fd >= 0 {
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 64) }
            close(fd)
            if n > 0 {
                for b in buffer[0..<n] where b != 10 { hash.mix(b) }
                return hash.value == 0 ? 1 : hash.value
            }
        }
        let bootMinute = (wallMs() - monotonicMs()) / 60_000
        withUnsafeBytes(of: bootMinute.littleEndian) { for b in $0 { hash.mix(b) } }
        return hash.value == 0 ? 1 : hash.value
    }()

    public static func now() -> ClockReading {
        ClockReading(monotonicMs: monotonicMs(), wallMs: wallMs(), bootID: bootID)
    }
}

/// The system clock where the platform has no clock that counts deep sleep (the web: wasm32),
/// made of two host clocks: a monotonic one that may stop while the machine sleeps
/// (`performance.now()`) and the wall clock, which counts sleep but can be set (`Date.now()`).
/// The rule, applied at every reading (every call reads the clock before it decides, so every
/// call catches up first):
/// - between two readings, the time elapsed is the monotonic clock's step, or the wall clock's
///   when that is more than `wallLeadMs` longer: time that only the wall clock saw (the machine
///   slept, or the user set the clock forward) counts as elapsed, which can only make the
///   session lock or expire sooner (fail secure);
/// - a wall clock set back (a negative or shorter step) counts nothing: the monotonic step is
///   the elapsed time, so nobody gains time by setting the clock back;
/// - the result never goes back and starts at the first monotonic reading.
/// A lead up to `wallLeadMs` per step is ignored, so that the two clocks' rounding and a slewed
/// wall clock do not add up over many readings; a sleep shorter than that is not counted.
/// Pure logic: the platform passes the readings, and the JavaScript tests drive it with
/// invented host clocks.
public struct WebClock: Sendable {
    /// The wall clock's lead over the monotonic clock, per step, from which it counts.
    public static let wallLeadMs: Int64 = 1000
    private var lastMonotonicMs: Int64 = 0
    private var lastWallMs: Int64 = 0
    private var valueMs: Int64 = 0
    private var started = false

    public init() {}

    /// The clock now, from the two host readings (ms).
    public mutating func read(monotonicMs: Int64, wallMs: Int64) -> Int64 {
        guard started else {
            started = true
            lastMonotonicMs = monotonicMs
            lastWallMs = wallMs
            valueMs = max(monotonicMs, 0)
            return valueMs
        }
        let (rawMono, monoOverflow) = monotonicMs.subtractingReportingOverflow(lastMonotonicMs)
        let monoStep = monoOverflow ? 0 : max(rawMono, 0)
        let (wallStep, wallOverflow) = wallMs.subtractingReportingOverflow(lastWallMs)
        var step = monoStep
        if !wallOverflow, wallStep > monoStep, wallStep - monoStep > WebClock.wallLeadMs { step = wallStep }
        lastMonotonicMs = max(monotonicMs, lastMonotonicMs)
        lastWallMs = wallMs
        let (next, overflow) = valueMs.addingReportingOverflow(step)
        valueMs = overflow ? .max : next
        return valueMs
    }
}

/// A clock that moves only when told: for tests, simulations and hosts that replay time.
/// Advancing it delivers every due event of every engine that uses it, inside the call.
public final class ManualClock: Sendable {
    private let reading: Locked<ClockReading>
    /// The attached engines, by handle: the clock never keeps an engine alive, and a closed
    /// engine's handle no longer resolves (the registry is the one place that maps handles to
    /// engines, in both builds).
    private let engines = Locked<[UInt64]>([])
    /// How often `advance` stopped to wake its engines (for the tests of its cost).
    private let stopCount = Atomic<Int>(0)
    var stops: Int { stopCount.load(ordering: .relaxed) }

    /// - Parameters: monotonicMs >= 0; bootID != 0.
    /// The wall clock a manual clock starts at unless told (2023-11-14, ms since 1970).
    public static let defaultWallMs: Int64 = 1_700_000_000_000
    /// The boot id a manual clock starts with unless told.
    public static let defaultBootID: UInt64 = 1

    /// A convenience initializer, so that a bad argument is refused before the object exists: the
    /// Embedded Swift runtime does not free an object whose designated initializer throws before
    /// every stored property is set (swift_deallocPartialClassInstance only destroys the fields).
    public convenience init(monotonicMs: Int64 = 0, wallMs: Int64 = ManualClock.defaultWallMs,
                            bootID: UInt64 = ManualClock.defaultBootID) throws(InactivityError) {
        guard monotonicMs >= 0, monotonicMs <= SessionPolicy.maxFiniteMs else {
            throw InactivityError(.invalidArgument, "manual_start_ms (\(monotonicMs)) must be >= 0 and at most 100 years")
        }
        guard bootID != 0 else {
            throw InactivityError(.invalidArgument, "manual_boot_id must not be 0")
        }
        self.init(validated: ClockReading(monotonicMs: monotonicMs, wallMs: wallMs, bootID: bootID))
    }

    private init(validated reading: ClockReading) {
        self.reading = Locked(reading)
    }

    public func now() -> ClockReading { reading.withLock { $0 } }

    /// The furthest a manual clock may go: 1000 years of milliseconds.
    public static let limitMs: Int64 = SessionPolicy.maxFiniteMs * 10

    /// Moves time forward by `ms` (>= 0) as on the real clock while the process lives: every
    /// attached engine wakes at each of its deadlines on the way (WARNING, each countdown tick,
    /// LOCKED, ...), so events are delivered inside this call, in time order, at their times.
    /// The cost is one stop per deadline: a long WARNING with a short tick costs one per tick
    /// while the engine's events are received, none for an engine nobody listens to.
    public func advance(by ms: Int64) throws(InactivityError) {
        let target = try checkedTarget(ms, "ms")
        while true {
            stopCount.add(1, ordering: .relaxed)
            let current = now().monotonicMs
            let attached = attachedEngines()
            // Deliver everything due now. Callbacks may make inputs (a lock at the WARNING), which
            // can bring a deadline closer, so the next step is read only afterwards.
            for engine in attached { engine.timerFired() }
            guard let next = attached.compactMap({ $0.peekNextWake() }).min(), next < target else { break }
            move(by: max(next, current + 1) - current)
        }
        move(by: target - now().monotonicMs)
        for engine in attachedEngines() { engine.timerFired() }
    }

    /// Moves time forward by `ms` (>= 0) as for a frozen or suspended process: nothing is
    /// delivered now; the next call into an engine (or `advance`) catches up, with one transition
    /// to the final state.
    public func freeze(for ms: Int64) throws(InactivityError) {
        let target = try checkedTarget(ms, "ms")
        move(by: target - now().monotonicMs)
    }

    private func checkedTarget(_ ms: Int64, _ name: StaticString) throws(InactivityError) -> Int64 {
        guard ms >= 0 else {
            throw InactivityError(.invalidArgument, "\(name) (\(ms)) must be >= 0: a monotonic clock never goes back")
        }
        let current = now().monotonicMs
        guard ms <= ManualClock.limitMs - current else {
            throw InactivityError(.invalidArgument,
                                  "\(name) (\(ms)) would move the manual clock past 1000 years (\(ManualClock.limitMs) ms)")
        }
        return current + ms
    }

    private func move(by ms: Int64) {
        reading.withLock { r in
            r.monotonicMs += ms
            r.wallMs = r.wallMs.addingReportingOverflow(ms).overflow ? .max : r.wallMs + ms
        }
    }

    /// Moves only the wall clock (the user set it); nothing decides on it while the process lives.
    public func jumpWall(by deltaMs: Int64) throws(InactivityError) {
        let ok = reading.withLock { r -> Bool in
            let (v, o) = r.wallMs.addingReportingOverflow(deltaMs)
            if o { return false }
            r.wallMs = v
            return true
        }
        guard ok else { throw InactivityError(.invalidArgument, "delta_ms (\(deltaMs)) overflows the wall clock") }
    }

    /// Simulates a reboot: a new boot id, the monotonic clock restarts at 0, and the wall clock
    /// moves forward by `downtimeMs`.
    public func reboot(downtimeMs: Int64 = 0) throws(InactivityError) {
        guard downtimeMs >= 0 else {
            throw InactivityError(.invalidArgument, "downtime_ms (\(downtimeMs)) must be >= 0")
        }
        let ok = reading.withLock { r -> Bool in
            let (wall, overflow) = r.wallMs.addingReportingOverflow(downtimeMs)
            if overflow { return false }
            r.monotonicMs = 0
            r.wallMs = wall
            r.bootID = r.bootID &* 0x9E37_79B9_7F4A_7C15 &+ 0x6A09_E667
            if r.bootID == 0 { r.bootID = 1 }
            return true
        }
        guard ok else {
            throw InactivityError(.invalidArgument, "downtime_ms (\(downtimeMs)) overflows the wall clock")
        }
    }

    func attach(_ handle: UInt64) {
        engines.withLock { $0.append(handle) }
    }

    /// Called by every engine's finalize (close or deinit), so the list holds live engines only.
    func detach(_ handle: UInt64) {
        engines.withLock { list in list.removeAll { $0 == handle } }
    }

    /// The live attached engines, resolved outside this clock's lock.
    private func attachedEngines() -> [InactivityEngine] {
        engines.withLock { $0 }.compactMap { Registry.shared.lookup($0) }
    }
}

/// Which clock an engine reads.
public enum EngineClock: Sendable {
    /// The system's monotonic clock that counts deep sleep.
    case system
    /// A manual clock, possibly shared by several engines.
    case manual(ManualClock)

    func now() -> ClockReading {
        switch self {
        case .system: SystemClock.now()
        case .manual(let clock): clock.now()
        }
    }

    @inline(__always)
    func monotonicMs() -> Int64 {
        switch self {
        case .system: SystemClock.monotonicMs()
        case .manual(let clock): clock.now().monotonicMs
        }
    }

    var isManual: Bool { if case .manual = self { true } else { false } }
}
