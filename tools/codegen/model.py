"""The model: include/inactivity.h read into functions, structs, enums and status codes, and
tools/codegen/names.toml read into each function's names and each status's error category.

The header is hand-written and is the contract; this module reads its disciplined forms (and
fails, naming the line, on a form it does not know, so a new kind of declaration cannot be
skipped in silence):

- a function:  a `/** ... */` doc block, then `INACT_EXPORT <type> inact_<name>(<params>);`
  (one declaration, may span lines), under a section banner `/* ---...\n * <Title>. ...`;
- a struct:    `typedef struct inact_<name> {` one `<annotations> <type> <field>; /* comment */`
  a line (a comment may go on over the next lines) `} inact_<name>;`;
- an enum:     `typedef enum inact_<name> {` one `INACT_<X> = <value>, /* comment */` a line;
- the status table: the `XX(INACT_<X>, <value>, "<message>")` rows of INACT_STATUS_TABLE;
- a constant:  `#define INACT_<X> <value>`.

What a parameter or a field carries comes from the header's annotations (INACT_OUT, INACT_INOUT,
INACT_NULLABLE, INACT_MS, INACT_TIME_MS, INACT_BOOL, INACT_ENUM(e), INACT_BITS(e): macros that
expand to nothing), never from a comment's wording; a comment is text for the docs only.
What each binding calls a function, its conformance op, and which generated layers leave it to
hand code: names.toml (one row per function; a function without a row fails, naming it).

Every emitter (emit_*.py) takes this model and nothing else from the header or the hand code.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "include" / "inactivity.h"
NAMES = Path(__file__).resolve().parent / "names.toml"

# The annotation macros (include/inactivity.h, "Annotations") and the kind each gives.
_KINDS = {"INACT_MS": "duration", "INACT_TIME_MS": "time", "INACT_BOOL": "flag", "INACT_ENUM": "enum",
          "INACT_BITS": "bits"}
_ANNOTATION = re.compile(r"\s*(INACT_(?:OUT|INOUT|NULLABLE|MS|TIME_MS|BOOL)\b|INACT_(?:ENUM|BITS)\(\s*(inact_[a-z_]+)\s*\))")
# The C type each kind may annotate.
_KIND_CTYPE = {"duration": "int64_t", "time": "int64_t", "flag": "int32_t", "enum": "int32_t", "bits": "uint32_t"}


class HeaderError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Param:
    ctype: str  # as written, normalized spaces, annotations left out: "const inact_policy *", "int64_t"
    name: str
    may_be_null: bool  # INACT_NULLABLE
    is_out: bool = False  # INACT_OUT: the function writes its result through it
    is_inout: bool = False  # INACT_INOUT: a struct the caller sizes and the function fills
    value_kind: str | None = None  # duration, time, flag, enum, bits (of the value, pointed-to for an out)
    enum: str | None = None  # INACT_ENUM(e) / INACT_BITS(e)

    @property
    def is_pointer(self) -> bool:
        return self.ctype.endswith("*")

    @property
    def pointee(self) -> str:
        """The pointed-to type without const: "inact_policy" for "const inact_policy *"."""
        return self.ctype.rstrip("*").strip().removeprefix("const ").strip()


@dataclasses.dataclass(frozen=True)
class Function:
    name: str  # inact_device_locked
    restype: str
    params: tuple[Param, ...]
    section: str  # "Inputs", "Queries", ...
    doc: str  # the doc block's text, without the comment markers
    line: int

    @property
    def short(self) -> str:
        return self.name.removeprefix("inact_")

    @property
    def returns_status(self) -> bool:
        return self.restype == "int32_t"

    @property
    def takes_engine(self) -> bool:
        return bool(self.params) and self.params[0].ctype == "inact_engine"

    names: "Names" = None  # type: ignore[assignment]  # its row of names.toml, set by load()

    def hand(self, layer: str) -> bool:
        """True when names.toml says `layer` of this function is written by hand."""
        return layer in self.names.hand


@dataclasses.dataclass(frozen=True)
class Field:
    ctype: str
    name: str
    comment: str  # text for the docs; no meaning is read from it
    annotated: str | None = None  # the kind its annotation gives: duration, time, flag, enum, bits
    enum: str | None = None  # INACT_ENUM(e) / INACT_BITS(e)
    nullable: bool = False  # INACT_NULLABLE on a time or duration: INACT_NEVER there means none (absent)

    @property
    def kind(self) -> str:
        """What the field carries, for the bindings: its annotation's kind (duration, time, flag,
        enum, bits), else by C type: size (the size prefix), id (uint64_t), count."""
        if self.name == "size":
            return "size"
        if self.annotated:
            return self.annotated
        if self.ctype in ("uint64_t", "inact_engine"):
            return "id"
        return "count"


@dataclasses.dataclass(frozen=True)
class Struct:
    name: str
    doc: str
    fields: tuple[Field, ...]

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)


@dataclasses.dataclass(frozen=True)
class EnumValue:
    name: str
    value: int
    comment: str


@dataclasses.dataclass(frozen=True)
class Enum:
    name: str
    doc: str
    values: tuple[EnumValue, ...]


@dataclasses.dataclass(frozen=True)
class Status:
    name: str
    value: int
    message: str
    category: str = ""  # names.toml [statuses]: the error category every binding raises for it


@dataclasses.dataclass(frozen=True)
class Names:
    """A function's row of names.toml: what each binding calls it ("" = no such method), its
    conformance op ("" = none), and the generated layers that leave it to hand code."""
    core: str
    python: str
    kotlin: str
    js: str
    op: str
    hand: frozenset[str]
    # In the WebAssembly module (bindings/js): false for a function the JS binding never calls,
    # left out so that the linker drops its code (issue 30: the module's size goal).
    wasm: bool = True
    # How each binding takes the op's arguments where it differs from C's positional order
    # (names.toml's header says each; the conformance runners read them from ops.json).
    python_args: tuple[str, ...] = ()
    js_args: tuple[str, ...] = ()
    swift_labels: tuple[str, ...] = ()
    swift_throws: bool = True
    kotlin_order: tuple[int, ...] = ()
    kotlin_property: bool = False


@dataclasses.dataclass(frozen=True)
class Category:
    """An error category of names.toml: its parent category ("" = the base error) and each
    binding's class for it."""
    name: str
    parent: str
    python: str
    python_bases: tuple[str, ...]
    kotlin: str
    js: str
    doc: str
    base: bool = False  # the base error of every binding (InactivityError, InactivityException)
    errno: bool = False  # carries the system's error number (inact_last_errno)


