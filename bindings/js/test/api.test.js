// The binding's API through the real module (built by scripts/build-wasm): inputs, queries,
// events (callbacks and the async iterator), snapshots as bytes and base64, presets, ceilings,
// the manual clock, errors and the number/BigInt rules. Every expectation here is the engine's
// behaviour as the header states it; the binding only converts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, errors, InactivityError, NEVER, State, Preset, HolderKind } from '../src/index.js';

const ia = await load();
const MIN = 60_000;
const manual = (options = {}) => {
    const events = [];
    const engine = new ia.Engine({ clock: 'manual', onEvent: (e) => events.push(e), ...options });
    return { engine, events };
};

test('Engine, Policy and Ceilings at module level: the first load binds them; each load\'s are their subclasses', async () => {
    const m = await import('../src/index.js');
    const other = await load(); // a second instance of the module, with engines of its own
    assert.notEqual(other.Engine, m.Engine);
    assert.equal(Object.getPrototypeOf(ia.Engine), m.Engine);
    assert.equal(ia.Engine.name, 'Engine');
    const first = new m.Engine({ clock: 'manual' }); // the first load's module (ia's)
    const second = new other.Engine({ clock: 'manual' });
    first.start();
    assert.equal(first.state, 'ACTIVE');
    assert.equal(second.state, 'LOADING'); // another module: the first's start is not its
    assert.ok(first instanceof m.Engine && second instanceof m.Engine && !(first instanceof other.Engine));
    assert.ok(first.policy() instanceof ia.Policy); // the first load's, not the latest's
    assert.ok(m.Policy.preset('BANKING') instanceof m.Policy);
    assert.ok(second.policy() instanceof other.Policy && second.policy() instanceof m.Policy);
    assert.equal(new m.Ceilings({ idleTimeoutMs: MIN }).idleTimeoutMs, MIN);
    assert.throws(() => new m.Policy({ warningMs: 20 * MIN }), errors.InvalidArgumentError); // the engine's check
    first.close();
    second.close();
});

test('the module states the header version', () => {
    assert.match(ia.version, /^\d+\.\d+\.\d+$/);
    const [major, minor, patch] = ia.version.split('.').map(Number);
    assert.equal(ia.versionNumber, major * 10000 + minor * 100 + patch);
});

test('a session warns, ticks, locks and unlocks on the manual clock, events in order', () => {
    const { engine, events } = manual({ policy: ia.Policy.preset('BANKING') });
    assert.equal(engine.state, 'LOADING');
    engine.start();
    assert.equal(events.at(-1).state, 'ACTIVE');
    assert.equal(events.at(-1).reason, 'STARTED');
    engine.advance(4 * MIN + 30_000);
    const warning = events.find((e) => e.state === 'WARNING' && e.kind === 'state-changed');
    assert.equal(warning.timeMs, 4 * MIN + 30_000);
    assert.equal(warning.remainingMs, 30_000);
    engine.advance(30_000);
    assert.equal(engine.state, 'LOCKED');
    assert.equal(events.at(-1).reason, 'IDLE_TIMEOUT');
    assert.ok(events.filter((e) => e.kind === 'tick').length >= 29);
    assert.equal(engine.unlockFailed(), 1);
    engine.unlock();
    assert.equal(engine.state, 'ACTIVE');
    assert.equal(engine.reason, 'UNLOCKED');
    engine.close();
    engine.close(); // twice is harmless
});

test('activity resets the idle countdown; kinds by name and by bit', () => {
    const { engine } = manual({ policy: new ia.Policy({ idleTimeoutMs: 10 * MIN, warningMs: 0 }) });
    engine.start();
    engine.advance(9 * MIN);
    engine.activity('KEY');
    engine.advance(9 * MIN);
    engine.activity(ia.exports ? 1 : 1); // TOUCH_DOWN as its bit
    assert.equal(engine.state, 'ACTIVE');
    assert.equal(engine.remainingMs, 10 * MIN);
    engine.advance(10 * MIN);
    assert.equal(engine.state, 'LOCKED');
    engine.close();
});

