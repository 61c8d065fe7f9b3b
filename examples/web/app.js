// The web demo: the engine (bindings/js, wasm) connected to this page by the dom adapter, a
// warning dialog, and the live timeline. Served from the repository root by any static server
// (python3 -m http.server); the binding and the module are imported by relative URL.
import { load } from '../../bindings/js/src/index.js';
import { connect } from '../../bindings/js/src/dom.js';

const $ = (id) => document.getElementById(id);

// The server side: when the page is served by examples/web/server.py, /api/config answers with
// the policy both ends run (and the session API is under /inactivity); served by a static
// server, the page is the client alone.
const params = new URLSearchParams(location.search);
let server = null;
try {
    const answer = await fetch('/api/config', { credentials: 'include' });
    if (answer.ok) server = await answer.json();
} catch { server = null; }

// Short demo timings over the chosen preset, so that WARNING shows within seconds. The warning
// lasts 20 s: WCAG 2.2.1 asks for at least 20 s to answer it. The URL can set them
// (?idle=...&warning=...&background=..., ms), as the browser tests do; with the server, its
// timings (the same on both ends).
const demo = server ? { ...server.timings } : {
    idleTimeoutMs: Number(params.get('idle') ?? 30000),
    warningMs: Number(params.get('warning') ?? 20000),
    backgroundTimeoutMs: Number(params.get('background') ?? 10000),
};
const user = params.get('user') ?? 'demo';
const storageKey = 'inactivity.demo';
const presetKey = 'inactivity.demo.preset';

const inactivity = await load({ wasm: new URL('../../bindings/js/inactivity.wasm', import.meta.url) })
    .catch((error) => {
        // Without the engine nothing below can run: say so on the page, not only in the
        // console (load() names what is missing and how to build it).
        const alert = document.createElement('p');
        alert.id = 'load-error';
        alert.setAttribute('role', 'alert');
        alert.className = 'load-error';
        alert.textContent = `The engine did not load. ${error.message}`;
        document.querySelector('main').prepend(alert);
        $('state').textContent = 'NOT LOADED';
        throw error;
    });
const { Engine, Policy } = inactivity;

function demoPolicy(preset) {
    return new Policy({ ...Policy.preset(preset), ...demo });
}
const preset = sessionStorage.getItem(presetKey) ?? 'BANKING';
$('preset').value = preset;
$('demo-timings').textContent =
    `idle ${demo.idleTimeoutMs / 1000} s (the warning ${demo.warningMs / 1000} s before it), background ${demo.backgroundTimeoutMs / 1000} s` +
    (server ? `, a keepalive at most every ${demo.keepaliveIntervalMs / 1000} s while you are active` : '');

// ---- The timeline record (drawn by drawTimeline below).
const t0 = performance.now();
const now = () => performance.now() - t0;
const record = { bands: [{ state: 'LOADING', reason: 'NONE', start: 0 }], inputs: [], deadlines: [], ticks: [], background: [], pings: [] };
const DEADLINE_REASONS = new Set(['IDLE', 'IDLE_TIMEOUT', 'BACKGROUND_TIMEOUT', 'ABSOLUTE_TIMEOUT', 'LOCKED_TIMEOUT', 'OFFLINE_TIMEOUT', 'OFFLINE_EXPIRY']);
function input(label) {
    const last = record.inputs[record.inputs.length - 1];
    // A burst of activity is one mark per 400 ms (a pointer move is tens of events a second).
    if (label === 'activity' && last?.label === 'activity' && now() - last.t < 400) return;
    record.inputs.push({ t: now(), label });
}

