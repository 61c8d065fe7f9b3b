# The Kotlin compiler of the JVM suite (scripts/lib/test-jvm), the desktop jar (scripts/build-jar)
# and the JVM benchmark (scripts/bench): source it, never run it (after scripts/lib/toolbox.sh).
#
#   kotlin_toolchain      installs a JDK and fetches the compiler once into .build/jvm-tools;
#                         sets KOTLINC_JAR, KOTLIN_STDLIB, KOTLIN_COROUTINES (jars),
#                         KOTLIN_VERSION (the compiler's and the stdlib's: 1.9.23),
#                         KOTLIN_COROUTINES_VERSION (1.8.0) and JAVA_HOME_DIR
#   kotlinc ARGS...       K2JVMCompiler at the language/API version 1.9, JVM target 1.8, with
#                         Java default methods for interfaces (-Xjvm-default=all: a Java class
#                         can implement SessionUi without writing the Kotlin-only methods)
#
# Which compiler, and why: a released Kotlin is needed, and the only ones these machines can
# install are (checked: `apt-cache policy kotlin`, `pip index versions` of the PyPI candidates):
#   - Debian's kotlin 1.3.31 (bookworm): too old for these sources (enum `entries` is 1.9,
#     value classes 1.5);
#   - the compiler inside the PyPI package kotlin-jupyter-kernel, whose -all.jar holds
#     K2JVMCompiler: 0.12.0.322 (and 0.12.0.217) carry Kotlin 1.9.23, a release, with its
#     kotlin-stdlib-1.9.23.jar and kotlinx-coroutines 1.8.0; the later kernels carry
#     development builds (0.14.1.550: 2.3.0-dev-200; 0.15.0.598: 2.2.20-Beta2; 0.18.0.850:
#     2.4.0-dev-2124; 0.19.0.944: 2.4.0-dev); beakerx-kernel-kotlin (2020) and kotlin-kernel
#     (2019) are older still.
# So 1.9.23 it is. The Gradle build of the AAR uses Kotlin 2.1 (settings.gradle.kts), which
# compiles 1.9 sources, so holding these sources to 1.9 keeps both builds working; the jar
# needs kotlin-stdlib 1.9.23 or later (its POM says so).
KOTLIN_KERNEL_VERSION="$(pins kotlin-jupyter-kernel)" # scripts/lib/packages.txt
KOTLIN_KERNEL_VERSION="${KOTLIN_KERNEL_VERSION#*==}"
KOTLIN_LEVEL="1.9"

kotlin_toolchain() {
    local root tools dir
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    tools="$root/.build/jvm-tools"
    if ! command -v javac >/dev/null || ! command -v java >/dev/null || ! command -v jar >/dev/null; then
        echo "kotlin-toolchain: installing a JDK" >&2
        local jdk
        mapfile -t jdk < <(debian_packages javac) # scripts/lib/packages.txt
        apt_install "${jdk[@]}"
    fi
    JAVA_HOME_DIR="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
    [[ -f "$JAVA_HOME_DIR/include/jni.h" ]] || fail_setup "no jni.h under $JAVA_HOME_DIR"
    dir="$tools/kotlin-$KOTLIN_KERNEL_VERSION"
    if [[ ! -f "$dir/.complete" ]]; then
        echo "kotlin-toolchain: fetching Kotlin (PyPI kotlin-jupyter-kernel==$KOTLIN_KERNEL_VERSION)" >&2
        rm -rf "$dir" "$tools/wheel"
        mkdir -p "$tools"
        python3 -m pip download --quiet --no-deps --dest "$tools/wheel" \
            "kotlin-jupyter-kernel==$KOTLIN_KERNEL_VERSION" || fail_setup "pip download kotlin-jupyter-kernel"
        mkdir -p "$dir"
        python3 "$root/scripts/lib/py/kotlin_unpack.py" "$tools/wheel" "$dir" || fail_setup "unpacking the Kotlin compiler"
        rm -rf "$tools/wheel"
        touch "$dir/.complete"
    fi
    KOTLINC_JAR="$dir/kotlin-compiler-all.jar"
    KOTLIN_STDLIB="$dir/kotlin-stdlib.jar"
    KOTLIN_COROUTINES="$dir/kotlinx-coroutines.jar"
    KOTLIN_VERSION="$(unzip -p "$KOTLINC_JAR" META-INF/compiler.version 2>/dev/null || true)"
    KOTLIN_COROUTINES_VERSION="$(unzip -p "$KOTLIN_COROUTINES" META-INF/kotlinx_coroutines_core.version 2>/dev/null || true)"
    # A release, not a development build (the reason for this compiler), with its own stdlib.
    [[ "$KOTLIN_VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
        fail_setup "the Kotlin compiler is ${KOTLIN_VERSION:-unknown}, not a release"
    unzip -p "$KOTLIN_STDLIB" META-INF/MANIFEST.MF | tr -d "\r" | grep -qE "^Implementation-Version: $KOTLIN_VERSION(-release-[0-9]+)?$" ||
        fail_setup "kotlin-stdlib.jar is not $KOTLIN_VERSION"
    [[ -n "$KOTLIN_COROUTINES_VERSION" ]] || fail_setup "no kotlinx-coroutines version in the compiler's jar"
}

kotlinc() {
    java -Xss8m -cp "$KOTLINC_JAR" org.jetbrains.kotlin.cli.jvm.K2JVMCompiler \
        -no-stdlib -no-reflect -jvm-target 1.8 -language-version "$KOTLIN_LEVEL" -api-version "$KOTLIN_LEVEL" \
        -Xjvm-default=all -nowarn "$@"
}
