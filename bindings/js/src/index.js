// The JavaScript binding of the Inactivity engine: the engine itself is inactivity.wasm (the
// same Swift core as every other binding, built by scripts/build-wasm); this file converts
// values and adds JavaScript idiom. It decides nothing: every rule, default, preset and check is
// the engine's, and every error is the engine's status and message (bindings/js/README.md).
//
// The ffi (export names, argument kinds, struct layouts, enums, statuses) comes from ./generated/ffi.js,
// derived from include/inactivity.h; nothing below names a C type or an offset.

import { enums, fieldKinds as ffiFieldKinds, functions, statuses, structs, INACT_SNAPSHOT_MAX_SIZE } from './generated/ffi.js';
import { engineInputs } from './generated/inputs.js';
import { InactivityError, errors } from './generated/errors.js';

const NEVER_I64 = 0x7fffffffffffffffn;
const INT64_MIN = -0x8000000000000000n;

// ---- Errors ---------------------------------------------------------------------------------

// The classes are generated from the error categories (tools/codegen/names.toml): InactivityError,
// one class per category and one per status; ffi.js's status table names each status's class.
export * from './generated/errors.js';

// How a refused value is shown in a message: a string in quotes, so that advance('1000') does
// not read as if the number 1000 was refused.
function shown(value) {
    if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}...` : value);
    if (typeof value === 'bigint') return `${value}n`;
    if (value === null) return 'null';
    if (typeof value === 'function') return 'a function';
    if (Array.isArray(value)) return 'an array';
    if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'null prototype'})`;
    return String(value);
}
/** The one wording of a call on a closed engine, in every binding (conformance checks it). */
const CLOSED_MESSAGE = 'the engine is closed';
const INVALID_HANDLE = statuses.find(([name]) => name === 'INACT_E_INVALID_HANDLE')[1];
const closedError = () => new errorClasses[INVALID_HANDLE]('INACT_E_INVALID_HANDLE', INVALID_HANDLE, CLOSED_MESSAGE);
const ENGINE_OPTIONS = ['policy', 'onEvent', 'onError', 'clock', 'manual', 'keepAlive'];
const REPORT_OPTIONS = ['reason', 'ms'];

/** holderReport's second argument: an object of REPORT_OPTIONS, nothing else (a number there is
 *  the 1.3 pre-release positional form, refused rather than read as something else). */
function reportOptions(options) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
        throw new TypeError(`holderReport's options (${shown(options)}) must be an object such as { reason: 'MANUAL_LOCK' } or { ms: 5000 }`);
    }
    for (const key of Object.keys(options)) {
        if (!REPORT_OPTIONS.includes(key)) {
            throw new TypeError(`options.${key} is not a holderReport option; the options are ${REPORT_OPTIONS.join(', ')}`);
        }
    }
    return options;
}

const errorClasses = Object.fromEntries(statuses.filter(([, code]) => code !== 0)
    .map(([, code, , className]) => [code, errors[className]]));
const statusName = new Map(statuses.map(([name, code]) => [code, name]));

// ---- Enumerations ---------------------------------------------------------------------------

// The tables (name -> value) of the header's enumerations, generated: State, Reason, ActivityKind,
// IdleAction, Preset, EventKind, HolderKind, RefreshOutcome, Auth.
export * from './generated/enums.js';
/** "Never" for a duration, "no deadline" for a query: INACT_NEVER crosses as Infinity. */
export const NEVER = Infinity;
export const SNAPSHOT_MAX_SIZE = INACT_SNAPSHOT_MAX_SIZE;

const byValue = (table) => new Map(Object.entries(table).map(([k, v]) => [v, k]));
// States, reasons, presets and activity kinds are named and read by the engine
// (inact_state_string, inact_preset_from_string, ...: makeLibrary), as in every binding.
const authNames = byValue(enums.inact_auth);
const outcomeNames = byValue(enums.inact_refresh_outcome);
const eventKindNames = byValue(enums.inact_event_kind);
// An event's kind as JavaScript spells it ('state-changed', 'tick', 'keepalive'); undefined for
// a kind this binding does not know (skipped, as the Python and Kotlin bindings do).
const eventKindOf = (value) => eventKindNames.get(value)?.toLowerCase().replace('_', '-');
const nameOf = (map, value) => map.get(value) ?? value;

// An enum argument: one of the table's names, or any number (the engine judges the value).
function enumArg(table, value, argument) {
    if (typeof value === 'string') {
        if (Object.hasOwn(table, value)) return table[value];
        throw new TypeError(`${argument} (${shown(value)}) must be one of ${Object.keys(table).join(', ')} or a number`);
    }
    return int32Arg(value, argument);
}

// ---- Value conversion -----------------------------------------------------------------------

// 64-bit values: durations and times are numbers in ms (safe integers; Infinity is NEVER) or
// BigInt (any int64, passed to the engine as it is); handles, ids, token generations and boot
// ids are BigInt. The engine refuses what is out of its range, with its own message.
function i64Arg(value, argument) {
    if (typeof value === 'bigint') {
        if (value < INT64_MIN || value > NEVER_I64) throw new RangeError(`${argument} (${value}) is outside int64`);
        return value;
    }
    if (value === Infinity) return NEVER_I64;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
        throw new TypeError(`${argument} (${shown(value)}) must be an integer number of ms (a safe integer), Infinity for NEVER, or a BigInt`);
    }
    return BigInt(value);
}
function u64Arg(value, argument) {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    if (typeof value !== 'bigint' || value < 0n || value > 0xffffffffffffffffn) {
        throw new TypeError(`${argument} (${shown(value)}) must be a BigInt (or a safe integer) in 0 .. 2^64-1`);
    }
    return BigInt.asIntN(64, value); // wasm i64 parameters are signed; the bits are the same
}
function int32Arg(value, argument) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < -2147483648 || value > 2147483647) {
        throw new TypeError(`${argument} (${shown(value)}) must be an int32 number`);
    }
    return value;
}
function uint32Arg(value, argument) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 4294967295) {
        throw new TypeError(`${argument} (${shown(value)}) must be a uint32 number`);
    }
    return value;
}
function boolArg(value, argument) {
    if (typeof value !== 'boolean') throw new TypeError(`${argument} (${shown(value)}) must be a boolean (true or false)`);
    return value ? 1 : 0;
}
// A duration or time from the engine: NEVER is Infinity; every other value the engine writes is
// within 1000 years (a safe integer); a wall clock moved past 2^53 ms is returned as a BigInt.
function msOut(v) {
    if (v === NEVER_I64) return Infinity;
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v;
}

