"""The release folder's manifest.json.

Run by scripts/release, with the arguments it passes.
"""
import json, os, re, sys
out, version, commit, epoch, notes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
files = []
for line in open(os.path.join(out, "SHA256SUMS")):
    digest, name = line.split(maxsplit=1)
    name = name.strip()
    entry = {"name": name, "size": os.path.getsize(os.path.join(out, name)), "sha256": digest}
    if m := re.fullmatch(r"inactivity-[\d.]+-linux-(\w+)\.tar\.gz", name):
        entry.update(kind="c-tarball", cpu=m.group(1),
                     glibc="2.34" if m.group(1) == "armv7" else "2.17")
    elif m := re.fullmatch(r"inactivity-[\d.]+-py3-none-(.+)_(x86_64|aarch64)\.whl", name):
        entry.update(kind="python-wheel", cpu=m.group(2), tag=f"py3-none-{m.group(1)}_{m.group(2)}")
    elif name.endswith(".tar.gz"):
        entry.update(kind="python-sdist")
    elif re.fullmatch(r"inactivity-jvm-[\d.]+\.jar", name):
        entry.update(kind="jvm-jar", cpu="x86_64 aarch64")
    elif re.fullmatch(r"inactivity-jvm-[\d.]+\.pom", name):
        entry.update(kind="jvm-pom")
    elif name.endswith(".tgz"):
        entry.update(kind="npm-package")
    elif name.endswith(".aar"):
        entry.update(kind="android-aar")
    elif name.endswith(".pom"):
        entry.update(kind="maven-pom")
    else:
        sys.exit(f"release: unexpected file {name}")
    entry["license"] = "Apache-2.0"
    files.append(entry)
manifest = {"name": "inactivity", "version": version, "commit": commit, "source_date_epoch": epoch,
            "license": "Apache-2.0", "files": files, "notes": notes}
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2)
    f.write("\n")
