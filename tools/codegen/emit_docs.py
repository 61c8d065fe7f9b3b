"""Docs target: the tables in README.md and docs/*.md, between the markers
`<!-- generated: NAME -->` and `<!-- end generated -->`: the field tables (from the header) and
the state diagram and rule tables (emit_rules, from the rule tables' rules.json). A block of a
name no table has fails, naming it."""

from __future__ import annotations

import re

from . import emit_rules
from .model import ROOT, HeaderError, Model, Struct

FILES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]


def _split(comment: str) -> tuple[str, str]:
    """"meaning; default X" -> (meaning, X); "0/1: ..." loses its "0/1: " (the kind column says it)."""
    m = re.search(r";\s*default (.*)$", comment)
    meaning, default = (comment[: m.start()], m.group(1)) if m else (comment, "")
    meaning = meaning.removeprefix("0/1: ").replace("->", "→").strip()
    return meaning, default.strip()


_KIND = {"duration": "ms", "time": "ms", "flag": "0/1", "enum": "enum", "bits": "bits", "count": "count", "id": "id"}


def _values(model: Model, enum: str) -> str:
    """"LOCK or EXPIRE": the short names of an enum's values."""
    values = model.enums[enum].values
    common = values[0].name
    for v in values[1:]:
        while not v.name.startswith(common):
            common = common[:-1]
    names = [v.name[len(common):] or v.name for v in values]
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


def _table(model: Model, struct: Struct, with_default: bool) -> str:
    head = "| field | type | meaning |" + (" default |" if with_default else "")
    rows = [head, "|---|---|---|" + ("---|" if with_default else "")]
    for field in struct.fields:
        if field.kind == "size":
            continue
        meaning, default = _split(field.comment)
        if field.kind == "enum" and field.enum and meaning.startswith(field.enum):
            rest = meaning[len(field.enum):].lstrip(" ;:")
            meaning = rest or _values(model, field.enum)
        if not meaning:
            meaning = "the policy field of this name may be at most this (NEVER: no limit)"
        kind = field.enum if field.kind in ("enum", "bits") and field.enum else _KIND[field.kind]
        row = f"| `{field.name}` | {kind} | {meaning} |"
        if with_default:
            row += f" {default or '—'} |"
        rows.append(row)
    return "\n".join(rows)


TABLES = {
    "policy-fields": lambda m: _table(m, m.structs["inact_policy"], True),
    "ceilings-fields": lambda m: _table(m, m.structs["inact_ceilings"], False),
    "info-fields": lambda m: _table(m, m.structs["inact_info"], False),
    **{name: (lambda m, render=render: render()) for name, render in emit_rules.TABLES.items()},
}

_BLOCK = re.compile(r"(<!-- generated: ([a-z0-9-]+) -->\n)(.*?)(<!-- end generated -->)", re.S)


def emit(model: Model) -> dict[str, str]:
    out = {}
    for name in FILES:
        path = ROOT / name
        if not path.exists():
            continue
        text = path.read_text()

        def replace(m: re.Match[str]) -> str:
            if m.group(2) not in TABLES:
                raise HeaderError(f"{name}: a generated block named {m.group(2)!r}, which no table renders")
            return f"{m.group(1)}{TABLES[m.group(2)](model)}\n{m.group(4)}"

        new = _BLOCK.sub(replace, text)
        if any(m.group(2) in TABLES for m in _BLOCK.finditer(text)):
            out[name] = new
    return out