// ---- Loading --------------------------------------------------------------------------------

// performance.timeOrigin is constant for a page (a process in Node) and its getter is slow
// (Node: about 0.5 us), so it is read once.
const timeOrigin = performance.timeOrigin;
const defaultClock = {
    monotonicMs: () => timeOrigin + performance.now(),
    wallMs: () => Date.now(),
};

// What load() says when the module is missing or is not a module: what is missing, and how
// to get it (a bare ENOENT or "expected magic word 00 61 73 6d" says neither).
const HOW_TO_GET_THE_MODULE = 'The npm package of a release carries it ' +
    '(npm install ./inactivity-<version>.tgz from the release folder); in a clone of the ' +
    'repository, scripts/build-wasm builds it into bindings/js/inactivity.wasm (it needs the ' +
    'Swift toolchain); or pass load({ wasm }) where the module is.';

function moduleError(what, cause) {
    return new Error(`inactivity: ${what}. ${HOW_TO_GET_THE_MODULE}`, cause ? { cause } : undefined);
}

async function readModuleFile(path, where) {
    const { readFile } = await import('node:fs/promises');
    try {
        return await readFile(path);
    } catch (error) {
        if (error?.code === 'ENOENT') throw moduleError(`the engine module inactivity.wasm is missing: ${where} does not exist`, error);
        throw moduleError(`the engine module ${where} cannot be read (${error?.code ?? error?.message})`, error);
    }
}

async function fetchModule(url) {
    let response;
    try {
        response = await fetch(url);
    } catch (error) {
        throw moduleError(`the engine module ${url} cannot be fetched (${error?.message})`, error);
    }
    if (!response.ok) throw moduleError(`the engine module ${url} is missing: HTTP ${response.status} ${response.statusText}`.trimEnd());
    return response;
}

async function moduleBytes(source) {
    if (source === undefined) source = new URL('../inactivity.wasm', import.meta.url);
    if (source instanceof WebAssembly.Module) return source;
    if (typeof Response !== 'undefined' && source instanceof Response) return source;
    if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return source;
    const inNode = typeof process !== 'undefined' && Boolean(process.versions?.node);
    if (typeof source === 'string' && !/^[a-z]+:/i.test(source)) {
        // A path: a file in Node; in a browser, relative to the page.
        if (!inNode) return fetchModule(new URL(source, globalThis.location?.href));
        return readModuleFile(source, source);
    }
    const url = source instanceof URL ? source : new URL(String(source));
    if (url.protocol === 'file:') return readModuleFile(url, decodeURIComponent(url.pathname));
    return fetchModule(url);
}

// Bytes that are not a WebAssembly module (an HTML error page, a Git LFS pointer, an empty
// file): named with what they start with, before the compiler's "expected magic word".
function checkMagic(bytes, where) {
    const head = new Uint8Array(bytes instanceof ArrayBuffer ? bytes : bytes.buffer, bytes.byteOffset ?? 0,
        Math.min(bytes.byteLength, 16));
    if (head.length >= 4 && head[0] === 0x00 && head[1] === 0x61 && head[2] === 0x73 && head[3] === 0x6d) return;
    const start = head.length ? JSON.stringify(new TextDecoder().decode(head)) : 'nothing: it is empty';
    throw moduleError(`${where} is not a WebAssembly module (it starts with ${start})`);
}

/**
 * Loads and instantiates the engine. options.wasm: where the module is (a path or URL, its
 * bytes, a compiled WebAssembly.Module, or a fetch Response; default: inactivity.wasm next to
 * this package). options.hostClock: the two clocks the web platform reads (default
 * performance.timeOrigin + performance.now() and Date.now()); tests pass invented ones.
 * Each load is its own instance: engines of one never see another's. Returns that load's
 * Engine, Policy and Ceilings (subclasses of the module-level classes, bound to it); the first
 * load also binds the module-level classes themselves.
 */
export async function load(options = {}) {
    const clock = options.hostClock ?? defaultClock;
    const listeners = new Map();
    let memory;
    let exports;
    const imports = {
        inactivity_host: {
            monotonic_ms: () => clock.monotonicMs(),
            wall_ms: () => clock.wallMs(),
            event: (pointer, userData) => listeners.get(userData)?.deref()?.deliver(pointer),
            release: (userData) => listeners.delete(userData),
        },
    };
    const where = options.wasm === undefined ? 'inactivity.wasm (next to the package)'
        : options.wasm instanceof URL || typeof options.wasm === 'string' ? String(options.wasm) : 'the module given';
    let source = await moduleBytes(options.wasm);
    let instance;
    if (typeof Response !== 'undefined' && source instanceof Response) {
        if (!source.ok) throw moduleError(`fetching the engine module ${source.url || '(a Response)'} failed: HTTP ${source.status}`);
        if (WebAssembly.instantiateStreaming && source.headers.get('content-type') === 'application/wasm') {
            instance = (await WebAssembly.instantiateStreaming(source, imports)).instance;
        } else {
            source = await source.arrayBuffer();
        }
    }
    if (!instance && !(source instanceof WebAssembly.Module)) checkMagic(source, where);
    if (!instance) {
        if (source instanceof WebAssembly.Module) instance = await WebAssembly.instantiate(source, imports);
        else instance = (await WebAssembly.instantiate(source, imports)).instance;
    }
    exports = instance.exports;
    memory = exports.memory;
    exports._initialize?.();
    return bind(makeLibrary(exports, memory, listeners));
}

// ---- The library: one load's module, its memory and the helpers that call it -----------------