@dataclasses.dataclass(frozen=True)
class Model:
    functions: tuple[Function, ...]
    structs: dict[str, Struct]
    enums: dict[str, Enum]
    statuses: tuple[Status, ...]
    constants: dict[str, str]
    categories: dict[str, Category] = dataclasses.field(default_factory=dict)
    # names.toml [enums]: enum -> {"python": ..., "kotlin": ..., "js": ...} ("" = none)
    enum_names: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    # names.toml [fields]: struct -> field -> {"python": ..., "kotlin": ..., "python_default": ...}
    field_names: dict[str, dict[str, dict[str, str]]] = dataclasses.field(default_factory=dict)

    def field_override(self, struct: str, field: str, key: str) -> str | None:
        """A field's override in names.toml [fields] (None: none; "" for a name: the binding leaves
        the field out)."""
        return self.field_names.get(struct, {}).get(field, {}).get(key)

    def function(self, name: str) -> Function:
        return next(f for f in self.functions if f.name == name)


def _clean_doc(block: str) -> str:
    lines = []
    for line in block.splitlines():
        line = line.strip()
        line = re.sub(r"^/\*\*?|\*/$", "", line).strip()
        line = re.sub(r"^\* ?", "", line)
        lines.append(line.rstrip())
    return "\n".join(lines).strip()


def _annotations(text: str, where: str) -> tuple[str, set[str], str | None, str | None]:
    """Splits the leading annotations off a declaration: (the rest, the flags OUT/INOUT/NULLABLE,
    the value kind, the enum named)."""
    flags: set[str] = set()
    kind = enum = None
    while m := _ANNOTATION.match(text):
        word = m.group(1).split("(")[0]
        if word in _KINDS:
            if kind:
                raise HeaderError(f"{where}: two kind annotations in {text!r}")
            kind, enum = _KINDS[word], m.group(2)
        else:
            flags.add(word.removeprefix("INACT_"))
        text = text[m.end():]
    if re.search(r"\bINACT_[A-Z_]+\(|\bINACT_(OUT|INOUT|NULLABLE|MS|TIME_MS|BOOL)\b", text):
        raise HeaderError(f"{where}: an annotation goes before the type: {text.strip()!r}")
    return text.strip(), flags, kind, enum


