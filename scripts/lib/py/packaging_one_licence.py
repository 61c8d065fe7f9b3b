"""One licence, declared the same everywhere.

Run by scripts/lib/test-packaging, with the arguments it passes.
"""
import hashlib, json, re, sys, tomllib
problems = []
licence = open("LICENSE", "rb").read()
digest = hashlib.sha256(licence).hexdigest()
print(f"LICENSE: {len(licence)} bytes, sha256 {digest}")
# The text as the Apache Software Foundation publishes it (LICENSE-2.0.txt).
if digest != "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30":
    problems.append("LICENSE is not the Apache License 2.0 text")
for copy in ("bindings/python/LICENSE", "bindings/js/LICENSE", "bindings/kotlin-jni/src/main/resources/META-INF/inactivity/LICENSE"):
    if open(copy, "rb").read() != licence:
        problems.append(f"{copy} differs from LICENSE")
declared = {}
project = tomllib.load(open("bindings/python/pyproject.toml", "rb"))["project"]
declared["bindings/python/pyproject.toml"] = project.get("license")
if project.get("license-files") != ["LICENSE"]:
    problems.append(f"pyproject.toml: license-files {project.get('license-files')}, expected ['LICENSE']")
pkg = json.load(open("bindings/js/package.json"))
declared["bindings/js/package.json"] = pkg.get("license")
if "LICENSE" not in pkg.get("files", []):
    problems.append("package.json: files lacks LICENSE")
gradle = open("bindings/kotlin-jni/build.gradle.kts").read()
m = re.search(r'licenses \{\s*license \{\s*name\.set\("([^"]+)"\)', gradle)
declared["bindings/kotlin-jni/build.gradle.kts (the AAR's POM)"] = m and m.group(1)
jar = open("scripts/build-jar").read()
m = re.search(r"<licenses>\s*<license>\s*<name>([^<]+)</name>", jar)
declared["scripts/build-jar (the jar's POM)"] = m and m.group(1)
m = re.search(r"Bundle-License: ([\w.-]+)", open("scripts/lib/py/jar_write.py").read())
declared["scripts/lib/py/jar_write.py (the jar's manifest)"] = m and m.group(1)
if 'cp LICENSE "$WORK/stage/META-INF/LICENSE"' not in jar:
    problems.append("scripts/build-jar does not put LICENSE in the jar")
release = open("scripts/release").read()
found = re.findall(r'(?:"license": |entry\["license"\] = )"([^"]+)"', open("scripts/lib/py/release_manifest.py").read())
declared["scripts/lib/py/release_manifest.py (manifest.json)"] = found[0] if found and len(set(found)) == 1 else found
if 'install -m 0644 LICENSE "$stage/"' not in release:
    problems.append("scripts/release does not put LICENSE in the C tarballs")
for where, value in declared.items():
    print(f"{where}: {value}")
    if value != "Apache-2.0":
        problems.append(f"{where} declares {value!r}, not Apache-2.0")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
