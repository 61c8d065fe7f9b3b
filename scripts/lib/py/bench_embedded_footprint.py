"""The Embedded libraries' sizes per CPU.

Run by scripts/bench, with the arguments it passes.
"""
import json, subprocess, sys
out = {}
for arch in ("x86_64", "aarch64", "armv7"):
    lib = f"{sys.argv[1]}/{arch}/libinactivity.so"
    dyn = subprocess.run(["readelf", "-dW", lib], capture_output=True, text=True).stdout
    segs = subprocess.run(["readelf", "-lW", lib], capture_output=True, text=True).stdout
    sections = subprocess.run(["size", "-A", lib], capture_output=True, text=True).stdout
    sizes = {l.split()[0]: int(l.split()[1]) for l in sections.splitlines() if l.startswith(".") and len(l.split()) >= 2}
    out[arch] = {
        "stripped_bytes": len(open(lib, "rb").read()),
        "needed": [l.split("[")[1].rstrip("]") for l in dyn.splitlines() if "(NEEDED)" in l],
        "load_align": sorted({int(l.split()[-1], 16) for l in segs.splitlines() if l.strip().startswith("LOAD")}),
        "text_bytes": sizes.get(".text", 0), "rodata_bytes": sizes.get(".rodata", 0),
        "data_bytes": sum(v for k, v in sizes.items() if k.startswith((".data", ".bss", ".got", ".init_array", ".fini_array"))),
    }
json.dump(out, sys.stdout, indent=1)
