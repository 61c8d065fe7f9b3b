// The browser adapter (issues 25 and 30): maps what a page sees (DOM input events, the page
// lifecycle, the other tabs of the origin, the server's answers) to the engine's inputs, keeps
// the snapshot in Web Storage, and gives the host the state as callbacks and as a subscribable
// store. It decides nothing: every rule (what activity counts, when background locks, what a
// restore gives, how another holder's report merges) is the engine's. It only carries reports
// between the holders of the session: the tabs (BroadcastChannel) and the server (fetch).
// No runtime dependency; runs wherever EventTarget exists (browsers; Node for the unit tests).

/** DOM event type -> the engine's activity kind, for trusted events. */
export const ACTIVITY_EVENTS = Object.freeze({
    pointerdown: 'TOUCH_DOWN',
    pointerup: 'TOUCH_UP',
    pointermove: 'POINTER',
    mousedown: 'TOUCH_DOWN',
    mousemove: 'POINTER',
    touchstart: 'TOUCH_DOWN',
    touchend: 'TOUCH_UP',
    touchmove: 'TOUCH_MOVE',
    keydown: 'KEY',
    input: 'KEY',
    wheel: 'SCROLL',
});

/** The kind an event maps to: its type's kind when the user agent generated it (isTrusted),
 *  PROGRAMMATIC when a script dispatched it; null for a type that is not activity. */
export function activityKind(event) {
    const kind = ACTIVITY_EVENTS[event.type];
    if (kind === undefined) return null;
    return event.isTrusted === true ? kind : 'PROGRAMMATIC';
}

// Inputs the adapter relays to the other tabs as the same input (name -> the engine method).
// Activity and what other holders report travel as holder reports (below), not as inputs.
const RELAYED = ['start', 'continue', 'lock', 'unlock', 'unlockFailed', 'end',
    'refreshResult', 'tokenRotated', 'setPolicy', 'setCeilings'];
// Holder report kinds whose ms is an age (the instant is now - ms) or a time left (now + ms).
const AGE_KINDS = new Set(['ACTIVITY', 'LOCKED', 'EXPIRED']);
const DEADLINE_KINDS = new Set(['IDLE_DEADLINE', 'ABSOLUTE_DEADLINE']);

/** The options connect() takes; any other name is refused. */
export const CONNECT_OPTIONS = Object.freeze([
    'window', 'document', 'storage', 'storageKey', 'channel', 'BroadcastChannel',
    'joinTimeoutMs', 'relayThrottleMs', 'heartbeatMs', 'peerTimeoutMs',
    'serverUrl', 'fetch', 'statusTimeoutMs',
    'onChange', 'onEvent', 'onError', 'onServer',
]);

function checkOptions(options) {
    if (options === null || typeof options !== 'object') throw new TypeError('connect: options must be an object');
    const unknown = Object.keys(options).filter((k) => !CONNECT_OPTIONS.includes(k));
    if (unknown.length) {
        throw new TypeError(`connect: unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')} (the options are ${CONNECT_OPTIONS.join(', ')})`);
    }
    const positive = (name, value) => {
        if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
            throw new TypeError(`connect: options.${name} (${String(value)}) must be a finite number of ms >= 0`);
        }
    };
    for (const name of ['joinTimeoutMs', 'relayThrottleMs', 'statusTimeoutMs']) positive(name, options[name]);
    for (const name of ['heartbeatMs', 'peerTimeoutMs']) {
        positive(name, options[name]);
        if (options[name] === 0) throw new TypeError(`connect: options.${name} must be > 0`);
    }
    const heartbeat = options.heartbeatMs ?? 1000;
    const peerTimeout = options.peerTimeoutMs ?? 3 * heartbeat;
    if (peerTimeout < 2 * heartbeat) {
        throw new TypeError(`connect: options.peerTimeoutMs (${peerTimeout}) must be at least twice options.heartbeatMs (${heartbeat}): a peer must miss a beat before it is dropped`);
    }
    if (options.serverUrl !== undefined && options.serverUrl !== null && typeof options.serverUrl !== 'string' && !(options.serverUrl instanceof URL)) {
        throw new TypeError(`connect: options.serverUrl (${String(options.serverUrl)}) must be a URL string (the session API's prefix, e.g. '/inactivity') or null`);
    }
    for (const name of ['fetch', 'onChange', 'onEvent', 'onError', 'onServer', 'BroadcastChannel']) {
        if (options[name] !== undefined && typeof options[name] !== 'function') {
            throw new TypeError(`connect: options.${name} must be a function`);
        }
    }
}

