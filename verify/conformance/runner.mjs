// The JavaScript runner of the conformance suite (verify/conformance/README.md): executes op lists
// through the `inactivity` package (bindings/js, the engine as WebAssembly, under Node) and
// prints the canonical output. Public API only; every value crosses as the binding passes it
// (ms inputs as BigInt, so that values past 2^53 reach the engine, which judges them). An op is
// interpreted from the op vocabulary (generated/ops.json, written by tools/generate from the
// header and names.toml): each word converted by its argument's kind, the Engine member called
// as names.toml says JavaScript takes it, the result printed by its kind. Only the ops with host
// state are written here.
//
//     node verify/conformance/runner.mjs OUTDIR FILE.ops...     writes OUTDIR/FILE.out for each
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as binding from '../../bindings/js/src/index.js';

const { load, InactivityError, State, Reason, Auth, IdleAction } = binding;
const VOCABULARY = JSON.parse(readFileSync(new URL('./generated/ops.json', import.meta.url), 'utf8'));
const OPS = new Map(VOCABULARY.ops.map((entry) => [entry.op, entry]));
const NEVER_MS = VOCABULARY.never; // a string: a JSON number would be a double
const ia = await load();

const ms = (v) => (v === Infinity ? NEVER_MS : String(v));
const num = (table, v) => (typeof v === 'number' ? v : table[v]);
const fieldsOf = (pairs) => Object.fromEntries(pairs.map((p) => { const [k, v] = p.split('='); return [k, BigInt(v)]; }));
const camel = (s) => s.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
// The binding's event kinds as the header's values.
const EVENT_KIND = { 'state-changed': 1, tick: 2, keepalive: 3 };

// FIELDS (inact_policy / inact_ceilings names) -> the binding's object, each field as the API takes it.
function fromFields(base, pairs) {
    const out = base;
    for (const [k, v] of Object.entries(fieldsOf(pairs))) {
        const js = camel(k);
        const current = out[js];
        if (typeof current === 'boolean') out[js] = v === 1n ? true : v === 0n ? false : Number(v);
        else if (k.endsWith('_ms')) out[js] = v;
        else out[js] = Number(v);
    }
    return out;
}

const POLICY_ORDER = ['idle_action', 'idle_timeout_ms', 'warning_ms', 'background_timeout_ms', 'absolute_timeout_ms',
    'locked_timeout_ms', 'max_unlock_failures', 'tick_ms', 'background_grace_ms', 'activity_kinds',
    'activity_dismisses_warning', 'pause_idle_in_background', 'lock_on_device_lock', 'lock_on_restart',
    'strong_auth_timeout_ms', 'expected_interruption_max_ms', 'offline_timeout_ms', 'offline_expiry_ms',
    'keepalive_interval_ms'];
function policyFields(p) {
    return POLICY_ORDER.map((k) => {
        const v = p[camel(k)];
        const text = k === 'idle_action' ? String(num(IdleAction, v)) : typeof v === 'boolean' ? (v ? '1' : '0')
            : k.endsWith('_ms') ? ms(v) : String(v);
        return `${k}=${text}`;
    }).join(' ');
}
function info(i) {
    return `state=${num(State, i.state)} reason=${num(Reason, i.reason)} background=${i.inBackground ? 1 : 0} `
        + `windows=${i.visibleWindows} scopes=${i.openScopes} holds=${i.openHolds} failures=${i.unlockFailures} `
        + `now=${ms(i.nowMs)} remaining=${ms(i.remainingMs)} next=${ms(i.nextDeadlineMs)} `
        + `idle=${ms(i.effectiveIdleTimeoutMs)} started=${ms(i.startedAtMs)} `
        + `activity=${ms(i.lastActivityMs)} background_since=${ms(i.backgroundSinceMs)} `
        + `locked=${ms(i.lockedAtMs)} auth=${num(Auth, i.requiredAuth)} needs_contact=${i.needsServerContact ? 1 : 0} `
        + `credential=${ms(i.lastCredentialMs)} strong_auth=${ms(i.strongAuthDeadlineMs)} `
        + `contact=${ms(i.lastServerContactMs)} generation=${i.tokenGeneration} `
        + `interruption=${ms(i.interruptionUntilMs)}`;
}
// The binding's types for the header's structs and multi-out readings, by the C name.
const STRUCTS = { inact_policy: (w) => fromFields(ia.Policy.defaults(), w), inact_ceilings: (w) => fromFields(ia.Ceilings.none(), w) };
const PRINTERS = { inact_info: info, inact_policy: policyFields };
const READINGS = { inact_clock_now: (c) => [ms(c.monotonicMs), c.wallMs, c.bootId] };

// One argument from the op's words, by its kind, as the JavaScript binding takes it: 64-bit
// values (durations, ids, int64s) as BigInt, the rest as Number.
function argument(arg, words) {
    const word = words[arg.word];
    switch (arg.kind) {
    case 'struct': return STRUCTS[arg.struct](words.slice(arg.word));
    case 'text': return word ?? null;
    case 'duration': case 'id': return BigInt(word);
    default: return arg.ctype === 'int64_t' || arg.ctype === 'uint64_t' ? BigInt(word) : Number(word);
    }
}

