// A separate Android app that depends on the published library by its Maven coordinate, as any
// app would: no project dependency on bindings/kotlin-jni, no NDK, no Swift. The android
// workflow's `consumer` job builds it from the folder repository the `aar` job published
// (built only there).
//
//   gradle -p examples/android-consumer assembleDebug -Pinactivity.mavenRepo=/path/to/maven
pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
    }
    // The app chooses the plugin versions (the library's own build sets none).
    plugins {
        id("com.android.application") version "8.7.3"
        id("org.jetbrains.kotlin.android") version "2.1.0"
    }
}
dependencyResolutionManagement {
    repositoriesMode.set(RepositoriesMode.FAIL_ON_PROJECT_REPOS)
    repositories {
        // The folder repository scripts/build-aar publishes to (dev/inactivity/inactivity/...).
        maven {
            name = "inactivityFolder"
            url = uri(providers.gradleProperty("inactivity.mavenRepo").getOrElse("../../.build/android/maven"))
        }
        google()
        mavenCentral()
    }
}
rootProject.name = "inactivity-consumer"
include(":app")
