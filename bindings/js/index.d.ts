// TypeScript declarations of the `inactivity` package (src/index.js). Checked with Debian's tsc
// (node-typescript) by the js suite: test/types-check.ts must compile, and
// test/types-reject.ts must fail on each of its marked lines. The methods of the inputs that take the
// engine alone that src/generated/inputs.js installs are declared in generated/inputs.d.ts, the
// error classes in generated/errors.d.ts and the enumerations in generated/enums.d.ts.
import './generated/inputs.js';

/** A duration or instant in ms: a number (a safe integer; Infinity = NEVER), or a BigInt (any
 *  int64, passed to the engine as is: for values beyond 2^53 that the engine then judges). */
export type Ms = number | bigint;
/** A 64-bit id (scope, hold, token generation, boot id): a BigInt; a safe non-negative integer
 *  number is accepted as input. */
export type Id = bigint | number;

/** The header's enumerations (generated/enums.d.ts): each one's names (StateName: 'LOADING' |
 *  ...) and its table, name -> value (State, Reason, ActivityKind, IdleAction, Preset, EventKind,
 *  HolderKind, RefreshOutcome, Auth). */
export * from './generated/enums.js';
import type { StateName, ReasonName, ActivityKindName, IdleActionName, PresetName, AuthName,
    RefreshOutcomeName, HolderKindName } from './generated/enums.js';
/** engine.holderReport's named arguments: the holder's reason (LOCKED, EXPIRED) and ms (an age or a time left). */
export interface HolderReportOptions {
    reason?: ReasonName | number;
    ms?: Ms;
}
export type EndReasonName = 'LOGOUT' | 'REVOKED' | 'PASSWORD_CHANGED' | 'DEVICE_LIMIT';

/** INACT_NEVER as it crosses: Infinity. */
export const NEVER: number;
export const SNAPSHOT_MAX_SIZE: number;

/** The error classes (generated/errors.d.ts, from the error categories of names.toml):
 *  InactivityError, one class per category, one per status, and `errors`, all of them by name. */
export * from './generated/errors.js';

/** The fields of inact_policy (durations in ms; Infinity = NEVER). */
export interface PolicyFields {
    idleAction: IdleActionName | number;
    idleTimeoutMs: Ms;
    warningMs: Ms;
    backgroundTimeoutMs: Ms;
    absoluteTimeoutMs: Ms;
    lockedTimeoutMs: Ms;
    tickMs: Ms;
    backgroundGraceMs: Ms;
    /** ActivityKind bits that count. */
    activityKinds: number;
    maxUnlockFailures: number;
    activityDismissesWarning: boolean;
    pauseIdleInBackground: boolean;
    lockOnDeviceLock: boolean;
    lockOnRestart: boolean;
    strongAuthTimeoutMs: Ms;
    expectedInterruptionMaxMs: Ms;
    offlineTimeoutMs: Ms;
    offlineExpiryMs: Ms;
    /** After user activity, a 'keepalive' event at once after a quiet interval, then at most
     *  once per this interval; 0 = off (the default); else >= 1000 and below idleTimeoutMs. */
    keepaliveIntervalMs: Ms;
}
export interface Policy extends PolicyFields {
    /** Throws the engine's error (naming the field) when the policy is invalid. */
    validate(): void;
}
export interface PolicyClass {
    /** The engine's defaults, overridden by `fields`. */
    new (fields?: Partial<PolicyFields>): Policy;
    defaults(): Policy;
    preset(name: PresetName | number): Policy;
}

/** The fields of inact_ceilings (Infinity = no limit). */
export interface CeilingsFields {
    maxUnlockFailures: number;
    idleTimeoutMs: Ms;
    backgroundTimeoutMs: Ms;
    absoluteTimeoutMs: Ms;
    lockedTimeoutMs: Ms;
    strongAuthTimeoutMs: Ms;
    expectedInterruptionMaxMs: Ms;
    offlineTimeoutMs: Ms;
    offlineExpiryMs: Ms;
    lockOnDeviceLock: boolean;
    lockOnRestart: boolean;
}
export interface Ceilings extends CeilingsFields {}
export interface CeilingsClass {
    new (fields?: Partial<CeilingsFields>): Ceilings;
    none(): Ceilings;
}

export interface InactivityEvent {
    /** 'keepalive': ping your server now; timeMs is then the last user activity it carries
     *  (its age is nowMs - timeMs), and the answer goes to engine.holderReport. */
    readonly kind: 'state-changed' | 'tick' | 'keepalive';
    readonly state: StateName;
    readonly previousState: StateName;
    readonly reason: ReasonName;
    readonly requiredAuth: AuthName;
    /** ms from nowMs to the next lock or expiry; Infinity if none. */
    readonly remainingMs: number;
    /** When it took effect (engine clock ms). */
    readonly timeMs: number;
    /** When it was evaluated (engine clock ms, >= timeMs). */
    readonly nowMs: number;
}