// A generated op: the Engine member called with the converted words (positional, or in the
// trailing options object as names.toml's js_args says), the result printed by its kind.
function interpret(engine, entry, words) {
    const positional = [];
    let options = null;
    entry.args.forEach((arg, i) => {
        const field = entry.js.args[i];
        if (field) (options ??= {})[field] = argument(arg, words);
        else positional.push(argument(arg, words));
    });
    if (options !== null) positional.push(options);
    const value = engine[entry.js.member](...positional);
    const { result } = entry;
    if (result === null) return 'ok';
    if (result.kind === 'struct') return `ok ${PRINTERS[result.struct](value)}`;
    if (result.kind === 'outs') {
        const values = READINGS[entry.function](value);
        return `ok ${result.values.map((v, i) => `${v.label}=${values[i]}`).join(' ')}`;
    }
    const text = result.kind === 'duration' ? ms(value) : result.kind === 'enum' ? num(binding[result.classes.js], value) : String(value);
    return `ok ${result.label}=${text}`;
}

// The ops written here that are not a function's (names.toml has no row for them).
const OWN_OPS = ['restore-corrupt', 'closed-call', 'preset-name', 'activity-name', 'end-name', 'names'];
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

function run(lines) {
    const out = [];
    let events = [];
    let engine = null;
    let snapshot = new Uint8Array();
    let scopes = new Map();
    let holds = new Map();
    const ops = {
        kill() { engine.close(); engine = null; scopes = new Map(); holds = new Map(); },
        // names (issue 32): read and printed by the binding as its users write them
        'preset-name': (a) => `ok idle_timeout_ms=${ms(ia.Policy.preset(a[0]).idleTimeoutMs)}`,
        'activity-name': (a) => engine.activity(a[0]),
        'end-name': (a) => engine.end(a[0]),
        names: () => `ok state=${engine.state} reason=${engine.reason}`,
        'closed-call': () => { const closed = engine; ops.kill(); closed.lock(); },
        'push-scope': (a) => { const id = engine.pushScope(BigInt(a[1])); scopes.set(a[0], id); return `ok id=${id}`; },
        'pop-scope': (a) => { engine.popScope(scopes.get(a[0]) ?? 0n); scopes.delete(a[0]); },
        hold: (a) => { const id = engine.acquireHold(); holds.set(a[0], id); return `ok id=${id}`; },
        release: (a) => { engine.releaseHold(holds.get(a[0]) ?? 0n); holds.delete(a[0]); },
        save: () => { snapshot = engine.snapshot(); return `ok snapshot=${hex(snapshot)}`; },
        restore: () => engine.restore(snapshot),
        'restore-corrupt': () => {
            const data = snapshot.slice();
            if (data.length) data[data.length >> 1] ^= 0x5a;
            engine.restore(data);
        },
    };
    // A hand-written op must be a host op of the vocabulary or one of OWN_OPS: a hand case left
    // for a generated op would hide the generated one (and its names.toml convention).
    const stray = Object.keys(ops).filter((op) => !VOCABULARY.host_ops.includes(op) && !OWN_OPS.includes(op));
    if (stray.length) {
        console.error(`runner.mjs: hand-written ops that the vocabulary generates: ${stray.join(', ')} (generated/ops.json)`);
        process.exit(2);
    }
    function launch(a) {
        engine = new ia.Engine({
            clock: 'manual',
            manual: { startMs: BigInt(a[0]), wallMs: BigInt(a[1]), bootId: BigInt(a[2]) },
            policy: fromFields(ia.Policy.defaults(), a.slice(3)),
            onEvent: (e) => events.push(e),
        });
    }
    for (const line of lines) {
        if (!line || line.startsWith('#')) continue;
        out.push(`> ${line}`);
        const [op, ...a] = line.split(' ');
        let result;
        try {
            if (op === 'launch') { launch(a); result = 'ok'; }
            else if (engine === null) result = 'no-engine';
            else if (Object.hasOwn(ops, op)) { const r = ops[op](a); result = typeof r === 'string' ? r : 'ok'; }
            else if (OPS.has(op)) result = interpret(engine, OPS.get(op), a);
            else result = 'unknown-op';
        } catch (error) {
            if (!(error instanceof InactivityError)) throw error;
            result = `error ${error.code} ${error.engineMessage}`; // the engine's text: the same in every binding
        }
        for (const e of events) {
            out.push(`event ${EVENT_KIND[e.kind]} ${num(State, e.state)} ${num(State, e.previousState)} `
                + `${num(Reason, e.reason)} ${num(Auth, e.requiredAuth)} ${ms(e.remainingMs)} ${ms(e.timeMs)} ${ms(e.nowMs)}`);
        }
        events = [];
        out.push(`= ${result}`);
    }
    if (engine !== null) engine.close();
    return out;
}

const [outdir, ...files] = process.argv.slice(2);
if (!outdir || files.length === 0) {
    console.error('usage: node verify/conformance/runner.mjs OUTDIR FILE.ops...');
    process.exit(2);
}
for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(join(outdir, `${basename(file).split('.')[0]}.out`), `${run(lines).join('\n')}\n`);
}
