// The Android library module of the Kotlin/JNI binding: `gradle assembleRelease` here builds
// build/outputs/aar/inactivity-release.aar and `gradle publishReleasePublicationToFolderRepository`
// publishes it with its POM (dev.inactivity:inactivity:<version>) to a Maven repository folder
// (scripts/build-aar runs both and checks the result). The same Kotlin sources are compiled and
// tested on the host JVM by scripts/lib/test-jvm, and the Android integration by the instrumented
// tests in src/androidTest (.github/workflows/android.yml).
//
// No Gradle task here runs Swift. The engine, libinactivity.so per ABI, is PREBUILT by
// scripts/build-android-lib (Embedded Swift objects linked by the NDK's clang against bionic)
// into <inactivity.prebuiltDir>/<abi>/ (default build/prebuilt-engine), which is a jniLibs
// directory; CMake then builds libinactivity_jni.so against it with the NDK. So building this
// module needs the NDK and the prebuilt engine, and an app that depends on the published AAR
// needs neither (nor Swift): only the AAR and its POM.
//
// Plugin versions are not set here: an app that includes this module sets them in its own
// settings; settings.gradle.kts sets them for this directory built on its own.
plugins {
    id("com.android.library")
    id("org.jetbrains.kotlin.android")
    `maven-publish`
}

// The version is the header's INACT_VERSION_STRING, read from include/inactivity.h (the one
// place it is stated); NativeBridge.BINDING_VERSION states it to the Kotlin code, and
// scripts/lib/test-packaging's versions_agree checks that constant against the header.
val repoRoot = projectDir.resolve("../..").canonicalFile
group = "dev.inactivity"
version = Regex("""(?m)^#define INACT_VERSION_STRING "(\d+\.\d+\.\d+)"$""")
    .find(repoRoot.resolve("include/inactivity.h").readText())?.groupValues?.get(1)
    ?: error("include/inactivity.h has no #define INACT_VERSION_STRING \"X.Y.Z\"")

// -Pinactivity.abis=x86_64 narrows the build (the emulator tests need only the emulator's ABI).
val abis = (findProperty("inactivity.abis") as String?)?.split(",")?.map { it.trim() }
    ?: listOf("arm64-v8a", "armeabi-v7a", "x86_64")
// Where the prebuilt engines are: <dir>/<abi>/libinactivity.so.
val prebuiltEngine = (findProperty("inactivity.prebuiltDir") as String?)?.let { file(it) }
    ?: layout.buildDirectory.dir("prebuilt-engine").get().asFile
// The Maven repository folder `publish` writes to.
val mavenFolder = (findProperty("inactivity.mavenRepo") as String?)?.let { file(it) }
    ?: layout.buildDirectory.dir("maven").get().asFile

android {
    namespace = "dev.inactivity"
    compileSdk = 35
    // NDK r27d: what the Swift SDK for Android 6.3.1 was built against.
    ndkVersion = "27.3.13750724"

    defaultConfig {
        // API 28 (Android 9). The engine is linked for <triple>28 in both recipes: the Swift SDK
        // for Android's (the SwiftPM build the workflow measures against) declares API 28-36,
        // and the Embedded build is linked against the same API's bionic so that the two stay
        // comparable. The engine's own bionic calls are older (timerfd_create, API 19, is the
        // newest), appcompat 1.7 needs 21, NativeCleaner avoids Cleaner (API 33); 28 is also the
        // lowest API the instrumented tests run on (android.yml). A lower minSdk needs an
        // emulator run at that API first. The platform linker resolves libinactivity_jni.so's
        // DT_NEEDED libinactivity.so from the app's own lib directory.
        minSdk = 28
        consumerProguardFiles("consumer-rules.pro")
        testInstrumentationRunner = "androidx.test.runner.AndroidJUnitRunner"
        ndk { abiFilters += abis }
        externalNativeBuild {
            cmake {
                arguments += listOf(
                    "-DINACTIVITY_PREBUILT_DIR=$prebuiltEngine",
                    // NDK r27: 16 KiB-compatible defaults for the C++ runtime and CMake's flags.
                    "-DANDROID_SUPPORT_FLEXIBLE_PAGE_SIZES=ON",
                )
            }
        }
    }

    externalNativeBuild {
        cmake {
            path = file("CMakeLists.txt")
            version = "3.22.1"
        }
    }

    sourceSets["main"].apply {
        // Core API (stdlib only), the Flow adapter, and the Android-only forwarders.
        java.srcDirs("src/main/kotlin", "src/main/kotlin-flow", "src/android/kotlin")
        // libinactivity.so per ABI (and libc++_shared.so, which only the SwiftPM recipe needs).
        jniLibs.srcDir(prebuiltEngine)
    }

    packaging {
        // Apps that bundle another libc++_shared.so (any other C++ or Swift library) keep one.
        jniLibs { pickFirsts += "**/libc++_shared.so" }
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }

    // The component maven-publish publishes: the release AAR, with a sources jar.
    publishing {
        singleVariant("release") { withSourcesJar() }
    }
}

