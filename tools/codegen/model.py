"""The model: include/inactivity.h read into functions, structs, enums and status codes.

The header is hand-written and is the contract; this module reads its disciplined forms (and
fails, naming the line, on a form it does not know, so a new kind of declaration cannot be
skipped in silence):

- a function:  a `/** ... */` doc block, then `INACT_EXPORT <type> inact_<name>(<params>);`
  (one declaration, may span lines), under a section banner `/* ---...\n * <Title>. ...`;
- a struct:    `typedef struct inact_<name> {` one `<type> <field>; /* comment */` a line
  (a comment may go on over the next lines) `} inact_<name>;`;
- an enum:     `typedef enum inact_<name> {` one `INACT_<X> = <value>, /* comment */` a line;
- the status table: the `XX(INACT_<X>, <value>, "<message>")` rows of INACT_STATUS_TABLE;
- a constant:  `#define INACT_<X> <value>`.

Every emitter (emit_*.py) takes this model and nothing else from the header.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "include" / "inactivity.h"


class HeaderError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Param:
    ctype: str  # as written, normalized spaces: "const inact_policy *", "int64_t"
    name: str
    may_be_null: bool  # a pointer the doc block says may be NULL

    @property
    def is_pointer(self) -> bool:
        return self.ctype.endswith("*")

    @property
    def pointee(self) -> str:
        """The pointed-to type without const: "inact_policy" for "const inact_policy *"."""
        return self.ctype.rstrip("*").strip().removeprefix("const ").strip()

    @property
    def is_out(self) -> bool:
        """A non-const pointer to a scalar that the function writes (out_*)."""
        return self.is_pointer and not self.ctype.startswith("const") and self.name.startswith("out_")


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


@dataclasses.dataclass(frozen=True)
class Field:
    ctype: str
    name: str
    comment: str

    @property
    def kind(self) -> str:
        """What the field carries, for the bindings: duration, flag, enum, bits, count, id, size."""
        if self.name == "size":
            return "size"
        if self.ctype == "int64_t" and self.name.endswith("_ms"):
            return "duration"
        if self.ctype == "int32_t" and self.comment.startswith("0/1"):
            return "flag"
        if self.ctype == "uint32_t" and "bits" in self.comment:
            return "bits"
        if self.ctype == "int32_t" and self.comment.startswith("inact_"):
            return "enum"
        if self.ctype == "uint64_t":
            return "id"
        return "count"

    @property
    def enum(self) -> str | None:
        """The enum type a field names first in its comment ("inact_idle_action; default LOCK")."""
        m = re.match(r"(inact_[a-z_]+)", self.comment)
        return m.group(1) if m else None


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


@dataclasses.dataclass(frozen=True)
class Model:
    functions: tuple[Function, ...]
    structs: dict[str, Struct]
    enums: dict[str, Enum]
    statuses: tuple[Status, ...]
    constants: dict[str, str]

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


def _params(text: str, doc: str, where: str) -> tuple[Param, ...]:
    text = " ".join(text.split())
    if text == "void":
        return ()
    params = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*(.+?)\s*\b([a-z_][a-z0-9_]*)\s*", part)
        if not m:
            raise HeaderError(f"{where}: cannot read parameter {part!r}")
        ctype = re.sub(r"\s*\*\s*", " *", m.group(1)).strip()
        name = m.group(2)
        # "out_failures (may be NULL)", "each pointer may be NULL", "... or NULL"
        may_be_null = ctype.endswith("*") and bool(
            re.search(rf"\b{name}\b[^.;]*(may be NULL|or NULL)", doc) or "each pointer may be NULL" in doc
            or re.search(r"Each pointer may be\s+NULL", doc)
        )
        params.append(Param(ctype, name, may_be_null))
    return tuple(params)


_BANNER = re.compile(r"/\* -{10,}\n \* ([^\n]*?)(?:\.|\n)")
_FUNC = re.compile(r"(/\*\*(?:(?!\*/).)*?\*/)\s*INACT_EXPORT\s+([^;]*?)\b(inact_[a-z0-9_]+)\s*\(([^)]*)\)\s*;", re.S)
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
            r"([a-z_0-9]+(?: [a-z_0-9]+)?)\s+([a-z_0-9]+);\s*(?:/\*\s*(.*?)\s*(\*/)?)?", line)
        if m:
            comment = m.group(3) or ""
            fields.append(Field(m.group(1), m.group(2), comment))
            open_comment = m.group(3) is not None and m.group(4) is None
            continue
        if fields and open_comment:
            open_comment = not line.endswith("*/")
            # the comment of the field above goes on
            prev = fields[-1]
            fields[-1] = Field(prev.ctype, prev.name, (prev.comment + " " + line.removesuffix("*/").strip()).strip())
            continue
        raise HeaderError(f"{where}: cannot read struct line {raw!r}")
    return tuple(Field(f.ctype, f.name, f.comment.removesuffix("*/").strip()) for f in fields)


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
    return Model(tuple(functions), structs, enums, statuses, {k: v.strip() for k, v in constants.items()})
