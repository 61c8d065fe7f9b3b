"""The jar, reproducible: sorted entries, one timestamp.

Run by scripts/build-jar, with the arguments it passes.
"""
import os, sys, time, zipfile
stage, jar, version, kotlin, epoch = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip times start in 1980
manifest = (
    "Manifest-Version: 1.0\r\n"
    "Automatic-Module-Name: dev.inactivity\r\n"
    "Implementation-Title: inactivity-jvm\r\n"
    f"Implementation-Version: {version}\r\n"
    "Implementation-Vendor: Inactivity\r\n"
    "Bundle-License: Apache-2.0\r\n"
    f"Kotlin-Version: {kotlin}\r\n\r\n")
files = []
for dirpath, dirnames, filenames in os.walk(stage):
    for name in filenames:
        full = os.path.join(dirpath, name)
        files.append(os.path.relpath(full, stage).replace(os.sep, "/"))
def entry(name, mode):
    info = zipfile.ZipInfo(name, stamp)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (mode & 0xFFFF) << 16
    return info
with zipfile.ZipFile(jar + ".tmp", "w") as z:
    z.writestr(entry("META-INF/MANIFEST.MF", 0o100644), manifest)
    for name in sorted(files):
        if name == "META-INF/MANIFEST.MF":
            continue
        mode = 0o100755 if name.endswith(".so") or ".so." in name else 0o100644
        with open(os.path.join(stage, name), "rb") as f:
            z.writestr(entry(name, mode), f.read())
os.replace(jar + ".tmp", jar)
