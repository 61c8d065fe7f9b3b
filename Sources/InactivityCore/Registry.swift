// Handles: 64-bit ids with a generation, so that a destroyed, stale or forged handle is
// rejected and never touches freed memory (docs/design.md, "Threading and delivery").
//
// handle = generation (high 32 bits, never 0) | slot index + 1 (low 32 bits). Each slot owns an
// ActivityGate in memory that is never freed (slots are reused with a new generation), which
// is what lets `inact_activity` run without a lock and without retaining the engine.
//
// A slot's generation lives in its gate's handle word: the whole handle while an engine has
// the slot, the generation alone (low half 0, never a valid handle) once it is retired, and the
// next generation once the slot is free. The reference that keeps a C host's engine alive sits
// beside the gates in the same never-moving chunk, so there is no table of entries to grow.
//
// Lookups take no lock that two engines share (include/inactivity.h, Threading: calls take a
// short per-engine lock). A lookup checks the handle word, counts itself among its slot's
// readers, checks the word again and copies the reference (a retain); `release` retires the
// word, then waits until the slot's readers are gone before it drops the reference, so a reader
// never retains an engine being freed. Both sides are sequentially consistent (the reader's
// count before its second check, the release's retire before its read of the count): either
// the release sees the reader and waits for it (a few instructions), or the reader sees the
// retired word and gives up without touching the reference. Readers never wait, for anything.
// The counts are striped, one per 64-byte line, `stripes` of them, slot i counting in stripe
// i % stripes: no byte per engine (a million engines keep their 248 B), and neighbouring slots,
// whose gates share cache lines, count on different lines. A release waits for the readers of
// its stripe, other engines' included (each holds the count for a few instructions). The
// process-wide `table` lock is left to what changes the set of slots: creating and destroying.

import CInactivityPlatform
import Synchronization

final class Registry: @unchecked Sendable {
    static let shared = Registry()

    static let chunkSize = 1024
    static let maxChunks = 16_384   // 16.7 million engines at once

    /// Who keeps a slot's engine: in the slot's chunk, after the chunk's gates.
    private struct Owner {
        /// The engine while its handle is owned by a C host (destroyed explicitly).
        var strong: InactivityEngine?
        #if !hasFeature(Embedded)
        /// The engine while it lives (Swift hosts drop it like any object).
        weak var weak: InactivityEngine?
        #endif
        // Embedded Swift has no weak references. The Embedded build is the C library, whose
        // hosts own engines by handle, so there every engine is `strong` until `release`, and
        // engines owned by their Swift references (the only users of `weak`) do not exist there.
    }

    private struct Table {
        /// Slots handed out so far (each chunk's owners are initialized up to here).
        var used = 0
        var free: [UInt32] = []
    }

    private let table = Locked(Table())
    /// Lookups between their count and their copy of a reference, per stripe (the file's head):
    /// `stripes` counts, each starting a 64-byte line of its own.
    private let readers: UnsafeMutableRawPointer
    static let stripes = 64
    private static let stripeBytes = stripes * 64
    /// Chunk pointers (as integers), published with release ordering before any handle into them.
    private let chunks: UnsafeMutablePointer<Atomic<UInt>>
    /// A chunk: `chunkSize` gates, then `chunkSize` owners.
    private static let chunkBytes = chunkSize * (MemoryLayout<ActivityGate>.stride + MemoryLayout<Owner>.stride)