const engine = new Engine({
    policy: demoPolicy(preset),
    onEvent(event) {
        if (event.kind === 'tick') { record.ticks.push(now()); return; }
        if (event.kind === 'keepalive') return;   // the ping itself is drawn from onServer
        record.bands.push({ state: event.state, reason: event.reason, start: now() });
        if (DEADLINE_REASONS.has(event.reason)) record.deadlines.push({ t: now(), state: event.state, reason: event.reason });
        log(`${event.previousState} -> ${event.state} (${event.reason})`);
    },
});
const session = connect(engine, {
    storageKey,
    // Every tab of the page is one session; ?channel= gives a separate one (the tests use it).
    channel: params.get('channel') ?? 'inactivity-demo',
    onError(error) { console.warn(`inactivity: ${error.message}`); log(`refused: ${error.message}`); },
    // Both ends: the keepalive pings, the status requests and this tab's own reports.
    serverUrl: server ? '/inactivity' : null,
    onServer(exchange) {
        if (exchange.what === 'status') return showServer(exchange);
        record.pings.push({ t: now(), what: exchange.what, status: exchange.status });
        log(`server ${exchange.what}: ${exchange.status || exchange.error}` +
            `${exchange.reason ? ` ${exchange.state} (${exchange.reason})` : ''} in ${exchange.tookMs} ms`);
    },
});
// shown: every state the page has shown, in order (the tests check what a user saw).
// statusPolling: the server panel's status request once a second (a test turns it off to see
// what the keepalive alone finds).
window.demo = { inactivity, engine, session, record, shown: [], server, statusPolling: true };

// Trusted input marks for the picture (the adapter feeds the engine; this only draws).
for (const type of ['pointerdown', 'keydown', 'wheel', 'touchstart']) {
    addEventListener(type, () => { if (session.getSnapshot()?.state === 'ACTIVE') input('activity'); }, { capture: true, passive: true });
}

function log(text) {
    const line = document.createElement('div');
    line.textContent = `${(now() / 1000).toFixed(1).padStart(6)} s  ${text}`;
    $('log').prepend(line);
}

// ---- Controls.
$('preset').addEventListener('change', () => {
    const name = $('preset').value;
    sessionStorage.setItem(presetKey, name);
    try { session.setPolicy(demoPolicy(name)); input(`policy ${name}`); log(`policy ${name}`); } catch (error) { log(`refused: ${error.message}`); }
});
$('lock').addEventListener('click', () => { input('lock'); session.lock(); });
$('logout').addEventListener('click', () => { input('end'); session.end('LOGOUT'); });
$('unlock').addEventListener('click', async () => {
    input('unlock');
    if (!server) { session.unlock(); return; }
    // The server verifies the credential (the demo's accepts any) and unlocks its end first.
    const answer = await serverCall('POST', '/inactivity/unlock', { credential: 'demo' });
    if (answer?.ok) session.unlock();
    else if (answer?.status === 401) session.holderReport('EXPIRED', { reason: answer.body?.reason ?? 'REVOKED' });
    else log(`unlock refused by the server: ${answer?.status ?? 'no answer'}`);
});
$('signin').addEventListener('click', () => {
    // A cold start without a snapshot is a new session (with the server: a sign-in there).
    sessionStorage.removeItem(storageKey);
    location.reload();
});
$('load-data').addEventListener('click', async () => {
    // A request of the user's: the server counts it as activity (if the session is live).
    const answer = await serverCall('GET', '/api/data');
    $('data').textContent = answer?.ok ? answer.body.statement : `refused: ${answer?.status} ${answer?.body?.reason ?? ''}`;
});

