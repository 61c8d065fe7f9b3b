// Compiled (not run) by scripts/lib/test-js with tsc --strict, with types-check.ts: the dom
// entry's declarations (dom.d.ts) accept the uses bindings/js/README.md shows.
import { load } from '../index.js';
import { connect, activityKind, type ServerExchange, type Session, type SessionSnapshot } from '../dom.js';

async function main(): Promise<void> {
    const ia = await load();
    const engine = new ia.Engine({ policy: ia.Policy.preset('BANKING') });
    const session: Session = connect(engine, { storage: sessionStorage, channel: 'app', onError: (e) => console.warn(e) });
    const how: 'joined' | 'restored' | 'new' = await session.ready;
    if (how === 'new') session.start();
    const unsubscribe: () => void = session.subscribe((s: SessionSnapshot) => { console.log(s.state, s.reason, s.inBackground); });
    const snapshot: SessionSnapshot = session.getSnapshot();
    const outcome: 'OK' | 'RETRY' | 'REVOKED' | 'FAILED' | 'STALE' = session.refreshResult(401, 'invalid_grant');
    const kind = activityKind(new KeyboardEvent('keydown'));
    session.lock();
    session.unlock();
    session.setPolicy(ia.Policy.preset('PSD2'));
    unsubscribe();
    const withServer: Session = connect(engine, {
        serverUrl: '/inactivity', heartbeatMs: 1000, peerTimeoutMs: 3000, statusTimeoutMs: 2000,
        onServer: (x: ServerExchange) => console.log(x.what, x.status, x.tookMs, x.idleRemainingMs),
    });
    const status: ServerExchange | null = await withServer.serverStatus();
    withServer.holderReport('LOCKED', { reason: 'MANUAL_LOCK' });
    const pinging: boolean = withServer.pinging && withServer.getSnapshot().pinging;
    withServer.disconnect();
    session.disconnect();
    console.log(snapshot.remainingMs, outcome, kind, status?.state, pinging);
}
void main();
