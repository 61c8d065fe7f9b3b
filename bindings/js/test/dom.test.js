// The dom entry under Node with a fake DOM (EventTarget-based): the mapping of events to
// activity kinds, the lifecycle to background/foreground, storage and the store, and the relay
// between two "tabs" over Node's BroadcastChannel. The same behaviour in real Chromium is the
// browser suite's (scripts/lib/test-browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, ActivityKind } from 'inactivity';
import { connect, activityKind, ACTIVITY_EVENTS, CONNECT_OPTIONS } from 'inactivity/dom';

const inactivity = await load();
const { Engine, Policy } = inactivity;

class FakeDocument extends EventTarget {
    visibilityState = 'visible';
}
class FakeStorage {
    map = new Map();
    getItem(k) { return this.map.has(k) ? this.map.get(k) : null; }
    setItem(k, v) { this.map.set(k, String(v)); }
}
// A trusted event: what the user agent dispatches (a script's own events are untrusted).
function trusted(type, extra = {}) {
    const e = new Event(type);
    Object.defineProperty(e, 'isTrusted', { value: true });
    return Object.assign(e, extra);
}
function page() {
    const win = new EventTarget();
    const doc = new FakeDocument();
    return { win, doc, storage: new FakeStorage() };
}
const policy = () => new Policy({ idleTimeoutMs: 60000, warningMs: 20000, backgroundTimeoutMs: 5000 });
function manualEngine() {
    return new Engine({ policy: policy(), clock: 'manual' });
}
// Everything a test opened, closed after it even when an assertion failed (an open
// BroadcastChannel keeps the process alive).
let opened = [];
function open(t, thing) {
    if (opened.length === 0) t.after(() => { for (const x of opened.reverse()) (x.disconnect ?? x.close).call(x); opened = []; });
    opened.push(thing);
    return thing;
}
function errors() {
    const list = [];
    return { list, onError: (e) => list.push(e) };
}

test('trusted events map to their kinds, untrusted ones to PROGRAMMATIC', (t) => {
    assert.equal(activityKind(trusted('keydown')), 'KEY');
    assert.equal(activityKind(trusted('pointerdown')), 'TOUCH_DOWN');
    assert.equal(activityKind(trusted('wheel')), 'SCROLL');
    assert.equal(activityKind(trusted('touchmove')), 'TOUCH_MOVE');
    assert.equal(activityKind(new Event('keydown')), 'PROGRAMMATIC');
    assert.equal(activityKind(trusted('click')), null);
    for (const kind of Object.values(ACTIVITY_EVENTS)) assert.ok(kind in ActivityKind && kind !== 'PROGRAMMATIC', kind);
});

test('a key press resets the idle countdown; a synthetic one counts only as PROGRAMMATIC', async (t) => {
    const { win, doc, storage } = page();
    const engine = open(t, manualEngine());
    const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null }));
    assert.equal(await s.ready, 'new');
    s.start();
    engine.advance(30000);
    assert.equal(engine.remainingMs, 30000);
    win.dispatchEvent(trusted('keydown'));
    assert.equal(engine.remainingMs, 60000);
    engine.advance(10000);
    // PROGRAMMATIC is not in the default activity kinds: the engine ignores it.
    win.dispatchEvent(new Event('keydown'));
    assert.equal(engine.remainingMs, 50000);
});

test('listeners are passive and capturing: a handler that stops propagation hides nothing', async (t) => {
    const { win, doc, storage } = page();
    const engine = open(t, manualEngine());
    const seen = [];
    const realAdd = win.addEventListener.bind(win);
    win.addEventListener = (type, fn, opts) => { seen.push([type, opts]); realAdd(type, fn, opts); };
    const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null }));
    await s.ready;
    for (const [, opts] of seen) assert.deepEqual(opts, { capture: true, passive: true });
    assert.ok(seen.some(([t]) => t === 'keydown') && seen.some(([t]) => t === 'pagehide'));
});

