// TypeScript declarations of `inactivity/dom` (src/dom.js): the browser adapter.
import type {
    ActivityKindName, AuthName, Ceilings, CeilingsFields, Engine, EndReasonName, Id, InactivityEvent,
    PolicyFields, ReasonName, RefreshOutcomeName, StateName,
} from './index.js';

/** DOM event type -> activity kind for trusted events. */
export const ACTIVITY_EVENTS: Readonly<Record<string, ActivityKindName>>;
/** The kind an event maps to (PROGRAMMATIC when untrusted); null when it is not activity. */
export function activityKind(event: Event): ActivityKindName | null;

/** What the store holds: one frozen object per change. */
export interface SessionSnapshot {
    readonly state: StateName;
    readonly reason: ReasonName;
    readonly requiredAuth: AuthName;
    /** At the change (Infinity if none); for a live countdown read engine.remainingMs. */
    readonly remainingMs: number;
    /** No tab of the session is visible. */
    readonly inBackground: boolean;
    /** Other tabs of the session known to this one. */
    readonly peers: number;
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
