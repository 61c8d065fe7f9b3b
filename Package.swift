// swift-tools-version: 6.3
// Inactivity: the session-inactivity engine. No package dependencies, by design.
// Tools version 6.3: the C shims (Sources/InactivityCABI) are `@c @implementation` functions,
// which Swift 6.3 is the first release to compile; an older toolchain stops here with a clear
// "requires minimum Swift tools version 6.3" instead of errors in the shims.
import PackageDescription

let package = Package(
    name: "Inactivity",
    // Apple minimums, each set by an API in use (elsewhere this list is ignored):
    //   macOS 15, iOS 18: `Synchronization.Atomic`, which InactivityCore's lock-free paths
    //     (ActivityGate, Registry, Engine, Scheduler, Clock, Locked) and InactivityAppleMapping's
    //     EventMailbox use; the module is available from macOS 15 / iOS 18 only. It sets both.
    //   Below that, and so not binding: InactivityApple's `@Observable` (Observation, iOS 17),
    //     `UIAction` (iOS 14), SwiftUI's `scenePhase` (iOS 14), `UIHoverGestureRecognizer`
    //     (iOS 13), `UIWindowScene` (iOS 13). The core reads the clock with clock_gettime,
    //     not ContinuousClock (Clock.swift).
    // Lower minimums would need the atomics from somewhere other than Synchronization.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // The engine for Swift hosts (`import InactivityCore`; `import InactivityAsync` adds
        // `engine.events()`, an AsyncStream).
        .library(name: "InactivityCore", targets: ["InactivityCore", "InactivityAsync"]),
        // libinactivity.so: the C ABI declared in include/inactivity.h.
        .library(name: "inactivity", type: .dynamic, targets: ["InactivityCABI"]),
        .executable(name: "inactivity-demo", targets: ["inactivity-demo"]),
        // Apple hosts: the UIKit / SwiftUI adapter (`import InactivityApple`).
        .library(name: "InactivityApple", targets: ["InactivityApple", "InactivityAppleMapping"]),
    ],
    targets: [
        // The session state machine, policy, clocks and scheduler. Pure Swift, no Foundation.
        .target(name: "InactivityCore", dependencies: ["CInactivityPlatform"]),
        // The AsyncStream adapter, kept out of the C library (it would link Swift Concurrency).
        .target(name: "InactivityAsync", dependencies: ["InactivityCore"]),
        // System headers the core needs that Glibc does not expose (timerfd). Headers only.
        .target(name: "CInactivityPlatform"),
        // Exposes include/inactivity.h to Swift (include/module.modulemap names it where it is),
        // plus the status table and the thread-local last-error buffer, which are generated from
        // that header's macros.
        .target(name: "CInactivity"),
        // Thin @c @implementation shims over InactivityCore.
        .target(
            name: "InactivityCABI",
            dependencies: ["CInactivity", "InactivityCore"],
            exclude: ["exports.map"],
            linkerSettings: [
                // Export inact_* and nothing else.
                // GNU ld / lld only: Apple's linker has no version scripts.
                .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/InactivityCABI/exports.map"],
                             .when(platforms: [.linux, .android])),
                // The SONAME carries the ABI major version (INACT_VERSION_MAJOR): programs record
                // libinactivity.so.1, so the loader never binds them to an incompatible major.
                // scripts/install lays down .so.<version>, .so.1 and .so; scripts/lib/soname-link adds
                // the .so.1 name beside a build tree's product. Android installs only lib*.so
                // files from an APK, so there the SONAME is the file name.
                .unsafeFlags(["-Xlinker", "-soname", "-Xlinker", "libinactivity.so.1"], .when(platforms: [.linux])),
                .unsafeFlags(["-Xlinker", "-soname", "-Xlinker", "libinactivity.so"], .when(platforms: [.android])),
            ]
        ),
        // The scenario language: parser, runner on the manual clock, and the recorded timeline.
        // Shared by the demo, its tests and the conformance runners. Foundation is allowed
        // here (it is not the core).
        .target(name: "InactivityScenarios", dependencies: ["InactivityCore"]),
        .executableTarget(name: "inactivity-demo", dependencies: ["InactivityCore", "InactivityScenarios"]),
        // The conformance suite's scenario compiler (scenario -> flat op list) and its Swift
        // runner; the C, Python and Kotlin runners are in verify/conformance/ and bindings/kotlin-jni.
        .executableTarget(name: "inactivity-conformance", dependencies: ["CInactivity", "InactivityCore", "InactivityScenarios"]),
        // Which Apple platform signals become which engine inputs, the per-scene window count,
        // the cover and once-only presentation rules: no Apple SDK needed, tested everywhere.
        .target(name: "InactivityAppleMapping", dependencies: ["InactivityCore"]),
        // The UIKit / SwiftUI adapter over the mapping. Its files compile only where UIKit and
        // SwiftUI exist (the Apple workflow builds it for the iOS simulator); elsewhere the
        // module is empty.
        .target(name: "InactivityApple", dependencies: ["InactivityAppleMapping", "InactivityCore"]),
        .testTarget(name: "InactivityCoreTests", dependencies: ["InactivityCore", "InactivityAsync", "CInactivity"]),
        .testTarget(name: "InactivityScenariosTests", dependencies: ["InactivityCore", "InactivityScenarios"]),
        .testTarget(name: "InactivityAppleMappingTests", dependencies: ["InactivityAppleMapping", "InactivityCore"]),
    ]
)