function makeLibrary(x, memory, listeners) {
    const utf8 = new TextEncoder();
    const fromUtf8 = new TextDecoder();
    // Scratch memory for out-parameters and structs, used as a stack: a callback may call into
    // the engine while an outer call's out-parameters are still to be read.
    const scratchSize = 4096;
    const scratchBase = x.malloc(scratchSize);
    if (!scratchBase) throw new Error('inactivity: the module could not allocate its scratch memory');
    let scratchTop = scratchBase;
    const view = () => new DataView(memory.buffer);
    function alloc(bytes) {
        const at = (scratchTop + 7) & ~7;
        if (at + bytes > scratchBase + scratchSize) throw new RangeError('inactivity: calls nested too deeply');
        scratchTop = at + bytes;
        return at;
    }
    function scoped(fn) {
        const mark = scratchTop;
        try { return fn(); } finally { scratchTop = mark; }
    }
    function cString(pointer) {
        const bytes = new Uint8Array(memory.buffer, pointer);
        const end = bytes.indexOf(0);
        return fromUtf8.decode(bytes.subarray(0, end < 0 ? 0 : end));
    }
    // rename: for a policy or ceilings check, the engine's C field names (policy.idle_timeout_ms)
    // become this binding's (policy.idleTimeoutMs); engineMessage keeps the engine's text.
    function check(code, rename = false) {
        if (code === 0) return;
        const engineMessage = cString(x.inact_last_error()) || cString(x.inact_status_string(code));
        const message = rename
            ? engineMessage.replace(/\b(policy|ceilings)\.([a-z0-9_]+)/g, (_, what, field) => `${what}.${camel(field)}`)
            : engineMessage;
        const cls = errorClasses[code] ?? InactivityError;
        throw new cls(statusName.get(code) ?? String(code), code, message, engineMessage);
    }
    // Names: the engine's tables (inact_*_string, inact_*_from_string), so every binding prints
    // and reads them alike: any case, '-' or '_' ("banking", "idle-timeout").
    const nameOut = (fn) => (value) => cString(fn(value));
    const stateName = nameOut(x.inact_state_string);
    const reasonName = nameOut(x.inact_reason_string);
    function cText(text) {
        // Longer than any name: cut (it cannot match, and the engine's message shows 64 bytes).
        // A NUL would end the C string early ('BANKING\0x' read as 'BANKING'): it becomes U+FFFD,
        // so the text is refused as given.
        const bytes = utf8.encode((text.length > 256 ? text.slice(0, 256) : text).replaceAll('\0', '\uFFFD'));
        const p = alloc(bytes.length + 1);
        new Uint8Array(memory.buffer, p, bytes.length + 1).set(bytes);
        view().setUint8(p + bytes.length, 0);
        return p;
    }
    // A name argument: a string the engine reads, or a number (the engine judges the value at
    // the call that uses it).
    function nameArg(parse, value, argument, unsigned = false) {
        if (typeof value === 'string') {
            return scoped(() => {
                const p = alloc(4);
                check(parse(cText(value), p));
                return unsigned ? view().getUint32(p, true) : view().getInt32(p, true);
            });
        }
        if (typeof value !== 'number') {
            throw new TypeError(`${argument} (${shown(value)}) must be a name (a string) or a number`);
        }
        return unsigned ? uint32Arg(value, argument) : int32Arg(value, argument);
    }
    const presetArg = (v) => nameArg(x.inact_preset_from_string, v, 'preset');
    const kindArg = (v) => nameArg(x.inact_activity_kind_from_string, v, 'kind', true);
    const reasonArg = (v) => nameArg(x.inact_reason_from_string, v, 'reason');
    // Struct access by the ffi table's layout.
    function readField(dv, base, [offset, kind]) {
        switch (kind) {
        case 'u32': return dv.getUint32(base + offset, true);
        case 'i32': return dv.getInt32(base + offset, true);
        case 'i64': return dv.getBigInt64(base + offset, true);
        case 'u64': return dv.getBigUint64(base + offset, true);
        }
    }
    function writeField(dv, base, [offset, kind], value) {
        switch (kind) {
        case 'u32': dv.setUint32(base + offset, value, true); break;
        case 'i32': dv.setInt32(base + offset, value, true); break;
        case 'i64': dv.setBigInt64(base + offset, value, true); break;
        case 'u64': dv.setBigUint64(base + offset, BigInt.asUintN(64, value), true); break;
        }
    }
    function newStruct(name) {
        const s = structs[name];
        const p = alloc(s.size);
        new Uint8Array(memory.buffer, p, s.size).fill(0);
        view().setUint32(p, s.size, true);
        return p;
    }
    function readStruct(name, p) {
        const dv = view();
        const out = {};
        for (const [field, spec] of Object.entries(structs[name].fields)) out[field] = readField(dv, p, spec);
        return out;
    }
    function writeStruct(name, p, values) {
        const dv = view();
        for (const [field, spec] of Object.entries(structs[name].fields)) {
            if (field !== 'size' && values[field] !== undefined) writeField(dv, p, spec, values[field]);
        }
    }
    // Struct init calls: the _sized variant with this binding's struct size (the plain 1.0
    // symbols fill only the 1.0 layout, and the module, built with this binding, leaves them out).
    function init(sizedFn, p, ...rest) {
        return sizedFn(p, view().getUint32(p, true), ...rest);
    }
    const outI64 = (fn) => scoped(() => { const p = alloc(8); check(fn(p)); return view().getBigInt64(p, true); });
    const outU64 = (fn) => scoped(() => { const p = alloc(8); check(fn(p)); return view().getBigUint64(p, true); });
    const outI32 = (fn) => scoped(() => { const p = alloc(4); check(fn(p)); return view().getInt32(p, true); });
    const outU32 = (fn) => scoped(() => { const p = alloc(4); check(fn(p)); return view().getUint32(p, true); });

    // ---- Policy and ceilings: the engine's structs as JavaScript objects ----------------------

    // A struct field's JavaScript property: duration fields lose _ms? No: they keep it, in
    // camelCase (idle_timeout_ms -> idleTimeoutMs), so the unit stays in the name.
    const camel = (s) => s.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
    function fieldKinds(structName) {
        // Each field's kind as the ffi table gives it (the header's annotations: duration, flag,
        // enum with its enum, bits, count, id), never guessed from the field's name.
        const out = [];
        for (const [field, [kind, enumName]] of Object.entries(ffiFieldKinds[structName])) {
            if (kind === 'size') continue;
            out.push([field, camel(field), kind, enumName, structs[structName].fields[field][1]]);
        }
        return out;
    }
    const policyFields = fieldKinds('inact_policy');
    const ceilingFields = fieldKinds('inact_ceilings');
    const namesOf = new Map(Object.keys(enums).map((e) => [e, byValue(enums[e])]));

    // A field's value from the engine: durations and times in ms (Infinity = NEVER), flags as
    // booleans, enum values by name, ids as BigInt, the rest as numbers.
    function fieldToJs(kind, enumName, v) {
        switch (kind) {
        case 'duration': case 'time': return msOut(v);
        case 'flag': return v !== 0;
        // States and reasons as the engine names them (a value of a newer library: 'unknown').
        case 'enum': return enumName === 'inact_state' ? stateName(v) : enumName === 'inact_reason' ? reasonName(v)
            : nameOf(namesOf.get(enumName), v);
        case 'id': return BigInt(v);
        default: return v;
        }
    }
    function fieldToC(kind, enumName, cKind, v, arg) {
        switch (kind) {
        case 'duration': case 'time': return i64Arg(v, arg);
        case 'flag': return boolArg(v, arg);
        case 'enum': return enumArg(enums[enumName], v, arg);
        case 'id': return u64Arg(v, arg);
        default: return cKind === 'i32' ? int32Arg(v, arg) : cKind === 'u32' ? uint32Arg(v, arg)
            : cKind === 'u64' ? u64Arg(v, arg) : i64Arg(v, arg);
        }
    }
    function toJs(kinds, raw) {
        const out = {};
        for (const [c, js, kind, enumName] of kinds) out[js] = fieldToJs(kind, enumName, raw[c]);
        return out;
    }
    function toC(kinds, values, what) {
        const out = {};
        for (const [c, js, kind, enumName, cKind] of kinds) {
            const v = values[js];
            const arg = `${what}.${js}`;
            if (v === undefined) throw new TypeError(`${arg} is missing`);
            out[c] = fieldToC(kind, enumName, cKind, v, arg);
        }
        return out;
    }

    // An object of fields (new Policy({...}), new Ceilings({...}), options.policy): an unknown
    // field is refused, never ignored (a misspelled idleTimoutMs would run the default policy).
    function checkFieldNames(values, kinds, what, className) {
        const known = kinds.map(([, js]) => js);
        if (values === null || typeof values !== 'object' || Array.isArray(values)) {
            throw new TypeError(`${what} (${shown(values)}) must be an object of ${className} fields: ${known.join(', ')}`);
        }
        for (const key of Object.keys(values)) {
            if (!known.includes(key)) {
                throw new TypeError(`${what}.${key} is not a ${className} field; the fields are ${known.join(', ')}`);
            }
        }
    }

    function policyStruct(policy) {
        checkFieldNames(policy, policyFields, 'policy', 'Policy');
        const values = toC(policyFields, policy, 'policy');
        const p = newStruct('inact_policy');
        writeStruct('inact_policy', p, values);
        return p;
    }

    function ceilingsStruct(ceilings) {
        checkFieldNames(ceilings, ceilingFields, 'ceilings', 'Ceilings');
        const values = toC(ceilingFields, ceilings, 'ceilings');
        const p = newStruct('inact_ceilings');
        writeStruct('inact_ceilings', p, values);
        return p;
    }

    // The info and the event as JavaScript: each field converted by its kind (ffi.js, from the
    // header's annotations), so a field added to the header arrives converted. This binding's
    // idioms, by field: the info's `clock` is spelled as the option ('system', 'manual') and its
    // `delivery` left out (always HOST in WebAssembly); the event's `kind` is spelled
    // 'state-changed', 'tick', 'keepalive' (eventKindOf), and its `engine` left out (the
    // listener knows its engine).
    const infoFields = fieldKinds('inact_info').filter(([c]) => c !== 'delivery');
    const eventFields = fieldKinds('inact_event').filter(([c]) => c !== 'engine' && c !== 'kind');
    function infoToJs(raw) {
        const out = {};
        for (const [c, js, kind, enumName] of infoFields) {
            out[js] = c === 'clock' ? (raw[c] === enums.inact_clock_kind.MANUAL ? 'manual' : 'system')
                : fieldToJs(kind, enumName, raw[c]);
        }
        return out;
    }
    function eventToJs(raw) {
        const out = { kind: eventKindOf(raw.kind) };
        for (const [c, js, kind, enumName] of eventFields) out[js] = fieldToJs(kind, enumName, raw[c]);
        return Object.freeze(out);
    }

    // ---- Engine plumbing ------------------------------------------------------------------

    const eventCallback = x.inactivity_wasm_event_callback();
    const releaseCallback = x.inactivity_wasm_release_callback();
    const registry = typeof FinalizationRegistry !== 'undefined'
        ? new FinalizationRegistry((handle) => { x.inact_destroy(handle); })
        : null;

    // What the classes below call: the module's exports and memory, and the helpers that use them.
    return {
        x, memory, listeners, view, alloc, scoped, cString, check, stateName, reasonName, presetArg,
        kindArg, reasonArg, newStruct, readStruct, writeStruct, init, outI64, outU64, outI32, outU32,
        policyFields, ceilingFields, toJs, toC, fieldToC, checkFieldNames, policyStruct, ceilingsStruct,
        infoToJs, eventToJs, eventCallback, releaseCallback, registry, utf8, nextListener: 1,
    };
}