test('hidden -> background (locks after the background timeout), visible -> foreground', async (t) => {
    const { win, doc, storage } = page();
    const engine = open(t, manualEngine());
    const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null }));
    await s.ready;
    s.start();
    doc.visibilityState = 'hidden';
    doc.dispatchEvent(trusted('visibilitychange'));
    assert.equal(engine.info().inBackground, true);
    assert.equal(s.getSnapshot().inBackground, true);
    engine.advance(6000);
    doc.visibilityState = 'visible';
    doc.dispatchEvent(trusted('visibilitychange'));
    assert.equal(engine.state, 'LOCKED');
    assert.equal(engine.reason, 'BACKGROUND_TIMEOUT');
});

test('freeze/resume and pagehide/pageshow map to background/foreground', async (t) => {
    const { win, doc, storage } = page();
    const engine = open(t, manualEngine());
    const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null }));
    await s.ready;
    s.start();
    doc.dispatchEvent(trusted('freeze'));
    assert.equal(engine.info().inBackground, true);
    doc.dispatchEvent(trusted('resume'));
    assert.equal(engine.info().inBackground, false);
    win.dispatchEvent(trusted('pagehide', { persisted: true }));
    assert.equal(engine.info().inBackground, true);
    win.dispatchEvent(trusted('pageshow', { persisted: true }));
    assert.equal(engine.info().inBackground, false);
});

test('the snapshot is kept in storage and a cold start restores it', async (t) => {
    const { win, doc, storage } = page();
    const e1 = open(t, new Engine({ policy: policy() }));
    const s1 = open(t, connect(e1, { window: win, document: doc, storage, channel: null }));
    await s1.ready;
    s1.start();
    s1.lock();
    win.dispatchEvent(trusted('pagehide', { persisted: false }));
    const saved = storage.getItem('inactivity.snapshot');
    assert.equal(typeof saved, 'string');
    const p2 = page();
    p2.storage.setItem('inactivity.snapshot', saved);
    const e2 = open(t, new Engine({ policy: policy() }));
    const s2 = open(t, connect(e2, { window: p2.win, document: p2.doc, storage: p2.storage, channel: null }));
    assert.equal(await s2.ready, 'restored');
    assert.equal(e2.state, 'LOCKED');
});

test('a corrupt or foreign stored value gives EXPIRED (the engine judges it)', async (t) => {
    for (const value of ['not base64 at all!', btoa('foreign'), '']) {
        const { win, doc, storage } = page();
        storage.setItem('inactivity.snapshot', value);
        const engine = open(t, new Engine({ policy: policy() }));
        const e = errors();
        const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null, onError: e.onError }));
        await s.ready;
        assert.equal(engine.state, 'EXPIRED', `value ${JSON.stringify(value)}`);
        assert.equal(engine.reason, 'RESTORE_FAILED');
        assert.equal(e.list.length, 1);
    }
});

test('the store: subscribe calls now and on each change, getSnapshot is stable between changes', async (t) => {
    const { win, doc, storage } = page();
    const engine = open(t, manualEngine());
    const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null }));
    await s.ready;
    const seen = [];
    const unsubscribe = s.subscribe((v) => seen.push(v.state));
    assert.equal(s.getSnapshot(), s.getSnapshot());
    s.start();
    s.lock();
    unsubscribe();
    s.unlock();
    assert.deepEqual(seen, ['LOADING', 'ACTIVE', 'LOCKED']);
    assert.equal(s.getSnapshot().state, 'ACTIVE');
});

