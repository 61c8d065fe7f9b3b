// load() when the module is missing or is not a module says what is missing and how to get it
// (not a bare ENOENT, nor the compiler's "expected magic word"); npm pack refuses to pack a
// package without its module (prepack).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { load } from '../src/index.js';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const scratch = mkdtempSync(join(tmpdir(), 'inactivity-js-load-'));
const how = /scripts\/build-wasm .*npm|npm install \.\/inactivity-<version>\.tgz.*scripts\/build-wasm/;

test('the module-level classes before any load(): an error that says to load first', () => {
    const index = pathToFileURL(join(pkgDir, 'src', 'index.js')).href;
    const script = `import { Engine, Policy } from ${JSON.stringify(index)};
        for (const f of [() => new Engine(), () => Policy.defaults()]) {
            try { f(); console.log('no error'); } catch (e) { console.log(e.message); }
        }`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    for (const line of lines) assert.match(line, /^inactivity: the engine module is not loaded yet: await load\(\) before using Engine/);
});

test('a missing module file: named, with how to get it', async () => {
    const path = join(scratch, 'nowhere', 'inactivity.wasm');
    await assert.rejects(load({ wasm: path }), (e) => {
        assert.match(e.message, /^inactivity: the engine module inactivity\.wasm is missing: .*nowhere\/inactivity\.wasm does not exist\. /);
        assert.match(e.message, how);
        assert.equal(e.cause?.code, 'ENOENT');
        return true;
    });
});

test('the package without its module: load() with no options says so', async () => {
    // A copy of the package's sources without inactivity.wasm, as `npm pack` used to make it.
    const copy = join(scratch, 'pkg');
    cpSync(join(pkgDir, 'src'), join(copy, 'src'), { recursive: true });
    const { load: loadCopy } = await import(pathToFileURL(join(copy, 'src', 'index.js')).href);
    await assert.rejects(loadCopy(), (e) => {
        assert.match(e.message, /the engine module inactivity\.wasm is missing: .*pkg\/inactivity\.wasm does not exist/);
        assert.match(e.message, how);
        return true;
    });
});

test('bytes that are not a module (an HTML page, an empty file): named with what they start with', async () => {
    const html = join(scratch, 'page.wasm');
    writeFileSync(html, '<!DOCTYPE html><title>Not Found</title>');
    await assert.rejects(load({ wasm: html }), /is not a WebAssembly module \(it starts with "<!DOCTYPE html><"\)\. The npm package/);
    await assert.rejects(load({ wasm: new Uint8Array(0) }), /is not a WebAssembly module \(it starts with nothing: it is empty\)/);
});

test('an HTTP error: the status, not a compile error', async () => {
    await assert.rejects(load({ wasm: new Response('<!DOCTYPE html>', { status: 404 }) }),
        /^Error: inactivity: fetching the engine module \(a Response\) failed: HTTP 404\. The npm package/);
});

test('npm pack refuses to pack without inactivity.wasm (prepack)', () => {
    const copy = join(scratch, 'pack');
    cpSync(pkgDir, copy, { recursive: true, filter: (src) => !src.endsWith('inactivity.wasm') && !src.includes('node_modules') });
    const out = join(scratch, 'out');
    const r = spawnSync('npm', ['pack', '--pack-destination', out], { cwd: copy, encoding: 'utf8', timeout: 60_000 });
    assert.notEqual(r.status, 0, 'npm pack succeeded without the module');
    assert.match(r.stderr, /prepack: refusing to pack inactivity@[\d.]+: inactivity\.wasm is missing\. Build it first: scripts\/build-wasm/);
    assert.deepEqual(readdirSync(scratch).includes('out') ? readdirSync(out) : [], []);
});

test.after(() => rmSync(scratch, { recursive: true, force: true }));
