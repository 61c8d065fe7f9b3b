// The JavaScript benchmarks (scripts/bench js; BENCHMARKS.md "JavaScript"): activity from JS
// through the module against a bare wasm export call, the web's usual clearTimeout+setTimeout
// per event, and react-idle-timer's approach as a plain JS reimplementation (no npm package can
// be installed here); the module's instantiation time; memory per engine. All in one process and
// run, medians over RUNS runs, interleaved so that the machine's load falls on all alike.
// Usage: node --expose-gc verify/bench/js/bench.mjs [RUNS] [CALLS per run = 200000] > results.json
// (scripts/bench --compile-only runs it once with few calls: every name it uses is reached)
import { readFileSync } from 'node:fs';
import { load } from '../../../bindings/js/src/index.js';

const RUNS = Number(process.argv[2] ?? 15);
const N = Number(process.argv[3] ?? 200_000);
const wasmPath = new URL('../../../bindings/js/inactivity.wasm', import.meta.url);
const bytes = readFileSync(wasmPath);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
// CPU time of this process (user + system), not wall time: on a shared machine (8 engineers on
// 2 cores) the wall clock also counts the time other processes ran, up to 10x here.
const cpuUs = () => { const u = process.cpuUsage(); return u.user + u.system; };
const nsPerOp = (fn) => { const t = cpuUs(); fn(); return ((cpuUs() - t) * 1000) / N; };

const ia = await load({ wasm: bytes });
const x = ia.exports;
const engine = new ia.Engine({ policy: new ia.Policy({ idleTimeoutMs: 3_600_000, warningMs: 0 }) });
engine.start();
const handle = BigInt.asIntN(64, engine.handle);

// react-idle-timer's approach, reimplemented from its documented behaviour: every event reads
// Date.now(), leaves the idle state if it was idle, re-arms one setTimeout for the timeout and
// records the last activity (its default element listeners, no throttle, no cross-tab).
class IdleTimerLike {
    constructor(timeout, onIdle) {
        this.timeout = timeout; this.onIdle = onIdle; this.idle = false; this.lastActive = Date.now(); this.timer = null;
        this.arm();
    }
    arm() {
        if (this.timer !== null) clearTimeout(this.timer);
        this.timer = setTimeout(() => { this.idle = true; this.onIdle(); }, this.timeout);
        this.timer.unref?.();
    }
    handleEvent() {
        const now = Date.now();
        if (this.idle) this.idle = false;
        this.lastActive = now;
        this.arm();
    }
}

const cases = {
    // The floor: one call into a wasm export that does nothing but return a constant.
    bare_export: () => { for (let i = 0; i < N; i++) x.inact_version_number(); },
    // The engine without the binding's conversions: the export called directly.
    raw_activity: () => { for (let i = 0; i < N; i++) x.inact_activity(handle, 8); },
    // The binding's engine.activity (a name looked up, then the export).
    activity: () => { for (let i = 0; i < N; i++) engine.activity('KEY'); },
    settimeout_per_event: () => {
        let t = null;
        for (let i = 0; i < N; i++) { if (t !== null) clearTimeout(t); t = setTimeout(() => {}, 3_600_000); }
        clearTimeout(t);
    },
    react_idle_timer_like: () => {
        const timer = new IdleTimerLike(3_600_000, () => {});
        for (let i = 0; i < N; i++) timer.handleEvent();
        clearTimeout(timer.timer);
    },
};
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (const fn of Object.values(cases)) fn(); // warm up every path (JIT) before measuring
for (let r = 0; r < RUNS; r++) for (const [k, fn] of Object.entries(cases)) samples[k].push(nsPerOp(fn));
if (engine.state !== 'ACTIVE') throw new Error(`the engine left ACTIVE (${engine.state})`);
if (engine.info().lastActivityMs === Infinity) throw new Error('no activity was recorded');

// Instantiation: compile + instantiate + the binding's setup, from bytes already in memory.
// Wall time (compilation may use V8's background threads), and this process's CPU time.
const instantiate = [];
const compile = [];
const instantiateCpu = [];
for (let r = 0; r < RUNS; r++) {
    let t = performance.now();
    await WebAssembly.compile(bytes);
    compile.push(performance.now() - t);
    t = performance.now();
    const c = cpuUs();
    await load({ wasm: bytes });
    instantiate.push(performance.now() - t);
    instantiateCpu.push((cpuUs() - c) / 1000);
}

// Memory per engine: the module's linear memory and the JS heap, for E engines in a fresh instance.
const E = 10_000;
const fresh = await load({ wasm: bytes });
const probe = () => { const p = fresh.exports.malloc(1); fresh.exports.free(p); return p; };
globalThis.gc?.();
const heap0 = process.memoryUsage().heapUsed;
const mem0 = fresh.exports.memory.buffer.byteLength;
const brk0 = probe();
const engines = [];
for (let i = 0; i < E; i++) { const e = new fresh.Engine({ clock: 'manual' }); e.start(); engines.push(e); }
globalThis.gc?.();
const heap1 = process.memoryUsage().heapUsed;
const mem1 = fresh.exports.memory.buffer.byteLength;
const brk1 = probe();
for (const e of engines) e.close();

const result = {
    runs: RUNS,
    calls_per_run: N,
    ns_per_call: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, +median(v).toFixed(1)])),
    compile_ms: +median(compile).toFixed(3),
    load_ms: +median(instantiate).toFixed(3),
    load_cpu_ms: +median(instantiateCpu).toFixed(3),
    load_average: (await import('node:os')).loadavg(),
    wasm_bytes: bytes.length,
    memory_per_engine: {
        engines: E,
        linear_memory_growth_bytes: Math.round((mem1 - mem0) / E),
        heap_top_bytes: Math.round((brk1 - brk0) / E),
        js_heap_bytes: globalThis.gc ? Math.round((heap1 - heap0) / E) : null,
    },
    node: process.version,
};
console.log(JSON.stringify(result, null, 1));