test('events as an async iterator, ending at close', async () => {
    const { engine } = manual();
    const iterator = engine.events();
    engine.start();
    engine.lock();
    engine.close();
    const seen = [];
    for await (const e of iterator) seen.push(`${e.previousState}->${e.state}`);
    assert.deepEqual(seen, ['LOADING->ACTIVE', 'ACTIVE->LOCKED']);
});

test('a listener that throws does not break the engine (its error goes to onError)', () => {
    const thrown = [];
    const engine = new ia.Engine({ clock: 'manual', onEvent: () => { throw new Error('listener bug'); },
                                   onError: (error) => thrown.push(error.message) });
    engine.start();
    engine.lock();
    assert.equal(engine.state, 'LOCKED');
    assert.deepEqual(thrown, ['listener bug', 'listener bug']);
    engine.unlock(); // the engine's lock was released although the listener threw inside its call
    assert.equal(engine.state, 'ACTIVE');
    engine.close();
});

test('snapshot save and restore, as bytes and as base64', () => {
    const { engine } = manual({ manual: { startMs: 0, wallMs: 1_700_000_000_000, bootId: 7n } });
    engine.start();
    engine.advance(MIN);
    const bytes = engine.snapshot();
    const text = engine.snapshotBase64();
    assert.ok(bytes instanceof Uint8Array && bytes.length > 0 && bytes.length <= 128);
    assert.equal(Buffer.from(bytes).toString('base64'), text);
    engine.close();
    for (const saved of [bytes, text]) {
        const { engine: again } = manual({ manual: { startMs: MIN, wallMs: 1_700_000_060_000, bootId: 7n } });
        again.restore(saved);
        assert.equal(again.state, 'ACTIVE');
        assert.equal(again.reason, 'RESTORED');
        again.close();
    }
});

test('the error classes follow the categories: a status class extends its category class, each a named export', async () => {
    const { engine } = manual();
    engine.start();
    const bytes = engine.snapshot();
    engine.close();
    bytes[bytes.length >> 1] ^= 0x5a;
    const { engine: again } = manual();
    assert.throws(() => again.restore(bytes), (e) => e instanceof errors.SnapshotChecksumError
        && e instanceof errors.SnapshotError && e instanceof errors.InvalidArgumentError && e instanceof InactivityError
        && e.name === 'SnapshotChecksumError' && e.status === 'INACT_E_SNAPSHOT_CHECKSUM');
    again.close();
    assert.equal(errors.WeakAuthError.prototype instanceof errors.InvalidStateError, true);
    assert.equal(errors.SystemError.prototype instanceof errors.SystemResourceError, true);
    assert.equal(errors.NullPointerError.prototype instanceof errors.InvalidArgumentError, true);
    const module = await import('../src/index.js');
    for (const [name, cls] of Object.entries(errors)) {
        assert.equal(module[name], cls, name);
        assert.equal(cls.name, name);
        assert.equal(cls === InactivityError || cls.prototype instanceof InactivityError, true, name);
    }
});

test('a corrupt snapshot fails secure: a typed error, and the engine is EXPIRED', () => {
    const { engine } = manual();
    engine.start();
    const bytes = engine.snapshot();
    engine.close();
    bytes[bytes.length >> 1] ^= 0x5a;
    const { engine: again } = manual();
    assert.throws(() => again.restore(bytes), errors.SnapshotChecksumError);
    assert.equal(again.state, 'EXPIRED');
    assert.equal(again.reason, 'RESTORE_FAILED');
    assert.throws(() => manual().engine.restore('***'), TypeError);
    again.close();
});