kotlin {
    jvmToolchain(17)
}

// Before CMake links the glue against the engine and before the jniLibs are merged: the
// prebuilt engine must be there for every ABI (this task only looks; it builds nothing).
val checkPrebuiltEngine = tasks.register("checkPrebuiltEngine") {
    group = "verification"
    description = "Checks that $prebuiltEngine/<abi>/libinactivity.so exists for ${abis.joinToString()}"
    val libraries = abis.map { prebuiltEngine.resolve("$it/libinactivity.so") }
    inputs.files(libraries.filter { it.isFile })
    doLast {
        val missing = libraries.filterNot { it.isFile }
        check(missing.isEmpty()) {
            "the prebuilt engine is missing: ${missing.joinToString()}. Build it with " +
                "scripts/build-android-lib ABI DIR/ABI (see README.md) and pass -Pinactivity.prebuiltDir=DIR"
        }
    }
}
tasks.configureEach {
    if (name.startsWith("configureCMake") || name.startsWith("buildCMake") ||
        (name.startsWith("merge") && name.endsWith("JniLibFolders"))
    ) {
        dependsOn(checkPrebuiltEngine)
    }
}

publishing {
    publications {
        register<MavenPublication>("release") {
            groupId = "dev.inactivity"
            artifactId = "inactivity"
            version = project.version.toString()
            afterEvaluate { from(components["release"]) }
            pom {
                name.set("Inactivity")
                description.set("Session-inactivity engine for Android: decides when a session warns, locks or expires")
                // The project's one licence: LICENSE, also inside the AAR (its classes.jar takes
                // src/main/resources/META-INF/inactivity/LICENSE, a copy the packaging suite
                // compares; not META-INF/LICENSE, which the Android plugin's default packaging
                // excludes drop).
                licenses {
                    license {
                        name.set("Apache-2.0")
                        url.set("https://www.apache.org/licenses/LICENSE-2.0.txt")
                    }
                }
            }
        }
    }
    repositories {
        maven {
            name = "folder"
            url = uri(mavenFolder)
        }
    }
}

dependencies {
    // `api`, not `implementation`: both are in the public API, so an app compiles against them.
    // kotlinx-coroutines: InactivityEngine.events(): Flow<SessionEvent> and
    // stateIn(scope: CoroutineScope): StateFlow<SessionStatus> (src/main/kotlin-flow); the core
    // API needs only kotlin-stdlib.
    api("org.jetbrains.kotlinx:kotlinx-coroutines-core:1.10.2")
    // appcompat: `abstract class BaseActivity : AppCompatActivity()`, which apps subclass.
    api("androidx.appcompat:appcompat:1.7.0")

    // Instrumented tests (src/androidTest): InactivityLifecycle and BaseActivity on a device.
    androidTestImplementation("androidx.test:core-ktx:1.6.1")
    androidTestImplementation("androidx.test:runner:1.6.2")
    androidTestImplementation("androidx.test.ext:junit:1.2.1")
}
