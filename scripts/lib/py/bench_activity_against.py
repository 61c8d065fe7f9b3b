"""C activity: this checkout against BENCH_ACTIVITY_AGAINST's, same run.

Run by scripts/bench, with the arguments it passes.
"""
import json, statistics, sys
results, variants = sys.argv[1], sys.argv[2:]
out = {}
for v in variants:
    rows = [json.load(open(f"{results}/c_activity_{v}_{r}.json"))["benchmarks"] for r in (1, 2, 3)]
    out[v] = {}
    # Each run times activity right after its floor: the ratio of the pair, then the median over
    # the runs of all rounds (a ratio of per-round medians mixes moments of different load). The
    # 4-thread figures are CPU time, which a loaded machine disturbs least.
    for name in rows[0]:
        if name.startswith("activity"):
            pairs = [a / f for b in rows for a, f in zip(b[name]["single_ns_runs"], b["floor"]["single_ns_runs"])]
            pairs4 = [a / f for b in rows
                      for a, f in zip(b[name]["threads4_cpu_ns_runs"], b["floor"]["threads4_cpu_ns_runs"])]
            q, q4 = statistics.quantiles(pairs, n=4), statistics.quantiles(pairs4, n=4)
            out[v][name] = {"runs": len(pairs),
                            "vs_floor": round(statistics.median(pairs), 3), "vs_floor_iqr": [round(q[0], 3), round(q[2], 3)],
                            "threads4_cpu_vs_floor": round(statistics.median(pairs4), 3),
                            "threads4_cpu_vs_floor_iqr": [round(q4[0], 3), round(q4[2], 3)]}
json.dump(out, sys.stdout, indent=1)
print()
