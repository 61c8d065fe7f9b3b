// The module exports exactly what the binding calls (issue 30, the module's size goal). The
// functions the binding never calls are left out of inactivity.wasm (tools/codegen/names.toml
// marks them `wasm = false`; scripts/build-wasm exports ffi.js's table), so the linker drops
// their code. These tests prove the three lists agree: the module's function exports, ffi.js's
// table, and the C functions the binding's sources call; and that the left-out functions are
// neither in the module nor reachable through the binding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { functions } from '../src/generated/ffi.js';
import { engineInputs } from '../src/generated/inputs.js';
import { load } from '../src/index.js';

const src = new URL('../src/', import.meta.url);
const sources = readdirSync(src, { recursive: true }).filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(new URL(f, src), 'utf8')).join('\n');
// What the module exports besides C ABI functions: the allocator for the host's buffers, the
// event callbacks' table entries, and the reactor's memory and start.
const runtime = new Set(['malloc', 'free', 'memory', '_initialize',
    'inactivity_wasm_event_callback', 'inactivity_wasm_release_callback']);
const bytes = readFileSync(new URL('../inactivity.wasm', import.meta.url));
const moduleFunctions = WebAssembly.Module.exports(new WebAssembly.Module(bytes))
    .filter((e) => !runtime.has(e.name)).map((e) => e.name).sort();
// The C functions the binding calls: `x.inact_...` (x: the instance's exports) and the generated
// inputs' `[method, cName, args]` rows, installed as Engine methods. Calls by a computed name
// are not allowed in the sources (the check below fails on one), so this list is complete.
const called = [...new Set([...sources.matchAll(/\bx\.(inact_[a-z0-9_]+)/g)].map((m) => m[1])
    .concat(engineInputs.map(([, cName]) => cName)))].sort();
const header = readFileSync(new URL('../../../include/inactivity.h', import.meta.url), 'utf8');
const declared = [...header.matchAll(/^INACT_EXPORT [^(]*[ *](inact_[a-z0-9_]+)\(/gm)].map((m) => m[1]);

test('the module exports exactly the ffi table\'s functions', () => {
    assert.deepEqual(moduleFunctions, Object.keys(functions).sort());
});

test('the binding calls every function the module exports, and no other', () => {
    assert.deepEqual(called, moduleFunctions);
});

test('the binding calls no export by a computed name (every call is x.inact_... or a generated input)', () => {
    // x[name] would hide a call from the list above; the generated inputs' loop is the one use.
    const computed = [...sources.matchAll(/\bx\[([^\]]+)\]/g)].map((m) => m[1]);
    assert.deepEqual(computed, ['cName']);
});

test('the left-out functions (the server decision above all) are neither in the module nor reachable', async () => {
    const left = declared.filter((f) => !(f in functions));
    // names.toml's `wasm = false` rows: the server's decision and its struct init, the plain
    // init symbols (the binding calls the _sized ones), and calls the binding makes otherwise.
    assert.ok(left.includes('inact_server_decide') && left.includes('inact_decision_init_sized'), left.join(' '));
    assert.ok(left.length > 0 && left.length < declared.length / 2, `${left.length} of ${declared.length} left out`);
    const ia = await load({ wasm: bytes });
    // Doc comments may name a C function (the generated enums cite the header's); code may not.
    const code = sources.replace(/\/\*[\s\S]*?\*\//g, '');
    for (const f of left) {
        assert.equal(ia.exports[f], undefined, `${f} is exported by the module`);
        assert.ok(!new RegExp(`\\b${f}\\b`).test(code), `the binding's sources name ${f}`);
    }
    for (const f of declared.filter((g) => g in functions)) assert.equal(typeof ia.exports[f], 'function', f);
});