    // Both the chunk table (128 KiB for the most engines a process may have) and each chunk of
    // gates and owners come zero-filled from the kernel: all-zero bytes are `Atomic(0)` and
    // `ActivityGate()`, and an owner is initialized when its slot is first used, so nothing is
    // written until then, and a process with one engine touches three pages (the table's first,
    // the first gate's, the first owner's, 40 KiB after it), and a fourth, the reader counts',
    // at its first lookup, instead of the whole mapping (180 KiB Embedded, 188 KiB SwiftPM, on
    // 64-bit CPUs: cold start). The table, the first chunk and the counts are one mapping (one
    // system call at the first engine, not three). Where the kernel refuses,
    // ordinary memory is initialized.
    private init() {
        let tableBytes = Registry.maxChunks * MemoryLayout<Atomic<UInt>>.stride   // a page multiple
        // The reader counts come after the first chunk, in the same mapping (zero: Atomic(0)).
        let countsAt = (tableBytes + Registry.chunkBytes + 63) / 64 * 64
        if let zeroed = inactivity_map_zeroed(countsAt + Registry.stripeBytes) {
            chunks = zeroed.bindMemory(to: Atomic<UInt>.self, capacity: Registry.maxChunks)
            let first = Registry.bindChunk(zeroed + tableBytes)
            chunks[0].store(UInt(bitPattern: first), ordering: .releasing)
            readers = zeroed + countsAt
        } else {
            chunks = .allocate(capacity: Registry.maxChunks)
            for i in 0..<Registry.maxChunks { (chunks + i).initialize(to: Atomic<UInt>(0)) }
            readers = .allocate(byteCount: Registry.stripeBytes, alignment: 64)
            for i in 0..<Registry.stripes {
                (readers + i * 64).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic<Int>(0))
            }
        }
    }

    /// Binds a chunk's memory; returns its first gate. The owners are initialized one at a
    /// time, when their slot is first used.
    private static func bindChunk(_ raw: UnsafeMutableRawPointer) -> UnsafeMutablePointer<ActivityGate> {
        (raw + chunkSize * MemoryLayout<ActivityGate>.stride).bindMemory(to: Owner.self, capacity: chunkSize)
        return raw.bindMemory(to: ActivityGate.self, capacity: chunkSize)
    }

    private static func newChunk() -> UnsafeMutablePointer<ActivityGate> {
        if let zeroed = inactivity_map_zeroed(chunkBytes) { return bindChunk(zeroed) }
        let raw = UnsafeMutableRawPointer.allocate(byteCount: chunkBytes, alignment: MemoryLayout<ActivityGate>.alignment)
        let chunk = bindChunk(raw)
        for i in 0..<chunkSize { (chunk + i).initialize(to: ActivityGate()) }
        return chunk
    }

    /// The reader count of slot `index`'s stripe.
    @inline(__always)
    private func readerCount(_ index: Int) -> UnsafeMutablePointer<Atomic<Int>> {
        (readers + (index % Registry.stripes) * 64).assumingMemoryBound(to: Atomic<Int>.self)
    }

    /// The owner of slot `index`, whose chunk exists.
    private func owner(_ index: Int) -> UnsafeMutablePointer<Owner> {
        let gates = gatePointer(index)! - index % Registry.chunkSize
        return UnsafeMutableRawPointer(gates + Registry.chunkSize).assumingMemoryBound(to: Owner.self)
            + index % Registry.chunkSize
    }

    /// The gate of slot `index`, if its chunk exists.
    @inline(__always)
    private func gatePointer(_ index: Int) -> UnsafeMutablePointer<ActivityGate>? {
        let c = index / Registry.chunkSize
        guard c < Registry.maxChunks else { return nil }
        let raw = chunks[c].load(ordering: .acquiring)
        guard let base = UnsafeMutablePointer<ActivityGate>(bitPattern: raw) else { return nil }
        return base + (index % Registry.chunkSize)
    }

    /// The gate of a registered engine's handle (the engine's own handle: valid by construction).
    @inline(__always)
    func gate(_ handle: UInt64) -> UnsafeMutablePointer<ActivityGate> {
        gatePointer(Int(truncatingIfNeeded: handle & 0xFFFF_FFFF) &- 1)!
    }

    /// Registers `engine`; returns its handle.
    /// `ownedByHandle`: the registry keeps the engine alive until `release` (C hosts own handles,
    /// not objects); otherwise it only refers to it weakly (Swift hosts drop it like any object).
    func register(_ engine: InactivityEngine, now: Int64, ownedByHandle: Bool) throws(InactivityError) -> UInt64 {
        let result = table.withLock { t -> UInt64? in
            let index: Int
            if let f = t.free.popLast() {
                index = Int(f)
            } else {
                index = t.used
                if index % Registry.chunkSize == 0 {
                    let c = index / Registry.chunkSize
                    guard c < Registry.maxChunks else { return nil }
                    if chunks[c].load(ordering: .relaxed) == 0 {   // the first came with the table
                        let chunk = Registry.newChunk()
                        chunks[c].store(UInt(bitPattern: chunk), ordering: .releasing)
                    }
                }
                owner(index).initialize(to: Owner())
                t.used += 1
            }
            let gate = gatePointer(index)!
            let o = owner(index)
            #if hasFeature(Embedded)
            o.pointee.strong = engine   // see Owner: ownedByHandle is always true here
            #else
            if ownedByHandle {
                o.pointee.strong = engine   // no weak reference: no side table either
            } else {
                o.pointee.weak = engine
            }
            #endif
            // A slot never used has generation 0 in its word: its first is 1.
            let generation = max(gate.pointee.handle.load(ordering: .relaxed) >> 32, 1)
            let handle = generation << 32 | UInt64(index + 1)
            gate.pointee.open(handle: handle, now: now)
            return handle
        }
        guard let result else { throw InactivityError(.limit, "engines: at most \(Registry.maxChunks * Registry.chunkSize) at once") }
        return result
    }

    /// Frees the slot of a closed engine; its handle is dead from now on.
    func release(_ handle: UInt64) {
        let strong = table.withLock { t -> InactivityEngine? in
            guard let i = index(of: handle, in: t) else { return nil }
            let gate = gatePointer(i)!
            gate.pointee.retire()   // sequentially consistent: see the file's head
            let o = owner(i)
            // Readers that counted themselves before the retire finish their copy; later ones
            // see the retired word. Each holds the count for a few instructions.
            let count = readerCount(i)
            while count.pointee.load(ordering: .sequentiallyConsistent) != 0 { _ = sched_yield() }
            let s = o.pointee.strong
            o.pointee.strong = nil
            #if !hasFeature(Embedded)
            o.pointee.weak = nil
            #endif
            let generation = UInt32(truncatingIfNeeded: handle >> 32)
            gate.pointee.handle.store(UInt64(generation == .max ? 1 : generation + 1) << 32, ordering: .releasing)
            t.free.append(UInt32(i))
            return s
        }
        _ = strong   // released outside the table lock
    }

    private func index(of handle: UInt64, in t: Table) -> Int? {
        let low = handle & 0xFFFF_FFFF
        let generation = UInt32(truncatingIfNeeded: handle >> 32)
        // Compared as UInt64 before any Int conversion: on 32-bit CPUs Int(low - 1) traps for a
        // forged handle with the top bit of its low half set.
        guard low != 0, generation != 0, low <= UInt64(t.used) else { return nil }
        let i = Int(low - 1)
        let word = gatePointer(i)!.pointee.handle.load(ordering: .acquiring)
        guard UInt32(truncatingIfNeeded: word >> 32) == generation else { return nil }
        return i
    }

    /// Whether `handle` named an engine of this process that has been destroyed since: its slot
    /// is retired at that generation or has moved past it. Only for the message of a refused
    /// call ("the engine is closed", the wording of every binding); a handle this cannot place
    /// (0, forged, a generation that wrapped) is false.
    func wasDestroyed(_ handle: UInt64) -> Bool {
        let low = handle & 0xFFFF_FFFF
        let generation = handle >> 32
        guard low != 0, generation != 0, low <= UInt64(Registry.maxChunks * Registry.chunkSize),
              let gate = gatePointer(Int(low - 1)) else { return false }
        let word = gate.pointee.handle.load(ordering: .acquiring)
        let current = word >> 32
        return generation < current || (generation == current && word & 0xFFFF_FFFF == 0)
    }

    /// The live engine with this handle, or nil. Lock-free (see the file's head): a lookup
    /// writes only its stripe's reader count and never waits.
    func lookup(_ handle: UInt64) -> InactivityEngine? {
        let low = handle & 0xFFFF_FFFF
        // Compared as UInt64 before any Int conversion (32-bit CPUs, forged handles). A slot
        // never used, or in a chunk not made yet, cannot match: its word is 0, or it has no gate.
        guard low != 0, low <= UInt64(Registry.maxChunks * Registry.chunkSize), handle >> 32 != 0,
              let gate = gatePointer(Int(low - 1)),
              gate.pointee.handle.load(ordering: .acquiring) == handle else { return nil }
        // The word matched, so the slot was registered and its owner initialized before it.
        let i = Int(low - 1)
        let count = readerCount(i)
        count.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { count.pointee.wrappingSubtract(1, ordering: .releasing) }
        guard gate.pointee.handle.load(ordering: .sequentiallyConsistent) == handle else { return nil }
        let o = owner(i)
        #if hasFeature(Embedded)
        return o.pointee.strong
        #else
        return o.pointee.strong ?? o.pointee.weak
        #endif
    }

    /// Activity by handle (`kind` already checked by the caller): the lock-free fast path, falling
    /// back to the engine's locked path.
    @inline(__always)
    func activity(_ handle: UInt64, kind: UInt32) throws(InactivityError) {
        let low = handle & 0xFFFF_FFFF
        if low != 0, low <= UInt64(Registry.maxChunks * Registry.chunkSize), handle >> 32 != 0,
           let gate = gatePointer(Int(low - 1)), gate.pointee.handle.load(ordering: .acquiring) == handle {
            if gate.pointee.record(kind: kind, expectedHandle: handle) == .handled { return }
        }
        guard let engine = lookup(handle) else { throw InactivityEngine.invalidHandle(handle) }
        try engine.recordActivity(ActivityKind(rawValue: kind))
    }

}