// ---- The classes: at module level, each load's subclasses bound to its library ---------------

// A class's library: the one its load bound it to (load() returns subclasses of Policy, Ceilings
// and Engine, each bound to that load's module), else the first load's, so that
// `import { Engine } from 'inactivity'` works once `await load()` has returned.
const libraries = new WeakMap();
let firstLibrary = null;
function libraryOf(cls) {
    for (let c = cls; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
        const lib = libraries.get(c);
        if (lib) return lib;
    }
    if (firstLibrary) return firstLibrary;
    throw new Error('inactivity: the engine module is not loaded yet: await load() before using Engine, Policy or Ceilings');
}
// A static method called detached (const { defaults } = Policy) acts on the class it came from.
const classOf = (self, cls) => (typeof self === 'function' ? self : cls);

function bind(lib) {
    const bound = (Base) => {
        const cls = { [Base.name]: class extends Base {} }[Base.name];
        libraries.set(cls, lib);
        return cls;
    };
    lib.Policy = bound(Policy);
    lib.Ceilings = bound(Ceilings);
    lib.Engine = bound(Engine);
    firstLibrary ??= lib;
    return Object.freeze({
        Engine: lib.Engine,
        Policy: lib.Policy,
        Ceilings: lib.Ceilings,
        version: lib.cString(lib.x.inact_version_string()),
        versionNumber: lib.x.inact_version_number() >>> 0,
        /** The raw exports, for benchmarks and tools (the C ABI as wasm functions). */
        exports: lib.x,
    });
}

