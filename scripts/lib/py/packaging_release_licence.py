"""Every release artifact ships and declares the licence.

Run by scripts/lib/test-packaging, with the arguments it passes.
"""
import io, json, os, sys, tarfile, zipfile, xml.etree.ElementTree as ET
out, version = sys.argv[1], sys.argv[2]
licence = open("LICENSE", "rb").read()
SPDX = "Apache-2.0"
manifest = json.load(open(os.path.join(out, "manifest.json")))
problems, seen = [], set()
def pom_licences(data):
    root = ET.fromstring(data)
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    return [(l.findtext("m:name", namespaces=ns) or "").strip() for l in root.findall("m:licenses/m:license", ns)]
def meta_field(text, field):
    return [l.split(":", 1)[1].strip() for l in text.splitlines() if l.startswith(field + ":")]
def read_licence(kind, name, path):
    """(LICENSE's bytes as the artifact ships it, the licences its metadata declares)."""
    if kind == "c-tarball": # no metadata of its own: the manifest declares it (checked above)
        with tarfile.open(path) as t:
            return t.extractfile(name[:-len(".tar.gz")] + "/LICENSE").read(), [SPDX]
    if kind == "python-wheel":
        with zipfile.ZipFile(path) as z:
            return (z.read(f"inactivity-{version}.dist-info/licenses/LICENSE"),
                    meta_field(z.read(f"inactivity-{version}.dist-info/METADATA").decode(), "License-Expression"))
    if kind == "python-sdist":
        with tarfile.open(path) as t:
            return (t.extractfile(f"inactivity-{version}/LICENSE").read(),
                    meta_field(t.extractfile(f"inactivity-{version}/PKG-INFO").read().decode(), "License-Expression"))
    if kind == "npm-package":
        with tarfile.open(path) as t:
            return t.extractfile("package/LICENSE").read(), [json.load(t.extractfile("package/package.json"))["license"]]
    if kind == "jvm-jar":
        with zipfile.ZipFile(path) as z:
            return (z.read("META-INF/LICENSE"),
                    meta_field(z.read("META-INF/MANIFEST.MF").decode(), "Bundle-License")
                    + pom_licences(z.read("META-INF/maven/dev.inactivity/inactivity-jvm/pom.xml")))
    if kind in ("jvm-pom", "maven-pom"): # a POM only declares
        return licence, pom_licences(open(path, "rb").read())
    if kind == "android-aar": # its POM (maven-pom) declares it
        with zipfile.ZipFile(path) as z, zipfile.ZipFile(io.BytesIO(z.read("classes.jar"))) as c:
            return c.read("META-INF/inactivity/LICENSE"), [SPDX]
    return None, None
if manifest.get("license") != SPDX:
    problems.append(f"manifest.json: license {manifest.get('license')!r}")
for f in manifest["files"]:
    name, kind = f["name"], f["kind"]
    path = os.path.join(out, name)
    seen.add(kind)
    if f.get("license") != SPDX:
        problems.append(f"{name}: the manifest says license {f.get('license')!r}")
    try:
        shipped, declared = read_licence(kind, name, path)
    except KeyError as e: # a member the artifact lacks
        problems.append(f"{name}: lacks {e}")
        continue
    if shipped is None:
        problems.append(f"{name}: kind {kind} is not checked")
        continue
    ok = shipped == licence and declared and set(declared) == {SPDX}
    print(f"{'ok ' if ok else 'BAD'} {name}: LICENSE {'shipped' if shipped == licence else 'MISSING or different'}, declares {declared}")
    if not ok:
        problems.append(f"{name}: LICENSE shipped {shipped == licence}, declared {declared}")
for kind in ("c-tarball", "python-wheel", "python-sdist", "npm-package", "jvm-jar", "jvm-pom"):
    if kind not in seen:
        problems.append(f"no {kind} in the release")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