test('two tabs: a newcomer joins in the current state; activity, lock and unlock apply to both', async (t) => {
    const name = `test-${Math.random()}`;
    const a = page();
    const ea = open(t, new Engine({ policy: policy() }));
    const sa = open(t, connect(ea, { window: a.win, document: a.doc, storage: a.storage, channel: name, joinTimeoutMs: 50, relayThrottleMs: 0 }));
    assert.equal(await sa.ready, 'new');
    sa.start();
    const b = page();
    const eb = open(t, new Engine({ policy: policy() }));
    const sb = open(t, connect(eb, { window: b.win, document: b.doc, storage: b.storage, channel: name, joinTimeoutMs: 2000, relayThrottleMs: 0 }));
    assert.equal(await sb.ready, 'joined');
    assert.equal(eb.state, 'ACTIVE');
    const settle = () => new Promise((r) => setTimeout(r, 30));
    sa.lock();
    await settle();
    assert.equal(eb.state, 'LOCKED');
    sb.unlock();
    await settle();
    assert.equal(ea.state, 'ACTIVE');
    // A hidden tab is not background while a peer is visible.
    a.doc.visibilityState = 'hidden';
    a.doc.dispatchEvent(trusted('visibilitychange'));
    await settle();
    assert.equal(ea.info().inBackground, false);
    b.doc.visibilityState = 'hidden';
    b.doc.dispatchEvent(trusted('visibilitychange'));
    await settle();
    assert.equal(ea.info().inBackground, true);
    assert.equal(eb.info().inBackground, true);
});

test('tabs that disagree: a peer locked by its own deadline reports it, and the engine merges it with its reason', async (t) => {
    const name = `test-${Math.random()}`;
    const settle = (ms = 30) => new Promise((r) => setTimeout(r, ms));
    const a = page();
    // Tab a's host policy idles out in 400 ms; tab b's in a minute.
    const ea = open(t, new Engine({ policy: new Policy({ idleTimeoutMs: 400, warningMs: 100 }) }));
    const sa = open(t, connect(ea, { window: a.win, document: a.doc, storage: a.storage, channel: name, joinTimeoutMs: 20 }));
    await sa.ready;
    const b = page();
    const eb = open(t, new Engine({ policy: policy() }));
    const sb = open(t, connect(eb, { window: b.win, document: b.doc, storage: b.storage, channel: name, joinTimeoutMs: 20 }));
    await sb.ready;
    sb.start();   // relayed: a starts too
    await settle();
    assert.equal(ea.state, 'ACTIVE');
    await settle(700);
    assert.equal(ea.state, 'LOCKED');
    assert.equal(ea.reason, 'IDLE_TIMEOUT');
    // The peer followed through its holder input, with the reporting tab's reason (the 1.2
    // adapter applied lock() here, and the reason became MANUAL_LOCK).
    assert.equal(eb.state, 'LOCKED', 'the peer did not follow the report');
    assert.equal(eb.reason, 'IDLE_TIMEOUT');
    // An unlock is relayed as the input, and no tab's echo locks it again.
    sb.unlock();
    await settle(100);
    assert.equal(eb.state, 'ACTIVE');
    assert.equal(ea.state, 'ACTIVE');
});

test('an unknown option is refused, naming it; a bad value names the option and the rule', () => {
    const engine = manualEngine();
    try {
        assert.throws(() => connect(engine, { chanel: 'x', channel: null }), (e) => e instanceof TypeError && /'chanel'/.test(e.message) && /channel/.test(e.message));
        assert.throws(() => connect(engine, { channel: null, heartbeatMs: -1 }), /options\.heartbeatMs \(-1\)/);
        assert.throws(() => connect(engine, { channel: null, heartbeatMs: 1000, peerTimeoutMs: 1500 }), /peerTimeoutMs \(1500\) must be at least twice/);
        assert.throws(() => connect(engine, { channel: null, serverUrl: 42 }), /serverUrl/);
        assert.ok(CONNECT_OPTIONS.includes('serverUrl'));
        // Nothing was connected: the engine has no subscriber left behind.
        assert.equal(engine.state, 'LOADING');
    } finally { engine.close(); }
});

// A BroadcastChannel whose tab can "crash": from then on it neither sends nor hears, and says
// no bye (a renderer that died).
function crashableChannel() {
    const channels = [];
    class C extends BroadcastChannel {
        dead = false;
        constructor(name) { super(name); channels.push(this); }
        postMessage(m) { if (!this.dead) super.postMessage(m); }
    }
    return { C, crash: () => { for (const c of channels) { c.dead = true; c.onmessage = null; } } };
}