/** A session policy: plain fields (durations in ms, Infinity = NEVER). Make one with
 *  Policy.defaults(), Policy.preset(name) or new Policy({ field: value, ... }) (the
 *  defaults with those fields changed; an unknown field or a bad value throws here). */
export class Policy {
    constructor(fields = {}) {
        const L = libraryOf(new.target);
        L.checkFieldNames(fields, L.policyFields, 'policy', 'Policy');
        Object.assign(this, new.target.defaults(), fields);
        this.validate();
    }
    static defaults() {
        const cls = classOf(this, Policy);
        const L = libraryOf(cls);
        return L.scoped(() => {
            const p = L.newStruct('inact_policy');
            L.check(L.init(L.x.inact_policy_init_sized, p));
            return Object.assign(Object.create(cls.prototype), L.toJs(L.policyFields, L.readStruct('inact_policy', p)));
        });
    }
    /** A named preset (Preset: 'BANKING', 'NIST_AAL2', ...; or its number). */
    static preset(name) {
        const cls = classOf(this, Policy);
        const L = libraryOf(cls);
        const value = L.presetArg(name);
        return L.scoped(() => {
            const p = L.newStruct('inact_policy');
            L.check(L.init(L.x.inact_policy_preset_sized, p, value));
            return Object.assign(Object.create(cls.prototype), L.toJs(L.policyFields, L.readStruct('inact_policy', p)));
        });
    }
    /** Checks the policy without using it: throws the engine's error naming the field. */
    validate() {
        const L = libraryOf(this.constructor);
        L.scoped(() => L.check(L.x.inact_policy_validate(L.policyStruct(this)), true));
    }
}
/** An administrator's limits (inact_set_ceilings): Ceilings.none(), then tighten fields. */
export class Ceilings {
    constructor(fields = {}) {
        const L = libraryOf(new.target);
        L.checkFieldNames(fields, L.ceilingFields, 'ceilings', 'Ceilings');
        Object.assign(this, new.target.none(), fields);
        L.toC(L.ceilingFields, this, 'ceilings'); // each value's type, here rather than at use
    }
    static none() {
        const cls = classOf(this, Ceilings);
        const L = libraryOf(cls);
        return L.scoped(() => {
            const p = L.newStruct('inact_ceilings');
            L.check(L.init(L.x.inact_ceilings_init_sized, p));
            return Object.assign(Object.create(cls.prototype), L.toJs(L.ceilingFields, L.readStruct('inact_ceilings', p)));
        });
    }
}
function reportLater(error) {
    // A listener's exception must not unwind through the engine's frames: report it on its own.
    queueMicrotask(() => { throw error; });
}

export class Engine {
    // The library (the loaded module and its helpers) this engine lives in: its class's.
    #lib;
    #handle = 0n;
    #listener = 0;
    #onEvent;
    #onError;
    #queues = new Set();
    #listeners = new Set();
    #manual;
    // The policy's keepalive interval (0: off): activity does not re-arm the timer (the hot
    // path), yet with a keepalive an activity after a quiet interval starts an interval whose
    // end is a deadline, so the timer never waits longer than one interval.
    #keepaliveMs = 0;
    #timer = null;
    #closed = false;
    #keepAlive = false;
    // The module's callbacks and the deadline timer reach the engine through this weak
    // reference, so that an engine nobody holds can be collected (and destroyed by the
    // FinalizationRegistry) although the module may still call back for it.
    #self = new WeakRef(this);