// ---- The server's end (examples/web/server.py).
async function serverCall(method, url, body, { machine = false } = {}) {
    try {
        const headers = body ? { 'Content-Type': 'application/json' } : {};
        // The page's own timers are machine traffic: they never extend the session.
        if (machine) headers['Inactivity-Machine'] = '1';
        const answer = await fetch(url, {
            method, credentials: 'include', headers,
            body: body ? JSON.stringify(body) : undefined,
        });
        let json = null;
        try { json = await answer.json(); } catch { json = null; }
        return { ok: answer.ok, status: answer.status, body: json };
    } catch (error) {
        log(`server ${method} ${url}: ${error.message}`);
        return null;
    }
}
async function signIn() {
    const answer = await serverCall('POST', '/inactivity/sign-in', { user, device: `browser tab ${navigator.userAgent.includes('Headless') ? '(headless)' : ''}`.trim() });
    log(`signed in on the server: ${answer?.status ?? 'no answer'}`);
    return answer?.ok === true;
}
function showServer(exchange) {
    const st = exchange.status === 200 ? exchange.state : exchange.status === 401 ? 'EXPIRED' : exchange.status === 403 ? 'LOCKED' : null;
    $('server-state').textContent = st ?? `no answer (${exchange.status || exchange.error})`;
    $('server-state').dataset.state = st ?? 'LOADING';
    $('server-reason').textContent = exchange.reason && exchange.reason !== 'NONE' ? `(${exchange.reason})` : '';
    const left = exchange.idleRemainingMs;
    $('server-remaining').textContent = st === 'ACTIVE' || st === 'WARNING'
        ? `${typeof left === 'number' ? (left / 1000).toFixed(1) : '–'} s left on the server` : '–';
    window.demo.serverSeen = exchange;
}
async function refreshSessions() {
    const answer = await serverCall('GET', '/inactivity/sessions', null, { machine: true });
    const list = $('sessions');
    if (!answer?.ok) { list.replaceChildren(); return; }
    const items = (answer.body.sessions ?? []).map((x) => {
        const li = document.createElement('li');
        li.dataset.session = x.handle;
        li.textContent = `${x.is_current ? 'this browser' : x.device || 'a session'}: ${x.state}${x.reason && x.reason !== 'NONE' ? ` (${x.reason})` : ''} `;
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = 'Sign out';
        button.addEventListener('click', async () => {
            await serverCall('DELETE', `/inactivity/sessions/${encodeURIComponent(x.handle)}`);
            refreshSessions();
        });
        li.append(button);
        return li;
    });
    list.replaceChildren(...items);
}

// ---- The warning dialog (WCAG 2.2.1, 2.1.1): a native modal <dialog> opened with showModal()
// (focus moves into it, the page behind is inert), Continue focused and operable by keyboard
// (Enter/Space), the text announced (role=alertdialog, aria-describedby, aria-live). Escape
// does not close it silently: the session is continued only by Continue. Focus goes back to
// where it was when the dialog closes.
const dialog = $('warning');
let focusBefore = null;
dialog.addEventListener('cancel', (event) => event.preventDefault());
$('continue').addEventListener('click', () => {
    input('continue');
    session.continue();
});
function warningText(remaining) {
    const seconds = Math.ceil(remaining / 1000);
    // Rewritten only when the whole second changes, so a screen reader is not flooded.
    const text = `Your session will lock in ${seconds} second${seconds === 1 ? '' : 's'}. Choose Continue to stay signed in.`;
    if ($('warning-text').textContent !== text) $('warning-text').textContent = text;
}
function openWarning() {
    if (dialog.open) return;
    warningText(engine.remainingMs);
    focusBefore = document.activeElement;
    dialog.showModal();
    $('continue').focus();
}
function closeWarning() {
    if (!dialog.open) return;
    dialog.close();
    if (focusBefore?.isConnected && !focusBefore.closest('[hidden]')) focusBefore.focus();
    focusBefore = null;
}