test('a peer that stops answering (crashed) is dropped within peerTimeoutMs + heartbeatMs', async (t) => {
    const name = `test-${Math.random()}`;
    const a = page();
    const ea = open(t, new Engine({ policy: policy() }));
    const sa = open(t, connect(ea, { window: a.win, document: a.doc, storage: a.storage, channel: name, joinTimeoutMs: 20, heartbeatMs: 100, peerTimeoutMs: 400 }));
    await sa.ready;
    sa.start();
    const b = page();
    const crashable = crashableChannel();
    const eb = open(t, new Engine({ policy: policy() }));
    const sb = open(t, connect(eb, { window: b.win, document: b.doc, storage: b.storage, channel: name, joinTimeoutMs: 500, heartbeatMs: 100, peerTimeoutMs: 400, BroadcastChannel: crashable.C }));
    assert.equal(await sb.ready, 'joined');
    a.doc.visibilityState = 'hidden';
    a.doc.dispatchEvent(trusted('visibilitychange'));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(sa.getSnapshot().peers, 1);
    assert.equal(ea.info().inBackground, false, 'a visible peer holds the session out of background');
    crashable.crash();
    const crashedAt = performance.now();
    while (!ea.info().inBackground && performance.now() - crashedAt < 3000) await new Promise((r) => setTimeout(r, 10));
    const took = performance.now() - crashedAt;
    assert.equal(ea.info().inBackground, true, 'the crashed peer still holds the session out of background');
    assert.ok(took <= 400 + 100 + 300, `dropped after ${took.toFixed(0)} ms (bound 500 ms + timer slack on a loaded machine)`);
    assert.equal(sa.getSnapshot().peers, 0);
    assert.equal(sa.getSnapshot().inBackground, true);
});

test('the store is right at the resume event even while the page stays hidden', async (t) => {
    // An invented host clock: the page is frozen and time passes without any timer running.
    let mono = 1_000_000;
    let wall = 1_700_000_000_000;
    const own = await load({ hostClock: { monotonicMs: () => mono, wallMs: () => wall } });
    const { win, doc, storage } = page();
    const engine = open(t, new own.Engine({ policy: new own.Policy({ idleTimeoutMs: 60000, warningMs: 20000, backgroundTimeoutMs: 600000 }) }));
    const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null }));
    await s.ready;
    s.start();
    doc.visibilityState = 'hidden';
    doc.dispatchEvent(trusted('visibilitychange'));
    doc.dispatchEvent(trusted('freeze'));
    mono += 70000;
    wall += 70000;
    let atResume = null;
    doc.addEventListener('resume', () => { atResume = s.getSnapshot().state; });
    doc.dispatchEvent(trusted('resume'));
    assert.equal(doc.visibilityState, 'hidden');
    assert.equal(atResume, 'LOCKED');
    assert.equal(s.getSnapshot().reason, 'IDLE_TIMEOUT');
});

test('one tab pings for all: the visible tab with the smallest id; a tab that leaves or crashes hands the role on', async (t) => {
    const name = `test-${Math.random()}`;
    const settle = (ms = 150) => new Promise((r) => setTimeout(r, ms));
    const opts = { channel: name, joinTimeoutMs: 40, heartbeatMs: 100, peerTimeoutMs: 400, serverUrl: '/inactivity', fetch: async () => new Response(null, { status: 204 }) };
    const tabs = [];
    const crashables = [];
    for (let i = 0; i < 3; i++) {
        const p = page();
        const crashable = crashableChannel();
        crashables.push(crashable);
        const e = open(t, new Engine({ policy: policy() }));
        const s = open(t, connect(e, { window: p.win, document: p.doc, storage: p.storage, ...opts, BroadcastChannel: crashable.C }));
        await s.ready;
        tabs.push({ p, e, s });
    }
    await settle();
    const pingers = () => tabs.filter((x) => !x.gone && x.s.pinging);
    assert.equal(pingers().length, 1, 'exactly one tab pings');
    // A hidden pinger hands the role to a visible tab.
    let holder = pingers()[0];
    holder.p.doc.visibilityState = 'hidden';
    holder.p.doc.dispatchEvent(trusted('visibilitychange'));
    await settle();
    assert.equal(pingers().length, 1);
    assert.notEqual(pingers()[0], holder);
    holder.p.doc.visibilityState = 'visible';
    holder.p.doc.dispatchEvent(trusted('visibilitychange'));
    await settle();
    // The holder leaves (pagehide: bye): another takes the role at once.
    holder = pingers()[0];
    holder.p.win.dispatchEvent(trusted('pagehide', { persisted: false }));
    holder.gone = true;
    await settle(30);
    assert.equal(pingers().length, 1);
    // The next holder crashes: the last one takes the role within the peer bound.
    holder = pingers()[0];
    crashables[tabs.indexOf(holder)].crash();
    holder.gone = true;
    await settle(1000);
    assert.equal(pingers().length, 1);
    assert.equal(pingers()[0].s.getSnapshot().peers, 0);
});

