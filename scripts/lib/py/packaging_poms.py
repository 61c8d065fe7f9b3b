"""The POMs the Gradle build declares.

Run by scripts/lib/test-packaging, with the arguments it passes.
"""
import os, re, sys
out, version = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
gradle = open("bindings/kotlin-jni/build.gradle.kts").read()
deps = re.findall(r'^\s*(api|implementation)\("([\w.-]+):([\w.-]+):([\w.-]+)"\)', gradle, re.M)
APACHE = "<licenses><license><name>Apache-2.0</name></license></licenses>"
def pom(version=version, deps=deps, extra="", licences=APACHE):
    rows = "".join(
        f"<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version>"
        f"<scope>{'compile' if k == 'api' else 'runtime'}</scope></dependency>" for k, g, a, v in deps)
    return ('<?xml version="1.0" encoding="UTF-8"?><project xmlns="http://maven.apache.org/POM/4.0.0">'
            f"<modelVersion>4.0.0</modelVersion><groupId>dev.inactivity</groupId><artifactId>inactivity</artifactId>"
            f"<version>{version}</version><packaging>aar</packaging>{licences}<dependencies>{rows}{extra}</dependencies></project>")
cases = {
    "good": pom(),
    "bad-version": pom(version="0.0.1"),
    "bad-missing": pom(deps=deps[1:]),
    "bad-scope": pom(deps=[("implementation" if k == "api" else "api", g, a, v) for k, g, a, v in deps]),
    "bad-extra": pom(extra="<dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>compile</scope></dependency>"),
    "bad-xml": pom()[:-20],
    "bad-no-licence": pom(licences=""),
    "bad-other-licence": pom(licences="<licenses><license><name>MIT</name></license></licenses>"),
}
for name, text in cases.items():
    open(os.path.join(out, name + ".pom"), "w").write(text)
print(f"{len(deps)} declared dependencies")