def _check_kind(ctype: str, name: str, kind: str | None, where: str) -> None:
    if kind and ctype != _KIND_CTYPE[kind]:
        raise HeaderError(f"{where}: {name}: a {kind} annotation on {ctype} (wants {_KIND_CTYPE[kind]})")
    if kind is None and ctype == "int64_t" and name.endswith("_ms"):
        raise HeaderError(f"{where}: {name}: an int64_t ..._ms without INACT_MS (a duration) or "
                          "INACT_TIME_MS (an instant)")


def _params(text: str, doc: str, where: str) -> tuple[Param, ...]:
    text = " ".join(text.split())
    if text == "void":
        return ()
    params = []
    for part in text.split(","):
        rest, flags, kind, enum = _annotations(part, where)
        m = re.fullmatch(r"\s*(.+?)\s*\b([a-z_][a-z0-9_]*)\s*", rest)
        if not m:
            raise HeaderError(f"{where}: cannot read parameter {part!r}")
        ctype = re.sub(r"\s*\*\s*", " *", m.group(1)).strip()
        name = m.group(2)
        pointer = ctype.endswith("*")
        if flags & {"OUT", "INOUT"} and (not pointer or ctype.startswith("const")):
            raise HeaderError(f"{where}: {name}: INACT_OUT/INACT_INOUT on {ctype} (wants a non-const pointer)")
        if pointer and not ctype.startswith("const") and ctype != "void *" and not flags & {"OUT", "INOUT"}:
            raise HeaderError(f"{where}: {name}: a non-const pointer wants INACT_OUT or INACT_INOUT")
        if "NULLABLE" in flags and not (pointer or ctype in ("inact_callback", "inact_user_data_free")):
            raise HeaderError(f"{where}: {name}: INACT_NULLABLE on {ctype}, not a pointer")
        _check_kind(ctype.rstrip("*").strip() if pointer else ctype, name, kind, where)
        params.append(Param(ctype, name, "NULLABLE" in flags, "OUT" in flags, "INOUT" in flags, kind, enum))
    return tuple(params)


_BANNER = re.compile(r"/\* -{10,}\n \* ([^\n]*?)(?:\.|\n)")
_FUNC = re.compile(r"(/\*\*(?:(?!\*/).)*?\*/)\s*INACT_EXPORT\s+([^;(]*?)\b(inact_[a-z0-9_]+)\s*\(((?:[^()]|\([a-z_ ]*\))*)\)\s*;", re.S)
_STRUCT = re.compile(r"(/\*\*(?:(?!\*/).)*?\*/)\s*typedef struct (inact_[a-z_]+) \{\n(.*?)\n\} \2;", re.S)
_ENUM = re.compile(r"(/\*\*(?:(?!\*/).)*?\*/)\s*typedef enum (inact_[a-z_]+) \{\n(.*?)\n\} \2;", re.S)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _fields(body: str, where: str) -> tuple[Field, ...]:
    fields: list[Field] = []
    open_comment = False
    for raw in body.splitlines():
        line = raw.strip()
        if not line:
            continue
        m = None if open_comment else re.fullmatch(
            r"((?:INACT_[A-Z_]+(?:\(\s*inact_[a-z_]+\s*\))?\s+)*)([a-z_0-9]+(?: [a-z_0-9]+)?)\s+([a-z_0-9]+);"
            r"\s*(?:/\*\s*(.*?)\s*(\*/)?)?", line)
        if m:
            rest, flags, kind, enum = _annotations(m.group(1) + "x", where)
            if rest != "x":
                raise HeaderError(f"{where}: cannot read the annotations of {raw!r}")
            _check_kind(m.group(2), m.group(3), kind, where)
            if flags - {"NULLABLE"}:
                raise HeaderError(f"{where}: {m.group(3)}: {', '.join(sorted(flags))} on a struct field "
                                  "(only INACT_NULLABLE, on a time or duration)")
            if "NULLABLE" in flags and kind not in ("time", "duration"):
                raise HeaderError(f"{where}: {m.group(3)}: INACT_NULLABLE on a field that is not an INACT_TIME_MS "
                                  "or INACT_MS (its INACT_NEVER is what means none)")
            comment = m.group(4) or ""
            fields.append(Field(m.group(2), m.group(3), comment, kind, enum, "NULLABLE" in flags))
            open_comment = m.group(4) is not None and m.group(5) is None
            continue
        if fields and open_comment:
            open_comment = not line.endswith("*/")
            # the comment of the field above goes on
            fields[-1] = dataclasses.replace(
                fields[-1], comment=(fields[-1].comment + " " + line.removesuffix("*/").strip()).strip())
            continue
        raise HeaderError(f"{where}: cannot read struct line {raw!r}")
    return tuple(dataclasses.replace(f, comment=f.comment.removesuffix("*/").strip()) for f in fields)