test('two tabs: a policy change and a revoked refresh in one tab apply to both', async (t) => {
    const name = `test-${Math.random()}`;
    const settle = (ms = 50) => new Promise((r) => setTimeout(r, ms));
    const a = page();
    const ea = open(t, new Engine({ policy: policy() }));
    const sa = open(t, connect(ea, { window: a.win, document: a.doc, storage: a.storage, channel: name, joinTimeoutMs: 20 }));
    await sa.ready;
    sa.start();
    const b = page();
    const eb = open(t, new Engine({ policy: policy() }));
    const sb = open(t, connect(eb, { window: b.win, document: b.doc, storage: b.storage, channel: name, joinTimeoutMs: 2000 }));
    assert.equal(await sb.ready, 'joined');
    sb.setPolicy(new Policy({ idleTimeoutMs: 120000, warningMs: 20000, backgroundTimeoutMs: 5000 }));
    await settle();
    assert.equal(ea.policy().idleTimeoutMs, 120000);
    assert.equal(sa.refreshResult(401, 'invalid_grant'), 'REVOKED');
    await settle();
    assert.equal(ea.state, 'EXPIRED');
    assert.equal(eb.state, 'EXPIRED');
    assert.equal(eb.reason, 'REVOKED');
});

// ---- The server end, with a fetch of the test's (the real server is the browser suite's).
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function fakeServer(delayMs = 20) {
    const calls = [];
    const server = {
        calls,
        answer: () => new Response(null, { status: 204 }),
        fetch: async (url, init) => {
            calls.push({ url: String(url), init, body: init.body ? JSON.parse(init.body) : null });
            await new Promise((resolve, reject) => {
                const timer = setTimeout(resolve, delayMs);
                init.signal?.addEventListener('abort', () => { clearTimeout(timer); reject(new DOMException('aborted', 'AbortError')); });
            });
            return server.answer(url, init);
        },
        of: (path) => calls.filter((c) => c.url.endsWith(path)),
    };
    return server;
}
const json = (status, body, headers = {}) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
const keepalivePolicy = () => new Policy({ idleTimeoutMs: 60000, warningMs: 20000, keepaliveIntervalMs: 1000 });

