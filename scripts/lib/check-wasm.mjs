// Checks .build/wasm/inactivity.wasm's interface (scripts/build-wasm): it exports exactly the
// functions of the JS binding's ffi table (bindings/js/src/generated/ffi.js: the header's, but those
// tools/codegen/names.toml marks `wasm = false`), nothing else but the allocator, the event
// callbacks and the reactor's memory and _initialize, and imports only the host clocks and the
// WASI functions bindings/js provides. Usage: node scripts/lib/check-wasm.mjs FILE
import { readFileSync } from 'node:fs';
import { functions as table } from '../../bindings/js/src/generated/ffi.js';

const [file] = process.argv.slice(2);
const functions = Object.keys(table);
const module = new WebAssembly.Module(readFileSync(file));
const allowedImports = new Set([
    'inactivity_host.monotonic_ms', 'inactivity_host.wall_ms', 'inactivity_host.event',
    'inactivity_host.release',
    // What wasi-libc keeps: the reactor's start, exit and the (unused) stdio and random paths.
    ...['fd_write', 'fd_close', 'fd_seek', 'fd_fdstat_get', 'proc_exit', 'random_get',
        'environ_get', 'environ_sizes_get', 'clock_time_get', 'args_get', 'args_sizes_get']
        .map((n) => `wasi_snapshot_preview1.${n}`),
]);
let ok = true;
const exported = new Map(WebAssembly.Module.exports(module).map((e) => [e.name, e.kind]));
for (const f of functions) {
    if (exported.get(f) !== 'function') { console.log(`  missing export: ${f}`); ok = false; }
}
const extra = new Set(['malloc', 'free', 'memory', '_initialize',
    'inactivity_wasm_event_callback', 'inactivity_wasm_release_callback']);
for (const [name] of exported) {
    if (!functions.includes(name) && !extra.has(name)) { console.log(`  unexpected export: ${name}`); ok = false; }
}
const imports = WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`);
for (const i of imports) {
    if (!allowedImports.has(i)) { console.log(`  unexpected import: ${i}`); ok = false; }
}
console.log(`  exports: ${functions.length} header functions + ${[...exported.keys()].filter((n) => extra.has(n)).join(', ')}; imports: ${imports.join(', ')}`);
if (!ok) { console.log('check-wasm: the module failed its checks'); process.exit(1); }
