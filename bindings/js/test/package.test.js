// The package as a user gets it: `import ... from 'inactivity'` resolves through package.json's
// `exports` (a node_modules link in a scratch directory), the declared files exist, and every
// ```js block of the READMEs (the package's and the repository's quick start) runs as printed,
// with the few browser globals they use stubbed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, '..');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const scratch = mkdtempSync(join(tmpdir(), 'inactivity-js-'));
mkdirSync(join(scratch, 'node_modules'));
symlinkSync(pkgDir, join(scratch, 'node_modules', 'inactivity'));

test('package.json: an ES module with exports, types and no runtime dependencies', () => {
    assert.equal(pkg.type, 'module');
    assert.equal(pkg.types, './index.d.ts');
    assert.equal(pkg.exports['.'].types, './index.d.ts');
    assert.equal(pkg.dependencies, undefined);
    for (const f of [pkg.exports['.'].default, pkg.types, pkg.exports['./inactivity.wasm']]) {
        assert.ok(existsSync(join(pkgDir, f)), `${f} exists`);
    }
});

test('package.json states the version of the module it carries (the header\'s)', async () => {
    const { load } = await import('../src/index.js');
    const { INACT_VERSION_STRING } = await import('../src/generated/ffi.js');
    const ia = await load();
    assert.equal(pkg.version, ia.version);
    assert.equal(pkg.version, INACT_VERSION_STRING);
});

test("import 'inactivity' resolves through exports and loads", () => {
    writeFileSync(join(scratch, 'resolve.mjs'),
        "import { load } from 'inactivity';\nconst ia = await load();\nconsole.log(ia.version);\n");
    const out = execFileSync(process.execPath, [join(scratch, 'resolve.mjs')], { cwd: scratch }).toString().trim();
    assert.match(out, /^\d+\.\d+\.\d+$/);
});

const stubs = `
globalThis.addEventListener = () => {};
globalThis.sessionStorage = { store: new Map(), setItem(k, v) { this.store.set(k, String(v)); }, getItem(k) { return this.store.get(k) ?? null; } };
globalThis.render = () => {};
`;
for (const [file, label] of [[join(pkgDir, 'README.md'), 'bindings/js/README.md'], [join(pkgDir, '..', '..', 'README.md'), 'README.md']]) {
    const blocks = [...readFileSync(file, 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
    test(`${label}: its ${blocks.length} js block(s) run as printed`, () => {
        assert.ok(blocks.length > 0, 'the README has a js block');
        blocks.forEach((code, i) => {
            const path = join(scratch, `readme-${label.replace(/\W/g, '_')}-${i}.mjs`);
            const imports = code.split('\n').filter((l) => l.startsWith('import '));
            const body = code.split('\n').filter((l) => !l.startsWith('import '));
            writeFileSync(path, `${imports.join('\n')}\n${stubs}\n${body.join('\n')}\nengine.close();\n`);
            execFileSync(process.execPath, [path], { cwd: scratch, stdio: 'pipe', timeout: 30_000 });
        });
    });
}
