"""A session through an installed wheel, outside the repository and the toolchain.

Run by scripts/build-wheel --test (argument: the toolchain's directory, which must not be mapped).
"""
import sys
from datetime import timedelta
from pathlib import Path

import inactivity as ia

toolchain = sys.argv[1]
assert Path(ia.LIBRARY_PATH).parent == Path(ia.__file__).parent, ia.LIBRARY_PATH  # the bundled one
events = []
policy = ia.Policy(idle_timeout=60, warning=10, tick=0)
with ia.Engine(policy, on_event=events.append, clock=ia.ManualClock()) as engine:
    engine.start()
    engine.advance(50)
    engine.advance(10)
    assert engine.state() == ia.State.LOCKED, engine.state()
    engine.unlock()
    snapshot = engine.snapshot()
with ia.Engine(ia.Policy.preset(ia.Preset.BANKING)) as real:  # the system clock and scheduler
    real.start()
    assert real.state() == ia.State.ACTIVE
assert [e.state for e in events] == [ia.State.ACTIVE, ia.State.WARNING, ia.State.LOCKED, ia.State.ACTIVE]
maps = Path("/proc/self/maps").read_text()
assert toolchain not in maps, "a toolchain file is mapped into the process"
assert "libswiftCore.so" not in maps
print(f"wheel session ok on Python {sys.version.split()[0]}: inactivity {ia.__version__}, library {ia.LIBRARY_VERSION} from {ia.LIBRARY_PATH}")
