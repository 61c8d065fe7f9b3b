// Where inactivity.wasm's bytes go (scripts/bench js, BENCHMARKS.md): section sizes, and the code
// section's function bodies grouped by origin, from the debug module's name section (Swift
// symbols are mangled `$e...`; the rest is libc, the builtins and library.c).
// Usage: node scripts/lib/wasm-sizes.mjs .build/wasm/inactivity.debug.wasm
import { readFileSync } from 'node:fs';

const b = readFileSync(process.argv[2]);
let p = 8;
const leb = () => { let r = 0, s = 0, x; do { x = b[p++]; r |= (x & 0x7f) << s; s += 7; } while (x & 0x80); return r >>> 0; };
const sections = {};
let bodies = [], names = new Map(), imported = 0;
while (p < b.length) {
    const id = b[p++]; const size = leb(); const start = p;
    let name = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'datacount'][id];
    if (id === 0) { const n = leb(); name = 'custom:' + b.subarray(p, p + n).toString(); p += n; }
    if (id === 2) { const n = leb(); for (let i = 0; i < n; i++) { { const m = leb(); p += m; } { const f = leb(); p += f; } const k = b[p++]; if (k === 0) { leb(); imported++; } else if (k === 1) { p++; const f = b[p++]; leb(); if (f & 1) leb(); } else if (k === 2) { const f = b[p++]; leb(); if (f & 1) leb(); } else { p += 2; } } }
    if (id === 10) { const n = leb(); for (let i = 0; i < n; i++) { const s = leb(); bodies.push(s); p += s; } }
    if (name === 'custom:name') {
        while (p < start + size) { const sub = b[p++]; const sz = leb(); const end = p + sz;
            if (sub === 1) { const n = leb(); for (let i = 0; i < n; i++) { const idx = leb(); const l = leb(); names.set(idx, b.subarray(p, p + l).toString()); p += l; } }
            p = end; }
    }
    sections[name] = (sections[name] ?? 0) + size;
    p = start + size;
}
const groups = {};
bodies.forEach((s, i) => {
    const n = names.get(i + imported) ?? '';
    // Embedded Swift mangles with $e: $e18InactivityEmbedded... is the engine (generic stdlib code
    // specialized for it included), $es... the standard library's own.
    const g = n.startsWith('$e18InactivityEmbedded') ? 'swift: the engine (core + shims)'
        : n.startsWith('$e') || n.startsWith('swift_') ? 'swift: standard library and runtime'
        : n.startsWith('inact_') || n.startsWith('inactivity_') ? 'C ABI entry points' : 'libc, builtins, runtime';
    groups[g] = (groups[g] ?? 0) + s;
});
console.log(JSON.stringify({ sections, code_by_origin: groups }, null, 1));
