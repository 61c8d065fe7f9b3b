// The Android library module of the Kotlin/JNI binding. Not built in this repository (no
// Android SDK here): the same sources are compiled and tested on the host JVM by
// scripts/test-jvm. Include it from an app's settings.gradle.kts:
//     include(":inactivity")
//     project(":inactivity").projectDir = file("<path to this repo>/bindings/kotlin-jni")
// and put libinactivity.so (+ the Swift runtime) for each ABI under prebuilt/<abi>/ (README).
plugins {
    id("com.android.library") version "8.7.3"
    id("org.jetbrains.kotlin.android") version "2.1.0"
}

android {
    namespace = "dev.inactivity"
    compileSdk = 35

    defaultConfig {
        // API 23+: the platform linker resolves libinactivity_jni.so's DT_NEEDED
        // libinactivity.so from the app's own lib directory.
        minSdk = 23
        consumerProguardFiles("consumer-rules.pro")
        ndk { abiFilters += listOf("arm64-v8a", "armeabi-v7a", "x86_64") }
        externalNativeBuild {
            cmake { arguments += "-DINACTIVITY_PREBUILT_DIR=${projectDir}/prebuilt" }
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
        // libinactivity.so and the Swift runtime libraries it needs, per ABI.
        jniLibs.srcDirs("prebuilt")
    }

    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
}

kotlin {
    jvmToolchain(17)
}

dependencies {
    // Flow/StateFlow adapter (src/main/kotlin-flow); the core API needs only kotlin-stdlib.
    api("org.jetbrains.kotlinx:kotlinx-coroutines-core:1.10.2")
    // BaseActivity extends AppCompatActivity.
    api("androidx.appcompat:appcompat:1.7.0")
}
