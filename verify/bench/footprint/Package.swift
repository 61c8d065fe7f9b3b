// swift-tools-version: 6.2
// The footprint baseline: a Swift shared library that exports one empty C function, built
// exactly like libinactivity.so (release, the same kind of version script, dynamic and with
// -static-stdlib). What it weighs is the floor that the Swift runtime and standard library set;
// scripts/bench compares libinactivity.so with it.
import PackageDescription

let package = Package(
    name: "EmptyBaseline",
    products: [
        .library(name: "emptybaseline", type: .dynamic, targets: ["EmptyBaseline"]),
    ],
    targets: [
        .target(
            name: "EmptyBaseline",
            exclude: ["exports.map"],
            linkerSettings: [
                .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/EmptyBaseline/exports.map"])
            ]
        ),
    ]
)
