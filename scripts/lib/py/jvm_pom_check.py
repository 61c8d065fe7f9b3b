"""The jar's POM: coordinates and dependencies.

Run by scripts/lib/test-jvm, with the arguments it passes.
"""
import sys, xml.etree.ElementTree as ET
pom, version, kotlin, coroutines = sys.argv[1:]
ns = {"m": "http://maven.apache.org/POM/4.0.0"}
root = ET.parse(pom).getroot()
got = lambda path: (root.findtext(path, namespaces=ns) or "").strip()
problems = []
coord = f"{got('m:groupId')}:{got('m:artifactId')}:{got('m:version')}:{got('m:packaging')}"
if coord != f"dev.inactivity:inactivity-jvm:{version}:jar":
    problems.append(f"coordinate {coord}")
if got("m:licenses/m:license/m:name") != "Apache-2.0":
    problems.append(f"licence {got('m:licenses/m:license/m:name')!r}")
deps = {}
for d in root.findall("m:dependencies/m:dependency", ns):
    deps[d.findtext("m:groupId", namespaces=ns) + ":" + d.findtext("m:artifactId", namespaces=ns)] = (
        d.findtext("m:version", namespaces=ns), d.findtext("m:scope", namespaces=ns), d.findtext("m:optional", namespaces=ns))
want = {"org.jetbrains.kotlin:kotlin-stdlib": (kotlin, "compile", None),
        "org.jetbrains.kotlinx:kotlinx-coroutines-core": (coroutines, "compile", "true")}
if deps != want:
    problems.append(f"dependencies {deps}, expected {want}")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
