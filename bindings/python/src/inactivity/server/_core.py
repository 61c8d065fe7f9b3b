"""The one place the server package meets the core's decision (``inact_server_decide``).

Every state, reason, deadline and count the server answers with comes from ``decide``; this
package stores records, moves them over the wire and never judges them itself.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

from .._server_core import Decision, ServerInput, decide
from ..enums import Reason, State

__all__ = ["Decision", "Input", "decide", "reason_name", "reason_value", "state_name"]

#: The inputs of inact_server_decide (``inact_server_input``).
Input = ServerInput


def state_name(value: Any) -> str:
    try:
        return State(int(value)).name
    except ValueError:
        return str(int(value))


def reason_name(value: Any) -> str:
    try:
        return Reason(int(value)).name
    except ValueError:
        return str(int(value))


def reason_value(name: str) -> Optional[int]:
    """The reason named `name` (as on the wire), or None."""
    member = Reason.__members__.get(name)
    return None if member is None else int(member)


def run(policy: Any, record: Optional[bytes], now_ms: int, input: Input, arg: int, precision_ms: int) -> Tuple[Decision, Optional[bytes]]:
    return decide(policy, record, now_ms, int(input), arg, precision_ms)
