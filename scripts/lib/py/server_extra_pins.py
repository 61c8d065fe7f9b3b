"""The [server] extra's pins from pyproject.toml.

Run by scripts/lib/test-server, with the arguments it passes.
"""
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["optional-dependencies"]["server"]))
