plugins {
    id("com.android.application")
    id("org.jetbrains.kotlin.android")
}

// The library's version is the header's; read it the same way the library's build does, so
// this app always asks for the version the workflow just published.
val inactivityVersion = Regex("""(?m)^#define INACT_VERSION_STRING "(\d+\.\d+\.\d+)"$""")
    .find(rootDir.resolve("../../include/inactivity.h").readText())?.groupValues?.get(1)
    ?: error("include/inactivity.h has no INACT_VERSION_STRING")

android {
    namespace = "dev.inactivity.consumer"
    compileSdk = 35
    defaultConfig {
        applicationId = "dev.inactivity.consumer"
        minSdk = 28 // the library's minSdk
        targetSdk = 35
        versionCode = 1
        versionName = "1.0"
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
    // By coordinate only: the AAR brings the engine (jni/<abi>/libinactivity.so) and the JNI glue;
    // its POM brings appcompat and kotlinx-coroutines.
    implementation("dev.inactivity:inactivity:$inactivityVersion")
}
