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
        .executableTarget(
            name: "mixer",
            dependencies: [
                "MixerEngine", "MixerTask",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "MediaCoreTests", dependencies: ["MediaCore"]),
        .testTarget(name: "MixerTaskTests", dependencies: ["MixerTask"]),
        .testTarget(
            name: "MixerEngineTests",
            dependencies: ["MixerEngine", "MixerTask", "MediaCore"],
            exclude: ["__Golden__"]
        ),
    ]
)
