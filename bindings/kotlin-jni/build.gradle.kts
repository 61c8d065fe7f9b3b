// The Android library module of the Kotlin/JNI binding: `gradle assembleRelease` here builds
// build/outputs/aar/inactivity-release.aar (scripts/build-aar runs it and checks the result).
// The same Kotlin sources are compiled and tested on the host JVM by scripts/lib/test-jvm, and the
// Android integration by the instrumented tests in src/androidTest (.github/workflows/android.yml).
//
// Native libraries, per ABI: libinactivity.so is built by scripts/build-android-lib (the Swift
// SDK for Android, SwiftPM, static Swift runtime, 16 KiB pages) into build/swift-android/<abi>/,
// which is a jniLibs directory; CMake then builds libinactivity_jni.so against it.
//
// Include it from an app's settings.gradle.kts:
//     include(":inactivity")
//     project(":inactivity").projectDir = file("<path to this repo>/bindings/kotlin-jni")
plugins {
    id("com.android.library") version "8.7.3"
    id("org.jetbrains.kotlin.android") version "2.1.0"
}

// The version is gradle.properties' `version` (Gradle's own project property), the one place
// scripts/lib/test-packaging's versions_agree checks against the header; NativeBridge.BINDING_VERSION
// states it to the Kotlin code (checked there too).
check(version.toString().matches(Regex("""\d+\.\d+\.\d+"""))) {
    "bindings/kotlin-jni/gradle.properties has no version=X.Y.Z (it has $version)"
}

// -Pinactivity.abis=x86_64 narrows the build (the emulator tests need only the emulator's ABI).
val abis = (findProperty("inactivity.abis") as String?)?.split(",")?.map { it.trim() }
    ?: listOf("arm64-v8a", "armeabi-v7a", "x86_64")
val repoRoot = projectDir.resolve("../..").canonicalFile
val swiftOut = layout.buildDirectory.dir("swift-android")

android {
    namespace = "dev.inactivity"
    compileSdk = 35
    // NDK r27d: what the Swift SDK for Android 6.3.1 was built against.
    ndkVersion = "27.3.13750724"

    defaultConfig {
        // API 28: the lowest the Swift SDK for Android declares (the engine is built for
        // <triple>28). The platform linker resolves libinactivity_jni.so's DT_NEEDED
        // libinactivity.so from the app's own lib directory.
        minSdk = 28
        consumerProguardFiles("consumer-rules.pro")
        testInstrumentationRunner = "androidx.test.runner.AndroidJUnitRunner"
        ndk { abiFilters += abis }
        externalNativeBuild {
            cmake {
                arguments += listOf(
                    "-DINACTIVITY_PREBUILT_DIR=${swiftOut.get().asFile}",
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
        // libinactivity.so (and libc++_shared.so when it needs it), per ABI.
        jniLibs.srcDir(swiftOut)
    }

    packaging {
        // Apps that bundle another libc++_shared.so (any other C++ or Swift library) keep one.
        jniLibs { pickFirsts += "**/libc++_shared.so" }
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
}

kotlin {
    jvmToolchain(17)
}

// One SwiftPM build per ABI, before CMake links the glue against it and before the jniLibs
// are merged into the AAR or an APK.
val swiftBuilds = abis.map { abi ->
    tasks.register<Exec>("buildInactivitySwift-$abi") {
        group = "build"
        description = "Builds libinactivity.so for $abi with the Swift SDK for Android"
        workingDir = repoRoot
        commandLine(repoRoot.resolve("scripts/build-android-lib").path, abi, swiftOut.get().asFile.resolve(abi).path)
        inputs.files(fileTree(repoRoot.resolve("Sources")), repoRoot.resolve("Package.swift"), repoRoot.resolve("include/inactivity.h"))
        outputs.dir(swiftOut.map { it.dir(abi) })
    }
}
tasks.configureEach {
    if (name.startsWith("configureCMake") || name.startsWith("buildCMake") ||
        (name.startsWith("merge") && name.endsWith("JniLibFolders"))
    ) {
        dependsOn(swiftBuilds)
    }
}

dependencies {
    // Flow/StateFlow adapter (src/main/kotlin-flow); the core API needs only kotlin-stdlib.
    api("org.jetbrains.kotlinx:kotlinx-coroutines-core:1.10.2")
    // BaseActivity extends AppCompatActivity.
    api("androidx.appcompat:appcompat:1.7.0")

    // Instrumented tests (src/androidTest): InactivityLifecycle and BaseActivity on a device.
    androidTestImplementation("androidx.test:core-ktx:1.6.1")
    androidTestImplementation("androidx.test:runner:1.6.2")
    androidTestImplementation("androidx.test.ext:junit:1.2.1")
}
