// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pageheight",
    products: [
        // Pure: measurement rules, reports, page input, options, fonts (no WebKit, no display).
        .library(name: "PageHeightCore", targets: ["PageHeightCore"]),
        // Measures pages in WebKitGTK: `PageHeightEngine`. Re-exports nothing; import the core too.
        .library(name: "PageHeightWebKit", targets: ["PageHeightWebKit"]),
        // Lists of pages, measured in parallel with a resumable JSON Lines log.
        .library(name: "PageHeightBatch", targets: ["PageHeightBatch"]),
        // Suites, baselines, check and sweep, their JUnit and HTML reports.
        .library(name: "PageHeightRegression", targets: ["PageHeightRegression"]),
        // Replays recorded timelines under other schedules, and searches for the best (`tune`).
        .library(name: "PageHeightTuning", targets: ["PageHeightTuning"]),
        // `pageheight serve`: the engine behind an HTTP API (routing, limits, queue, metrics).
        .library(name: "PageHeightServe", targets: ["PageHeightServe"]),
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
            name: "PageHeightCore",
            // The built-in reader template (`pageheight --template default`), compiled into the binary.
            resources: [.embedInCode("Input/Templates/reader.html")],
            swiftSettings: swift6
        ),
        // The only Swift module that imports the C modules.
        .target(
            name: "PageHeightWebKit",
            dependencies: ["PageHeightCore", "CWebKit", "CPageHeightShim"],
            // The probe's JavaScript, compiled into the binary (no bundle to find at run time).
            resources: [.embedInCode("Measuring/Probe/probe.js"), .embedInCode("Measuring/Probe/hooks.js")],
            swiftSettings: swift6
        ),
        .target(name: "PageHeightBatch", dependencies: ["PageHeightCore", "PageHeightWebKit"], swiftSettings: swift6),
        .target(name: "PageHeightRegression", dependencies: ["PageHeightCore", "PageHeightWebKit"], swiftSettings: swift6),
        .target(name: "PageHeightTuning", dependencies: ["PageHeightCore"], swiftSettings: swift6),
        .target(name: "PageHeightServe", dependencies: ["PageHeightCore", "PageHeightWebKit"], swiftSettings: swift6),
        // The command line: argument parsing, help, the subcommands.
        .executableTarget(
            name: "pageheight",
            dependencies: ["PageHeightCore", "PageHeightWebKit", "PageHeightBatch", "PageHeightRegression", "PageHeightTuning",
                           "PageHeightServe"],
            swiftSettings: swift6,
            linkerSettings: exportsExecve
        ),
        // Runs the built binary for the CLI and engine tests.
        .target(name: "PageHeightTestSupport", path: "Tests/TestSupport", swiftSettings: swift6),
        // Needs no display: run with DISPLAY unset by scripts/test.
        .testTarget(name: "PageHeightCoreTests", dependencies: ["PageHeightCore"], swiftSettings: swift6),
        .testTarget(name: "PageHeightBatchTests", dependencies: ["PageHeightBatch", "PageHeightCore"], swiftSettings: swift6),
        .testTarget(name: "PageHeightRegressionTests", dependencies: ["PageHeightRegression", "PageHeightCore", "PageHeightWebKit"],
                    swiftSettings: swift6),
        .testTarget(name: "PageHeightTuningTests", dependencies: ["PageHeightTuning", "PageHeightCore"], swiftSettings: swift6),
        // The server's pure parts (requests, admission, metrics text) without a display, and the
        // built binary's server driven by real clients (curl, Python's urllib).
        .testTarget(name: "PageHeightServeTests", dependencies: ["PageHeightServe", "PageHeightCore", "PageHeightWebKit", "PageHeightTestSupport"],
                    swiftSettings: swift6),
        .testTarget(
            name: "PageHeightWebKitTests",
            dependencies: ["PageHeightCore", "PageHeightWebKit", "PageHeightBatch", "pageheight", "PageHeightTestSupport"],
            swiftSettings: swift6,
            linkerSettings: exportsExecve
        ),
        .testTarget(
            name: "pageheightTests",
            dependencies: ["pageheight", "PageHeightCore", "PageHeightBatch", "PageHeightRegression", "PageHeightTuning",
                           "PageHeightWebKit", "PageHeightTestSupport"],
            swiftSettings: swift6,
            linkerSettings: exportsExecve
        ),
    ]
)

let swift6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

// A program that runs the engine exports the shim's `posix_spawn`, `posix_spawnp` and `execve`, so
// that GLib's spawns of WebKit's processes call them, and they start in the file jail with the
// sandbox's capabilities (`ph_confine_children`, `ph_jail_children`). A library user's program
// needs the same flags; without them the engine says its files are not confined (`FileJail`).
var exportsExecve: [LinkerSetting] {
    [.unsafeFlags(["execve", "posix_spawn", "posix_spawnp"].flatMap { ["-Xlinker", "--export-dynamic-symbol=\($0)"] })]
}