export interface Info {
    state: StateName;
    reason: ReasonName;
    clock: 'system' | 'manual';
    inBackground: boolean;
    visibleWindows: number;
    openScopes: number;
    openHolds: number;
    unlockFailures: number;
    nowMs: number;
    remainingMs: number;
    nextDeadlineMs: number;
    effectiveIdleTimeoutMs: number;
    startedAtMs: number;
    lastActivityMs: number;
    backgroundSinceMs: number;
    lockedAtMs: number;
    requiredAuth: AuthName;
    needsServerContact: boolean;
    lastCredentialMs: number;
    strongAuthDeadlineMs: number;
    lastServerContactMs: number;
    tokenGeneration: bigint;
    interruptionUntilMs: number;
}

export interface ClockReading {
    monotonicMs: number;
    /** A BigInt only when a manual wall clock was moved past 2^53 ms. */
    wallMs: number | bigint;
    bootId: bigint;
}

export interface EngineOptions {
    policy?: PolicyFields;
    /** Every event, synchronously, before the call that caused it returns. */
    onEvent?: (event: InactivityEvent) => void;
    /** Receives what onEvent throws (default: rethrown from a microtask). */
    onError?: (error: unknown) => void;
    /** 'system' (the web clock: see the README) or 'manual' (tests and simulations). */
    clock?: 'system' | 'manual';
    manual?: { startMs?: Ms; wallMs?: Ms; bootId?: Id };
    /** Node: keep the event loop alive while a deadline is pending (default false). */
    keepAlive?: boolean;
}

export interface Engine {
    readonly handle: bigint;
    close(): void;
    start(): void;
    activity(kind: ActivityKindName | number): void;
    continue(): void;
    lock(): void;
    unlock(method?: 'BIOMETRIC' | 'CREDENTIAL' | number): void;
    /** Returns the failed unlocks in a row after this one. method: as inact_unlock_failed, CREDENTIAL unless given. */
    unlockFailed(method?: 'BIOMETRIC' | 'CREDENTIAL' | number): number;
    biometricsChanged(): void;
    end(reason: EndReasonName | ReasonName | number): void;
    /** What another holder observed: ms is the age (ACTIVITY, LOCKED, EXPIRED) or the time
     *  left (IDLE_DEADLINE, ABSOLUTE_DEADLINE); reason the holder's for LOCKED and EXPIRED.
     *  Named, not positional (C's order is kind, reason, ms): { reason: 'MANUAL_LOCK' }, { ms: 5000 }. */
    holderReport(kind: HolderKindName | number, options?: HolderReportOptions): void;
    refreshResult(httpStatus: number, oauthError?: string | null, generation?: Id): RefreshOutcomeName;
    tokenRotated(generation: Id): void;
    serverContact(): void;
    background(): void;
    foreground(): void;
    windowShown(): void;
    windowHidden(): void;
    expectInterruption(maxMs: Ms): void;
    deviceLocked(): void;
    pushScope(idleTimeoutMs: Ms): bigint;
    popScope(id: Id): void;
    acquireHold(): bigint;
    releaseHold(id: Id): void;
    setPolicy(policy: PolicyFields): void;
    setCeilings(ceilings: CeilingsFields): void;
    readonly state: StateName;
    readonly reason: ReasonName;
    readonly remainingMs: number;
    readonly requiredAuth: AuthName;
    info(): Info;
    policy(): Policy;
    ceilings(): Ceilings;
    nextDeadlineMs(): number;
    poll(): void;
    snapshot(): Uint8Array;
    snapshotBase64(): string;
    restore(snapshot: Uint8Array | ArrayBuffer | string): void;
    advance(ms: Ms): void;
    freeze(ms: Ms): void;
    jumpWall(deltaMs: Ms): void;
    reboot(downtimeMs?: Ms): void;
    clockNow(): ClockReading;
    events(): AsyncIterableIterator<InactivityEvent>;
    /** Calls listener with every event from now on (after onEvent); returns the unsubscribe. */
    subscribe(listener: (event: InactivityEvent) => void): () => void;
    readonly closed: boolean;
}
export interface EngineClass {
    new (options?: EngineOptions): Engine;
}

/** The two clocks the web platform reads (ms). */
export interface HostClock {
    monotonicMs(): number;
    wallMs(): number;
}

export interface LoadOptions {
    /** The module: a path or URL, its bytes, a compiled module or a fetch Response. */
    wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module | Response;
    /** Default: performance.timeOrigin + performance.now(), and Date.now(). */
    hostClock?: HostClock;
}

export interface Inactivity {
    readonly Engine: EngineClass;
    readonly Policy: PolicyClass;
    readonly Ceilings: CeilingsClass;
    readonly version: string;
    readonly versionNumber: number;
    /** The module's raw exports (the C ABI as wasm functions). */
    readonly exports: WebAssembly.Exports;
}

export function load(options?: LoadOptions): Promise<Inactivity>;
/** The classes at module level: once `await load()` has returned, they use the first load's
 *  module (`new Engine()`); each load's own (`(await load()).Engine`) are their subclasses, bound
 *  to that load's module. Before any load they throw, saying so. */
export const Engine: EngineClass;
export const Policy: PolicyClass;
export const Ceilings: CeilingsClass;
