"""A policy as text: a preset's name, or a JSON or TOML file, the same for both ends of a session.

One file configures the client and the server (``inactivity-server --policy FILE``)::

    # banking.toml
    preset = "banking"          # optional: the fields start from this preset (else the defaults)
    idle-timeout = "5m"         # the scenario files' names and values (`set idle-timeout 5m`)
    absolute-timeout = "8h"
    idle-action = "lock"
    max-unlock-failures = 5

    [server]                    # read by the server half only (inactivity.server); see there
    precision = "1s"

The same as JSON: ``{"preset": "banking", "idle-timeout": "5m", "server": {"precision": "1s"}}``.

The field names are the C fields of ``inact_policy`` without ``_ms``, in kebab case, as the
scenario files write them, and follow the header (``_generated.ffi.POLICY_FIELDS``, generated), so a new
field is readable here without an edit. The values are written as in the scenario files:
durations as ``"90s"``, ``"1h30m"``, ``"500ms"``, ``"15:00"`` or ``"never"`` (a bare number is
refused: its unit would be a guess), flags as ``true``/``false`` (or ``"yes"``/``"no"``),
``idle-action`` as ``"lock"``/``"expire"``, ``activity-kinds`` as ``"user"``, ``"all"`` or kinds
joined by commas (``"touch-down,key"``), counts as integers. An unknown key, a misspelled preset
or a value of the wrong form is refused with a message naming the key and what it accepts; the
library then validates the policy as a whole (``Policy.validate``).
"""

from __future__ import annotations

import json
import os
import re
from datetime import timedelta
from typing import Any, Dict, Mapping, NamedTuple, Optional, Union

from . import enums
from ._generated import ffi as _ffi
from ._time import NEVER
from .enums import ActivityKind, IdleAction, Preset, Status
from .errors import InvalidArgumentError
from .policy import Policy
from ._strict import strict_keywords

__all__ = ["PolicyFile", "load_policy", "parse_duration_ms", "policy_from_mapping", "preset_names"]

_NEVER_MS = 2**63 - 1


class PolicyFile(NamedTuple):
    """What a policy file holds: the policy, and the server's own table (empty when absent)."""

    policy: Policy
    server: Dict[str, Any]


def preset_names() -> Dict[str, Preset]:
    """The presets by the names the scenario files and policy files use (``"nist-aal2"``)."""
    return {p.name.lower().replace("_", "-"): p for p in Preset}


def _error(source: str, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(Status.E_INVALID_ARGUMENT, f"{source}: {message}")


_UNITS = (("ms", 1), ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000))


def parse_duration_ms(text: str, *, allow_never: bool = True) -> Optional[int]:
    """Milliseconds for a duration as the scenario files write it (``"1h30m"``, ``"90s"``,
    ``"500ms"``, ``"15:00"``, ``"0:05.250"``, ``"never"``), or None when it is not one.
    Units go from large to small, each once; a bare number has no unit and is refused."""
    if text == "never":
        return _NEVER_MS if allow_never else None
    if ":" in text:
        m = re.fullmatch(r"(\d{1,6})(?::(\d\d))?:(\d\d)(?:\.(\d{1,3}))?", text)
        if not m:
            return None
        first, middle, last, frac = m.groups()
        fields = [int(first)] + ([int(middle)] if middle is not None else []) + [int(last)]
        if any(f >= 60 for f in fields[1:]):
            return None
        total = 0
        for f in fields:
            total = total * 60 + f
        millis = int(frac) * (1, 100, 10, 1)[len(frac)] if frac else 0
        return total * 1000 + millis
    total, rest, last_scale = 0, text, None
    if not rest:
        return None
    while rest:
        m = re.match(r"(\d{1,12})(ms|d|h|m|s)", rest)
        if not m:
            return None
        scale = dict(_UNITS)[m.group(2)]
        if last_scale is not None and scale >= last_scale:
            return None
        last_scale = scale
        total += int(m.group(1)) * scale
        rest = rest[m.end():]
    return total if total < _NEVER_MS else None


def _duration(source: str, key: str, value: Any, never: bool) -> Any:
    if isinstance(value, str):
        ms = parse_duration_ms(value, allow_never=never)
        if ms is not None:
            return NEVER if ms == _NEVER_MS else timedelta(milliseconds=ms)
    forms = '"90s", "1h30m", "500ms", "15:00"' + (' or "never"' if never else "")
    raise _error(source, f"{key} ({value!r}) must be a duration with its unit: {forms}")


