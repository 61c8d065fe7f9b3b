"""The cold start's figures, printed.

Run by scripts/bench, with the arguments it passes.
"""
import json, sys
d = json.load(open(sys.argv[1]))
print(f"bench: cold: load {d['load_before']} before, {d['load_after']} after; to the decision, ms (median, p10)"
      "; stages, µs (median)")
for label, v in d["cold_start_ms"].items():
    stages = " ".join(f"{k} {x['median']:.1f}" for k, x in d["stages_us"].get(label, {}).items())
    print(f"bench:   {label:24s} {v['decision']['median']:.3f} {v['decision']['p10']:.3f}   {stages}")
