// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mixer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "mixer", targets: ["mixer"]),
        .library(name: "MixerEngine", targets: ["MixerEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // Debian's FFmpeg 5.1 development packages: headers and linking only.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswscale libswresample",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        // Real functions for the FFmpeg macros Swift cannot import, defined once.
        .target(name: "CFFmpegShims", dependencies: ["CFFmpeg"]),
        // The thin safe FFmpeg layer: explicit ownership, EAGAIN/EOF as values, failures thrown.
        .target(name: "MediaCore", dependencies: ["CFFmpeg", "CFFmpegShims"]),
        // The task document: parsing, validation, error codes. No FFmpeg.
        .target(name: "MixerTask"),
        // Sources, clock, compositor, audio mixer, encoder, outputs.
        .target(
            name: "MixerEngine",
            dependencies: ["MediaCore", "MixerTask", .product(name: "Logging", package: "swift-log")]
        ),
        // The worker daemon: task registry, child processes, the Unix-socket API, events, metrics.
        .target(
            name: "MixerService",
            dependencies: [
                "MixerTask", "MixerEngine",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "mixer",
            dependencies: [
                "MixerEngine", "MixerTask", "MixerService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore"]),
        .testTarget(name: "MixerTaskTests", dependencies: ["MixerTask"]),
        .testTarget(name: "MixerServiceTests", dependencies: ["MixerService", "MixerTask"]),
        .testTarget(
            name: "MixerEngineTests",
            dependencies: ["MixerEngine", "MixerTask", "MediaCore", "MixerService"],
            exclude: ["__Golden__"]
        ),
    ]
)
