"""The Android module needs no Swift.

Run by scripts/lib/test-packaging, with the arguments it passes.
"""
import re, sys
problems = []
gradle = open("bindings/kotlin-jni/build.gradle.kts").read()
code = "\n".join(l.split("//")[0] for l in gradle.splitlines())  # without comments
# Any way a Gradle build script starts a process.
for word in ("Exec>", "Exec::class", "commandLine(", "exec {", "providers.exec", "ProcessBuilder", "Runtime.getRuntime"):
    if word in code:
        problems.append(f"build.gradle.kts starts a process ({word!r}): the module's tasks must not build the engine")
plugins = re.search(r"^plugins \{(.*?)^\}", code, re.M | re.S)
if not plugins or re.search(r"\bversion\b", plugins.group(1)):
    problems.append("build.gradle.kts's plugins block sets a version (the consumer sets AGP/Kotlin)")
if not plugins or "maven-publish" not in plugins.group(1):
    problems.append("build.gradle.kts does not apply maven-publish")
if 'register<MavenPublication>("release")' not in code or 'artifactId = "inactivity"' not in code:
    problems.append("no release MavenPublication with artifactId inactivity")
settings = open("bindings/kotlin-jni/settings.gradle.kts").read()
for plugin in ("com.android.library", "org.jetbrains.kotlin.android"):
    if not re.search(rf'id\("{re.escape(plugin)}"\) version "[\d.]+"', settings):
        problems.append(f"settings.gradle.kts does not set {plugin}'s version for the standalone build")
wrapper = open("bindings/kotlin-jni/gradle/wrapper/gradle-wrapper.properties").read()
workflow = open(".github/workflows/android.yml").read()
gv = re.search(r'GRADLE_VERSION: "([\d.]+)"', workflow)
gs = re.search(r"GRADLE_SHA256: ([0-9a-f]{64})", workflow)
if not (gv and f"gradle-{gv.group(1)}-bin.zip" in wrapper):
    problems.append("the wrapper's distributionUrl is not the workflow's GRADLE_VERSION")
if not (gs and f"distributionSha256Sum={gs.group(1)}" in wrapper):
    problems.append("the wrapper's distributionSha256Sum is not the workflow's GRADLE_SHA256")
# The swiftly installer: a versioned URL, its checksum verified before it runs.
if not re.search(r"SWIFTLY_URL: \S+/swiftly-\d+\.\d+\.\d+-x86_64\.tar\.gz", workflow) or \
        workflow.count('echo "$SWIFTLY_SHA256  swiftly.tar.gz" | sha256sum -c -') != workflow.count("$SWIFTLY_URL"):
    problems.append("the swiftly installer is not downloaded by version and checked by SHA-256 everywhere")
# The consumer job: by coordinate, no Swift, no NDK.
job = re.search(r"^  consumer:\n(.*?)(?=^  \w[\w-]*:\n|\Z)", workflow, re.M | re.S)
if not job:
    problems.append("android.yml has no consumer job")
else:
    body = job.group(1)
    for bad in ("swiftly", "ndk;", "build-android-lib", "build-aar"):
        if bad in body:
            problems.append(f"the consumer job uses {bad!r}")
    if "needs: aar" not in body or "examples/android-consumer" not in body:
        problems.append("the consumer job does not build examples/android-consumer after the aar job")
app = open("examples/android-consumer/app/build.gradle.kts").read()
if 'implementation("dev.inactivity:inactivity:$inactivityVersion")' not in app or "project(" in app:
    problems.append("the consumer app does not depend on dev.inactivity:inactivity by coordinate only")
for p in problems:
    print(p)
print(f"{len(problems)} problems")
sys.exit(1 if problems else 0)
