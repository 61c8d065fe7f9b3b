// Compiled (not run) by scripts/lib/test-js with tsc --strict: the declarations accept every use
// the README shows, and their results have the documented types.
import { load, errors, InactivityError, SnapshotError, InvalidArgumentError, NEVER, State, type InactivityEvent, type Info,
    type StateName } from '../index.js';

async function main(): Promise<void> {
    const ia = await load({ wasm: new URL('../inactivity.wasm', import.meta.url) });
    const seen: InactivityEvent[] = [];
    const engine = new ia.Engine({ policy: ia.Policy.preset('BANKING'), onEvent: (e) => { seen.push(e); }, clock: 'manual',
                                   manual: { startMs: 0, wallMs: 1_700_000_000_000n, bootId: 1n } });
    engine.start();
    engine.activity('KEY');
    engine.activity(8);
    engine.advance(1000);
    engine.advance(1000n);
    const failures: number = engine.unlockFailed('BIOMETRIC');
    const outcome: 'OK' | 'RETRY' | 'REVOKED' | 'FAILED' | 'STALE' = engine.refreshResult(401, 'invalid_grant', 2n);
    const scope: bigint = engine.pushScope(120_000);
    engine.popScope(scope);
    const hold: bigint = engine.acquireHold();
    engine.releaseHold(hold);
    const info: Info = engine.info();
    const remaining: number = info.remainingMs;
    const generation: bigint = info.tokenGeneration;
    const bytes: Uint8Array = engine.snapshot();
    const text: string = engine.snapshotBase64();
    engine.restore(bytes);
    engine.restore(text);
    const state: 'LOADING' | 'ACTIVE' | 'WARNING' | 'LOCKED' | 'EXPIRED' = engine.state;
    const policy = engine.policy();
    policy.idleTimeoutMs = 10 * 60_000;
    policy.lockedTimeoutMs = NEVER;
    engine.setPolicy(policy);
    engine.setCeilings(new ia.Ceilings({ idleTimeoutMs: 600_000 }));
    const boot: bigint = engine.clockNow().bootId;
    for await (const e of engine.events()) {
        const kind: 'state-changed' | 'tick' | 'keepalive' = e.kind;
        void kind;
        break;
    }
    engine.holderReport('IDLE_DEADLINE', { ms: 60_000 });
    engine.holderReport('LOCKED', { reason: 'MANUAL_LOCK' });
    policy.keepaliveIntervalMs = 30_000;
    try { engine.end('DEVICE_LIMIT'); } catch (e) {
        // A status class is its category's subclass, and each class is a named export too.
        if (e instanceof SnapshotError) { const c: InvalidArgumentError = e; const n: StateName = 'EXPIRED'; void c; void n; }
        if (e instanceof errors.InvalidArgumentError) { const s: string = e.status; const c: number = e.code; void s; void c; }
        if (e instanceof InactivityError) void e.message;
    }
    const active: number = State.ACTIVE;
    engine.close();
    void [failures, outcome, remaining, generation, state, boot, active, seen];
}
void main;