def _eval(value: str) -> int:
    value = value.strip()
    m = re.fullmatch(r"(-?\d+)\s*<<\s*(\d+)", value)
    if m:
        return int(m.group(1)) << int(m.group(2))
    return int(value, 0)


def _enum_values(body: str, where: str) -> tuple[EnumValue, ...]:
    values: list[EnumValue] = []
    for raw in body.splitlines():
        line = raw.strip()
        if not line:
            continue
        m = re.fullmatch(r"(INACT_[A-Z0-9_]+)\s*=\s*([^,/]+?),?\s*(?:/\*\s*(.*?)\s*(\*/)?)?", line)
        if m:
            values.append(EnumValue(m.group(1), _eval(m.group(2)), m.group(3) or ""))
            continue
        if values and not line.startswith("INACT_"):
            prev = values[-1]
            values[-1] = EnumValue(prev.name, prev.value, (prev.comment + " " + line.removesuffix("*/").strip()).strip())
            continue
        raise HeaderError(f"{where}: cannot read enum line {raw!r}")
    return tuple(EnumValue(v.name, v.value, v.comment.removesuffix("*/").strip()) for v in values)


def load(path: Path = HEADER) -> Model:
    text = path.read_text()
    banners = [(m.start(), m.group(1).strip()) for m in _BANNER.finditer(text)]

    def section(offset: int) -> str:
        title = ""
        for start, name in banners:
            if start < offset:
                title = name
        return title

    functions = []
    for m in _FUNC.finditer(text):
        doc = _clean_doc(m.group(1))
        where = f"{path.name}:{_line(text, m.start(3))}"
        restype = " ".join(m.group(2).split()).replace(" *", " *")
        functions.append(Function(m.group(3), restype.strip(), _params(m.group(4), doc, where), section(m.start()),
                                  doc, _line(text, m.start(3))))
    declared = re.findall(r"INACT_EXPORT\s+[^;(]*?\b(inact_[a-z0-9_]+)\s*\(", text)
    missing = sorted(set(declared) - {f.name for f in functions})
    if missing:
        raise HeaderError(f"{path.name}: declarations without a /** doc block */ directly above: {', '.join(missing)}")

    structs = {}
    for m in _STRUCT.finditer(text):
        where = f"{path.name}:{_line(text, m.start(2))}"
        structs[m.group(2)] = Struct(m.group(2), _clean_doc(m.group(1)), _fields(m.group(3), where))
    if len(structs) != len(re.findall(r"typedef struct inact_", text)):
        raise HeaderError(f"{path.name}: a struct without a /** doc block */ directly above")

    enums = {}
    for m in _ENUM.finditer(text):
        where = f"{path.name}:{_line(text, m.start(2))}"
        enums[m.group(2)] = Enum(m.group(2), _clean_doc(m.group(1)), _enum_values(m.group(3), where))

    statuses = tuple(Status(n, int(v), msg) for n, v, msg in
                     re.findall(r'XX\((INACT_[A-Z0-9_]+),\s*(-?\d+),\s*"([^"]*)"\)', text))
    if not statuses:
        raise HeaderError(f"{path.name}: no INACT_STATUS_TABLE rows")
    constants = dict(re.findall(r"^#define (INACT_[A-Z0-9_]+) ([^\\\n]+)$", text, re.M))
    named = [(f"{f.name}({p.name})", p.enum) for f in functions for p in f.params]
    named += [(f"{s.name}.{fl.name}", fl.enum) for s in structs.values() for fl in s.fields]
    for what, enum in named:
        if enum and enum not in enums and enum != "inact_status":  # inact_status: INACT_STATUS_TABLE
            raise HeaderError(f"{path.name}: {what} names {enum}, which the header does not declare")
    functions, statuses, categories = _names(functions, statuses)
    enum_names = tomllib.loads(NAMES.read_text()).get("enums", {})
    missing = sorted(set(enums) - set(enum_names))
    if missing:
        raise HeaderError(f"tools/codegen/names.toml has no [enums] row for {', '.join(missing)}: add "
                          f'`{missing[0]} = {{ python = "...", kotlin = "...", js = "..." }}`')
    return Model(tuple(functions), structs, enums, statuses, {k: v.strip() for k, v in constants.items()},
                 categories, enum_names, _field_names(structs))


