"""The machine's load after the run, into machine.json.

Run by scripts/bench, with the arguments it passes.
"""
import json, os, sys
m = json.load(open(sys.argv[1]))
m["load_after"] = list(os.getloadavg())
json.dump(m, open(sys.argv[1], "w"), indent=1)
