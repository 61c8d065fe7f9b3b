// The browser adapter (issue 25): maps what a page sees (DOM input events, the page lifecycle,
// the other tabs of the origin) to the engine's inputs, keeps the snapshot in Web Storage, and
// gives the host the state as callbacks and as a subscribable store. It decides nothing: every
// rule (what activity counts, when background locks, what a restore gives) is the engine's.
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

// Inputs the adapter relays to the other tabs (name -> the engine method it calls).
const RELAYED = ['activity', 'start', 'continue', 'lock', 'unlock', 'unlockFailed', 'end',
    'refreshResult', 'tokenRotated', 'setPolicy', 'setCeilings'];
const STRICT = { LOADING: 0, ACTIVE: 1, WARNING: 1, LOCKED: 2, EXPIRED: 3 };

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

/**
 * Connects an engine (from `load()` of the main entry) to the page. Options:
 * - window (default globalThis), document (default window.document): where the listeners go;
 * - storage (default sessionStorage; null: none), storageKey (default 'inactivity.snapshot');
 * - channel: the BroadcastChannel name all tabs of the session share (default 'inactivity';
 *   null: this tab alone), BroadcastChannel (the constructor, for tests);
 * - joinTimeoutMs (default 250): how long a new tab waits for a peer's state;
 * - relayThrottleMs (default 500): activity is relayed at most once per this, and the last
 *   activity of a burst always is;
 * - onChange(snapshot), onEvent(event), onError(error): callbacks.
 * Returns the session: the relayed inputs (start, lock, ...), subscribe/getSnapshot, ready
 * (a promise: 'joined' | 'restored' | 'new'), disconnect().
 */
