"""Every version spelled in the tree agrees with the header's.

Run by scripts/lib/test-packaging, with the arguments it passes.
"""
import ctypes, re, subprocess, sys

problems = []
def need(what, got, want):
    print(f"{what}: {got}")
    if got != want:
        problems.append(f"{what} is {got!r}, the header says {want!r}")

header = open("include/inactivity.h").read()
def macro(name, pattern=r"(\d+)"):
    m = re.search(rf"^#define {name} {pattern}$", header, re.M)
    if not m:
        sys.exit(f"include/inactivity.h: no #define {name}")
    return m.group(1)
major, minor, patch = (int(macro(f"INACT_VERSION_{p}")) for p in ("MAJOR", "MINOR", "PATCH"))
version, number = f"{major}.{minor}.{patch}", major * 10000 + minor * 100 + patch
need("INACT_VERSION_STRING", macro("INACT_VERSION_STRING", r'"(.*)"'), version)

lib = ctypes.CDLL(sys.argv[1])
lib.inact_version_number.restype = ctypes.c_uint32
lib.inact_version_string.restype = ctypes.c_char_p
need("inact_version_number()", lib.inact_version_number(), number)
need("inact_version_string()", lib.inact_version_string().decode(), version)

py = {}
exec(open("bindings/python/src/inactivity/_version.py").read(), py)
need("Python __version__", py["__version__"], version)
need("Python HEADER_VERSION_NUMBER", py["HEADER_VERSION_NUMBER"], number)

kt = open("bindings/kotlin-jni/src/main/kotlin/dev/inactivity/NativeBridge.kt").read()
m = re.search(r'const val BINDING_VERSION = "(.*)"', kt)
need("Kotlin BINDING_VERSION", m and m.group(1), version)
m = re.search(r"const val BINDING_ABI_MAJOR = (\d+)", kt)
need("Kotlin BINDING_ABI_MAJOR", m and int(m.group(1)), major)

# The Gradle build reads the header's version itself: gradle.properties must not state one
# (Gradle would take the property over the header's only if build.gradle.kts stopped setting it).
m = re.search(r"^version=(.*)$", open("bindings/kotlin-jni/gradle.properties").read(), re.M)
need("Kotlin Gradle version in gradle.properties (none: read from the header)", m and m.group(1), None)
gradle = open("bindings/kotlin-jni/build.gradle.kts").read()
reads = 'resolve("include/inactivity.h")' in gradle and "INACT_VERSION_STRING" in gradle
need("build.gradle.kts reads INACT_VERSION_STRING from include/inactivity.h", reads, True)

m = re.search(r'"-soname", "-Xlinker", "libinactivity\.so\.(\d+)"', open("Package.swift").read())
need("Package.swift SONAME major", m and int(m.group(1)), major)

# Versions spelled out in prose and comments. verify/bench/results*.json record the version that was
# measured: history, not a statement of the current one.
# verify/compat/<version>/ (1.0/, 1.1/, ...) is each release's own files, kept as they were (the compat
# suite runs them): their versioned names are history too.
files = [f for f in subprocess.run(["git", "ls-files", "*.md", "*.h", "*.c", "*.py", "*.kt", "*.swift", "scripts/*"],
                                   capture_output=True, text=True, check=True).stdout.split()
         if not re.match(r"verify/compat/\d+\.\d+/", f)]
pattern = re.compile(r"libinactivity\.so\.(\d+\.\d+\.\d+)|inactivity-(\d+\.\d+\.\d+)-py3"
                     r"|inactivity-jvm[-:](\d+\.\d+\.\d+)")
# CHANGELOG.md's sections of earlier releases name their own files: history too. Only the
# section of this version (and any text before the first release heading) is checked.
seen = 0
for path in files:
    section = version
    for n, line in enumerate(open(path, errors="replace"), 1):
        if path == "CHANGELOG.md":
            heading = re.match(r"## (\d+\.\d+\.\d+)", line)
            section = heading.group(1) if heading else section
            if section != version:
                continue
        for m in pattern.finditer(line):
            seen += 1
            if (m.group(1) or m.group(2) or m.group(3)) != version:
                problems.append(f"{path}:{n}: {m.group(0)} (the header says {version})")
print(f"{seen} versioned file names in {len(files)} files")

# verify/bench/results*.json keep the version they were measured with (the commit they name): a file
# may say 1.0.0 while the header says 1.1.0, but never a version other than its commit's.
import glob, json
for path in sorted(glob.glob("verify/bench/results*.json")):
    data = json.load(open(path))
    commit = (data.get("machine") or {}).get("commit")
    at = subprocess.run(["git", "show", f"{commit}:include/inactivity.h"], capture_output=True, text=True)
    m = re.search(r'^#define INACT_VERSION_STRING "(.*)"$', at.stdout, re.M)
    if not commit or not m:
        problems.append(f"{path}: commit {commit!r} is not in this repository's history"
                        " (a shallow clone? the check needs the whole history)")
        continue
    stated = {("machine.version", (data.get("machine") or {}).get("version")),
              ("python.binding_version", (data.get("python") or {}).get("binding_version"))}
    for what, value in sorted(stated, key=str):
        if value is not None:
            print(f"{path}: {what} {value}, measured at {commit} ({m.group(1)})")
            if value != m.group(1):
                problems.append(f"{path}: {what} is {value!r}, but its commit {commit} is {m.group(1)}")
for p in problems:
    print(p)
sys.exit(1 if problems or not seen else 0)