// ---- The view, from the store.
let shownState = null;
let backgroundOpen = false;
session.subscribe((s) => {
    if (!s) return;
    if (s.inBackground !== backgroundOpen) {
        backgroundOpen = s.inBackground;
        if (s.inBackground) record.background.push({ start: now() });
        else if (record.background.length) record.background.at(-1).end = now();
        input(s.inBackground ? 'background' : 'foreground');
    }
    if (window.demo.shown.at(-1) !== s.state) window.demo.shown.push(s.state);
    $('state').textContent = s.state;
    $('state').dataset.state = s.state;
    $('reason').textContent = s.reason === 'NONE' ? '' : `(${s.reason})`;
    $('peers').textContent = s.peers ? `${s.peers} other tab${s.peers > 1 ? 's' : ''} share this session (one state for all)`
        : 'no other tab of this session is open (open this page in another tab: both share one session)';
    $('locked-panel').hidden = s.state !== 'LOCKED';
    $('expired-panel').hidden = s.state !== 'EXPIRED';
    if (s.state === 'EXPIRED') $('expired-text').textContent = `Ended: ${s.reason}.`;
    if (s.state === 'WARNING') openWarning(); else closeWarning();
    if (s.state === 'LOCKED' && shownState !== 'LOCKED') $('unlock').focus();
    shownState = s.state;
});

function refresh() {
    const state = engine.state;   // each read catches up first: a late frame still shows the truth
    const remaining = engine.remainingMs;
    const live = state === 'ACTIVE' || state === 'WARNING';
    $('remaining').textContent = live && Number.isFinite(remaining) ? `${(remaining / 1000).toFixed(1)} s left` : '–';
    $('countdown').value = live && Number.isFinite(remaining) ? Math.max(0, remaining / demo.idleTimeoutMs) : 0;
    if (state === 'WARNING') warningText(remaining);
    drawTimeline();
}
setInterval(refresh, 250);
if (server) {
    $('server-panel').hidden = false;
    // The server's remaining time: a read-only status request (machine traffic: it never
    // extends the session), once a second.
    setInterval(() => { if (window.demo.statusPolling) session.serverStatus(); }, 1000);
    setInterval(refreshSessions, 3000);
}