def _flag(source: str, key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in ("yes", "true", "on"):
        return True
    if value in ("no", "false", "off"):
        return False
    raise _error(source, f"{key} ({value!r}) must be true or false")


def _activity_kinds(source: str, key: str, value: Any) -> ActivityKind:
    names = {(k.name or "").lower().replace("_", "-"): k for k in ActivityKind}
    if isinstance(value, str):
        if value in ("user", "all"):
            return names[value]
        kinds = ActivityKind(0)
        parts = value.split(",")
        if all(p in names and p not in ("user", "all") for p in parts):
            for p in parts:
                kinds |= names[p]
            return kinds
    accepted = ", ".join(n for n in names if n not in ("user", "all"))
    raise _error(source, f'{key} ({value!r}) must be "user", "all" or kinds joined by commas ({accepted})')


def _keys() -> Dict[str, tuple[str, str, str]]:
    """Every policy field by its file key: (Python field name, kind, enum name)."""
    return {name.replace("_", "-"): (name, kind, enum_name) for name, _, kind, enum_name in _ffi.POLICY_FIELDS}


def policy_from_mapping(mapping: Mapping[str, Any], source: str = "policy") -> PolicyFile:
    """The policy a parsed JSON/TOML document describes (see the module's doc for its keys);
    `source` names it in error messages (the file's path)."""
    if not isinstance(mapping, Mapping):
        raise _error(source, f"must be a table of policy fields, not {type(mapping).__name__}")
    keys = _keys()
    base = Policy()
    preset = mapping.get("preset")
    if preset is not None:
        presets = preset_names()
        if not isinstance(preset, str) or preset not in presets:
            raise _error(source, f"preset ({preset!r}) must be one of {', '.join(presets)}")
        base = Policy.preset(presets[preset])
    server = mapping.get("server", {})
    if not isinstance(server, Mapping):
        raise _error(source, f"server must be a table, not {type(server).__name__}")
    changes: Dict[str, Any] = {}
    for key, value in mapping.items():
        if key in ("preset", "server"):
            continue
        if key not in keys:
            raise _error(source, f"unknown key {key!r} (the keys: preset, server, {', '.join(keys)})")
        name, kind, enum_name = keys[key]
        if kind == "duration":
            # "never" is a value of every duration field here; the library refuses it where
            # the field has no never (warning, tick, ...), with the field's own rule.
            changes[name] = _duration(source, key, value, never=True)
        elif kind == "flag":
            changes[name] = _flag(source, key, value)
        elif kind == "bits" and enum_name == "ActivityKind":
            changes[name] = _activity_kinds(source, key, value)
        elif kind == "enum" and enum_name == "IdleAction":
            if value not in ("lock", "expire"):
                raise _error(source, f'{key} ({value!r}) must be "lock" or "expire"')
            changes[name] = IdleAction.LOCK if value == "lock" else IdleAction.EXPIRE
        elif kind == "enum":
            members = {m.name.lower().replace("_", "-"): m for m in getattr(enums, enum_name)}
            if value not in members:
                raise _error(source, f"{key} ({value!r}) must be one of {', '.join(members)}")
            changes[name] = members[value]
        else:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _error(source, f"{key} ({value!r}) must be a whole number >= 0")
            changes[name] = value
    policy = base.replace(**changes) if changes else base
    try:
        policy.validate()
    except InvalidArgumentError as e:
        raise _error(source, str(e)) from None
    return PolicyFile(policy, dict(server))


def load_policy(spec: Union[str, os.PathLike[str]]) -> PolicyFile:
    """A preset by name (``"banking"``, ``"nist-aal2"``, ...) or a ``.json`` / ``.toml`` file."""
    text = os.fspath(spec)
    presets = preset_names()
    if text in presets:
        return PolicyFile(Policy.preset(presets[text]), {})
    if not text.endswith((".json", ".toml")):
        raise _error(text, f"must be a preset ({', '.join(presets)}) or a .json or .toml file")
    try:
        with open(text, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise _error(text, f"cannot be read ({e.strerror})") from None
    try:
        if text.endswith(".json"):
            document = json.loads(raw.decode("utf-8"))
        else:
            try:
                import tomllib
            except ImportError:  # Python < 3.11
                raise _error(text, "TOML needs Python 3.11 or later (tomllib); use JSON") from None
            document = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise _error(text, f"is not valid {'JSON' if text.endswith('.json') else 'TOML'}: {e}") from None
    return policy_from_mapping(document, text)

# An unknown keyword is refused with the accepted ones listed (_strict, issue 32).
parse_duration_ms = strict_keywords(parse_duration_ms, "parse_duration_ms()")
policy_from_mapping = strict_keywords(policy_from_mapping, "policy_from_mapping()")