test('keepalive: real activity is pinged with its age; the answer\'s deadlines are merged less the request time', async (t) => {
    const { win, doc, storage } = page();
    const server = fakeServer(40);
    server.answer = () => new Response(null, { status: 204, headers: { 'Inactivity-Idle-Remaining-Ms': '30000', 'Inactivity-Absolute-Remaining-Ms': '45000' } });
    const engine = open(t, new Engine({ policy: keepalivePolicy() }));
    const seen = [];
    const atAnswer = [];
    const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null, serverUrl: '/inactivity', fetch: server.fetch,
        onServer: (x) => { seen.push(x); atAnswer.push(engine.remainingMs); } }));
    await s.ready;
    s.start();
    assert.equal(s.pinging, true);
    await sleep(1050);   // a quiet keepalive interval after the start: the next activity is pinged at once
    win.dispatchEvent(new Event('keydown'));   // PROGRAMMATIC: never pinged
    await sleep(60);
    assert.equal(server.of('/keepalive').length, 0);
    win.dispatchEvent(trusted('keydown'));
    await sleep(120);
    const pings = server.of('/keepalive');
    assert.equal(pings.length, 1);
    assert.equal(pings[0].init.method, 'POST');
    assert.equal(pings[0].init.credentials, 'include');
    assert.ok(pings[0].body.activity_age_ms >= 0 && pings[0].body.activity_age_ms < 50, JSON.stringify(pings[0].body));
    // At the answer: the server's 30 s less the time the request took (at least the 40 ms).
    assert.ok(seen[0].tookMs >= 40, `took ${seen[0].tookMs}`);
    assert.ok(atAnswer[0] <= 30000 - seen[0].tookMs + 1 && atAnswer[0] > 29000, `remaining ${atAnswer[0]} at the answer (took ${seen[0].tookMs})`);
    assert.equal(seen.at(-1).what, 'keepalive');
    assert.equal(seen.at(-1).status, 204);
    // A network failure changes nothing.
    server.answer = () => { throw new TypeError('Failed to fetch'); };
    const before = engine.remainingMs;
    await sleep(1100);
    win.dispatchEvent(trusted('keydown'));
    await sleep(120);
    assert.equal(server.of('/keepalive').length, 2);
    assert.equal(engine.state, 'ACTIVE');
    assert.equal(seen.at(-1).status, 0);
    assert.ok(engine.remainingMs > before - 2000);
});

test('keepalive: 401 expires and 403 locks with the server\'s reason; a reason the engine refuses still expires', async (t) => {
    for (const [status, body, state, reason] of [
        [403, { state: 'LOCKED', reason: 'IDLE_TIMEOUT', code: 'inactivity.locked' }, 'LOCKED', 'IDLE_TIMEOUT'],
        [401, { state: 'EXPIRED', reason: 'DEVICE_LIMIT', code: 'inactivity.expired' }, 'EXPIRED', 'DEVICE_LIMIT'],
        [401, { state: 'EXPIRED', reason: 'NONE', code: 'inactivity.expired' }, 'EXPIRED', 'REVOKED'],
    ]) {
        const { win, doc, storage } = page();
        const server = fakeServer(5);
        server.answer = (url) => (String(url).endsWith('/keepalive') ? json(status, body) : new Response(null, { status: 204 }));
        const engine = open(t, new Engine({ policy: keepalivePolicy() }));
        const e = errors();
        const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null, serverUrl: '/inactivity', fetch: server.fetch, onError: e.onError }));
        await s.ready;
        s.start();
        await sleep(1050);
        win.dispatchEvent(trusted('keydown'));
        await sleep(60);
        assert.deepEqual([engine.state, engine.reason], [state, reason], `${status} ${body.reason}`);
        assert.equal(e.list.length, reason === body.reason ? 0 : 1);
        // The server's own verdict is not reported back to it.
        assert.equal(server.of('/report').length, 0);
    }
});

test('a lock aborts the pings in flight and is reported to the server at once', async (t) => {
    const { win, doc, storage } = page();
    const server = fakeServer(5000);
    const engine = open(t, new Engine({ policy: keepalivePolicy() }));
    const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null, serverUrl: '/inactivity', fetch: server.fetch }));
    await s.ready;
    s.start();
    await sleep(1050);
    win.dispatchEvent(trusted('keydown'));
    await sleep(20);
    const ping = server.of('/keepalive')[0];
    assert.ok(ping && !ping.init.signal.aborted);
    s.lock();
    assert.equal(ping.init.signal.aborted, true);
    const reports = server.of('/report');
    assert.equal(reports.length, 1);
    assert.deepEqual(reports[0].body, { state: 'LOCKED', reason: 'MANUAL_LOCK' });
    assert.equal(reports[0].init.keepalive, true);
    s.unlock();
    s.end('LOGOUT');
    assert.deepEqual(server.of('/report')[1].body, { state: 'EXPIRED', reason: 'LOGOUT' });
});

