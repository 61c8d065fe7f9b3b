// Lets this directory build on its own (`gradle assembleRelease` -> the AAR; scripts/build-aar).
// An app that includes it as a module (README) uses its own settings instead.
pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
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
