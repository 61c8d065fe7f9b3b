"""Collects the benchmark outputs of one scripts/bench run, computes the ratios against the
same-run baselines and the targets of issue 8, prints the table and writes results.json.

Usage: python3 report.py RESULTS_DIR OUTPUT_JSON

RESULTS_DIR holds what scripts/bench wrote: c_activity.json, scale_<mode>_<n>.json (one per
repeated run), python.json, jvm.json, footprint.json, machine.json; a part that could not run
leaves <part>.skipped with the reason instead, and is reported as "not measured".
"""

from __future__ import annotations

import glob
import json
import os
import re
import statistics
import sys
from typing import Any, Dict, List, Optional

KIB = 1024


def load(path: str) -> Optional[Any]:
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def skipped(results: str, part: str) -> Optional[str]:
    path = os.path.join(results, f"{part}.skipped")
    if os.path.exists(path):
        with open(path) as f:
            return f.read().strip() or "skipped"
    return None


def runs_of(results: str, mode: str) -> List[Dict[str, Any]]:
    out = []
    for path in sorted(glob.glob(os.path.join(results, f"scale_{mode}_*.json"))):
        out.append(load(path))
    return out


def med(values: List[float]) -> float:
    return statistics.median(values)


class Table:
    def __init__(self) -> None:
        self.rows: List[List[str]] = []
        self.targets: List[Dict[str, Any]] = []

    def section(self, title: str) -> None:
        self.rows.append(["", "", "", ""])
        self.rows.append([f"== {title}", "", "", ""])

    def row(self, name: str, value: str, note: str = "", status: str = "") -> None:
        self.rows.append([name, value, note, status])

    def target(self, name: str, goal: str, value: Optional[float], ok: Optional[bool], shown: str) -> str:
        status = "not measured" if ok is None else ("met" if ok else "MISSED")
        self.targets.append({"target": name, "goal": goal, "value": value, "shown": shown, "status": status})
        return status

    def print(self) -> None:
        widths = [max(len(r[i]) for r in self.rows if not r[0].startswith("== ")) for i in range(4)]
        for r in self.rows:
            if r[0].startswith("== "):
                print(r[0])
                continue
            if not any(r):
                print()
                continue
            print(f"  {r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[3]:<{widths[3]}}  {r[2]}".rstrip())


def fmt_ns(ns: float) -> str:
    return f"{ns:,.1f} ns" if ns < 10_000 else f"{ns / 1000:,.1f} us"


