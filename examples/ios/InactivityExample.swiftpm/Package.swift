// swift-tools-version: 5.9
// An app package: open this folder in Xcode (File > Open) or Swift Playgrounds and run it on an
// iPhone or iPad simulator. It uses the Inactivity package of this repository by path.
import AppleProductTypes
import PackageDescription

let package = Package(
    name: "InactivityExample",
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
    dependencies: [.package(path: "../../..")],
    targets: [
        .executableTarget(name: "AppModule", dependencies: ["InactivityApple"], path: "Sources")
    ]
)
