// swift-tools-version: 5.9
// An app package: open this folder in Xcode (File > Open) or Swift Playgrounds and run it on an
// iPhone or iPad simulator. It uses the Inactivity package of this repository by path.
import AppleProductTypes
import PackageDescription

let package = Package(
    name: "InactivityExample",
    // The package's own minimum (Synchronization.Atomic in InactivityCore; see its Package.swift).
    platforms: [.iOS("18.0")],
    products: [
        .iOSApplication(
            name: "InactivityExample",
            targets: ["AppModule"],
            bundleIdentifier: "dev.inactivity.example",
            teamIdentifier: "",
            displayVersion: "1.0",
            bundleVersion: "1",
            appIcon: .placeholder(icon: .box),
            accentColor: .presetColor(.blue),
            supportedDeviceFamilies: [.pad, .phone],
            supportedInterfaceOrientations: [.portrait, .landscapeRight, .landscapeLeft,
                                             .portraitUpsideDown(.when(deviceFamilies: [.pad]))]
        )
    ],
    // Named, so that `.product(name:package:)` finds it whatever the checkout's folder is called
    // (a path dependency's identity is otherwise its folder name). A product of another package
    // must be named with its package: a bare "InactivityApple" does not resolve.
    dependencies: [.package(name: "Inactivity", path: "../../..")],
    targets: [
        .executableTarget(
            name: "AppModule",
            dependencies: [.product(name: "InactivityApple", package: "Inactivity")],
            path: "Sources"
        )
    ]
)
