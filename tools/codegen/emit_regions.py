"""Hand files' generated regions: the engine-only inputs where a binding's idiom is conventional.

Each region sits in a hand-written file between a `generated: inputs` line and an
`end generated: inputs` line; tools/generate rewrites only what is between them (and --check
fails when it differs), so the rest of the file stays the author's. An input that names.toml
leaves to the hand part of the file (`hand` js, kt, op-js, ctest) is left out. The regions:

- bindings/js/src/index.js: the Engine methods (inact_device_locked -> deviceLocked());
- bindings/js/index.d.ts: their declarations;
- bindings/kotlin-jni/src/main/kotlin/dev/inactivity/InactivityEngine.kt: the methods, calling
  the generated natives (emit_kotlin's NativeCalls);
- conformance/runner.mjs: the JavaScript runner's ops (emit_conformance's op names);
- Tests/CTests/test_state_table.c: make_input's line for each, by the table's input name
  (inact_device_locked -> "device locked"; a name the rule table spells otherwise fails that test).
"""

from __future__ import annotations

import re

from .emit_conformance import op
from .emit_kotlin import generated
from .emit_python import simple_inputs, summary, _wrap
from .emit_swift import camel
from .model import ROOT, HeaderError, Function, Model

BEGIN = "generated: inputs"
END = "end generated: inputs"


def _splice(path: str, make, layer: str) -> dict[str, str]:
    """path's text with its region rewritten by make(indent, funcs), funcs being the inputs that
    names.toml does not leave to `layer`'s hand code."""
    text = (ROOT / path).read_text()
    lines = text.split("\n")
    starts = [i for i, l in enumerate(lines) if l.strip().lstrip("/*# ").startswith(BEGIN)]
    ends = [i for i, l in enumerate(lines) if l.strip().lstrip("/*# ").startswith(END)]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise HeaderError(f"{path}: wants one '{BEGIN}' line and one '{END}' line after it")
    a, b = starts[0], ends[0]
    indent = lines[a][: len(lines[a]) - len(lines[a].lstrip())]
    return {path: "\n".join(lines[: a + 1] + make(indent, [f for f in _MODEL if not f.hand(layer)])
                            + lines[b:])}


_MODEL: list[Function] = []


def _doc(indent: str, f: Function) -> list[str]:
    body = _wrap(summary(f), indent + " * ", 100)
    if len(indent) + 8 + len(summary(f)) <= 100:
        return [f"{indent}/** {summary(f)} */"]
    return [f"{indent}/**", *body, f"{indent} */"]


def emit(model: Model) -> dict[str, str]:
    _MODEL[:] = simple_inputs(model)
    out: dict[str, str] = {}
    out |= _splice("bindings/js/src/index.js",
                   lambda ind, fs: [f"{ind}{f.names.js}() {{ this.#call((h) => check(x.{f.name}(h))); }}" for f in fs
                                    if f.names.js],
                   "js")
    out |= _splice("bindings/js/index.d.ts",
                   lambda ind, fs: [l for f in fs if f.names.js for l in _doc(ind, f) + [f"{ind}{f.names.js}(): void;"]],
                   "js")
    kt_ok = {f.name for f in generated(model)}  # a native NativeCalls has
    out |= _splice("bindings/kotlin-jni/src/main/kotlin/dev/inactivity/InactivityEngine.kt",
                   lambda ind, fs: [l for f in fs if f.name in kt_ok and f.names.kotlin for l in
                                    ["", *_doc(ind, f), f"{ind}fun {f.names.kotlin}() = call {{ NativeCalls.{camel(f.short)}(it) }}"]],
                   "kt")
    out |= _splice("conformance/runner.mjs",
                   lambda ind, fs: [f"{ind}'{op(f)}': () => engine.{f.names.js}()," for f in fs
                                    if op(f) and f.names.js],
                   "op-js")
    out |= _splice("Tests/CTests/test_state_table.c",
                   lambda ind, fs: [f'{ind}if (strcmp(input, "{f.short.replace("_", " ")}") == 0) return {f.name}(e);' for f in fs],
                   "ctest")
    return out