test('presets come from the engine; a policy validates with the engine message', () => {
    const banking = ia.Policy.preset('BANKING');
    assert.equal(banking.idleTimeoutMs, 5 * MIN);
    assert.equal(banking.maxUnlockFailures, 5);
    assert.equal(ia.Policy.preset(Preset.NIST_AAL2).idleTimeoutMs, 30 * MIN);
    assert.equal(ia.Policy.defaults().lockedTimeoutMs, NEVER);
    for (const name of Object.keys(Preset)) assert.equal(typeof ia.Policy.preset(name).idleTimeoutMs, 'number');
    // Refused where it is made, in this binding's field names; engineMessage is the engine's text.
    assert.throws(() => new ia.Policy({ warningMs: 20 * MIN }), (e) => e instanceof errors.InvalidArgumentError
        && e.status === 'INACT_E_INVALID_ARGUMENT' && e.code === -3 && /^policy\.warningMs \(1200000\)/.test(e.message)
        && /^policy\.warning_ms \(1200000\)/.test(e.engineMessage));
    const bad = ia.Policy.defaults();
    bad.warningMs = 20 * MIN; // a field changed afterwards: refused by validate() and at use
    assert.throws(() => bad.validate(), (e) => /^policy\.warningMs/.test(e.message));
    assert.throws(() => new ia.Engine({ clock: 'manual', policy: bad }), (e) => /^policy\.warningMs/.test(e.message));
    assert.throws(() => ia.Policy.preset(99), errors.InvalidArgumentError);
    assert.throws(() => ia.Policy.preset('BANK'), (e) => e instanceof errors.InvalidArgumentError
        && e.message === 'preset ("BANK") must be one of DEFAULT, NIST_AAL2, NIST_AAL3, PCI_DSS, BANKING, PSD2, ENTERPRISE');
    // The names are the engine's: any case, '-' or '_'.
    assert.equal(ia.Policy.preset('banking').idleTimeoutMs, 5 * MIN);
    assert.equal(ia.Policy.preset('pci-dss').idleTimeoutMs, ia.Policy.preset(Preset.PCI_DSS).idleTimeoutMs);
    assert.throws(() => ia.Policy.preset({}), (e) => e instanceof TypeError && /^preset \(an object/.test(e.message));
    assert.throws(() => ia.Policy.preset('BANKING\0x'), errors.InvalidArgumentError); // not read as 'BANKING'
});

test('ceilings: a laxer policy is refused with CeilingError naming the field', () => {
    const { engine } = manual();
    engine.setCeilings(new ia.Ceilings({ idleTimeoutMs: 10 * MIN }));
    assert.equal(engine.policy().idleTimeoutMs, 10 * MIN);
    assert.equal(engine.ceilings().idleTimeoutMs, 10 * MIN);
    assert.throws(() => engine.setPolicy(new ia.Policy({ idleTimeoutMs: 20 * MIN })),
        (e) => e instanceof errors.CeilingError && /policy\.idleTimeoutMs/.test(e.message)
            && /policy\.idle_timeout_ms/.test(e.engineMessage));
    assert.equal(ia.Ceilings.none().idleTimeoutMs, NEVER);
    engine.close();
});

test('every 1.1 input reaches the engine', () => {
    const { engine, events } = manual({ policy: new ia.Policy({ lockOnDeviceLock: true, expectedInterruptionMaxMs: 60_000 }) });
    engine.start();
    engine.windowShown();
    engine.windowHidden();
    engine.windowShown();
    engine.expectInterruption(30_000);
    engine.background();
    engine.foreground();
    const scope = engine.pushScope(2 * MIN);
    assert.equal(typeof scope, 'bigint');
    assert.equal(engine.info().effectiveIdleTimeoutMs, 2 * MIN);
    engine.popScope(scope);
    assert.throws(() => engine.popScope(scope), errors.NotFoundError);
    const hold = engine.acquireHold();
    assert.equal(engine.info().openHolds, 1);
    engine.releaseHold(hold);
    engine.serverContact();
    engine.tokenRotated(3n);
    assert.equal(engine.refreshResult(400, 'invalid_grant', 2n), 'STALE');
    assert.equal(engine.refreshResult(503), 'RETRY');
    assert.equal(engine.refreshResult(200), 'OK');
    assert.equal(engine.info().tokenGeneration, 3n);
    engine.biometricsChanged();
    engine.deviceLocked();
    assert.equal(engine.state, 'LOCKED');
    assert.equal(engine.reason, 'DEVICE_LOCKED');
    assert.equal(engine.requiredAuth, 'CREDENTIAL');
    assert.throws(() => engine.unlock('BIOMETRIC'), errors.WeakAuthError);
    engine.foreground();
    engine.unlock('CREDENTIAL');
    engine.continue === undefined || assert.throws(() => engine.continue(), errors.InvalidStateError);
    engine.end('PASSWORD_CHANGED');
    assert.equal(events.at(-1).reason, 'PASSWORD_CHANGED');
    engine.jumpWall(-3_600_000);
    engine.freeze(MIN);
    engine.reboot(MIN);
    assert.equal(engine.clockNow().monotonicMs, 0);
    assert.equal(typeof engine.clockNow().bootId, 'bigint');
    engine.poll();
    assert.equal(engine.nextDeadlineMs(), NEVER);
    engine.close();
});

test('errors are typed and name the argument; a failed call changes nothing', () => {
    const { engine, events } = manual();
    assert.throws(() => engine.end('STARTED'), (e) => e instanceof errors.InvalidArgumentError
        && e instanceof InactivityError && /reason/.test(e.message));
    assert.throws(() => engine.continue(), errors.InvalidStateError);
    assert.throws(() => engine.activity(3), (e) => e instanceof errors.InvalidArgumentError && /kind/.test(e.message));
    assert.throws(() => engine.activity('WINK'), (e) => e instanceof errors.InvalidArgumentError && /^kind \("WINK"\) must be one of TOUCH_DOWN/.test(e.message));
    assert.throws(() => engine.advance('1000'), (e) => e instanceof TypeError && /^ms \("1000"\)/.test(e.message));
    assert.throws(() => engine.advance(-1), (e) => e instanceof errors.InvalidArgumentError && /ms \(-1\)/.test(e.message));
    assert.throws(() => engine.advance(1.5), (e) => e instanceof TypeError && /^ms \(1\.5\)/.test(e.message));
    assert.throws(() => engine.advance(2 ** 60), TypeError);
    assert.throws(() => engine.pushScope(10n ** 16n), (e) => e instanceof errors.InvalidArgumentError && /idle_timeout_ms/.test(e.message)); // a BigInt reaches the engine
    assert.throws(() => engine.setPolicy({ ...ia.Policy.defaults(), pauseIdleInBackground: 1 }), /policy\.pauseIdleInBackground \(1\) must be a boolean/);
    assert.throws(() => engine.refreshResult(99), (e) => e instanceof errors.InvalidArgumentError && /http_status/.test(e.message));
    assert.equal(engine.state, 'LOADING');
    assert.equal(events.length, 0);
    engine.close();
    assert.throws(() => engine.start(), errors.InvalidHandleError);
});

test('THREAD delivery cannot run on wasm32: INACT_E_SYSTEM naming the rule; HOST delivery works', () => {
    const x = ia.exports;
    const out = x.malloc(8);
    const code = x.inact_engine_create(0, 0, 0, 0, 0, out);
    const bytes = new Uint8Array(x.memory.buffer);
    const p = x.inact_last_error();
    const message = new TextDecoder().decode(bytes.subarray(p, bytes.indexOf(0, p)));
    x.free(out);
    assert.equal(code, -15);
    assert.match(message, /^scheduler thread: pthread_create failed: wasm32 has no threads.*INACT_DELIVERY_HOST.*\(errno \d+\)$/);
    const engine = new ia.Engine(); // the binding creates HOST engines on the system clock
    engine.start();
    assert.equal(engine.state, 'ACTIVE');
    assert.ok(engine.nextDeadlineMs() > 0);
    engine.close();
});

test('State and the other enumerations are the header values', () => {
    assert.deepEqual(State, { LOADING: 0, ACTIVE: 1, WARNING: 2, LOCKED: 3, EXPIRED: 4 });
});

test('load: from a fetch Response (streaming, and without the wasm type), bytes, or a compiled module', async () => {
    const { readFileSync } = await import('node:fs');
    const bytes = readFileSync(new URL('../inactivity.wasm', import.meta.url));
    const sources = [
        new Response(bytes, { headers: { 'content-type': 'application/wasm' } }),
        new Response(bytes),
        bytes,
        new WebAssembly.Module(bytes),
        new URL('../inactivity.wasm', import.meta.url),
    ];
    for (const wasm of sources) {
        const other = await load({ wasm });
        const engine = new other.Engine({ clock: 'manual' });
        engine.start();
        assert.equal(engine.state, 'ACTIVE');
        engine.close();
    }
    await assert.rejects(load({ wasm: new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9]) }), WebAssembly.CompileError);
});

