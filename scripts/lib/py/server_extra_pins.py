"""The [server] extra's pins from pyproject.toml.

Run by need_server_venv (scripts/lib/toolbox.sh), for scripts/lib/test-server and scripts/bench.
"""
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["optional-dependencies"]["server"]))
