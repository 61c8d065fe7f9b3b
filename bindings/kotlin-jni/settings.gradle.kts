// Lets this directory build on its own (`gradle assembleRelease` -> the AAR; scripts/build-aar).
// An app that includes it as a module (README) uses its own settings instead.
// The plugin versions are set here, for this directory built on its own, and not in
// build.gradle.kts: an app that includes the module as a project sets its own.
pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
    }
    plugins {
        id("com.android.library") version "8.7.3"
        id("org.jetbrains.kotlin.android") version "2.1.0"
    }
}
dependencyResolutionManagement {
    repositoriesMode.set(RepositoriesMode.FAIL_ON_PROJECT_REPOS)
    repositories {
        google()
        mavenCentral()
    }
}
rootProject.name = "inactivity"
