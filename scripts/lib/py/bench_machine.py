"""The machine's figures before a run (machine.json).

Run by scripts/bench, with the arguments it passes.
"""
import json, os, platform, subprocess, sys
def sh(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception:
        return None
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), None)
info = {
    "cpu": cpu, "cpus": os.cpu_count(), "kernel": platform.release(),
    "clocksource": (sh("cat", "/sys/devices/system/clocksource/clocksource0/current_clocksource") or None),
    "hypervisor": next((l.split(":", 1)[1].strip() for l in (sh("lscpu") or "").splitlines()
                        if l.startswith("Hypervisor vendor")), None),
    "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
    "os": next((l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release") if l.startswith("PRETTY_NAME")), None),
    "swift": (sh("swift", "--version") or "").splitlines()[0] if sh("swift", "--version") else None,
    "gcc": (sh("gcc", "--version") or "").splitlines()[0],
    "python": platform.python_version(),
    "commit": sh("git", "rev-parse", "--short", "HEAD"),
    # the version measured (the header's), so that a report of these results never reads as
    # figures of a later version
    "version": next((l.split('"')[1] for l in open("include/inactivity.h")
                     if l.startswith("#define INACT_VERSION_STRING ")), None),
    "dirty_sources": bool(sh("git", "status", "--porcelain", "--", "Sources", "include", "bindings")),
    "load_before": list(os.getloadavg()),
}
json.dump(info, open(sys.argv[1], "w"), indent=1)