test('two loads are two instances: an engine of one is not a handle of the other', async () => {
    const other = await load();
    const a = new ia.Engine({ clock: 'manual' });
    const b = new other.Engine({ clock: 'manual' });
    a.start();
    assert.equal(b.state, 'LOADING');
    a.close();
    b.close();
});

test('an engine dropped without close is destroyed once collected (FinalizationRegistry)', async () => {
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    const x = ia.exports;
    const handles = (() => {
        const out = [];
        for (let i = 0; i < 20; i++) {
            const e = new ia.Engine({ onEvent: () => {} }); // system clock: a deadline timer is pending
            e.start();
            out.push(BigInt.asIntN(64, e.handle));
        }
        return out;
    })();
    const state = (h) => { const p = x.malloc(4); const code = x.inact_get_state(h, p); x.free(p); return code; };
    assert.ok(handles.every((h) => state(h) === 0));
    for (let round = 0; round < 20 && !handles.every((h) => state(h) === -2); round++) {
        gc();
        await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(handles.map(state), handles.map(() => -2)); // INACT_E_INVALID_HANDLE: destroyed
});

test('subscribe: listeners after onEvent, in order, until unsubscribed', () => {
    const seen = [];
    const engine = new ia.Engine({ clock: 'manual', onEvent: (e) => seen.push(`onEvent ${e.state}`) });
    const off = engine.subscribe((e) => seen.push(`a ${e.state}`));
    const b = (e) => seen.push(`b ${e.state}`);
    engine.subscribe(b);
    engine.subscribe(b); // the same function once
    engine.start();
    off();
    engine.lock();
    assert.deepEqual(seen, ['onEvent ACTIVE', 'a ACTIVE', 'b ACTIVE', 'onEvent LOCKED', 'b LOCKED']);
    assert.throws(() => engine.subscribe(null), TypeError);
    assert.equal(engine.closed, false);
    engine.close();
    assert.equal(engine.closed, true);
});

test('a call from inside a callback queues its events: delivered after the callback, in order', () => {
    const seen = [];
    let engine;
    engine = new ia.Engine({
        clock: 'manual',
        policy: new ia.Policy({ idleTimeoutMs: 60_000, warningMs: 10_000, tickMs: 0 }),
        onEvent: (e) => {
            seen.push(`${e.previousState}->${e.state}`);
            if (e.state === 'WARNING') {
                engine.lock(); // queued: its event comes after this callback returns
                seen.push(`lock returned in ${engine.state}`);
            }
        },
    });
    engine.start();
    engine.advance(50_000);
    assert.deepEqual(seen, ['LOADING->ACTIVE', 'ACTIVE->WARNING', 'lock returned in LOCKED', 'WARNING->LOCKED']);
    engine.close();
});

// Issue 32: each of these ran the default 15-minute policy without a word in 1.2.
test('options and policies are strict: a mistake is refused at the call that received it', () => {
    const refused = [
        [() => new ia.Engine(ia.Policy.preset('BANKING')), /^options \(a Policy\) must be an options object: new Engine\(\{ policy \}\)$/],
        [() => new ia.Engine('BANKING'), /^options \("BANKING"\) must be an options object such as new Engine\(\{ policy: Policy\.preset\("BANKING"\) \}\)$/],
        [() => new ia.Engine({ polcy: ia.Policy.preset('BANKING') }), /^options\.polcy is not an Engine option; the options are policy, onEvent, onError, clock, manual, keepAlive$/],
        [() => new ia.Engine({ policy: 'BANKING' }), /^options\.policy \("BANKING"\) must be a Policy: Policy\.preset\("BANKING"\)$/],
        [() => new ia.Engine({ onEvent: 'log' }), /^options\.onEvent \("log"\) must be a function$/],
        [() => new ia.Engine({ keepAlive: 1 }), /^options\.keepAlive \(1\) must be a boolean/],
        [() => new ia.Engine({ manual: { startMs: 0 } }), /^options\.manual is for options\.clock 'manual' only$/],
        [() => new ia.Engine({ clock: 'manual', manual: { start: 0 } }), /^options\.manual\.start is not a manual-clock option/],
        [() => new ia.Policy({ idleTimout: 5000 }), /^policy\.idleTimout is not a Policy field; the fields are idleAction, idleTimeoutMs, /],
        [() => new ia.Policy({ idleTimeoutMs: '5m' }), /^policy\.idleTimeoutMs \("5m"\) must be an integer number of ms/],
        [() => new ia.Policy({ idleTimeoutMs: NaN }), /^policy\.idleTimeoutMs \(NaN\) must be an integer number of ms/],
        [() => new ia.Policy({ idleTimeoutMs: -5 }), /^policy\.idleTimeoutMs \(-5\) must be/],
        [() => new ia.Policy('BANKING'), /^policy \("BANKING"\) must be an object of Policy fields/],
        [() => new ia.Ceilings({ idleTimeout: 1 }), /^ceilings\.idleTimeout is not a Ceilings field/],
    ];
    for (const [call, message] of refused) assert.throws(call, (e) => message.test(e.message));
    // A misspelled field added to a policy afterwards is refused where the policy is used.
    const p = ia.Policy.preset('BANKING');
    p.idleTimout = 5000;
    assert.throws(() => new ia.Engine({ clock: 'manual', policy: p }), (e) => /^policy\.idleTimout is not a Policy field/.test(e.message));
    // What is right still works, and the fields given are the ones used.
    const engine = new ia.Engine({ clock: 'manual', policy: new ia.Policy({ idleTimeoutMs: 5 * MIN, warningMs: 30000 }) });
    assert.equal(engine.policy().idleTimeoutMs, 5 * MIN);
    engine.close();
});

test('states and reasons are the engine names; a closed engine says so in every binding\'s words', () => {
    const { engine } = manual();
    engine.start();
    engine.activity('key');
    engine.activity('Touch-Down');
    engine.end('password-changed');
    assert.equal(engine.state, 'EXPIRED');
    assert.equal(engine.reason, 'PASSWORD_CHANGED');
    assert.equal(engine.info().reason, 'PASSWORD_CHANGED');
    engine.close();
    for (const call of [() => engine.lock(), () => engine.activity('KEY'), () => engine.state, () => engine.clockNow()]) {
        assert.throws(call, (e) => e instanceof errors.InvalidHandleError && e.message === 'the engine is closed');
    }
});

test('holderReport: each kind only makes the session stricter, and DEVICE_LIMIT ends it', () => {
    const { engine, events } = manual({ policy: new ia.Policy({ idleTimeoutMs: MIN, warningMs: 10_000 }) });
    engine.start();
    engine.advance(20_000);
    engine.holderReport('ACTIVITY', { ms: 5_000 });
    assert.equal(engine.info().lastActivityMs, 15_000);
    engine.holderReport('IDLE_DEADLINE', { ms: 5 * MIN });
    assert.equal(engine.remainingMs, 55_000, 'a later deadline changes nothing');
    engine.holderReport('IDLE_DEADLINE', { ms: 30_000 });
    assert.equal(engine.remainingMs, 30_000);
    engine.holderReport(HolderKind.ABSOLUTE_DEADLINE, { ms: 20_000 });
    assert.equal(engine.remainingMs, 20_000);
    engine.holderReport('LOCKED', { reason: 'BACKGROUND_TIMEOUT', ms: 4_000 });
    assert.deepEqual([events.at(-1).state, events.at(-1).reason, events.at(-1).timeMs], ['LOCKED', 'BACKGROUND_TIMEOUT', 16_000]);
    engine.holderReport('ACTIVITY');
    assert.equal(engine.state, 'LOCKED', 'activity never unlocks');
    assert.throws(() => engine.holderReport('EXPIRED'), (e) => e instanceof errors.InvalidArgumentError && /reason \(0\)/.test(e.message));
    assert.throws(() => engine.holderReport('SOMETHING'), TypeError);
    // Named, never positional: the pre-release (kind, ms, reason) form and an unknown name are
    // refused, naming the argument and the accepted names, and change nothing.
    assert.throws(() => engine.holderReport('EXPIRED', 0, 'DEVICE_LIMIT'),
        (e) => e instanceof TypeError && /options \(0\) must be an object such as \{ reason/.test(e.message));
    assert.throws(() => engine.holderReport('EXPIRED', { reasn: 'DEVICE_LIMIT' }),
        (e) => e instanceof TypeError && e.message === 'options.reasn is not a holderReport option; the options are reason, ms');
    assert.equal(engine.state, 'LOCKED');
    engine.holderReport('EXPIRED', { reason: 'DEVICE_LIMIT' });
    assert.deepEqual([engine.state, engine.reason], ['EXPIRED', 'DEVICE_LIMIT']);
    engine.start();
    engine.end('DEVICE_LIMIT');
    assert.equal(engine.reason, 'DEVICE_LIMIT');
    engine.close();
});

test('keepalive events carry the last user activity', () => {
    assert.equal(ia.Policy.defaults().keepaliveIntervalMs, 0);
    const { engine, events } = manual({ policy: new ia.Policy({ idleTimeoutMs: MIN, warningMs: 10_000, keepaliveIntervalMs: 5_000 }) });
    assert.equal(engine.policy().keepaliveIntervalMs, 5_000);
    engine.start();
    engine.advance(2_000);
    engine.activity('KEY');
    engine.advance(3_000);
    const pings = events.filter((e) => e.kind === 'keepalive');
    assert.deepEqual(pings.map((p) => [p.timeMs, p.nowMs]), [[2_000, 5_000]]);
    assert.throws(() => new ia.Policy({ keepaliveIntervalMs: 500 }).validate(),
        (e) => /keepalive_interval_ms/.test(e.engineMessage) && /policy\.keepaliveIntervalMs/.test(e.message));
    engine.close();
});

test('system clock: the interval end of a keepalive is delivered by the binding\'s timer', async () => {
    // Activity does not re-arm the timer (the hot path). After a quiet interval the first
    // activity pings at once, inside the call, and starts an interval whose end is the next
    // deadline; the binding's timer waits at most one interval, so that ping comes on its own.
    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    const events = [];
    const engine = new ia.Engine({ policy: new ia.Policy({ keepaliveIntervalMs: 1_000 }), onEvent: (e) => events.push(e) });
    engine.start();
    await sleep(1_100); // the sign-in's interval ends with nothing to carry: quiet
    engine.activity('KEY');
    const first = events.filter((e) => e.kind === 'keepalive').length;
    await sleep(100);
    engine.activity('POINTER'); // stamped without the lock, carried at the interval's end
    await sleep(1_300);
    const pings = events.filter((e) => e.kind === 'keepalive');
    engine.close();
    assert.equal(first, 1, 'the first activity after a quiet interval pings at once');
    assert.equal(pings.length, 2, `keepalives: ${pings.length}`);
    assert.ok(pings[1].nowMs - pings[1].timeMs >= 700, 'the second carries the activity of ~0.9 s before');
});
