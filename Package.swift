// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pageheight",
    products: [
        .library(name: "PageHeight", targets: ["PageHeight"]),
        .executable(name: "pageheight", targets: ["pageheight"]),
    ],
    targets: [
        // The system library: webkit2gtk-4.1 (GTK 3) found through pkg-config.
        .systemLibrary(
            name: "CWebKit",
            pkgConfig: "webkit2gtk-4.1",
            providers: [.apt(["libwebkit2gtk-4.1-dev"])]
        ),
        // The few C helpers Swift cannot express itself (macros, varargs, _finish unpacking).
        // libX11 for one call: the handler for a display that goes away (`ph_on_display_lost`).
        .target(name: "CPageHeightShim", dependencies: ["CWebKit"], linkerSettings: [.linkedLibrary("X11")]),
        .target(
            name: "PageHeight",
            dependencies: ["CWebKit", "CPageHeightShim"],
            // The probe's JavaScript, compiled into the binary (no bundle to find at run time).
            resources: [.embedInCode("Engine/Probe/probe.js"), .embedInCode("Engine/Probe/hooks.js")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "pageheight",
            dependencies: ["PageHeight"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Runs the built binary for the CLI and engine tests.
        .target(
            name: "PageHeightTestSupport",
            path: "Tests/TestSupport",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "PageHeightTests",
            dependencies: ["PageHeight"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "PageHeightEngineTests",
            dependencies: ["PageHeight", "PageHeightTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "PageHeightCLITests",
            dependencies: ["pageheight", "PageHeightTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
