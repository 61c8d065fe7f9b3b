// Compiled by scripts/lib/test-js with tsc --strict: every line marked @reject must be an error
// (and no other line), so the declarations are not `any` in disguise.
import { load } from '../index.js';

async function main(): Promise<void> {
    const ia = await load();
    const engine = new ia.Engine({ clock: 'manual' });
    engine.activity('WINK'); // @reject
    engine.advance('1000'); // @reject
    engine.end('STARTED_BY_MISTAKE'); // @reject
    engine.holderReport('PING'); // @reject
    engine.holderReport('LOCKED', 0, 'MANUAL_LOCK'); // @reject
    engine.holderReport('LOCKED', { reasn: 'MANUAL_LOCK' }); // @reject
    const id: number = engine.pushScope(1000); // @reject
    const state: number = engine.state; // @reject
    new ia.Engine({ clock: 'monotonic' }); // @reject
    ia.Policy.preset('BANK'); // @reject
    const p = ia.Policy.defaults();
    p.pauseIdleInBackground = 1; // @reject
    void [id, state];
}
void main;
