"""A session through the installed Python package: it must load the library bundled in
site-packages. Run by scripts/lib/test-packaging from a directory outside the repository.
"""
import sys
from pathlib import Path

import inactivity as ia

site = Path(ia.__file__).parent
assert Path(ia.LIBRARY_PATH).parent == site, f"library loaded from {ia.LIBRARY_PATH}, not {site}"
assert "site-packages" in str(site), site
events = []
with ia.Engine(ia.Policy(idle_timeout=60, warning=10, tick=0), on_event=events.append, clock=ia.ManualClock()) as engine:
    engine.start()
    engine.advance(60)
    assert engine.state() == ia.State.LOCKED, engine.state()
assert [e.state for e in events] == [ia.State.ACTIVE, ia.State.WARNING, ia.State.LOCKED], events
print(f"session ok: library {ia.LIBRARY_VERSION} from {ia.LIBRARY_PATH}")