export function connect(engine, options = {}) {
    const win = options.window ?? globalThis;
    const doc = options.document ?? win.document;
    const storage = options.storage === undefined ? win.sessionStorage ?? null : options.storage;
    const storageKey = options.storageKey ?? 'inactivity.snapshot';
    const channelName = options.channel === undefined ? 'inactivity' : options.channel;
    const Channel = options.BroadcastChannel ?? globalThis.BroadcastChannel;
    const joinTimeoutMs = options.joinTimeoutMs ?? 250;
    const relayThrottleMs = options.relayThrottleMs ?? 500;
    const onError = options.onError ?? ((error) => queueMicrotask(() => { throw error; }));
    const id = randomId();
    const listeners = new Set();
    const peers = new Map();            // peer id -> visible (boolean)
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
            event: event ?? null,
        });
    }
    let sessionHidden = false;
    let snapshot = null;
    function publish(event) {
        snapshot = makeSnapshot(event);
        options.onChange?.(snapshot);
        for (const fn of [...listeners]) fn(snapshot);
    }

    // ---- Persistence: the engine's bytes, as base64, in the host's storage.
    function save() {
        if (!storage || closed || engine.closed || engine.state === 'LOADING') return;
        try { storage.setItem(storageKey, engine.snapshotBase64()); } catch (error) { onError(error); }
    }

    // ---- Calls into the engine: a refusal (an input the engine does not take in this state,
    // as a relayed unlock in a tab already unlocked) is the engine's answer, reported, not thrown.
    function apply(op, args) {
        inputDepth++;
        try { return engine[op](...args); } catch (error) { onError(error); return undefined; } finally { inputDepth--; }
    }
    // > 0 while an input is applied: the transitions it causes are the input's, which every tab
    // gets as the same input; only what an engine does by itself (a deadline, a refused restore)
    // is told to the peers as a state.
    let inputDepth = 0;

    // ---- The relay.
    let channel = null;
    function post(message) {
        if (!channel || closed) return;
        try { channel.postMessage({ ...message, from: id }); } catch (error) { onError(error); }
    }
    let lastRelayAt = -Infinity;
    let pendingKind = null;
    let relayTimer = null;
    function relayActivity(kind) {
        const now = performance.now();
        if (now - lastRelayAt >= relayThrottleMs) {
            lastRelayAt = now;
            post({ t: 'in', op: 'activity', args: [kind] });
            return;
        }
        pendingKind = kind;
        relayTimer ??= setTimeout(() => {
            relayTimer = null;
            lastRelayAt = performance.now();
            if (pendingKind) post({ t: 'in', op: 'activity', args: [pendingKind] });
            pendingKind = null;
        }, relayThrottleMs - (now - lastRelayAt));
    }

    // ---- Background: the session is in background when no tab of it is visible.
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
            post({ t: 'vis', visible });
        }
        const hidden = !visible && ![...peers.values()].some(Boolean);
        if (hidden === sessionHidden && snapshot) return;
        sessionHidden = hidden;
        // Not a relayed input (each tab computes the same visibility): a lock it causes is told.
        try { if (hidden) engine.background(); else engine.foreground(); } catch (error) { onError(error); }
        if (hidden) save();
        publish(null);
    }

    function onMessage(message) {
        if (!message || message.from === id || closed) return;
        switch (message.t) {
        case 'hello':
            peers.set(message.from, Boolean(message.visible));
            if (!joining && engine.state !== 'LOADING') {
                post({ t: 'welcome', to: message.from, snapshot: engine.snapshotBase64(), visible: localVisible() });
            }
            updateBackground();
            break;
        case 'welcome':
            peers.set(message.from, Boolean(message.visible));
            if (message.to === id && joining) finishJoin(message.snapshot);
            updateBackground();
            break;
        case 'vis':
            peers.set(message.from, Boolean(message.visible));
            updateBackground();
            break;
        case 'bye':
            peers.delete(message.from);
            updateBackground();
            break;
        case 'in':
            if (joining || !RELAYED.includes(message.op)) break;
            apply(message.op, message.args ?? []);
            save();
            break;
        case 'state':
            // Tabs that disagree: the strictest state wins (fail secure).
            if ((STRICT[message.state] ?? 0) <= STRICT[engine.state]) break;
            if (message.state === 'LOCKED') apply('lock', []);
            else if (message.state === 'EXPIRED') apply('end', ['LOGOUT']);
            save();
            break;
        }
    }

    // ---- Engine events -> store, storage, and the strict states to the peers.
    const unsubscribeEngine = engine.subscribe((event) => {
        options.onEvent?.(event);
        if (event.kind === 'state-changed') {
            save();
            if (STRICT[event.state] >= 2 && inputDepth === 0) post({ t: 'state', state: event.state });
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
        apply('activity', [kind]);
        relayActivity(kind);
    }
    for (const type of Object.keys(ACTIVITY_EVENTS)) listen(win, type, onActivity);
    listen(doc, 'visibilitychange', updateBackground);
    listen(doc, 'freeze', () => { frozen = true; updateBackground(); save(); });
    listen(doc, 'resume', () => { frozen = false; updateBackground(); });
    listen(win, 'pagehide', (event) => {
        pageHidden = true;
        updateBackground();
        save();
        // Not kept in the back/forward cache: the tab is gone for its peers.
        if (!event.persisted) post({ t: 'bye' });
    });
    listen(win, 'pageshow', (event) => {
        pageHidden = false;
        updateBackground();
        // Back from the back/forward cache: relayed inputs were missed; the peers answer with
        // their state, and a stricter one among them is applied ('state' above).
        if (event.persisted) post({ t: 'hello', visible: localVisible() });
    });

    // ---- Cold start: a peer's live state, else the stored snapshot, else a new session.
    let resolveReady;
    const ready = new Promise((resolve) => { resolveReady = resolve; });
    function restore(text, how) {
        if (engine.state === 'LOADING') {
            try { engine.restore(storedBytes(String(text))); } catch (error) { onError(error); }
        }
        joining = false;
        save();
        publish(null);
        resolveReady(how);
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
        publish(null);
        resolveReady('new');
    }
    if (joining) {
        channel = new Channel(channelName);
        channel.onmessage = (e) => onMessage(e.data);
        lastVisible = localVisible();
        post({ t: 'hello', visible: lastVisible });
        joinTimer = setTimeout(() => finishJoin(undefined), joinTimeoutMs);
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
        disconnect() {
            if (closed) return;
            post({ t: 'bye' });
            closed = true;
            unsubscribeEngine();
            for (const [target, type, fn] of added) target.removeEventListener(type, fn, listenerOptions);
            if (joinTimer !== null) clearTimeout(joinTimer);
            if (relayTimer !== null) clearTimeout(relayTimer);
            channel?.close();
            listeners.clear();
        },
    };
    for (const op of RELAYED) {
        session[op] = (...args) => {
            // The engine's refusal is thrown to the caller here (this tab's own input), and
            // nothing is relayed.
            inputDepth++;
            let result;
            try { result = engine[op](...args); } finally { inputDepth--; }
            if (op === 'activity') relayActivity(args[0]);
            else post({ t: 'in', op, args });
            save();
            return result;
        };
    }
    return session;
}