def main() -> int:
    results, output = sys.argv[1], sys.argv[2]
    t = Table()
    out: Dict[str, Any] = {"machine": load(os.path.join(results, "machine.json"))}

    m = out["machine"] or {}
    if m:
        print(f"machine: {m.get('cpu')} x{m.get('cpus')} ({m.get('hypervisor') or 'no hypervisor'}, clocksource "
              f"{m.get('clocksource')}), {m.get('memory_gib')} GiB, {m.get('os')}, kernel {m.get('kernel')}")
        print(f"         {m.get('swift')}; {m.get('gcc')}; Python {m.get('python')}")
        la, lb = m.get("load_after"), m.get("load_before")
        # Results of an older run (verify/bench/results*.json) keep the version they measured.
        version = m.get("version") or ((load(os.path.join(results, "python.json")) or {}).get("binding_version"))
        print(f"version {version or 'not recorded'}, commit {m.get('commit')}"
              f"{' (+ uncommitted changes in Sources/bindings)' if m.get('dirty_sources') else ''};"
              f" load average before {' '.join(f'{x:.2f}' for x in lb or [])}"
              + (f", after {' '.join(f'{x:.2f}' for x in la)}" if la else ""))

    # ---- C -------------------------------------------------------------------------------
    c = load(os.path.join(results, "c_activity.json"))
    t.section("C: inact_activity (ns per call, median of runs)")
    if c is None:
        t.row("not measured", skipped(results, "c_activity") or "no output")
        t.target("C activity <= 1.5x floor", "<= 1.5", None, None, "not measured")
        t.target("C activity >= 10x faster than timerfd re-arm", ">= 10", None, None, "not measured")
    else:
        b = c["benchmarks"]
        fl, act, tfd, hp = b["floor"], b["activity"], b["timerfd_rearm"], b["heap_reinsert"]
        r_floor = act["single_ns"] / fl["single_ns"]
        r_tfd = tfd["single_ns"] / act["single_ns"]
        r_heap = hp["single_ns"] / act["single_ns"]
        s1 = t.target("C activity <= 1.5x floor (1 thread)", "<= 1.5", r_floor, r_floor <= 1.5, f"{r_floor:.2f}x")
        s2 = t.target("C activity >= 10x faster than timerfd re-arm (1 thread)", ">= 10", r_tfd, r_tfd >= 10,
                      f"{r_tfd:.1f}x")
        t.row("1 thread: floor (BOOTTIME read + relaxed store)", fmt_ns(fl["single_ns"]))
        t.row("1 thread: inact_activity", fmt_ns(act["single_ns"]), f"{r_floor:.2f}x floor (goal <= 1.5x)", s1)
        t.row("1 thread: timerfd_settime per event", fmt_ns(tfd["single_ns"]),
              f"activity is {r_tfd:.1f}x faster (goal >= 10x)", s2)
        t.row("1 thread: heap re-insert per event (mutex)", fmt_ns(hp["single_ns"]),
              f"activity is {r_heap:.1f}x faster")
        if "activity_keepalive" in b:  # 1.3 on: an engine with keepalive_interval_ms = 1000
            ka = b["activity_keepalive"]
            t.row("1 thread: inact_activity, keepalive every 1 s", fmt_ns(ka["single_ns"]),
                  f"{ka['single_ns'] / fl['single_ns']:.2f}x floor; 4 threads "
                  f"{ka['threads4_cpu_ns'] / fl['threads4_cpu_ns']:.2f}x")
        r4_floor = act["threads4_cpu_ns"] / fl["threads4_cpu_ns"]
        r4_tfd = tfd["threads4_cpu_ns"] / act["threads4_cpu_ns"]
        r4_heap = hp["threads4_cpu_ns"] / act["threads4_cpu_ns"]
        s3 = t.target("C activity <= 1.5x floor (4 threads, one engine)", "<= 1.5", r4_floor, r4_floor <= 1.5,
                      f"{r4_floor:.2f}x")
        s4 = t.target("C activity >= 10x faster than timerfd re-arm (4 threads)", ">= 10", r4_tfd, r4_tfd >= 10,
                      f"{r4_tfd:.1f}x")
        t.row("4 threads: floor (CPU ns per call)", fmt_ns(fl["threads4_cpu_ns"]),
              f"{fl['threads4_wall_mcalls_per_s']:.1f} Mcalls/s wall")
        t.row("4 threads: inact_activity", fmt_ns(act["threads4_cpu_ns"]),
              f"{r4_floor:.2f}x floor; {act['threads4_wall_mcalls_per_s']:.1f} Mcalls/s wall", s3)
        t.row("4 threads: timerfd_settime per event", fmt_ns(tfd["threads4_cpu_ns"]),
              f"activity is {r4_tfd:.1f}x faster; {tfd['threads4_wall_mcalls_per_s']:.2f} Mcalls/s wall", s4)
        t.row("4 threads: heap re-insert per event", fmt_ns(hp["threads4_cpu_ns"]),
              f"activity is {r4_heap:.1f}x faster; {hp['threads4_wall_mcalls_per_s']:.1f} Mcalls/s wall")
        out["c"] = {**c, "ratios": {"activity_over_floor": r_floor, "timerfd_over_activity": r_tfd,
                                    "heap_over_activity": r_heap, "threads4_activity_over_floor": r4_floor,
                                    "threads4_timerfd_over_activity": r4_tfd,
                                    "threads4_heap_over_activity": r4_heap}}

    # ---- Python ----------------------------------------------------------------------------
    py = load(os.path.join(results, "python.json"))
    t.section("Python: activity (ns per call, median of runs)")
    if py is None:
        t.row("not measured", skipped(results, "python") or "no output")
        t.target("Python binding <= 1.3x bare ctypes", "<= 1.3", None, None, "not measured")
    else:
        b = py["benchmarks"]
        r = b["binding"]["ns"] / b["ctypes"]["ns"]
        r_timer = b["timer"]["ns"] / b["binding"]["ns"]
        s = t.target("Python binding <= 1.3x bare ctypes", "<= 1.3", r, r <= 1.3, f"{r:.2f}x")
        t.row("bare ctypes inact_activity(h, kind)", fmt_ns(b["ctypes"]["ns"]))
        t.row("Engine.activity(ActivityKind.TOUCH_MOVE)", fmt_ns(b["binding"]["ns"]),
              f"{r:.2f}x bare ctypes (goal <= 1.3x)", s)
        t.row("threading.Timer cancel + start per event", fmt_ns(b["timer"]["ns"]),
              f"binding is {r_timer:.0f}x faster")
        out["python"] = {**py, "ratios": {"binding_over_ctypes": r, "timer_over_binding": r_timer}}
        bd = load(os.path.join(results, "python_breakdown.json"))
        if bd:
            bare = bd["bare ctypes call (no errcheck)"]
            errcheck = bd["ctypes call with the binding's errcheck"] - bare
            total = bd["Engine.activity(kind)"] - bare
            rest = total - errcheck - bd["check_int(kind, ...)"] - bd["self._finalizer.alive"]
            t.row("  binding overhead over bare ctypes (timeit)", f"{total:.0f} ns",
                  f"errcheck {errcheck:.0f}, check_int {bd['check_int(kind, ...)']:.0f}, "
                  f"_finalizer.alive {bd['self._finalizer.alive']:.0f}, "
                  f"the rest (method calls, *args, try/finally, _after_call) {rest:.0f} ns")
            out["python"]["breakdown_ns"] = bd

    # ---- JVM -------------------------------------------------------------------------------
    jvm = load(os.path.join(results, "jvm.json"))
    t.section("JVM: activity (ns per call, median of runs)")
    if jvm is None:
        t.row("not measured", skipped(results, "jvm") or "no output")
        t.target("JVM binding <= 1.5x empty JNI call", "<= 1.5", None, None, "not measured")
        t.target("JVM binding >= 5x faster than executor cancel+schedule", ">= 5", None, None, "not measured")
    else:
        b = jvm["benchmarks"]
        r = b["binding"]["ns"] / b["emptyJni"]["ns"]
        r_ex = b["executor"]["ns"] / b["binding"]["ns"]
        s1 = t.target("JVM binding <= 1.5x empty JNI call", "<= 1.5", r, r <= 1.5, f"{r:.2f}x")
        s2 = t.target("JVM binding >= 5x faster than executor cancel+schedule", ">= 5", r_ex, r_ex >= 5,
                      f"{r_ex:.1f}x")
        t.row("empty static native (J I)V", fmt_ns(b["emptyJni"]["ns"]))
        if "floorJni" in b:
            t.row("static native doing the C floor (clock + store)", fmt_ns(b["floorJni"]["ns"]),
                  f"{b['floorJni']['ns'] / b['emptyJni']['ns']:.2f}x empty JNI: the least a clock read costs here")
        t.row("NativeCalls.activity (glue only)", fmt_ns(b["glue"]["ns"]),
              f"{b['glue']['ns'] / b['emptyJni']['ns']:.2f}x empty JNI")
        t.row("InactivityEngine.activity(TOUCH_MOVE)", fmt_ns(b["binding"]["ns"]),
              f"{r:.2f}x empty JNI (goal <= 1.5x)"
              + (f"; {b['binding']['ns'] / b['floorJni']['ns']:.2f}x the JNI floor" if "floorJni" in b else ""), s1)
        t.row("ScheduledExecutor cancel + schedule per event", fmt_ns(b["executor"]["ns"]),
              f"binding is {r_ex:.1f}x faster (goal >= 5x)", s2)
        ratios = {"binding_over_empty_jni": r, "executor_over_binding": r_ex}
        if "floorJni" in b:
            ratios["binding_over_floor_jni"] = b["binding"]["ns"] / b["floorJni"]["ns"]
        out["jvm"] = {**jvm, "ratios": ratios}

    # ---- Scale -----------------------------------------------------------------------------
    t.section("Scale (median over separate processes)")
    mem = runs_of(results, "memory")
    if mem:
        per = med([m["bytes_per_engine"] for m in mem])
        per_created = med([m["bytes_per_engine_created"] for m in mem])
        s = t.target("<= 256 bytes per engine at 1e6 engines", "<= 256", per, per <= 256, f"{per:.0f} B")
        t.row(f"resident memory per engine ({mem[0]['engines']:,} engines, started)", f"{per:.0f} B",
              f"{per_created:.0f} B after create, before start (goal <= 256 B)", s)
        t.row("create rate", f"{med([m['create_per_s'] for m in mem]) / 1e6:.2f} M/s")
        t.row("start rate", f"{med([m['start_per_s'] for m in mem]) / 1e6:.2f} M/s")
        t.row("destroy rate", f"{med([m['destroy_per_s'] for m in mem]) / 1e6:.2f} M/s")
        out["scale_memory"] = {"bytes_per_engine": per, "bytes_per_engine_created": per_created,
                               "create_per_s": med([m["create_per_s"] for m in mem]),
                               "start_per_s": med([m["start_per_s"] for m in mem]),
                               "destroy_per_s": med([m["destroy_per_s"] for m in mem]), "runs": mem}
    else:
        t.row("memory: not measured", skipped(results, "scale_memory") or "no output")
        t.target("<= 256 bytes per engine at 1e6 engines", "<= 256", None, None, "not measured")

    wk = runs_of(results, "wakeups")
    if wk:
        idle_max = max(max(w["nothing_due"]["wakeups_during_activity"], w["nothing_due"]["wakeups_while_idle"])
                       for w in wk)
        s = t.target("0 scheduler wake-ups while nothing is due", "== 0", idle_max, idle_max == 0, str(idle_max))
        n = wk[0]["engines"]
        t.row(f"wake-ups, nothing due, {n:,} engines under activity", str(max(w['nothing_due']['wakeups_during_activity'] for w in wk)),
              f"while {med([w['nothing_due']['activity_calls_per_s'] for w in wk]) / 1e6:.1f} M activity calls/s", s)
        t.row("wake-ups, nothing due, no calls", str(max(w["nothing_due"]["wakeups_while_idle"] for w in wk)),
              "(max over runs)", s)
        mv_rate = med([w["moving_deadlines"]["wakeups_per_s"] for w in wk])
        mv_calls = med([w["moving_deadlines"]["activity_calls_per_s"] for w in wk])
        t.row(f"wake-ups/s, {n:,} engines, 2 s idle kept moving by activity", f"{mv_rate:.1f}/s",
              f"vs {mv_calls / 1e6:.1f} M timer re-arms/s if re-armed per event; "
              f"scheduler CPU {med([w['moving_deadlines']['scheduler_cpu_s'] for w in wk]):.2f} s"
              f" in {wk[0]['moving_deadlines']['seconds']:.1f} s")
        out["scale_wakeups"] = {"nothing_due_max": idle_max, "moving_wakeups_per_s": mv_rate,
                                "moving_activity_calls_per_s": mv_calls, "runs": wk}
    else:
        t.row("wake-ups: not measured", skipped(results, "scale_wakeups") or "no output")
        t.target("0 scheduler wake-ups while nothing is due", "== 0", None, None, "not measured")

    lt = runs_of(results, "lateness")
    if lt:
        p50 = med([x["lateness_ms"]["p50"] for x in lt])
        p99 = med([x["lateness_ms"]["p99"] for x in lt])
        mx = max(x["lateness_ms"]["max"] for x in lt)
        early = sum(x["early"] + x["event_time_not_deadline"] for x in lt)
        load1 = (out.get("machine") or {}).get("load_before", [None])[0]
        s = t.target("lateness p99 <= 2 ms (idle machine)", "<= 2 ms", p99, p99 <= 2.0, f"{p99:.3f} ms")
        s2 = t.target("transitions never early", "== 0", early, early == 0, str(early))
        t.row(f"lateness, {lt[0]['engines']:,} engines over {lt[0]['spread_ms']} ms: p50", f"{p50:.3f} ms")
        t.row("  p99", f"{p99:.3f} ms", f"goal <= 2 ms on an idle machine (1-min load before: {load1:.2f})" if load1 is not None else "goal <= 2 ms", s)
        t.row("  max (over runs)", f"{mx:.3f} ms")
        t.row("  early transitions", str(early), "arrival before deadline or event time != deadline", s2)
        out["scale_lateness"] = {"p50_ms": p50, "p99_ms": p99, "max_ms": mx, "early": early, "runs": lt}
    else:
        t.row("lateness: not measured", skipped(results, "scale_lateness") or "no output")
        t.target("lateness p99 <= 2 ms (idle machine)", "<= 2 ms", None, None, "not measured")
    burst = runs_of(results, "burst")
    if burst:
        t.row(f"burst: {burst[0]['engines']:,} engines due within {med([b['start_window_ms'] for b in burst]):.0f} ms: p50",
              f"{med([b['lateness_ms']['p50'] for b in burst]):.3f} ms")
        t.row("  p99 / max", f"{med([b['lateness_ms']['p99'] for b in burst]):.3f} ms",
              f"max {max(b['lateness_ms']['max'] for b in burst):.3f} ms (the cost of delivering them all in a row)")
        out["scale_burst"] = {"p50_ms": med([b["lateness_ms"]["p50"] for b in burst]),
                              "p99_ms": med([b["lateness_ms"]["p99"] for b in burst]),
                              "max_ms": max(b["lateness_ms"]["max"] for b in burst), "runs": burst}

    # ---- Footprint -------------------------------------------------------------------------
    fp = load(os.path.join(results, "footprint.json"))
    t.section("Footprint (stripped, strip --strip-all)")
    if fp is None:
        t.row("not measured", skipped(results, "footprint") or "no output")
        t.target("dynamic library <= 300 KiB stripped", "<= 300 KiB", None, None, "not measured")
        t.target("self-contained library <= 1.1x empty self-contained baseline", "<= 1.1", None, None, "not measured")
    else:
        dyn, sta = fp["dynamic"], fp["static"]
        edyn, esta = fp["empty_dynamic"], fp["empty_static"]
        r = sta["stripped_bytes"] / esta["stripped_bytes"]
        s1 = t.target("dynamic library <= 300 KiB stripped", "<= 300 KiB", dyn["stripped_bytes"],
                      dyn["stripped_bytes"] <= 300 * KIB, f"{dyn['stripped_bytes'] / KIB:.0f} KiB")
        s2 = t.target("self-contained library <= 1.1x empty self-contained baseline", "<= 1.1", r, r <= 1.1,
                      f"{r:.2f}x")
        t.row("libinactivity.so, dynamic", f"{dyn['stripped_bytes'] / KIB:,.0f} KiB",
              f"goal <= 300 KiB; needs {len(dyn['swift_runtime_dependencies'])} Swift runtime libraries", s1)
        t.row("empty library, dynamic (baseline)", f"{edyn['stripped_bytes'] / KIB:,.0f} KiB")
        t.row("libinactivity.so, -static-stdlib", f"{sta['stripped_bytes'] / KIB:,.0f} KiB",
              f"{r:.2f}x the empty baseline (goal <= 1.1x); +{(sta['stripped_bytes'] - esta['stripped_bytes']) / KIB:,.0f} KiB", s2)
        t.row("empty library, -static-stdlib (baseline)", f"{esta['stripped_bytes'] / KIB:,.0f} KiB")
        t.row("runtime deps (ldd), dynamic", str(len(dyn["dependencies"])),
              ", ".join(d["name"] for d in dyn["dependencies"]))
        t.row("runtime deps (ldd), -static-stdlib", str(len(sta["dependencies"])),
              ", ".join(d["name"] for d in sta["dependencies"]))
        if fp.get("static_growth"):
            g = fp["static_growth"]
            t.row("-static-stdlib growth over the baseline", f"{sum(g.values()) / KIB:,.0f} KiB",
                  "symbol bytes (nm -S): " +
                  ", ".join(f"{k} {v / KIB:,.0f} KiB" for k, v in sorted(g.items(), key=lambda kv: -kv[1])))
        out["footprint"] = {**fp, "ratios": {"static_over_empty_static": r}}

    # ---- Embedded --------------------------------------------------------------------------
    t.section("Embedded Swift library (scripts/build-embedded; no Swift runtime)")
    efp = load(os.path.join(results, "embedded_footprint.json"))
    if efp is None:
        t.row("not measured", skipped(results, "embedded") or "no output")
        t.target("Embedded library <= 300 KiB stripped on every CPU", "<= 300 KiB", None, None, "not measured")
    else:
        worst = max(v["stripped_bytes"] for v in efp.values())
        s = t.target("Embedded library <= 300 KiB stripped on every CPU", "<= 300 KiB", worst,
                     worst <= 300 * KIB, f"{worst / KIB:.0f} KiB (largest)")
        for arch, v in efp.items():
            t.row(f"libinactivity.so {arch}, stripped", f"{v['stripped_bytes'] / KIB:,.0f} KiB",
                  f"text {v['text_bytes'] / KIB:.0f} KiB, rodata {v['rodata_bytes'] / KIB:.0f} KiB, data "
                  f"{v['data_bytes'] / KIB:.0f} KiB; NEEDED {' '.join(v['needed'])}; LOAD align "
                  f"{'/'.join(hex(a) for a in v['load_align'])}", s)
        out["embedded_footprint"] = efp
    ea = load(os.path.join(results, "embedded_activity.json"))
    if ea is not None:
        b = ea["benchmarks"]
        r = b["activity"]["single_ns"] / b["floor"]["single_ns"]
        r4 = b["activity"]["threads4_cpu_ns"] / b["floor"]["threads4_cpu_ns"]
        s = t.target("Embedded C activity <= 1.35x floor (x86_64, 1 thread)", "<= 1.35", r, r <= 1.35, f"{r:.2f}x")
        swiftpm = (out.get("c") or {}).get("ratios", {}).get("activity_over_floor")
        t.row("Embedded: floor (same process)", fmt_ns(b["floor"]["single_ns"]))
        t.row("Embedded: inact_activity", fmt_ns(b["activity"]["single_ns"]),
              f"{r:.2f}x floor (goal <= 1.35x)" + (f"; SwiftPM build {swiftpm:.2f}x in this run" if swiftpm else ""), s)
        t.row("Embedded: inact_activity, 4 threads", fmt_ns(b["activity"]["threads4_cpu_ns"]), f"{r4:.2f}x floor")
        out["embedded_activity"] = {**ea, "ratios": {"activity_over_floor": r, "threads4_activity_over_floor": r4}}
    else:
        t.target("Embedded C activity <= 1.35x floor (x86_64, 1 thread)", "<= 1.35", None, None, "not measured")
    em = [load(p) for p in sorted(glob.glob(os.path.join(results, "embedded_memory_*.json")))]
    if em:
        per = med([m["bytes_per_engine"] for m in em])
        s = t.target("Embedded: <= 256 bytes per engine at 1e6 engines", "<= 256", per, per <= 256, f"{per:.0f} B")
        t.row(f"Embedded: resident memory per engine ({em[0]['engines']:,} engines, started)", f"{per:.0f} B",
              f"{med([m['bytes_per_engine_created'] for m in em]):.0f} B after create (goal <= 256 B); "
              f"create {med([m['create_per_s'] for m in em]) / 1e6:.2f} M/s", s)
        out["embedded_memory"] = {"bytes_per_engine": per, "runs": em}
    else:
        t.target("Embedded: <= 256 bytes per engine at 1e6 engines", "<= 256", None, None, "not measured")
    cold = load(os.path.join(results, "embedded_cold_x86_64.json"))
    cold_target = "Embedded cold start to the first decision <= 1 ms (spawn to the state known, x86_64)"
    if cold is not None:
        c_ms = cold["cold_start_ms"]
        empty = c_ms["empty"]["decision"]["median"]
        e = c_ms["embedded"]["decision"]["median"]
        s = t.target(cold_target, "<= 1 ms", e, e <= 1.0, f"{e:.3f} ms")
        for label, name in (("empty", "empty C program (process floor)"),
                            ("empty_one_so", "empty C program loading one trivial .so (by rpath)"),
                            ("empty_one_so_thread", "empty C program loading one trivial .so and starting one thread"),
                            ("swiftpm_dynamic", "SwiftPM library + Swift runtime .so files"),
                            ("swiftpm_static_stdlib", "SwiftPM library, -static-stdlib"),
                            ("embedded", "Embedded library"),
                            ("embedded_dlopen", "Embedded library, loaded by path (dlopen, as the bindings)"),
                            ("embedded_dlopen_loaded", "Embedded, dlopen by path, stopped once loaded"),
                            ("embedded_loaded", "Embedded, stopped at main (library loaded)"),
                            ("embedded_host", "Embedded, stopped after create (HOST delivery)"),
                            ("embedded_thread", "Embedded, stopped after create (scheduler thread)"),
                            ("embedded_base", "baseline Embedded library (BENCH_COLD_BASE), same run"),
                            ("embedded_base_dlopen", "baseline Embedded, loaded by path (dlopen)"),
                            ("embedded_base_host", "baseline Embedded, stopped after create (HOST)"),
                            ("embedded_base_thread", "baseline Embedded, stopped after create (thread)")):
            if label in c_ms:
                v, x = c_ms[label]["decision"], c_ms[label]["exit"]
                t.row(f"cold start, x86_64: {name}", f"{v['median']:.3f} ms",
                      f"p10 {v['p10']:.3f}, p90 {v['p90']:.3f}" +
                      ("" if label == "empty" else f"; {v['median'] - empty:+.3f} ms over the empty program") +
                      f"; to exit {x['median']:.3f} ms",
                      s if label == "embedded" else "")
        for label in ("embedded", "embedded_base", "embedded_dlopen", "embedded_base_dlopen"):
            st = cold.get("stages_us", {}).get(label)
            if st:
                t.row(f"cold start stages, {label} (µs, median)", f"{sum(x['median'] for x in st.values()):.0f}",
                      ", ".join(f"{k} {x['median']:.1f}" for k, x in st.items()))
        t.row("cold start: load average", " ".join(f"{x:.2f}" for x in cold.get("load_before", [])),
              "before; after: " + " ".join(f"{x:.2f}" for x in cold.get("load_after", [])))
        out["embedded_cold_x86_64"] = cold
    else:
        t.target(cold_target, "<= 1 ms", None, None, "not measured")
    cq = load(os.path.join(results, "embedded_cold_qemu.json"))
    if cq is not None:
        for arch in ("aarch64", "armv7"):
            v, z = cq["cold_start_ms"][f"embedded_{arch}"]["decision"], cq["cold_start_ms"][f"empty_{arch}"]["decision"]
            t.row(f"cold start under qemu-user, {arch}: Embedded", f"{v['median']:.2f} ms",
                  f"empty program under qemu {z['median']:.2f} ms ({v['median'] - z['median']:+.2f} ms); "
                  "emulator times, not a phone's")
        out["embedded_cold_qemu"] = cq

    # ---- lock ------------------------------------------------------------------------------
    lock_files = sorted(glob.glob(os.path.join(results, "lock_*_*.json")))
    if lock_files or skipped(results, "lock"):
        t.section("Word lock under contention (verify/bench/lock; median of rounds; ratio: word / pthread mutex, same run)")
        if not lock_files:
            t.row("not measured", skipped(results, "lock") or "no output")
        variants: Dict[str, List[Dict[str, Any]]] = {}
        for path in lock_files:
            v = os.path.basename(path)[len("lock_"):].rsplit("_", 1)[0]
            variants.setdefault(v, []).append(load(path))
        order = sorted(variants, key=lambda v: (v != "head", v))
        lock_out: Dict[str, Any] = {}
        loads = [("one_1", "1 thread, 1 lock", ""), ("one_2", "2 threads, 1 lock", ""),
                 ("one_4", "4 threads, 1 lock", ""), ("cross", "cross: 4 locks x 2 threads, sleeping holders", ""),
                 ("cross", "cross: 2 threads on locks of their own, beside them", "solo_")]
        for v in order:
            runs = variants[v]
            label = "this checkout" if v == "head" else v
            per: Dict[str, Any] = {}
            for key, name, prefix in loads:
                fig = {}
                for kind in ("word", "pthread"):
                    fig[kind] = {f: med([r[f"{key}_{kind}"][prefix + f] for r in runs])
                                 for f in ("ops_per_s", "cpu_ns_per_op", "wakeups_per_1k")}
                w, p = fig["word"], fig["pthread"]
                t.row(f"{label}: {name}",
                      f"{w['cpu_ns_per_op']:,.1f} CPU ns/op",
                      f"{w['cpu_ns_per_op'] / p['cpu_ns_per_op']:.2f}x pthread ({p['cpu_ns_per_op']:,.1f}); "
                      f"{w['wakeups_per_1k']:.1f} wake-ups/1k ops (pthread {p['wakeups_per_1k']:.1f}); "
                      f"{w['ops_per_s'] / 1e6:.2f} M ops/s (pthread {p['ops_per_s'] / 1e6:.2f})")
                per[prefix + key] = fig
            per["rounds"] = len(runs)
            per["load"] = [r["load"] for r in runs]
            lock_out[v] = per
        if "head" in variants:
            h = lock_out["head"]
            for v in order[1:]:
                for key, name, prefix in loads:
                    a, b = h[prefix + key]["word"], lock_out[v][prefix + key]["word"]
                    t.row(f"this checkout vs {v}: {name}", f"{a['cpu_ns_per_op'] / b['cpu_ns_per_op']:.2f}x CPU/op",
                          f"wake-ups {a['wakeups_per_1k']:.1f} vs {b['wakeups_per_1k']:.1f} per 1k ops; "
                          f"{a['ops_per_s'] / b['ops_per_s']:.2f}x ops/s")
        out["lock"] = lock_out

    # ---- js: the WebAssembly module under Node ------------------------------------------------
    js = load(os.path.join(results, "js.json"))
    if js is not None or skipped(results, "js"):
        t.section("JavaScript: the engine as WebAssembly under Node (verify/bench/js; median CPU ns per call, same run)")
        if js is None:
            t.row("not measured", skipped(results, "js") or "no output")
        else:
            n = js["ns_per_call"]
            bare = n["bare_export"]
            for key, name in (("activity", "engine.activity through the binding"),
                              ("raw_activity", "inact_activity called on the export"),
                              ("bare_export", "a bare wasm export call (floor)"),
                              ("settimeout_per_event", "clearTimeout + setTimeout per event"),
                              ("react_idle_timer_like", "react-idle-timer's approach, reimplemented")):
                t.row(name, f"{n[key]:,.1f} ns",
                      f"{n[key] / n['settimeout_per_event']:.2f}x clearTimeout+setTimeout; {n[key] / bare:,.0f}x the bare call")
            t.row("load() from bytes (compile + instantiate + setup)", f"{js['load_ms']:.2f} ms",
                  f"CPU {js.get('load_cpu_ms', float('nan')):.2f} ms; WebAssembly.compile alone {js['compile_ms']:.2f} ms")
            mem = js["memory_per_engine"]
            t.row("memory per engine", f"{mem['linear_memory_growth_bytes']} B linear memory",
                  f"heap top {mem['heap_top_bytes']} B; JS heap {mem['js_heap_bytes']} B ({mem['engines']} engines)")
            size = open(os.path.join(results, "js_size.txt")).read().strip() if os.path.exists(os.path.join(results, "js_size.txt")) else ""
            out["js"] = js
            out["js"]["size"] = size
            # The module's size goal (issues 24 and 30): raw and gzip -9 bytes of
            # .build/wasm/size.txt against the goal and against 1.2.0's module.
            m = re.search(r"(\d+) bytes \([^)]*\) raw, (\d+) bytes", size)
            if m:
                raw, gz = int(m.group(1)), int(m.group(2))
                goal_raw, goal_gz = 150 * 1024, 50 * 1024
                base_raw, base_gz = 177_782, 69_475   # 1.2.0 (BENCHMARKS.md, "JavaScript")
                met = raw <= goal_raw and gz <= goal_gz
                t.target("WebAssembly module <= 150 KiB raw and <= 50 KiB gzip -9", "<= 150 / 50 KiB", gz, met,
                         f"{raw / 1024:.1f} / {gz / 1024:.1f} KiB (1.2.0: {base_raw / 1024:.1f} / {base_gz / 1024:.1f})")
                t.row("module size (inactivity.wasm)", f"{raw:,} B raw ({raw / 1024:.1f} KiB), {gz:,} B gzip -9 ({gz / 1024:.1f} KiB)",
                      f"goal <= 150 KiB raw and <= 50 KiB gzip: {'met' if met else 'MISSED'}; "
                      f"1.2.0: {base_raw:,} / {base_gz:,} B ({raw / base_raw:.2f}x / {gz / base_gz:.2f}x)")
                out["js"]["size_goal"] = {"raw_bytes": raw, "gzip_bytes": gz, "goal_raw_bytes": goal_raw,
                                          "goal_gzip_bytes": goal_gz, "baseline_1_2_0": [base_raw, base_gz], "met": met}
            elif size:
                t.row("module size", size.split(": ", 1)[-1], "goal 150 KiB raw, 50 KiB gzipped (sizes not read)")

    # ---- lookup ----------------------------------------------------------------------------
    lookup_files = sorted(glob.glob(os.path.join(results, "lookup_*_*.json")))
    if lookup_files or skipped(results, "lookup"):
        t.section("Calls on distinct engines (verify/bench/c/bench_lookup.c; inact_get_state; median of rounds)")
        if not lookup_files:
            t.row("not measured", skipped(results, "lookup") or "no output")
        lv: Dict[str, List[Dict[str, Any]]] = {}
        for path in lookup_files:
            v = os.path.basename(path)[len("lookup_"):].rsplit("_", 1)[0]
            lv.setdefault(v, []).append(load(path))
        lookup_out: Dict[str, Any] = {}
        for v in sorted(lv, key=lambda v: (v != "head", v)):
            runs = lv[v]
            label = "this checkout" if v == "head" else v
            fig = {k: {f: med([r[k][f] for r in runs]) for f in ("cpu_ns_per_call", "calls_per_s")}
                   for k in ("one_thread", "two_threads_two_engines", "two_threads_one_engine",
                             "one_thread_beside_churn") if all(k in r for r in runs)}
            one, two, same = fig["one_thread"], fig["two_threads_two_engines"], fig["two_threads_one_engine"]
            t.row(f"{label}: 1 thread, 1 engine", f"{one['cpu_ns_per_call']:,.1f} CPU ns/call",
                  f"{one['calls_per_s'] / 1e6:.2f} M calls/s")
            t.row(f"{label}: 2 threads, 2 engines", f"{two['cpu_ns_per_call']:,.1f} CPU ns/call",
                  f"{two['cpu_ns_per_call'] / one['cpu_ns_per_call']:.2f}x 1 thread's CPU/call; "
                  f"{two['calls_per_s'] / one['calls_per_s']:.2f}x its rate")
            t.row(f"{label}: 2 threads, 1 engine", f"{same['cpu_ns_per_call']:,.1f} CPU ns/call",
                  f"{same['cpu_ns_per_call'] / one['cpu_ns_per_call']:.2f}x 1 thread's CPU/call (its lock shared)")
            if "one_thread_beside_churn" in fig:
                ch = fig["one_thread_beside_churn"]
                t.row(f"{label}: 1 thread beside create/destroy", f"{ch['cpu_ns_per_call']:,.1f} CPU ns/call",
                      f"{ch['cpu_ns_per_call'] / one['cpu_ns_per_call']:.2f}x 1 thread's CPU/call")
            fig["rounds"] = len(runs)
            lookup_out[v] = fig
        out["lookup"] = lookup_out

    # ---- server ----------------------------------------------------------------------------
    server_path = os.path.join(results, "server.json")
    if os.path.exists(server_path) or skipped(results, "server"):
        t.section("A server's decision (verify/bench/c/bench_server.c; inact_server_decide; CPU ns per call, median of runs)")
        if not os.path.exists(server_path):
            t.row("not measured", skipped(results, "server") or "no output")
        else:
            server = load(server_path)
            n = server["ns_per_call"]
            floor, engine = n["floor_checksum"], n["engine_restore"]
            for key, name in (("decide_read", "decide, read path (MACHINE, nothing written)"),
                              ("decide_coalesced", "decide, a request within the precision (nothing written)"),
                              ("decide_write", "decide, write path (a request, a record written)"),
                              ("prepared_read", "decide_prepared, read path (the policy prepared once)"),
                              ("prepared_coalesced", "decide_prepared, a request within the precision"),
                              ("prepared_write", "decide_prepared, write path")):
                if key not in n:
                    continue   # results of a build before inact_server_decide_prepared
                t.row(name, f"{n[key]:,.1f} ns",
                      f"{n[key] / floor:.1f}x the checked record's floor; {n[key] / engine:.2f}x an engine per request")
            t.row("floor: checksum verified, copied, checksum written", f"{floor:,.1f} ns", "plain C")
            t.row("an engine per request: create, restore, snapshot, destroy", f"{engine:,.1f} ns", "")
            out["server"] = server
            python_path = os.path.join(results, "server_python.json")
            if os.path.exists(python_path):
                py = load(python_path)
                pn = py["ns_per_call"]
                bare = pn["bare_ctypes_prepared"]
                for key, name in (("decide_read", "Python decide(), read path"), ("decide_write", "Python decide(), write path")):
                    t.row(name, f"{pn[key]:,.1f} ns", f"{pn[key] / bare:.2f}x a bare ctypes call of the prepared decision")
                t.row("a bare ctypes call of inact_server_decide_prepared", f"{bare:,.1f} ns", "every argument made beforehand")
                out["server_python"] = py

    # ---- server-store ----------------------------------------------------------------------
    store_path = os.path.join(results, "server_store.json")
    if os.path.exists(store_path) or skipped(results, "server-store"):
        t.section("The server half's decision path (verify/bench/python/bench_server_store.py; median of runs)")
        if not os.path.exists(store_path):
            t.row("not measured", skipped(results, "server-store") or "no output")
        else:
            st = load(store_path)
            for store, floor_read, floor_write, goal in (("redis", "one GET", "GET + SET", 1.15),
                                                         ("sqlite", "a point read by key", "a read + an UPDATE", 1.5)):
                if store not in st:
                    continue   # BENCH_SERVER_STORES left it out
                for path, floor in (("read", floor_read), ("write", floor_write)):
                    f = st[store][path]
                    status = t.target(f"{store} {path} path / its floor", f"<= {goal}x", f["ratio"], f["ratio"] <= goal,
                                      f"{f['ratio']:.2f}x")
                    t.row(f"{store}: a request, {path} path", fmt_ns(f["path_ns"]),
                          f"{f['ratio']:.2f}x {floor} ({fmt_ns(f['floor_ns'])}), same connection, "
                          f"{f.get('timer', 'wall time')}", status)
                if "engine" in st[store]:
                    f = st[store]["engine"]
                    t.row(f"{store}: the core's decision alone, as Python calls it", fmt_ns(f["path_ns"]),
                          f"{f['ratio']:.2f}x {floor_read}: a bare ctypes call of inact_server_decide_prepared "
                          f"(thread CPU time); the rest of the read path is the binding's Python")
                if "read_wall" in st[store]:
                    f = st[store]["read_wall"]
                    t.row(f"{store}: a request, read path (wall time)", fmt_ns(f["path_ns"]),
                          f"{f['ratio']:.2f}x {floor_read} ({fmt_ns(f['floor_ns'])})")
            if "scale" in st:
                growth = st["scale"]["growth"]
                for g in growth:
                    t.row(f"Redis, {g['sessions']:,} sessions", f"{g['redis_bytes_per_session']:.0f} B per session",
                          f"a request: {fmt_ns(g['redis_request_ns'])}")
                last = growth[-1]
                t.target("Redis used_memory per session", "<= 256 B", last["redis_bytes_per_session"],
                         last["redis_bytes_per_session"] <= 256, f"{last['redis_bytes_per_session']:.0f} B")
                t.row("Redis: the list of a user with 50 sessions", fmt_ns(st["scale"]["list_50_redis_ns"]), "")
            if "sqlite_scale" in st:
                growth = st["sqlite_scale"]["growth"]
                for g in growth:
                    t.row(f"SQLite, {g['sessions']:,} sessions", f"{g['bytes_per_session']:.0f} B per session",
                          f"read {fmt_ns(g['read_ns'])} (CPU), write {fmt_ns(g['write_ns'])}, "
                          f"list of 50 {fmt_ns(g['list_50_ns'])}")
                last = growth[-1]
                t.target("SQLite file per session", "<= 300 B", last["bytes_per_session"],
                         last["bytes_per_session"] <= 300, f"{last['bytes_per_session']:.0f} B")
            out["server_store"] = st
        nginx_path = os.path.join(results, "server_nginx.json")
        if os.path.exists(nginx_path):
            ng = load(nginx_path)
            status = t.target("through nginx: the gateway / a no-op auth endpoint", ">= 0.8x", ng["ratio"],
                              ng["ratio"] >= 0.8, f"{ng['ratio']:.2f}x")
            t.row("through nginx: requests per second", f"{ng['gateway']['rps']:,.0f}",
                  f"{ng['ratio']:.2f}x a no-op auth endpoint ({ng['noop']['rps']:,.0f}); ab -k -c {ng['concurrency']}", status)
            t.row("through nginx: p99 added by the gateway", f"{ng['p99_added_ms']:.0f} ms",
                  f"p99 {ng['gateway']['p99_ms']:.0f} ms against {ng['noop']['p99_ms']:.0f} ms")
            # The second floor (an auth service out of nginx's process, of the gateway's own kind)
            # and the gateway on Redis, when measured.
            for gateway, store in (("gateway_sqlite", "SQLite"), ("gateway_redis", "Redis")):
                for floor, what in (("noop", "nginx's return 204"), ("noop_uvicorn", "a no-op ASGI endpoint on uvicorn"),
                                    ("noop_upstream", "a no-op nginx upstream")):
                    r = ng.get(f"{gateway}/{floor}")
                    if r is not None:
                        t.row(f"through nginx: gateway on {store} / {what}", f"{r['ratio']:.2f}x",
                              f"{ng[gateway]['rps']:,.0f} against {ng[floor]['rps']:,.0f} rps; p99 {r['p99_added_ms']:+.0f} ms")
            r = ng.get("noop_upstream/noop")
            if r is not None:
                # What the auth subrequest's hop costs by itself, with the cheapest service behind it.
                t.row("through nginx: a no-op nginx upstream / nginx's return 204", f"{r['ratio']:.2f}x",
                      f"{ng['noop_upstream']['rps']:,.0f} against {ng['noop']['rps']:,.0f} rps: the hop alone")
            for name, what in (("gateway_sqlite", "the gateway on SQLite"), ("gateway_redis", "the gateway on Redis"),
                               ("noop_uvicorn", "a no-op ASGI endpoint on uvicorn"), ("noop_upstream", "a no-op nginx upstream")):
                cpu = ng.get(name, {}).get("service_cpu_us")
                if cpu is not None:
                    t.row(f"through nginx: CPU per auth request, {what}", f"{cpu:,.1f} us",
                          "its processes' user + system time over the run / requests")
            out["server_nginx"] = ng

    # ---- Targets ---------------------------------------------------------------------------
    t.section("Targets")
    for x in t.targets:
        t.row(x["target"], x["shown"], f"goal {x['goal']}", x["status"])
    out["targets"] = t.targets
    t.print()

    # Paths are written relative to the repository, so a committed results file names no
    # machine's directories.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep

    def relative(v: Any) -> Any:
        if isinstance(v, str) and v.startswith(root):
            return v[len(root):]
        if isinstance(v, dict):
            return {k: relative(x) for k, x in v.items()}
        if isinstance(v, list):
            return [relative(x) for x in v]
        return v

    with open(output, "w") as f:
        json.dump(relative(out), f, indent=1)
        f.write("\n")
    print(f"\nwrote {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