    /**
     * options.policy: a Policy (default Policy.defaults()); options.onEvent: called with
     * every event, synchronously, before the call that caused it returns; options.onError:
     * receives what onEvent throws (default: rethrown from a microtask); options.clock:
     * 'system' (default: the web clock, see README) or 'manual' (time moves only through
     * advance/freeze/jumpWall/reboot); options.manual: { startMs, wallMs, bootId } for it;
     * options.keepAlive: true keeps Node's event loop alive while a deadline is pending
     * (default false: an engine's timer never holds a process open; see README).
     * Anything else in options is refused: a misspelled option would run the defaults.
     */
    constructor(options = {}) {
        const L = libraryOf(new.target);
        this.#lib = L;
        if (options instanceof Policy) {
            throw new TypeError('options (a Policy) must be an options object: new Engine({ policy })');
        }
        if (options === null || typeof options !== 'object' || Array.isArray(options)) {
            const hint = typeof options === 'string' ? `{ policy: Policy.preset(${shown(options)}) }` : '{ policy }';
            throw new TypeError(`options (${shown(options)}) must be an options object such as new Engine(${hint})`);
        }
        for (const key of Object.keys(options)) {
            if (!ENGINE_OPTIONS.includes(key)) {
                throw new TypeError(`options.${key} is not an Engine option; the options are ${ENGINE_OPTIONS.join(', ')}`);
            }
        }
        for (const key of ['onEvent', 'onError']) {
            if (options[key] !== undefined && typeof options[key] !== 'function') {
                throw new TypeError(`options.${key} (${shown(options[key])}) must be a function`);
            }
        }
        if (options.keepAlive !== undefined) boolArg(options.keepAlive, 'options.keepAlive');
        if (options.policy !== undefined && (options.policy === null || typeof options.policy !== 'object')) {
            const hint = typeof options.policy === 'string' ? `: Policy.preset(${shown(options.policy)})` : '';
            throw new TypeError(`options.policy (${shown(options.policy)}) must be a Policy${hint}`);
        }
        this.#onEvent = options.onEvent;
        this.#onError = options.onError;
        this.#keepAlive = options.keepAlive === true;
        const clockKind = options.clock ?? 'system';
        if (clockKind !== 'system' && clockKind !== 'manual') {
            throw new TypeError(`options.clock (${shown(clockKind)}) must be 'system' or 'manual'`);
        }
        this.#manual = clockKind === 'manual';
        if (options.manual !== undefined) {
            if (!this.#manual) throw new TypeError("options.manual is for options.clock 'manual' only");
            if (options.manual === null || typeof options.manual !== 'object') {
                throw new TypeError(`options.manual (${shown(options.manual)}) must be an object: { startMs, wallMs, bootId }`);
            }
            for (const key of Object.keys(options.manual)) {
                if (!['startMs', 'wallMs', 'bootId'].includes(key)) {
                    throw new TypeError(`options.manual.${key} is not a manual-clock option; they are startMs, wallMs, bootId`);
                }
            }
        }
        const listener = L.nextListener++;
        L.scoped(() => {
            const config = L.newStruct('inact_config');
            L.check(L.init(L.x.inact_config_init_sized, config));
            const manual = options.manual ?? {};
            const values = {
                // HOST delivery: there are no threads; the binding polls when the engine asks.
                delivery: enums.inact_delivery.HOST,
                clock: this.#manual ? enums.inact_clock_kind.MANUAL : enums.inact_clock_kind.SYSTEM,
            };
            if (manual.startMs !== undefined) values.manual_start_ms = i64Arg(manual.startMs, 'options.manual.startMs');
            if (manual.wallMs !== undefined) values.manual_wall_ms = i64Arg(manual.wallMs, 'options.manual.wallMs');
            if (manual.bootId !== undefined) values.manual_boot_id = u64Arg(manual.bootId, 'options.manual.bootId');
            L.writeStruct('inact_config', config, values);
            const given = options.policy ?? L.Policy.defaults();
            const policy = L.policyStruct(given);
            const out = L.alloc(8);
            L.listeners.set(listener, this.#self);
            try {
                L.check(L.x.inact_engine_create(config, policy, L.eventCallback, listener, L.releaseCallback, out), true);
            } catch (error) {
                L.listeners.delete(listener);
                throw error;
            }
            this.#handle = L.view().getBigUint64(out, true);
            this.#listener = listener;
            this.#keepaliveMs = Number(given.keepaliveIntervalMs ?? 0);
        });
        L.registry?.register(this, BigInt.asIntN(64, this.#handle), this);
        this.#rearm();
    }

    /** @internal the module calls this with an inact_event's address. */
    deliver(pointer) {
        const L = this.#lib;
        let event;
        try {
            const e = L.readStruct('inact_event', pointer);
            if (eventKindOf(e.kind) === undefined) return;
            event = L.eventToJs(e);
        } catch (error) { reportLater(error); return; }
        for (const q of this.#queues) q.push(event);
        if (this.#onEvent) this.#notify(this.#onEvent, event);
        for (const listener of [...this.#listeners]) this.#notify(listener, event);
    }

    // A listener's exception never unwinds through the engine's frames: onError, or a microtask.
    #notify(listener, event) {
        try { listener(event); } catch (error) {
            if (!this.#onError) { reportLater(error); return; }
            try { this.#onError(error); } catch (again) { reportLater(again); }
        }
    }

    get #h() { return BigInt.asIntN(64, this.#handle); }

    #call(fn) {
        if (this.#closed) throw closedError();
        const result = fn(this.#h);
        this.#rearm();
        return result;
    }

    // Host delivery: one timer for the engine's next deadline, asked of the engine after
    // every call that may move deadlines (a timer that fires early only polls again).
    #rearm() {
        const L = this.#lib;
        if (this.#manual || this.#closed) return;
        const delay = L.scoped(() => {
            const p = L.alloc(8);
            if (L.x.inact_next_deadline(this.#h, p) !== 0) return null;
            return L.view().getBigInt64(p, true);
        });
        if (this.#timer !== null) clearTimeout(this.#timer);
        this.#timer = null;
        if (delay === null || (delay === NEVER_I64 && this.#keepaliveMs <= 0)) return;
        let ms = Number(delay > 0x7fffffffn ? 0x7fffffffn : delay);
        if (this.#keepaliveMs > 0) ms = Math.min(ms, this.#keepaliveMs);
        this.#timer = Engine.#pollLater(this.#self, ms);
        // Node: a pending deadline does not keep the process alive, unless options.keepAlive.
        if (!this.#keepAlive) this.#timer.unref?.();
    }

    // A static method, so that the timer's closure holds only the weak reference (a closure
    // made inside an instance method would share that method's context, and `this` with it).
    static #pollLater(self, ms) {
        return setTimeout(() => {
            const engine = self.deref();
            if (engine) { engine.#timer = null; engine.poll(); }
        }, ms);
    }

    /** The engine's 64-bit handle (a BigInt). */
    get handle() { return this.#handle; }

    close() {
        const L = this.#lib;
        if (this.#closed) return;
        this.#closed = true;
        if (this.#timer !== null) clearTimeout(this.#timer);
        L.registry?.unregister(this);
        L.x.inact_destroy(this.#h);
        for (const q of this.#queues) q.end();
    }

    // The inputs of the engine and integers that this class does not write itself
    // (generated/inputs.js, from the header and tools/codegen/names.toml): each converts its
    // arguments by kind, as a struct field's, and calls its C function with the handle.
    static {
        for (const [method, cName, args] of engineInputs) {
            Object.defineProperty(Engine.prototype, method, {
                value(...values) {
                    const L = this.#lib;
                    const v = args.map(([kind, name, enumName, cKind], i) => L.fieldToC(kind, enumName, cKind, values[i], name));
                    this.#call((h) => L.check(L.x[cName](h, ...v)));
                },
                writable: true, configurable: true,
            });
        }
    }

    // Inputs (each catches up first: see the header).
    start() { const L = this.#lib; this.#call((h) => L.check(L.x.inact_start(h))); }
    activity(kind) {
        const L = this.#lib;
        // The hot path: no re-arm (activity only moves deadlines later; an early timer polls).
        if (this.#closed) throw closedError();
        L.check(L.x.inact_activity(this.#h, typeof kind === 'number' ? uint32Arg(kind, 'kind') : L.kindArg(kind)));
    }
    continue() { const L = this.#lib; this.#call((h) => L.check(L.x.inact_continue(h))); }
    lock() { const L = this.#lib; this.#call((h) => L.check(L.x.inact_lock(h))); }
    unlock(method = 'CREDENTIAL') {
        const L = this.#lib;
        const m = enumArg(enums.inact_auth, method, 'method');
        this.#call((h) => L.check(L.x.inact_unlock_with(h, m)));
    }
    unlockFailed(method = 'CREDENTIAL') {
        const L = this.#lib;
        const m = enumArg(enums.inact_auth, method, 'method');
        return this.#call((h) => L.outU32((p) => L.x.inact_unlock_failed_with(h, m, p)));
    }
    biometricsChanged() { const L = this.#lib; this.#call((h) => L.check(L.x.inact_biometrics_changed(h))); }
    end(reason) {
        const L = this.#lib;
        const r = L.reasonArg(reason);
        this.#call((h) => L.check(L.x.inact_end(h, r)));
    }
    /** What another holder of the session (a tab, the server) observed: kind 'ACTIVITY',
     *  'LOCKED', 'EXPIRED' (ms: the age of what it saw) or 'IDLE_DEADLINE',
     *  'ABSOLUTE_DEADLINE' (ms: the time left), relative to now; reason: the holder's for a
     *  lock or an expiry, 'NONE' otherwise. It only ever makes the session stricter.
     *  reason and ms are named ({ reason, ms }), as Python's keywords and Kotlin's named
     *  arguments name them: each kind takes one of the two, and C's positional order
     *  (kind, reason, ms) would make 'NONE' a placeholder in the commonest report. */
    holderReport(kind, options = {}) {
        const L = this.#lib;
        const k = enumArg(enums.inact_holder_kind, kind, 'kind');
        const { reason = 'NONE', ms = 0 } = reportOptions(options);
        const r = L.reasonArg(reason);
        const age = i64Arg(ms, 'ms');
        this.#call((h) => L.check(L.x.inact_holder_report(h, k, r, age)));
    }
    /** A token refresh's result; returns the engine's classification ('OK', 'RETRY', ...). */
    refreshResult(httpStatus, oauthError = null, generation = 0n) {
        const L = this.#lib;
        const status = int32Arg(httpStatus, 'httpStatus');
        const gen = u64Arg(generation, 'generation');
        if (oauthError !== null && typeof oauthError !== 'string') throw new TypeError('oauthError must be a string or null');
        const outcome = this.#call((h) => L.scoped(() => {
            let text = 0;
            if (oauthError !== null) {
                const bytes = L.utf8.encode(oauthError);
                text = bytes.length + 1 <= 1024 ? L.alloc(bytes.length + 1) : L.x.malloc(bytes.length + 1);
                if (!text) throw new RangeError('oauthError: out of memory');
                new Uint8Array(L.memory.buffer, text, bytes.length + 1).set([...bytes, 0]);
                if (bytes.length + 1 > 1024) {
                    try { return L.outI32((p) => L.x.inact_refresh_result_gen(h, status, text, gen, p)); } finally { L.x.free(text); }
                }
            }
            return L.outI32((p) => L.x.inact_refresh_result_gen(h, status, text, gen, p));
        }));
        return nameOf(outcomeNames, outcome);
    }
    tokenRotated(generation) {
        const L = this.#lib;
        const g = u64Arg(generation, 'generation');
        this.#call((h) => L.check(L.x.inact_token_rotated(h, g)));
    }
    serverContact() { const L = this.#lib; this.#call((h) => L.check(L.x.inact_server_contact(h))); }
    background() { const L = this.#lib; this.#call((h) => L.check(L.x.inact_background(h))); }
    foreground() { const L = this.#lib; this.#call((h) => L.check(L.x.inact_foreground(h))); }
    windowShown() { const L = this.#lib; this.#call((h) => L.check(L.x.inact_window_shown(h))); }
    windowHidden() { const L = this.#lib; this.#call((h) => L.check(L.x.inact_window_hidden(h))); }
    expectInterruption(maxMs) {
        const L = this.#lib;
        const ms = i64Arg(maxMs, 'maxMs');
        this.#call((h) => L.check(L.x.inact_expect_interruption(h, ms)));
    }
    deviceLocked() { const L = this.#lib; this.#call((h) => L.check(L.x.inact_device_locked(h))); }
    /** Opens a stricter idle scope; returns its id (a BigInt) for popScope. */
    pushScope(idleTimeoutMs) {
        const L = this.#lib;
        const ms = i64Arg(idleTimeoutMs, 'idleTimeoutMs');
        return this.#call((h) => L.outU64((p) => L.x.inact_scope_push(h, ms, p)));
    }
    popScope(id) {
        const L = this.#lib;
        const v = u64Arg(id, 'id');
        this.#call((h) => L.check(L.x.inact_scope_pop(h, v)));
    }
    /** Opens a hold (the idle countdown stops); returns its id (a BigInt). */
    acquireHold() { const L = this.#lib; return this.#call((h) => L.outU64((p) => L.x.inact_hold_acquire(h, p))); }
    releaseHold(id) {
        const L = this.#lib;
        const v = u64Arg(id, 'id');
        this.#call((h) => L.check(L.x.inact_hold_release(h, v)));
    }
    setPolicy(policy) {
        const L = this.#lib;
        this.#call((h) => L.scoped(() => L.check(L.x.inact_set_policy(h, L.policyStruct(policy)), true)));
        this.#keepaliveMs = Number(policy.keepaliveIntervalMs ?? 0);
        this.#rearm();
    }
    setCeilings(ceilings) {
        const L = this.#lib;
        this.#call((h) => L.scoped(() => L.check(L.x.inact_set_ceilings(h, L.ceilingsStruct(ceilings)), true)));
    }

    // Queries (each catches up first).
    get state() { const L = this.#lib; return L.stateName(this.#call((h) => L.outI32((p) => L.x.inact_get_state(h, p)))); }
    get reason() { const L = this.#lib; return L.reasonName(this.#call((h) => L.outI32((p) => L.x.inact_get_reason(h, p)))); }
    get remainingMs() { const L = this.#lib; return msOut(this.#call((h) => L.outI64((p) => L.x.inact_get_remaining(h, p)))); }
    get requiredAuth() { const L = this.#lib; return nameOf(authNames, this.#call((h) => L.outI32((p) => L.x.inact_get_required_auth(h, p)))); }
    info() {
        const L = this.#lib;
        return this.#call((h) => L.scoped(() => {
            const p = L.newStruct('inact_info');
            L.check(L.x.inact_get_info(h, p));
            return L.infoToJs(L.readStruct('inact_info', p));
        }));
    }
    policy() {
        const L = this.#lib;
        return this.#call((h) => L.scoped(() => {
            const p = L.newStruct('inact_policy');
            L.check(L.x.inact_get_policy(h, p));
            return Object.assign(Object.create(L.Policy.prototype), L.toJs(L.policyFields, L.readStruct('inact_policy', p)));
        }));
    }
    ceilings() {
        const L = this.#lib;
        return this.#call((h) => L.scoped(() => {
            const p = L.newStruct('inact_ceilings');
            L.check(L.x.inact_get_ceilings(h, p));
            return Object.assign(Object.create(L.Ceilings.prototype), L.toJs(L.ceilingFields, L.readStruct('inact_ceilings', p)));
        }));
    }
    /** ms until the engine next needs poll() (Infinity: nothing scheduled). */
    nextDeadlineMs() { const L = this.#lib; return msOut(this.#call((h) => L.outI64((p) => L.x.inact_next_deadline(h, p)))); }
    poll() { const L = this.#lib; if (!this.#closed) this.#call((h) => L.check(L.x.inact_poll(h))); }

    // Snapshot.
    /** The snapshot as bytes (a Uint8Array of at most SNAPSHOT_MAX_SIZE bytes). */
    snapshot() {
        const L = this.#lib;
        return this.#call((h) => L.scoped(() => {
            const buffer = L.alloc(INACT_SNAPSHOT_MAX_SIZE);
            const written = L.alloc(4);
            L.check(L.x.inact_snapshot_write(h, buffer, INACT_SNAPSHOT_MAX_SIZE, written));
            return new Uint8Array(L.memory.buffer, buffer, L.view().getUint32(written, true)).slice();
        }));
    }
    snapshotBase64() { return toBase64(this.snapshot()); }
    /** Restores a snapshot: bytes (Uint8Array, ArrayBuffer) or a base64 string. */
    restore(snapshot) {
        const L = this.#lib;
        let bytes;
        if (typeof snapshot === 'string') bytes = fromBase64(snapshot);
        else if (snapshot instanceof Uint8Array) bytes = snapshot;
        else if (snapshot instanceof ArrayBuffer) bytes = new Uint8Array(snapshot);
        else throw new TypeError('snapshot must be a Uint8Array, an ArrayBuffer or a base64 string');
        this.#call((h) => {
            const p = bytes.length ? L.x.malloc(bytes.length) : 0;
            if (bytes.length && !p) throw new RangeError('snapshot: out of memory');
            try {
                if (bytes.length) new Uint8Array(L.memory.buffer, p, bytes.length).set(bytes);
                L.check(L.x.inact_restore(h, p, bytes.length));
            } finally { if (p) L.x.free(p); }
        });
    }

    // The manual clock (clock: 'manual'; a system-clock engine gets WrongClockError).
    advance(ms) { const L = this.#lib; const v = i64Arg(ms, 'ms'); this.#call((h) => L.check(L.x.inact_clock_advance(h, v))); }
    freeze(ms) { const L = this.#lib; const v = i64Arg(ms, 'ms'); this.#call((h) => L.check(L.x.inact_clock_freeze(h, v))); }
    jumpWall(deltaMs) { const L = this.#lib; const v = i64Arg(deltaMs, 'deltaMs'); this.#call((h) => L.check(L.x.inact_clock_jump_wall(h, v))); }
    reboot(downtimeMs = 0) { const L = this.#lib; const v = i64Arg(downtimeMs, 'downtimeMs'); this.#call((h) => L.check(L.x.inact_clock_reboot(h, v))); }
    /** The engine's clock: { monotonicMs, wallMs, bootId } (bootId a BigInt). No catch-up. */
    clockNow() {
        const L = this.#lib;
        return L.scoped(() => {
            const m = L.alloc(8), w = L.alloc(8), b = L.alloc(8);
            if (this.#closed) throw closedError();
            L.check(L.x.inact_clock_now(this.#h, m, w, b));
            const dv = L.view();
            return { monotonicMs: msOut(dv.getBigInt64(m, true)), wallMs: msOut(dv.getBigInt64(w, true)),
                     bootId: dv.getBigUint64(b, true) };
        });
    }

    /** Calls `listener` with every event from now on (after onEvent), until the returned
     *  function is called; the same function added twice is called once. */
    subscribe(listener) {
        if (typeof listener !== 'function') throw new TypeError('listener must be a function');
        this.#listeners.add(listener);
        return () => { this.#listeners.delete(listener); };
    }

    /** Whether close() was called. */
    get closed() { return this.#closed; }

    /** The events from now on as an async iterator; it ends when the engine is closed. */
    events() {
        const buffered = [];
        let wake = null;
        let ended = this.#closed;
        const queues = this.#queues;
        const q = {
            push(e) { buffered.push(e); if (wake) { wake(); wake = null; } },
            end() { ended = true; if (wake) { wake(); wake = null; } },
        };
        queues.add(q);
        return {
            [Symbol.asyncIterator]() { return this; },
            async next() {
                while (buffered.length === 0 && !ended) await new Promise((r) => { wake = r; });
                if (buffered.length) return { value: buffered.shift(), done: false };
                queues.delete(q);
                return { value: undefined, done: true };
            },
            async return() { queues.delete(q); ended = true; return { value: undefined, done: true }; },
        };
    }
}

// `using engine = new Engine()` where the runtime has explicit resource management.
if (typeof Symbol.dispose === 'symbol') Engine.prototype[Symbol.dispose] = function dispose() { this.close(); };


function toBase64(bytes) {
    let s = '';
    for (const b of bytes) s += String.fromCharCode(b);
    return btoa(s);
}
function fromBase64(text) {
    let s;
    try { s = atob(text); } catch { throw new TypeError('snapshot: not valid base64'); }
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
}
