"""Issue 32: Python reads and prints states, reasons, presets and activity kinds as every binding
does (the library's inact_*_string / inact_*_from_string), and words policy errors in its own
arguments and units (seconds), keeping the library's text in ``engine_message``."""

from __future__ import annotations

import pytest

import inactivity as ia
from inactivity import EngineClosedError, InvalidArgumentError, ManualClock, Policy, Preset, Reason, State


def test_presets_kinds_and_reasons_by_name() -> None:
    assert Policy.preset("banking") == Policy.preset(Preset.BANKING) == Policy.preset("BANKING") == Policy.preset(4)
    assert Policy.preset("pci-dss") == Policy.preset(Preset.PCI_DSS)
    with pytest.raises(InvalidArgumentError) as caught:
        Policy.preset("bankng")
    assert caught.value.message == (
        'preset ("bankng") must be one of DEFAULT, NIST_AAL2, NIST_AAL3, PCI_DSS, BANKING, PSD2, ENTERPRISE')
    with pytest.raises(TypeError):
        Policy.preset(4.0)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        Policy.preset("BANKING\0x")  # not read as "BANKING"
    engine = ia.Engine(clock=ManualClock())
    engine.start()
    engine.activity("KEY")
    engine.activity("touch-down")
    with pytest.raises(InvalidArgumentError, match=r'^kind \("wink"\) must be one of TOUCH_DOWN, '):
        engine.activity("wink")
    engine.end("password_changed")
    assert engine.reason() is Reason.PASSWORD_CHANGED
    engine.close()


def test_states_and_reasons_print_as_names() -> None:
    engine = ia.Engine(clock=ManualClock())
    engine.start()
    assert str(engine.state()) == "ACTIVE" and f"{engine.reason()}" == "STARTED"
    assert repr(engine.state()) == "<State.ACTIVE: 1>"  # still the IntEnum
    assert State("locked") is State.LOCKED  # type: ignore[arg-type]  # a name: mypy types the value only
    assert Reason("idle-timeout") is Reason.IDLE_TIMEOUT  # type: ignore[arg-type]
    assert str(Preset.PSD2) == "PSD2"
    engine.close()


def test_policy_errors_name_the_python_argument_in_seconds() -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        ia.Engine(Policy(idle_timeout=-5), clock=ManualClock())
    assert caught.value.message == "idle_timeout (-5 s) must be >= 0"
    assert caught.value.engine_message == "policy.idle_timeout_ms (-5000) must be >= 0"
    with pytest.raises(InvalidArgumentError) as caught:
        Policy(warning=900, idle_timeout=900).validate()
    assert caught.value.message == "warning (900 s) must be shorter than idle_timeout (900 s)"
    with pytest.raises(InvalidArgumentError, match=r"^background_grace \(-0\.5 s\) must be >= 0 "):
        Policy(background_grace=-0.5).validate()
    with pytest.raises(TypeError, match="idle_timout"):
        Policy(idle_timout=5)  # type: ignore[call-arg]


def test_a_closed_engine_says_so_in_every_binding_s_words() -> None:
    engine = ia.Engine(clock=ManualClock())
    engine.close()
    with pytest.raises(EngineClosedError) as caught:
        engine.lock()
    assert caught.value.message == "the engine is closed"
