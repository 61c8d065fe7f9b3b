"""The release folder's manifest.json lists every file.

Run by scripts/lib/test-packaging, with the arguments it passes.
"""
import hashlib, json, os, sys
out, version = sys.argv[1], sys.argv[2]
m = json.load(open(os.path.join(out, "manifest.json")))
problems = []
if m["version"] != version:
    problems.append(f"manifest version {m['version']}, header {version}")
on_disk = sorted(set(os.listdir(out)) - {"SHA256SUMS", "manifest.json"})
listed = sorted(f["name"] for f in m["files"])
if on_disk != listed:
    problems.append(f"files {on_disk} but the manifest lists {listed}")
for f in m["files"]:
    data = open(os.path.join(out, f["name"]), "rb").read()
    if hashlib.sha256(data).hexdigest() != f["sha256"] or len(data) != f["size"]:
        problems.append(f"{f['name']}: size or sha256 differ from the manifest")
kinds = sorted(f["kind"] + ":" + f.get("cpu", "") for f in m["files"])
print("\n".join(kinds))
need = ["c-tarball:aarch64", "c-tarball:armv7", "c-tarball:x86_64", "jvm-jar:x86_64 aarch64", "jvm-pom:",
        "npm-package:", "python-sdist:", "python-wheel:aarch64", "python-wheel:x86_64"]
missing = [k for k in need if k not in kinds]
if missing:
    problems.append(f"missing {missing}")
android = [k for k in kinds if k.startswith(("android-aar", "maven-pom"))]
if len(android) not in (0, 2) or (not android and not any("AAR and POM left out" in n for n in m["notes"])):
    problems.append(f"the AAR and POM must both be there, or the notes say why not: {android} {m['notes']}")
for n in m["notes"]:
    print("note:", n)
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
