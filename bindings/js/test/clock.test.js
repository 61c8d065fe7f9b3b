// The clock on the web (README, "The clock on the web"): the engine's system clock is made of
// performance.now() and Date.now() by WebClock's rule in the engine. Here both host clocks are
// invented (load({ hostClock })), so that the machine can sleep and the user can set the clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../src/index.js';

const MIN = 60_000;
async function web() {
    // performance.timeOrigin + performance.now() starts at the wall clock of the page start.
    const host = { mono: 1_700_000_000_000, wall: 1_700_000_000_000 };
    const ia = await load({ hostClock: { monotonicMs: () => host.mono, wallMs: () => host.wall } });
    const events = [];
    const engine = new ia.Engine({ policy: new ia.Policy({ idleTimeoutMs: 5 * MIN, warningMs: 30_000, backgroundTimeoutMs: Infinity }),
                                   onEvent: (e) => events.push(e) });
    engine.start();
    const awake = (ms) => { host.mono += ms; host.wall += ms; };
    return { host, engine, events, awake };
}

test('sleep: performance.now stops, Date.now moves 10 min: the next call locks first', async () => {
    const { host, engine, events, awake } = await web();
    awake(MIN);
    assert.equal(engine.state, 'ACTIVE');
    host.wall += 10 * MIN; // the machine slept: only the wall clock saw it
    const before = events.length;
    engine.activity('KEY'); // the call that woke the page catches up first: no activity counts
    assert.equal(engine.state, 'LOCKED');
    const woke = events.slice(before);
    assert.deepEqual(woke.map((e) => `${e.previousState}->${e.state} ${e.reason}`), ['ACTIVE->LOCKED IDLE_TIMEOUT']);
    assert.equal(woke[0].timeMs - events[0].timeMs, 5 * MIN); // it took effect at the idle deadline
    engine.close();
});

test('a wall clock set back counts nothing: an hour back does not extend the session', async () => {
    const { host, engine, awake } = await web();
    awake(4 * MIN);
    host.wall -= 60 * MIN;
    awake(30_000);
    assert.equal(engine.state, 'WARNING'); // 4:30 elapsed by the monotonic clock
    awake(30_000);
    assert.equal(engine.state, 'LOCKED');
    engine.close();
});

test('a wall clock moved forward counts as elapsed (fail secure); jitter under 1 s does not', async () => {
    const { host, engine, awake } = await web();
    for (let i = 0; i < 200; i++) { // 200 readings with the wall 900 ms ahead, then back: nothing adds up
        host.wall += i % 2 ? -900 : 900;
        awake(1000);
        engine.activity('POINTER');
    }
    assert.equal(engine.info().nowMs - engine.info().startedAtMs, 200_000);
    host.wall += 6 * MIN; // the user set the clock 6 min forward
    assert.equal(engine.state, 'LOCKED');
    engine.close();
});

test('the clock never goes back, even when performance.now does', async () => {
    const { host, engine } = await web();
    const t0 = engine.info().nowMs;
    host.mono -= 10_000;
    host.wall -= 10_000;
    assert.equal(engine.info().nowMs, t0);
    engine.close();
});

test('a reload restores: the clock continues from the wall clock at the page start', async () => {
    const first = await web();
    first.awake(MIN);
    const saved = first.engine.snapshotBase64();
    first.engine.close();
    // A new page 30 s later: performance.now restarts, timeOrigin is the wall clock then.
    const host = { mono: first.host.wall + 30_000, wall: first.host.wall + 30_000 };
    const ia = await load({ hostClock: { monotonicMs: () => host.mono, wallMs: () => host.wall } });
    const engine = new ia.Engine({ policy: new ia.Policy({ idleTimeoutMs: 5 * MIN, warningMs: 30_000, backgroundTimeoutMs: Infinity }) });
    engine.restore(saved);
    assert.equal(engine.state, 'ACTIVE');
    assert.equal(engine.remainingMs, 5 * MIN - MIN - 30_000);
    engine.close();
});