// ---- The timeline picture: a port of Sources/inactivity-demo/TimelineSVG.swift's layout
// (lanes of inputs above, deadlines, the state band with its reasons, ticks, the time axis;
// background shaded), over the last 90 s of the live session.
const COLOURS = {
    LOADING: ['#a0aec0', '#1a202c'], ACTIVE: ['#38a169', '#ffffff'], WARNING: ['#ecc94b', '#1a202c'],
    LOCKED: ['#dd6b20', '#ffffff'], EXPIRED: ['#2d3748', '#ffffff'],
};
const NS = 'http://www.w3.org/2000/svg';
function el(name, attrs, text) {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
}
function drawTimeline() {
    const svg = $('timeline');
    const W = 1000, left = 90, right = 20, plot = W - left - right;
    const end = now(), span = Math.max(30000, Math.min(90000, end)), start = Math.max(0, end - span);
    const x = (t) => left + plot * (Math.max(t, start) - start) / span;
    const inputsY = 40, deadlineY = 72, bandTop = 90, bandH = 40, tickY = bandTop + bandH, axisY = 170;
    const parts = [];
    for (const b of record.background) {
        const b0 = x(b.start), b1 = x(b.end ?? end);
        if (b1 > b0) parts.push(el('rect', { class: 'background', x: b0, y: 20, width: b1 - b0, height: axisY - 20, fill: '#cbd5e0', 'fill-opacity': 0.45 }));
    }
    for (const [title, y] of [['inputs', inputsY], ['deadlines', deadlineY]]) {
        parts.push(el('text', { x: left - 10, y: y + 4, 'font-size': 11, fill: '#718096', 'text-anchor': 'end' }, title));
        parts.push(el('line', { x1: left, y1: y, x2: left + plot, y2: y, stroke: '#e2e8f0' }));
    }
    parts.push(el('text', { x: left - 10, y: bandTop + 24, 'font-size': 11, fill: '#718096', 'text-anchor': 'end' }, 'state'));
    record.bands.forEach((b, i) => {
        const bEnd = record.bands[i + 1]?.start ?? end;
        if (bEnd < start) return;
        const x0 = x(b.start), x1 = x(bEnd);
        const [fill, ink] = COLOURS[b.state];
        parts.push(el('rect', { class: 'band', 'data-state': b.state, 'data-reason': b.reason, x: x0, y: bandTop, width: Math.max(0, x1 - x0), height: bandH, fill }));
        if (x1 - x0 > 50) {
            parts.push(el('text', { x: x0 + 4, y: bandTop + 15, 'font-size': 12, 'font-weight': 'bold', fill: ink }, b.state));
            if (b.reason !== 'NONE' && x1 - x0 > 80) parts.push(el('text', { x: x0 + 4, y: bandTop + 30, 'font-size': 10.5, fill: ink }, b.reason));
        }
    });
    const pingY = 20;
    for (const p of record.pings) {
        if (p.t < start) continue;
        const ok = p.status >= 200 && p.status < 300;
        parts.push(el('rect', { class: `ping ping-${p.what}`, 'data-status': p.status, x: x(p.t) - 3, y: pingY - 6, width: 6, height: 12,
            fill: p.what === 'report' ? '#553c9a' : ok ? '#2b6cb0' : p.status ? '#c53030' : '#a0aec0' }));
    }
    if (server) parts.push(el('text', { x: left - 10, y: pingY + 4, 'font-size': 11, fill: '#718096', 'text-anchor': 'end' }, 'server'));
    for (const t of record.ticks) {
        if (t >= start) parts.push(el('line', { class: 'tick', x1: x(t), y1: tickY + 1, x2: x(t), y2: tickY + 7, stroke: '#975a16' }));
    }
    let lastLabelX = -Infinity;
    for (const m of record.inputs) {
        if (m.t < start) continue;
        const mx = x(m.t);
        parts.push(el('circle', { class: 'input', cx: mx, cy: inputsY, r: m.label === 'activity' ? 3 : 4.5, fill: m.label === 'activity' ? '#3182ce' : '#553c9a' }));
        if (m.label !== 'activity' && mx - lastLabelX > 60) {
            parts.push(el('text', { x: mx, y: inputsY - 9, 'font-size': 10.5, fill: '#1a202c', 'text-anchor': 'middle' }, m.label));
            lastLabelX = mx;
        }
    }
    for (const d of record.deadlines) {
        if (d.t < start) continue;
        const dx = x(d.t);
        parts.push(el('path', { class: 'deadline', d: `M${dx - 5} ${deadlineY - 8} h10 l-5 8 z`, fill: '#c53030' }));
        // Left of the flag when the label would pass the picture's right edge (about 6.5 px a letter).
        const leftward = dx + 7 + 6.5 * d.reason.length > W;
        parts.push(el('text', { x: leftward ? dx - 7 : dx + 7, y: deadlineY - 1, 'font-size': 10.5, fill: '#c53030', 'text-anchor': leftward ? 'end' : 'start' }, d.reason));
    }
    parts.push(el('line', { x1: left, y1: axisY, x2: left + plot, y2: axisY, stroke: '#4a5568' }));
    parts.push(el('text', { x: left - 10, y: axisY + 4, 'font-size': 11, fill: '#718096', 'text-anchor': 'end' }, 'time'));
    for (let s = Math.ceil(start / 10000) * 10000; s <= end; s += 10000) {
        parts.push(el('line', { x1: x(s), y1: axisY, x2: x(s), y2: axisY + 4, stroke: '#4a5568' }));
        parts.push(el('text', { x: x(s), y: axisY + 16, 'font-size': 10.5, fill: '#4a5568', 'text-anchor': 'middle' }, `${s / 1000} s`));
    }
    svg.replaceChildren(...parts);
}

// ---- The cold start: a peer tab's state, else this tab's stored snapshot, else sign in.
const how = await session.ready;
log(`cold start: ${how}`);
if (how === 'new') {
    // With the server, a new session is a sign-in there first (the demo's own endpoint).
    if (!server || await signIn()) { input('start'); session.start(); }
}
else input(how === 'joined' ? 'join' : 'restore');
document.body.dataset.ready = how;
refresh();
if (server) { session.serverStatus(); refreshSessions(); }