# The keys of a names.toml [fields] row: a binding's name of the field ("" = left out of that
# binding's view), and the Python default of a field added after 1.0 (an expression).
FIELD_KEYS = ("python", "kotlin", "python_default")


def _field_names(structs: dict[str, Struct]) -> dict[str, dict[str, dict[str, str]]]:
    table = tomllib.loads(NAMES.read_text()).get("fields", {})
    for struct, rows in table.items():
        if struct not in structs:
            raise HeaderError(f"names.toml [fields]: {struct}: the header declares no such struct")
        for field, row in rows.items():
            if field not in {f.name for f in structs[struct].fields}:
                raise HeaderError(f"names.toml [fields]: {struct}.{field}: the header's {struct} has no such field")
            unknown = set(row) - set(FIELD_KEYS)
            if unknown:
                raise HeaderError(f"names.toml [fields]: {struct}.{field}: unknown keys {', '.join(sorted(unknown))} "
                                  f"(known: {', '.join(FIELD_KEYS)})")
            if any(not isinstance(v, str) for v in row.values()):
                raise HeaderError(f"names.toml [fields]: {struct}.{field}: every value is a string")
    return table


# The layers whose generated part leaves a function to hand code, as names.toml's `hand` lists them.
HAND_LAYERS = {
    "c": "Sources/CInactivity/library.c implements it (no Swift shim)",
    "shim": "its C shim is in Sources/InactivityCABI/Shims.swift",
    "jni": "its JNI native is in bindings/kotlin-jni/src/main/c/inactivity_jni.c",
    "py": "its Engine method is in bindings/python/src/inactivity/engine.py",
    "kt": "its method is in bindings/kotlin-jni/.../InactivityEngine.kt",
    "js": "its Engine method is in bindings/js/src/index.js and index.d.ts",
    "op": "its conformance op is written by hand in every runner (host state)",
    "fuzz": "its fuzz op is in verify/fuzz/inact_fuzz.c",
    "ctest": "its line of make_input is in Tests/CTests/test_state_table.c",
    "scen": "its scenario command is in Sources/InactivityScenarios/ScenarioParser.swift",
}


def _default_row(f: Function) -> str:
    short = f.short
    camel = short.split("_")[0] + "".join(w.capitalize() for w in short.split("_")[1:])
    return (f'{f.name} = {{ core = "{camel}", python = "{short}", kotlin = "{camel}", js = "{camel}", '
            f'op = "{short.replace("_", "-")}", hand = [] }}')


# The op keys of a names.toml row, each with the type its value must have.
_OP_KEYS = {"python_args": str, "js_args": str, "swift_labels": str, "swift_throws": bool, "kotlin_order": int,
            "kotlin_property": bool}


def _op_keys(f: Function, row: dict) -> dict:
    """A row's op keys, checked: a list names one entry per argument of the op (the function's
    arguments after the engine, without its outs)."""
    out = {}
    args = [p for p in f.params[1:] if not (p.is_out or p.is_inout)]
    for key, ty in _OP_KEYS.items():
        if key not in row:
            continue
        value = row[key]
        if ty is bool:
            if not isinstance(value, bool):
                raise HeaderError(f"names.toml: {f.name}: {key} must be true or false")
            out[key] = value
            continue
        if not isinstance(value, list) or len(value) != len(args) or not all(isinstance(v, ty) for v in value):
            raise HeaderError(f"names.toml: {f.name}: {key} must list one {ty.__name__} per argument "
                              f"({', '.join(p.name for p in args)})")
        if key == "kotlin_order" and sorted(value) != list(range(len(args))):
            raise HeaderError(f"names.toml: {f.name}: kotlin_order must order the arguments 0..{len(args) - 1}")
        out[key] = tuple(value)
    return out


