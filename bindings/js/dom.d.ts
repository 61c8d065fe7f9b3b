// TypeScript declarations of `inactivity/dom` (src/dom.js): the browser adapter.
import type {
    ActivityKindName, AuthName, Ceilings, CeilingsFields, Engine, EndReasonName, Id, InactivityEvent,
    PolicyFields, ReasonName, RefreshOutcomeName, StateName,
} from './index.js';

/** DOM event type -> activity kind for trusted events. */
export const ACTIVITY_EVENTS: Readonly<Record<string, ActivityKindName>>;
/** The kind an event maps to (PROGRAMMATIC when untrusted); null when it is not activity. */
export function activityKind(event: Event): ActivityKindName | null;
/** The option names connect() takes; any other is refused with a TypeError naming it. */
export const CONNECT_OPTIONS: readonly string[];

/** What another holder of the session reports (engine.holderReport's kinds). */
export type HolderReportKind = 'ACTIVITY' | 'LOCKED' | 'EXPIRED' | 'IDLE_DEADLINE' | 'ABSOLUTE_DEADLINE';

/** One exchange with the server, as onServer and serverStatus() give it. */
export interface ServerExchange {
    readonly what: 'keepalive' | 'status' | 'report';
    /** The HTTP status; 0 when the request failed (network, abort, timeout). */
    readonly status: number;
    /** How long the request took (ms); the server's times left were reduced by it. */
    readonly tookMs: number;
    readonly state?: StateName | null;
    readonly reason?: ReasonName | string | null;
    readonly idleRemainingMs?: number | null;
    readonly absoluteRemainingMs?: number | null;
    /** Why a request failed (its error's name). */
    readonly error?: string;
    /** Sent before the session's last unlock or start: told, not merged. */
    readonly stale?: boolean;
}

/** What the store holds: one frozen object per change. */
export interface SessionSnapshot {
    readonly state: StateName;
    readonly reason: ReasonName;
    readonly requiredAuth: AuthName;
    /** At the change (Infinity if none); for a live countdown read engine.remainingMs. */
    readonly remainingMs: number;
    /** No tab of the session is visible. */
    readonly inBackground: boolean;
    /** Other live tabs of the session known to this one. */
    readonly peers: number;
    /** This tab pings the server for the browser. */
    readonly pinging: boolean;
    /** The engine event that made this snapshot, or null (a lifecycle change, the join). */
    readonly event: InactivityEvent | null;
}

export interface StorageLike {
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
}

export interface ConnectOptions {
    window?: EventTarget & { document?: unknown; sessionStorage?: StorageLike };
    document?: EventTarget & { visibilityState?: string };
    /** Default sessionStorage; null: nothing is kept. */
    storage?: StorageLike | null;
    storageKey?: string;
    /** The BroadcastChannel name shared by the session's tabs (default 'inactivity'); null: this tab alone. */
    channel?: string | null;
    BroadcastChannel?: new (name: string) => BroadcastChannel;
    joinTimeoutMs?: number;
    relayThrottleMs?: number;
    /** Every tab says it is alive this often (default 1000 ms). */
    heartbeatMs?: number;
    /** A peer not heard from for this long is dropped (default 3 x heartbeatMs; at least 2 x). */
    peerTimeoutMs?: number;
    /** The session API's prefix ('/inactivity'): keepalive, status, report. Default null: no server. */
    serverUrl?: string | URL | null;
    fetch?: typeof fetch;
    /** How long a restore waits for the server's status (default 3000 ms). */
    statusTimeoutMs?: number;
    /** Every exchange with the server (keepalive, status, report). */
    onServer?: (exchange: ServerExchange) => void;
    onChange?: (snapshot: SessionSnapshot) => void;
    onEvent?: (event: InactivityEvent) => void;
    /** An input the engine refused (a relayed one, a corrupt stored snapshot). Default: rethrown from a microtask. */
    onError?: (error: unknown) => void;
}

export interface Session {
    readonly engine: Engine;
    readonly id: string;
    /** Resolves when the cold start is done: a peer's state, the stored snapshot, or nothing. */
    readonly ready: Promise<'joined' | 'restored' | 'new'>;
    /** Calls fn with the current snapshot now and on every change; returns the unsubscribe. */
    subscribe(fn: (snapshot: SessionSnapshot) => void): () => void;
    getSnapshot(): SessionSnapshot;
    /** Writes the snapshot to the storage now (it is written on every change and when hidden). */
    save(): void;
    disconnect(): void;
    /** This tab pings the server for the browser. */
    readonly pinging: boolean;
    /** The server's read-only status (never extends), merged as holder reports; null without a server or an answer. */
    serverStatus(timeoutMs?: number): Promise<ServerExchange | null>;
    /** What another holder reported (ms: an age for ACTIVITY/LOCKED/EXPIRED, a time left for deadlines); every tab gets it. */
    holderReport(kind: HolderReportKind, options?: { reason?: ReasonName; ms?: number }): void;
    // The inputs relayed to every tab.
    activity(kind: ActivityKindName | number): void;
    start(): void;
    continue(): void;
    lock(): void;
    unlock(method?: 'BIOMETRIC' | 'CREDENTIAL' | number): void;
    unlockFailed(method?: 'BIOMETRIC' | 'CREDENTIAL' | number): number;
    end(reason: EndReasonName | ReasonName | number): void;
    refreshResult(httpStatus: number, oauthError?: string | null, generation?: Id): RefreshOutcomeName;
    tokenRotated(generation: Id): void;
    setPolicy(policy: PolicyFields): void;
    setCeilings(ceilings: CeilingsFields | Ceilings): void;
}

export function connect(engine: Engine, options?: ConnectOptions): Session;