// Stored text -> bytes, never refusing: the engine judges them. Base64 (what this adapter
// writes) is decoded; anything else is passed as its UTF-8 bytes, which the engine refuses
// (EXPIRED RESTORE_FAILED): a corrupt or foreign value fails secure without the adapter
// deciding what is valid.
function storedBytes(text) {
    try {
        const s = atob(text);
        const bytes = new Uint8Array(s.length);
        for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
        return bytes;
    } catch {
        return new TextEncoder().encode(text);
    }
}

function randomId() {
    return globalThis.crypto?.randomUUID?.() ?? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

// A server's integer header, or null when absent or not a non-negative integer.
function msHeader(headers, name) {
    const text = headers?.get?.(name);
    if (text === null || text === undefined || !/^\d+$/.test(text.trim())) return null;
    return Number(text.trim());
}

/**
 * Connects an engine (from `load()` of the main entry) to the page. Options (any other name is
 * refused with a TypeError naming it):
 * - window (default globalThis), document (default window.document): where the listeners go;
 * - storage (default sessionStorage; null: none), storageKey (default 'inactivity.snapshot');
 * - channel: the BroadcastChannel name all tabs of the session share (default 'inactivity';
 *   null: this tab alone), BroadcastChannel (the constructor, for tests);
 * - joinTimeoutMs (default 250): how long a new tab waits for a peer's state;
 * - relayThrottleMs (default 500): activity is relayed at most once per this, and the last
 *   activity of a burst always is;
 * - heartbeatMs (default 1000), peerTimeoutMs (default 3 x heartbeatMs): every tab says it is
 *   alive every heartbeatMs; a peer not heard from for peerTimeoutMs is dropped;
 * - serverUrl: the session API's prefix ('/inactivity'): keepalive pings, the read-only status,
 *   and this tab's own locks and sign-outs reported at once (null, the default: no server);
 *   fetch (for tests), statusTimeoutMs (default 3000): how long a restore waits for the status;
 * - onChange(snapshot), onEvent(event), onError(error), onServer(exchange): callbacks.
 * Returns the session: the relayed inputs (start, lock, ...), holderReport, serverStatus,
 * subscribe/getSnapshot, ready (a promise: 'joined' | 'restored' | 'new'), disconnect().
 */
export function connect(engine, options = {}) {
    checkOptions(options);
    const win = options.window ?? globalThis;
    const doc = options.document ?? win.document;
    const storage = options.storage === undefined ? win.sessionStorage ?? null : options.storage;
    const storageKey = options.storageKey ?? 'inactivity.snapshot';
    const channelName = options.channel === undefined ? 'inactivity' : options.channel;
    const Channel = options.BroadcastChannel ?? globalThis.BroadcastChannel;
    const joinTimeoutMs = options.joinTimeoutMs ?? 250;
    const relayThrottleMs = options.relayThrottleMs ?? 500;
    const heartbeatMs = options.heartbeatMs ?? 1000;
    const peerTimeoutMs = options.peerTimeoutMs ?? 3 * heartbeatMs;
    const statusTimeoutMs = options.statusTimeoutMs ?? 3000;
    const fetchFn = options.fetch ?? globalThis.fetch?.bind(globalThis);
    const serverBase = options.serverUrl ? String(options.serverUrl).replace(/\/+$/, '') : null;
    const onError = options.onError ?? ((error) => queueMicrotask(() => { throw error; }));
    const id = randomId();
    const listeners = new Set();
    const peers = new Map();            // peer id -> { visible, seen (performance.now()) }
    let joining = Boolean(channelName && Channel);
    let closed = false;

    // ---- The store: one immutable object per change (useSyncExternalStore compares by ===).
    function makeSnapshot(event) {
        return Object.freeze({
            state: engine.state,
            reason: engine.reason,
            requiredAuth: engine.requiredAuth,
            remainingMs: engine.remainingMs,
            inBackground: sessionHidden,
            peers: peers.size,
            pinging: pinging,
            event: event ?? null,
        });
    }
    let sessionHidden = false;
    let snapshot = null;
    // While a restore waits for the server's status, nothing is published: the store keeps
    // its cold-start value, so no content of the restored state shows before the server's word.
    let holdStore = false;
    function publish(event) {
        if (holdStore || closed) return;
        snapshot = makeSnapshot(event);
        options.onChange?.(snapshot);
        for (const fn of [...listeners]) fn(snapshot);
    }
    // After every lifecycle event: the engine catches up (its transitions publish through the
    // subscription), then anything else the store shows that changed is published. So the store
    // is right at the first script evaluation after the event, whatever the engine's timer does.
    function sync() {
        if (closed || engine.closed) return;
        try { engine.poll(); } catch (error) { onError(error); }
        if (!snapshot) return publish(null);
        if (snapshot.state !== engine.state || snapshot.reason !== engine.reason
            || snapshot.requiredAuth !== engine.requiredAuth || snapshot.inBackground !== sessionHidden
            || snapshot.peers !== peers.size || snapshot.pinging !== pinging) publish(null);
    }

    // ---- Persistence: the engine's bytes, as base64, in the host's storage.
    function save() {
        if (!storage || closed || engine.closed || engine.state === 'LOADING') return;
        try { storage.setItem(storageKey, engine.snapshotBase64()); } catch (error) { onError(error); }
    }

    // ---- Calls into the engine. `cause` says where the input came from while it is applied:
    // 'local' (this tab's own input), 'relay' (a peer's), 'server' (the server's answer),
    // 'restore'; null when the engine acts by itself (a deadline found at a call or a timer).
    // A refusal of a relayed or reported input is the engine's answer, reported, not thrown.
    let cause = null;
    function apply(how, op, args) {
        const outer = cause;
        cause = how;
        try { return engine[op](...args); } catch (error) { onError(error); return undefined; } finally { cause = outer; }
    }

    // ---- The relay.
    let channel = null;
    function post(message) {
        if (!channel || closed) return;
        try { channel.postMessage({ ...message, from: id }); } catch (error) { onError(error); }
    }
    // A holder report crosses tabs as an instant on the wall clock every tab of a browser
    // shares (Date.now()): an age becomes `at`, a time left `until`; the receiver turns it back
    // into an age or a time left at its own moment of receipt, so the time in transit counts
    // (an activity is placed no later, a deadline no later, than it was).
    function relayReport(kind, reason, ms) {
        const wall = Date.now();
        if (AGE_KINDS.has(kind)) post({ t: 'report', kind, reason, at: wall - ms });
        else if (DEADLINE_KINDS.has(kind)) post({ t: 'report', kind, reason, until: wall + ms });
    }
    function receivedReport(message) {
        const wall = Date.now();
        const ms = message.at !== undefined ? Math.max(0, wall - message.at) : Math.max(0, message.until - wall);
        if (!Number.isFinite(ms)) return;
        apply('relay', 'holderReport', [message.kind, { reason: message.reason ?? 'NONE', ms: Math.round(ms) }]);
        save();
    }
    // Activity crosses as the engine's own last counted activity (so a kind the policy does
    // not count here is not counted by a peer either), at most once per relayThrottleMs and the
    // last of a burst always. Only this tab's own input events start a relay, so a peer's
    // activity is never relayed back.
    let lastRelayAt = -Infinity;
    let lastRelayedActivity = null;
    let relayTimer = null;
    function sendActivity() {
        lastRelayAt = performance.now();
        if (!channel || closed || engine.closed) return;
        let info;
        try { info = engine.info(); } catch (error) { onError(error); return; }
        if (!Number.isFinite(info.lastActivityMs) || info.lastActivityMs === lastRelayedActivity) return;
        lastRelayedActivity = info.lastActivityMs;
        post({ t: 'report', kind: 'ACTIVITY', reason: 'NONE', at: Date.now() - Math.max(0, info.nowMs - info.lastActivityMs) });
    }
    function relayActivity() {
        if (!channel) return;
        const now = performance.now();
        if (now - lastRelayAt >= relayThrottleMs) return sendActivity();
        relayTimer ??= setTimeout(() => { relayTimer = null; sendActivity(); }, relayThrottleMs - (now - lastRelayAt));
    }

    // ---- Peers: every tab beats every heartbeatMs; one not heard from for peerTimeoutMs (it
    // crashed, hung, or was frozen) is dropped, so that no dead tab holds the session out of
    // background or keeps the ping role.
    function heard(from, visible) {
        const known = peers.get(from);
        const now = visible === undefined ? known?.visible ?? false : Boolean(visible);
        peers.set(from, { visible: now, seen: performance.now() });
        if (!known || known.visible !== now) electPinger();
    }
    function sweep() {
        const now = performance.now();
        let dropped = false;
        for (const [peer, p] of peers) {
            if (now - p.seen > peerTimeoutMs) { peers.delete(peer); dropped = true; }
        }
        if (dropped) { electPinger(); updateBackground(); sync(); }
    }
    let heartbeatTimer = null;
    function beat() {
        // A page being unloaded or put in the back/forward cache is gone for its peers.
        if (!pageHidden) post({ t: 'beat', visible: localVisible() });
        sweep();
    }

    // ---- Background: the session is in background when no live tab of it is visible.
    function localVisible() {
        return doc?.visibilityState !== 'hidden' && !frozen && !pageHidden;
    }
    let frozen = false;
    let pageHidden = false;
    let lastVisible = null;
    function updateBackground() {
        const visible = localVisible();
        if (visible !== lastVisible) {
            lastVisible = visible;
            post({ t: 'beat', visible });
            electPinger();
        }
        const hidden = !visible && ![...peers.values()].some((p) => p.visible);
        if (hidden === sessionHidden && snapshot) return;
        sessionHidden = hidden;
        // Not a relayed input (each tab computes the same visibility).
        apply(null, hidden ? 'background' : 'foreground', []);
        if (hidden) save();
        publish(null);
    }

    // ---- The ping role: one tab of the browser pings the server for all. Elected over the
    // relay from what every tab knows: among the live tabs (visible ones first, as a hidden
    // tab's timers are throttled), the one with the smallest id. A tab that closes says bye; one
    // that crashes is dropped by the sweep; either way the next one takes the role.
    let pinging = false;
    let lastPingedAt = -Infinity;        // wall instant of the newest activity any tab pinged
    let missedKeepalive = null;          // wall instant of an activity this tab was asked to ping
    function electPinger() {
        let mine = Boolean(serverBase) && !closed && !joining && !frozen && !pageHidden;
        if (mine) {
            const visible = localVisible();
            for (const [peer, p] of peers) {
                if ((p.visible && !visible) || (p.visible === visible && peer < id)) { mine = false; break; }
            }
        }
        if (mine === pinging) return;
        pinging = mine;
        if (pinging && missedKeepalive !== null && missedKeepalive > lastPingedAt) {
            // The role came after the engine asked for a ping another tab may not have sent.
            const state = engine.state;
            if (state === 'ACTIVE' || state === 'WARNING') ping(Math.max(0, Date.now() - missedKeepalive), missedKeepalive);
        }
        missedKeepalive = null;
        if (snapshot) publish(null);
    }

    // ---- The server: keepalive pings, the read-only status, this tab's own verdicts.
    const inflight = new Set();          // AbortControllers of pings and status requests
    function abortInflight() {
        for (const controller of inflight) controller.abort();
        inflight.clear();
    }
    function tell(exchange) {
        try { options.onServer?.(Object.freeze(exchange)); } catch (error) { onError(error); }
    }
    // A holder report from the server, applied here and relayed to the peers. A reason the
    // engine does not take for that kind is reported to onError, and the verdict still follows
    // with the kind's generic reason: a server that said 401 or 403 is never ignored.
    const GENERIC = { LOCKED: 'IDLE_TIMEOUT', EXPIRED: 'REVOKED' };
    function serverReport(kind, reason, ms) {
        const outer = cause;
        cause = 'server';
        try {
            try {
                engine.holderReport(kind, { reason, ms });
            } catch (error) {
                onError(error);
                if (!GENERIC[kind] || reason === GENERIC[kind]) return;
                reason = GENERIC[kind];
                engine.holderReport(kind, { reason, ms });
            }
            relayReport(kind, reason, ms);
        } catch (error) { onError(error); } finally { cause = outer; }
        save();
    }
    // The server's answer -> holder reports: 401 EXPIRED and 403 LOCKED with the server's
    // reason; an allowed answer's deadlines, less the time the request took (the server's
    // "time left" was true when it answered, which is up to that long ago: fail secure).
    // An answer to a request sent before this session was last unlocked or started describes
    // what that unlock or start replaced (a status read just before the server's unlock says
    // LOCKED): it is told, not merged.
    let epoch = 0;
    const NEW_EPOCH = new Set(['start', 'unlock']);
    async function applyAnswer(what, response, tookMs, sentEpoch) {
        let body = null;
        if (response.status === 401 || response.status === 403 || (what === 'status' && response.ok)) {
            try { body = await response.json(); } catch { body = null; }
        }
        if (closed) return null;
        const headerState = response.headers?.get?.('Inactivity-State') ?? null;
        const reason = body?.reason ?? response.headers?.get?.('Inactivity-Reason') ?? null;
        const exchange = { what, status: response.status, tookMs: Math.round(tookMs), state: body?.state ?? headerState, reason };
        if (sentEpoch !== epoch) {
            exchange.stale = true;
            tell(exchange);
            return exchange;
        }
        if (response.status === 401) serverReport('EXPIRED', reason ?? 'REVOKED', 0);
        else if (response.status === 403) serverReport('LOCKED', reason ?? 'IDLE_TIMEOUT', 0);
        else if (response.ok) {
            const state = body?.state ?? headerState;
            if (state === 'EXPIRED') serverReport('EXPIRED', reason ?? 'REVOKED', 0);
            else if (state === 'LOCKED') serverReport('LOCKED', reason ?? 'IDLE_TIMEOUT', 0);
            const idle = body?.idle_remaining_ms ?? msHeader(response.headers, 'Inactivity-Idle-Remaining-Ms');
            const absolute = body?.absolute_remaining_ms ?? msHeader(response.headers, 'Inactivity-Absolute-Remaining-Ms');
            exchange.idleRemainingMs = typeof idle === 'number' ? idle : null;
            exchange.absoluteRemainingMs = typeof absolute === 'number' ? absolute : null;
            const live = engine.state === 'ACTIVE' || engine.state === 'WARNING';
            // A keepalive's answer carries the idle deadline of the activity it just sent. A
            // status's lags this tab's by up to a keepalive interval by design (activity is
            // pinged at most once per interval): merged, it would lock an active user early.
            if (live && what === 'keepalive' && typeof idle === 'number') serverReport('IDLE_DEADLINE', 'NONE', Math.max(0, Math.floor(idle - tookMs)));
            if (live && typeof absolute === 'number') serverReport('ABSOLUTE_DEADLINE', 'NONE', Math.max(0, Math.floor(absolute - tookMs)));
        }
        tell(exchange);
        return exchange;
    }
    async function request(what, url, init, timeoutMs) {
        if (!fetchFn) throw new TypeError('connect: no fetch here: pass options.fetch');
        const controller = new AbortController();
        inflight.add(controller);
        const timer = timeoutMs ? setTimeout(() => controller.abort(), timeoutMs) : null;
        const started = performance.now();
        const sentEpoch = epoch;
        try {
            const response = await fetchFn(url, { ...init, credentials: 'include', signal: controller.signal });
            return await applyAnswer(what, response, performance.now() - started, sentEpoch);
        } catch (error) {
            // A network failure or an abort changes nothing (like a refresh's network error).
            tell({ what, status: 0, tookMs: Math.round(performance.now() - started), error: String(error?.name ?? error) });
            return null;
        } finally {
            if (timer !== null) clearTimeout(timer);
            inflight.delete(controller);
        }
    }
    function ping(activityAgeMs, activityAt) {
        lastPingedAt = Math.max(lastPingedAt, activityAt);
        post({ t: 'pinged', at: activityAt });
        return request('keepalive', `${serverBase}/keepalive`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ activity_age_ms: Math.max(0, Math.round(activityAgeMs)) }),
        });
    }
    function serverStatus(timeoutMs = 0) {
        if (!serverBase) return Promise.resolve(null);
        return request('status', `${serverBase}/status`, { method: 'GET' }, timeoutMs);
    }
    // This tab's own lock, sign-out or expiry, told to the server at once (stricter only there
    // too). keepalive: true lets it finish when the page is being unloaded.
    function reportToServer(state, reason) {
        if (!serverBase || !fetchFn) return;
        const started = performance.now();
        fetchFn(`${serverBase}/report`, {
            method: 'POST', credentials: 'include', keepalive: true,
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ state, reason }),
        }).then((response) => tell({ what: 'report', status: response.status, tookMs: Math.round(performance.now() - started), state, reason }),
            (error) => tell({ what: 'report', status: 0, tookMs: Math.round(performance.now() - started), state, reason, error: String(error?.name ?? error) }));
    }

    function onMessage(message) {
        if (!message || message.from === id || closed) return;
        switch (message.t) {
        case 'hello':
            heard(message.from, message.visible);
            if (!joining && engine.state !== 'LOADING') {
                post({ t: 'welcome', to: message.from, snapshot: engine.snapshotBase64(), visible: localVisible(), verdict: verdict() });
            }
            updateBackground();
            break;
        case 'welcome':
            heard(message.from, message.visible);
            if (message.to === id && joining) finishJoin(message.snapshot);
            else if (message.to === id && message.verdict) receivedReport(message.verdict);
            updateBackground();
            break;
        case 'beat':
            heard(message.from, message.visible);
            updateBackground();
            break;
        case 'bye':
            peers.delete(message.from);
            electPinger();
            updateBackground();
            break;
        case 'pinged':
            heard(message.from);
            if (typeof message.at === 'number') lastPingedAt = Math.max(lastPingedAt, message.at);
            break;
        case 'in':
            heard(message.from);
            if (joining || !RELAYED.includes(message.op)) break;
            if (NEW_EPOCH.has(message.op)) epoch++;
            apply('relay', message.op, message.args ?? []);
            save();
            break;
        case 'report':
            heard(message.from);
            if (joining || !(AGE_KINDS.has(message.kind) || DEADLINE_KINDS.has(message.kind))) break;
            receivedReport(message);
            break;
        }
    }
    // This tab's lock or expiry, as a report a tab back from the back/forward cache merges.
    function verdict() {
        const state = engine.state;
        if (state !== 'LOCKED' && state !== 'EXPIRED') return null;
        const info = engine.info();
        const age = state === 'LOCKED' && Number.isFinite(info.lockedAtMs) ? Math.max(0, info.nowMs - info.lockedAtMs) : 0;
        return { kind: state, reason: engine.reason, at: Date.now() - age };
    }

    // ---- Engine events -> store, storage, the peers and the server.
    const unsubscribeEngine = engine.subscribe((event) => {
        options.onEvent?.(event);
        if (event.kind === 'keepalive') {
            // The engine asks for a ping: the activity it carries is `nowMs - timeMs` old.
            const at = Date.now() - Math.max(0, event.nowMs - event.timeMs);
            if (pinging) ping(Math.max(0, event.nowMs - event.timeMs), at);
            else missedKeepalive = at;
            return;
        }
        if (event.kind === 'state-changed') {
            save();
            if (event.state === 'LOCKED' || event.state === 'EXPIRED') {
                abortInflight();
                missedKeepalive = null;
                // Told where it began: a deadline of this engine's to the peers (a relayed input
                // reaches them as that input); this tab's own verdict to the server.
                const age = Math.max(0, event.nowMs - event.timeMs);
                if (cause === null) relayReport(event.state, event.reason, age);
                if (cause === null || cause === 'local') reportToServer(event.state, event.reason);
            }
        }
        publish(event);
    });

    // ---- DOM listeners: passive and capturing, so no page handler can hide an input.
    const listenerOptions = { capture: true, passive: true };
    const added = [];
    function listen(target, type, fn) {
        if (!target) return;
        target.addEventListener(type, fn, listenerOptions);
        added.push([target, type, fn]);
    }
    function onActivity(event) {
        const kind = activityKind(event);
        if (!kind || engine.state === 'LOADING') return;
        apply('local', 'activity', [kind]);
        if (kind !== 'PROGRAMMATIC') relayActivity();
    }
    for (const type of Object.keys(ACTIVITY_EVENTS)) listen(win, type, onActivity);
    listen(doc, 'visibilitychange', () => { updateBackground(); sync(); });
    listen(doc, 'freeze', () => {
        frozen = true;
        updateBackground();
        electPinger();
        sync();
        save();
    });
    listen(doc, 'resume', () => {
        frozen = false;
        // Nothing was heard while frozen: every peer gets a fresh heartbeat's grace.
        for (const p of peers.values()) p.seen = performance.now();
        updateBackground();
        electPinger();
        sync();
    });
    listen(win, 'pagehide', (event) => {
        pageHidden = true;
        updateBackground();
        electPinger();
        sync();
        save();
        // Not kept in the back/forward cache: the tab is gone for its peers.
        if (!event.persisted) post({ t: 'bye' });
    });
    listen(win, 'pageshow', (event) => {
        pageHidden = false;
        updateBackground();
        sync();
        // Back from the back/forward cache: relayed inputs were missed; the peers answer with
        // their verdict, which the engine merges, and the server is asked.
        if (event.persisted) {
            for (const p of peers.values()) p.seen = performance.now();
            post({ t: 'hello', visible: localVisible() });
            electPinger();
            serverStatus(statusTimeoutMs);
        }
    });

    // ---- Cold start: a peer's live state, else the stored snapshot, else a new session.
    let resolveReady;
    const ready = new Promise((resolve) => { resolveReady = resolve; });
    function done(how) {
        joining = false;
        save();
        electPinger();
        publish(null);
        resolveReady(how);
    }
    function restore(text, how) {
        const askServer = how === 'restored' && Boolean(serverBase);
        if (askServer) {
            // The store says LOADING until the server's status is merged.
            if (!snapshot) publish(null);
            holdStore = true;
        }
        if (engine.state === 'LOADING') {
            const outer = cause;
            cause = 'restore';
            try { engine.restore(storedBytes(String(text))); } catch (error) { onError(error); } finally { cause = outer; }
        }
        // A stored snapshot can be older than the session (a same-origin script can write back
        // one saved before a lock): the server's status is asked before anything shows.
        if (!askServer || engine.state === 'EXPIRED') { holdStore = false; return done(how); }
        serverStatus(statusTimeoutMs).finally(() => { holdStore = false; done(how); });
    }
    let joinTimer = null;
    function finishJoin(peerSnapshot) {
        if (joinTimer !== null) clearTimeout(joinTimer);
        joinTimer = null;
        if (peerSnapshot !== undefined) return restore(peerSnapshot, 'joined');
        let stored = null;
        try { stored = storage?.getItem(storageKey) ?? null; } catch (error) { onError(error); }
        if (stored !== null) return restore(stored, 'restored');
        joining = false;
        electPinger();
        publish(null);
        resolveReady('new');
    }
    if (joining) {
        channel = new Channel(channelName);
        channel.onmessage = (e) => onMessage(e.data);
        lastVisible = localVisible();
        post({ t: 'hello', visible: lastVisible });
        joinTimer = setTimeout(() => finishJoin(undefined), joinTimeoutMs);
        heartbeatTimer = setInterval(beat, heartbeatMs);
    } else {
        finishJoin(undefined);
    }
    updateBackground();

    // ---- The session the host holds.
    const session = {
        engine,
        id,
        ready,
        /** The store: fn(snapshot) now and on every change; returns the unsubscribe. */
        subscribe(fn) {
            listeners.add(fn);
            fn(snapshot);
            return () => { listeners.delete(fn); };
        },
        getSnapshot: () => snapshot,
        save,
        /** Whether this tab pings the server for the browser. */
        get pinging() { return pinging; },
        /** The server's read-only status (never extends the session), merged into the engine
         *  as holder reports; resolves to { status, state, reason, idleRemainingMs,
         *  absoluteRemainingMs, tookMs } or null (no server, a network failure). */
        serverStatus: (timeoutMs = statusTimeoutMs) => serverStatus(timeoutMs),
        /** What another holder of the session reported, applied here and relayed to every tab. */
        holderReport(kind, options = {}) {
            const outer = cause;
            cause = 'local';
            try { engine.holderReport(kind, options); } finally { cause = outer; }
            const { reason = 'NONE', ms = 0 } = options;
            relayReport(kind, reason, ms);
            save();
        },
        activity(kind) {
            const outer = cause;
            cause = 'local';
            try { engine.activity(kind); } finally { cause = outer; }
            if (kind !== 'PROGRAMMATIC') relayActivity();
        },
        disconnect() {
            if (closed) return;
            post({ t: 'bye' });
            closed = true;
            abortInflight();
            unsubscribeEngine();
            for (const [target, type, fn] of added) target.removeEventListener(type, fn, listenerOptions);
            if (joinTimer !== null) clearTimeout(joinTimer);
            if (relayTimer !== null) clearTimeout(relayTimer);
            if (heartbeatTimer !== null) clearInterval(heartbeatTimer);
            channel?.close();
            listeners.clear();
        },
    };
    for (const op of RELAYED) {
        session[op] = (...args) => {
            // The engine's refusal is thrown to the caller here (this tab's own input), and
            // nothing is relayed.
            const outer = cause;
            cause = 'local';
            let result;
            try { result = engine[op](...args); } finally { cause = outer; }
            if (NEW_EPOCH.has(op)) epoch++;
            post({ t: 'in', op, args });
            save();
            return result;
        };
    }
    return session;
}
