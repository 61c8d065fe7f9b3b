// npm pack's prepack: a package without its engine is no package. Refuses to pack unless
// inactivity.wasm is here, is a WebAssembly module, loads, and is the version package.json
// states; and checks that LICENSE is the repository's (npm ships LICENSE whatever `files` says).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const refuse = (why) => {
    console.error(`prepack: refusing to pack ${pkg.name}@${pkg.version}: ${why}`);
    process.exit(1);
};
const wasm = join(pkgDir, 'inactivity.wasm');
if (!existsSync(wasm)) {
    refuse('inactivity.wasm is missing. Build it first: scripts/build-wasm (from the repository root; ' +
        'it needs the Swift toolchain) writes bindings/js/inactivity.wasm.');
}
const { load } = await import('../src/index.js');
let ia;
try {
    ia = await load({ wasm });
} catch (error) {
    refuse(`inactivity.wasm does not load: ${error.message}`);
}
if (ia.version !== pkg.version) {
    refuse(`inactivity.wasm is version ${ia.version}, package.json says ${pkg.version}: run scripts/build-wasm again.`);
}
const root = join(pkgDir, '..', '..', 'LICENSE');
if (!existsSync(join(pkgDir, 'LICENSE'))) refuse('LICENSE is missing');
if (existsSync(root) && readFileSync(root, 'utf8') !== readFileSync(join(pkgDir, 'LICENSE'), 'utf8')) {
    refuse("LICENSE differs from the repository's LICENSE");
}
console.error(`prepack: inactivity.wasm ${ia.version}, ${readFileSync(wasm).length} bytes`);