test('a restore asks the server\'s status before the store shows anything: a rolled-back snapshot does not undo a lock', async (t) => {
    // The snapshot saved while ACTIVE, as a same-origin script would write it back.
    const first = page();
    const e1 = open(t, new Engine({ policy: keepalivePolicy() }));
    const s1 = open(t, connect(e1, { window: first.win, document: first.doc, storage: first.storage, channel: null }));
    await s1.ready;
    s1.start();
    const rolledBack = e1.snapshotBase64();
    const { win, doc, storage } = page();
    storage.setItem('inactivity.snapshot', rolledBack);
    const server = fakeServer(30);
    server.answer = () => json(200, { state: 'LOCKED', reason: 'MANUAL_LOCK', idle_remaining_ms: null, absolute_remaining_ms: 3600000 });
    const engine = open(t, new Engine({ policy: keepalivePolicy() }));
    const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null, serverUrl: '/inactivity', fetch: server.fetch }));
    const shown = [];
    s.subscribe((v) => shown.push(v.state));
    assert.equal(await s.ready, 'restored');
    assert.equal(server.of('/status').length, 1);
    assert.deepEqual([engine.state, engine.reason], ['LOCKED', 'MANUAL_LOCK']);
    assert.ok(!shown.includes('ACTIVE'), `the store showed ${shown}`);
    assert.equal(s.getSnapshot().state, 'LOCKED');
});

test('two tabs, one ping stream: activity in either tab is pinged by the pinging tab only', async (t) => {
    const name = `test-${Math.random()}`;
    const server = fakeServer(5);
    const tabs = [];
    for (let i = 0; i < 2; i++) {
        const p = page();
        const e = open(t, new Engine({ policy: keepalivePolicy() }));
        const fetch = (url, init) => { init.tab = i; return server.fetch(url, init); };
        const s = open(t, connect(e, { window: p.win, document: p.doc, storage: p.storage, channel: name, joinTimeoutMs: 40, relayThrottleMs: 0, serverUrl: '/inactivity', fetch }));
        await s.ready;
        if (i === 0) s.start();
        tabs.push({ p, e, s });
    }
    await sleep(1100);
    const pinger = tabs.findIndex((x) => x.s.pinging);
    assert.ok(pinger >= 0 && !tabs[1 - pinger].s.pinging);
    // Activity in the quiet tab: it reaches the pinging tab as a holder report and is pinged there.
    tabs[1 - pinger].p.win.dispatchEvent(trusted('keydown'));
    await sleep(100);
    for (let i = 0; i < 3; i++) {
        tabs[i % 2].p.win.dispatchEvent(trusted('keydown'));
        await sleep(400);
    }
    const pings = server.of('/keepalive');
    assert.ok(pings.length >= 2, `${pings.length} pings`);
    assert.ok(pings.every((c) => c.init.tab === pinger), `pinged by tabs ${pings.map((c) => c.init.tab)}`);
    assert.ok(pings.length <= 3, `${pings.length} pings in 1.3 s with a 1 s interval`);
});

test('an answer to a request sent before an unlock is told, not merged', async (t) => {
    const { win, doc, storage } = page();
    const server = fakeServer(100);
    server.answer = () => json(200, { state: 'LOCKED', reason: 'MANUAL_LOCK', idle_remaining_ms: null, absolute_remaining_ms: null });
    const engine = open(t, new Engine({ policy: keepalivePolicy() }));
    const s = open(t, connect(engine, { window: win, document: doc, storage, channel: null, serverUrl: '/inactivity', fetch: server.fetch }));
    await s.ready;
    s.start();
    s.lock();
    const pending = s.serverStatus();
    s.unlock();
    const exchange = await pending;
    assert.equal(exchange.stale, true);
    assert.equal(engine.state, 'ACTIVE');
    // The same answer to a request sent after the unlock is merged.
    const fresh = await s.serverStatus();
    assert.equal(fresh.stale, undefined);
    assert.deepEqual([engine.state, engine.reason], ['LOCKED', 'MANUAL_LOCK']);
});
