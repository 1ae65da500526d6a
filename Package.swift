// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "stories",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "stories", targets: ["stories"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The feed server (StoriesServer only). Its default traits pull in swift-configuration,
        // which nothing here uses.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // The feed client (StoriesHTTP only).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The server's viewers and their seen state (StoriesServer only): SQLite through
        // SQLiteNIO (docs/architecture.md says why), tokens hashed with swift-crypto's SHA-256.
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // Hummingbird's own service lifecycle: a waiting GET /v1/seen ends when the server stops.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The same seen state in PostgreSQL, for replicas that share it (StoriesServer only).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Its TLS settings (sslmode), named by StoriesServer; already in the graph through
        // PostgresNIO and AsyncHTTPClient.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // The only doorway to ncursesw. Only StoriesTerminal imports it.
        .systemLibrary(name: "CNcursesw", path: "Sources/CNcursesw"),
        // Async-signal-safe terminal restore for crash signals; plain C, no ncurses.
        .target(name: "CStoriesSupport", path: "Sources/CStoriesSupport"),
        // JPEG (libjpeg-turbo, with a setjmp error manager) and PNG (libpng's simplified API).
        .target(
            name: "CStoriesImage",
            path: "Sources/CStoriesImage",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("webp")]
        ),
        // Video: FFmpeg's libavformat, libavcodec, libswscale and libavutil (Debian's -dev
        // packages), behind a small surface. Only StoriesMedia imports it.
        .target(
            name: "CStoriesVideo",
            path: "Sources/CStoriesVideo",
            // FFmpeg is opened with dlopen on first use (see video.c), not linked.
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // openat2 (no glibc wrapper on Debian 12): files reached from a folder's descriptor.
        .target(name: "CStoriesFiles", path: "Sources/CStoriesFiles"),
        // The cell value types every floor above draws with: Color, ColorDepth (and how a
        // colour becomes one the terminal shows), Style. Foundation only.
        .target(name: "StoriesCells", path: "Sources/StoriesCells"),
        .target(name: "StoriesCore", dependencies: ["StoriesCells"], path: "Sources/StoriesCore"),
        // Feed I/O: files reached from a folder's descriptor, the folder and directory feeds,
        // EXIF and movie headers, the seen store, and the feed client with its network
        // profiles. Everything here touches the file system, a queue or the clock; the core
        // below it is pure.
        .target(name: "StoriesFeedIO", dependencies: ["StoriesCore", "CStoriesFiles"], path: "Sources/StoriesFeedIO"),
        .target(name: "StoriesMedia", dependencies: ["StoriesCells", "StoriesCore", "StoriesFeedIO", "CStoriesImage", "CStoriesVideo"], path: "Sources/StoriesMedia"),
        // GNU FriBiDi (Debian's libfribidi-dev): right-to-left text reordered and shaped for
        // terminals that do not (issue 33). Only StoriesUI imports it.
        .systemLibrary(name: "CFriBiDi", path: "Sources/CFriBiDi", pkgConfig: "fribidi"),
        .target(name: "StoriesUI", dependencies: ["StoriesCells", "StoriesCore", "StoriesMedia", "CFriBiDi"], path: "Sources/StoriesUI"),
        // The runtime without a terminal: the engine (effect runner, frame scheduler,
        // recorder, metrics), schedulers and services, headless runs. No ncurses.
        .target(name: "StoriesApp", dependencies: ["StoriesCells", "StoriesCore", "StoriesFeedIO", "StoriesMedia", "StoriesUI"], path: "Sources/StoriesApp"),
        .target(
            name: "StoriesTerminal",
            dependencies: ["StoriesCells", "StoriesCore", "StoriesFeedIO", "StoriesMedia", "StoriesUI", "StoriesApp", "CNcursesw", "CStoriesSupport"],
            path: "Sources/StoriesTerminal"
        ),
        // The embedded demo feed: Assets/ copied next to the binary as a resource bundle.
        .target(
            name: "StoriesAssets",
            path: "Assets",
            exclude: ["CREDITS.md"],
            sources: ["DemoFeed.swift"],
            resources: [.copy("demo")]
        ),
        // zlib (Debian's zlib1g-dev), for gzip answers (StoriesServer) and unpacking them (StoriesHTTP).
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        // `stories serve`: the feed API over HTTP on Hummingbird 2. Only the executable imports it.
        .target(
            name: "StoriesServer",
            dependencies: [
                "StoriesCore", "StoriesFeedIO", "CZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/StoriesServer"
        ),
        // `stories --server URL`: a FeedSource over HTTP with AsyncHTTPClient and a revalidating
        // cache on disk. Only the executable imports it.
        .target(
            name: "StoriesHTTP",
            dependencies: [
                "StoriesCore", "StoriesFeedIO", "CZlib",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/StoriesHTTP"
        ),
        // FreeType (Debian's libfreetype-dev): a terminal's text drawn into video frames.
        // Only StoriesRender imports it.
        .systemLibrary(name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2"),
        // `stories render`: a recording or flow replayed on the virtual clock and written out
        // frame for frame — asciicast v2, or pixels (text through FreeType, pictures as the
        // picture layer makes them) encoded by StoriesMedia's video encoder.
        .target(
            name: "StoriesRender",
            dependencies: ["StoriesCells", "StoriesCore", "StoriesFeedIO", "StoriesMedia", "StoriesUI", "StoriesApp", "CFreeType"],
            path: "Sources/StoriesRender"
        ),
        .executableTarget(
            name: "stories",
            dependencies: [
                "StoriesCells", "StoriesCore", "StoriesFeedIO", "StoriesMedia", "StoriesUI", "StoriesApp", "StoriesTerminal", "StoriesAssets", "StoriesServer", "StoriesHTTP",
                "StoriesCommandLine", "StoriesBench", "StoriesRender", "CStoriesSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/stories"
        ),
        // What the commands share: flags and their parsing, a failure's one line, headless
        // runs' end, a video played to a byte sink (`play` and `bench video`/`sound`).
        .target(
            name: "StoriesCommandLine",
            dependencies: [
                "StoriesCells", "StoriesCore", "StoriesFeedIO", "StoriesMedia", "StoriesUI", "StoriesApp", "StoriesTerminal", "StoriesAssets", "StoriesHTTP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `stories bench …`: every benchmark, beside the executable that wires it in.
        .target(
            name: "StoriesBench",
            dependencies: [
                "StoriesCells", "StoriesCore", "StoriesFeedIO", "StoriesMedia", "StoriesUI", "StoriesApp", "StoriesTerminal", "StoriesAssets",
                "StoriesCommandLine", "StoriesRender", "StoriesServer", "CStoriesSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "StoriesCoreTests", dependencies: ["StoriesCells", "StoriesCore", "StoriesFeedIO", "StoriesAssets", "StoriesTestSupport"]),
        .testTarget(name: "StoriesMediaTests", dependencies: ["StoriesCells", "StoriesMedia", "StoriesCore", "StoriesFeedIO", "StoriesAssets", "StoriesTestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(
            name: "StoriesUITests",
            dependencies: ["StoriesCells", "StoriesCore", "StoriesFeedIO", "StoriesUI", "StoriesMedia", "StoriesAssets", "StoriesTestSupport"],
            exclude: ["__Snapshots__"]
        ),
        // The real engine on the virtual scheduler through the test screen: scenarios,
        // gestures, snapshots, replays, preloading, generated input sequences.
        .testTarget(
            name: "StoriesAppTests",
            dependencies: ["StoriesCells", "StoriesApp", "StoriesUI", "StoriesMedia", "StoriesCore", "StoriesFeedIO", "StoriesAssets", "StoriesTestSupport",
                           "StoriesHTTP", "StoriesRender"],
            // Flows/: scenarios written as flows (`ProjectFlowsTests` runs each).
            exclude: ["__Snapshots__", "Flows"]
        ),
        .testTarget(
            name: "StoriesTerminalTests",
            dependencies: ["StoriesCells", "StoriesTerminal", "StoriesUI", "StoriesMedia", "StoriesCore", "StoriesFeedIO", "StoriesAssets", "StoriesTestSupport", "CNcursesw"]
        ),
        // The server on loopback: routes, ETags and 304s, ranges, paths that try to get out.
        .testTarget(
            name: "StoriesServerTests",
            dependencies: [
                "StoriesServer", "StoriesHTTP", "StoriesCore", "StoriesAssets", "StoriesTestSupport", "CZlib",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ]
        ),
        // Runs the built `stories` binary inside tmux; depends on the executable so it is built.
        .testTarget(name: "StoriesEndToEndTests", dependencies: ["stories", "StoriesCells", "StoriesCore", "StoriesFeedIO", "StoriesMedia", "StoriesTestSupport",
                                                                 "StoriesApp", "StoriesAssets"]),
        // What the test targets share: the trait that runs a suite's tests off the
        // cooperative pool (tests that block in real time, servers on loopback).
        .target(name: "StoriesTestSupport", dependencies: ["StoriesCells", "StoriesCore", "StoriesFeedIO", "StoriesMedia", "StoriesUI", "CStoriesTestSupport"],
                path: "Tests/StoriesTestSupport"),
        // renameat2(RENAME_EXCHANGE) for the confinement race (glibc 2.36 has no wrapper Swift sees).
        .target(name: "CStoriesTestSupport", path: "Tests/CStoriesTestSupport"),
    ],
    swiftLanguageModes: [.v6]
)

// Warnings are errors in every Swift target of this package (never in its dependencies):
// `swift build` and README's `swift test` build the same modules with the same settings,
// so CI builds once (`.ci/run`) and a newcomer's build holds the same line.
for target in package.targets where target.type != .system && !target.name.hasPrefix("C") {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
}

// The floors that draw, decode and reduce are optimised in debug builds too (`-O`, as
// `swift build` and README's `swift test` build them): the suite draws, diffs and decodes
// thousands of frames, and unoptimised they were most of its CPU (Canvas.diff and
// keepReadable alone half). Measured on this machine: StoriesUITests and StoriesAppTests
// 300 s → 91 s, the whole suite 727–789 s → 600 s; the debug build takes about a minute
// longer from clean. Debugging these modules wants `-Xswiftc -Onone`.
let optimisedInDebug: Set = ["StoriesCells", "StoriesCore", "StoriesMedia", "StoriesUI", "StoriesApp", "StoriesRender"]
for target in package.targets where optimisedInDebug.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-O"], .when(configuration: .debug))]
}