def _names(functions: list[Function], statuses: tuple[Status, ...]
           ) -> tuple[list[Function], tuple[Status, ...], dict[str, Category]]:
    """Each function with its names.toml row, each status with its category."""
    table = tomllib.loads(NAMES.read_text())
    rows = table.get("functions", {})
    out = []
    for f in functions:
        row = rows.get(f.name)
        if row is None:
            raise HeaderError(f"tools/codegen/names.toml has no row for {f.name}: add one under [functions], e.g.\n"
                              f"  {_default_row(f)}\n(\"\" for a name a binding does not have; hand: the layers "
                              f"written by hand, of {', '.join(HAND_LAYERS)})")
        unknown = set(row) - {"core", "python", "kotlin", "js", "op", "hand", "wasm", *_OP_KEYS}
        bad = set(row.get("hand", [])) - set(HAND_LAYERS)
        if unknown or bad:
            raise HeaderError(f"names.toml: {f.name}: unknown {'keys ' + ', '.join(sorted(unknown)) if unknown else ''}"
                              f"{' hand layers ' + ', '.join(sorted(bad)) if bad else ''}")
        out.append(dataclasses.replace(f, names=Names(row.get("core", ""), row.get("python", ""), row.get("kotlin", ""),
                                                      row.get("js", ""), row.get("op", ""),
                                                      frozenset(row.get("hand", [])), row.get("wasm", True),
                                                      **_op_keys(f, row))))
        if not isinstance(row.get("wasm", True), bool):
            raise HeaderError(f"names.toml: {f.name}: wasm must be true or false")
        if not row.get("wasm", True) and (row.get("js", "") or row.get("op", "")):
            raise HeaderError(f"names.toml: {f.name}: wasm = false, yet the JS binding exposes it "
                              f"(js = \"{row.get('js', '')}\", op = \"{row.get('op', '')}\"): the module must export "
                              f"every function the binding calls")
    stale = set(rows) - {f.name for f in functions}
    if stale:
        raise HeaderError(f"names.toml: rows for functions the header does not declare: {', '.join(sorted(stale))}")
    cats = {}
    for name, row in table.get("categories", {}).items():
        unknown = set(row) - {"parent", "python", "python_bases", "kotlin", "js", "doc", "base", "errno"}
        if unknown:
            raise HeaderError(f"names.toml: category {name}: unknown keys {', '.join(sorted(unknown))}")
        cats[name] = Category(name, row.get("parent", ""), row["python"], tuple(row.get("python_bases", [])),
                              row["kotlin"], row["js"], row["doc"], row.get("base", False), row.get("errno", False))
    for c in cats.values():
        if c.parent and c.parent not in cats:
            raise HeaderError(f"names.toml: category {c.name}: unknown parent {c.parent}")
        if c.base and c.parent:
            raise HeaderError(f"names.toml: category {c.name}: the base error has no parent")
    if sum(c.base for c in cats.values()) != 1:
        raise HeaderError("names.toml: exactly one category is the base error (base = true)")
    given = table.get("statuses", {})
    new = []
    for s in statuses:
        if s.value == 0:
            new.append(s)
            continue
        cat = given.get(s.name)
        if cat is None:
            raise HeaderError(f"tools/codegen/names.toml has no category for {s.name}: add `{s.name} = \"<category>\"` "
                              f"under [statuses] (one of {', '.join(cats)})")
        if cat not in cats:
            raise HeaderError(f"names.toml: {s.name}: unknown category {cat}")
        new.append(dataclasses.replace(s, category=cat))
    stale = set(given) - {s.name for s in statuses}
    if stale:
        raise HeaderError(f"names.toml: statuses the header does not declare: {', '.join(sorted(stale))}")
    return out, tuple(new), cats
