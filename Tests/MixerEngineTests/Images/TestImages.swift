import Foundation
import XCTest

/// Image files for the tests, made once per run with the ffmpeg CLI from deterministic
/// lavfi sources: an opaque JPEG background, an opaque BMP placeholder, a half-transparent
/// PNG logo and a PNG with an alpha gradient, plus broken ones.
enum TestImages {
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-test-images-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    private static func make(_ name: String, _ arguments: [String]) -> String {
        let path = folder.appendingPathComponent(name).path
        if !FileManager.default.fileExists(atPath: path) {
            let result = try? Tools.run("ffmpeg", ["-v", "error", "-y"] + arguments + ["-frames:v", "1", path])
            XCTAssertEqual(result?.status, 0, result?.stderr ?? "ffmpeg did not run")
        }
        return path
    }

    /// 160×90 colour test pattern (ffmpeg's testsrc2), PNG: lossless, so goldens do not
    /// depend on a JPEG encoder's CPU-specific rounding.
    static var background: String { make("background.png", ["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=1", "-pix_fmt", "rgb24"]) }
    /// 96×64 solid 0x40A060 as a JPEG.
    static var jpeg: String { make("solid.jpg", ["-f", "lavfi", "-i", "color=c=0x40A060:size=96x64", "-q:v", "2"]) }
    /// 64×64 solid 0x2040C0, BMP.
    static var placeholder: String { make("placeholder.bmp", ["-f", "lavfi", "-i", "color=c=0x2040C0:size=64x64", "-pix_fmt", "bgr24"]) }
    /// 80×40 pure red at 50 % opacity, PNG with alpha.
    static var halfRedLogo: String { make("logo.png", ["-f", "lavfi", "-i", "color=c=red@0.5:size=80x40,format=rgba", "-pix_fmt", "rgba"]) }
    /// 64×32 white whose alpha rises from 0 at the left to 252 at the right, PNG.
    static var alphaGradient: String {
        make("gradient.png", ["-f", "lavfi", "-i", "color=c=white:size=64x32,format=rgba", "-vf", "geq=r=255:g=255:b=255:a='X*4'", "-pix_fmt", "rgba"])
    }

    /// A file named .png that is text.
    static var notAnImage: String {
        let path = folder.appendingPathComponent("not-an-image.png").path
        FileManager.default.createFile(atPath: path, contents: Data("this is not a picture\n".utf8))
        return path
    }

    /// A PNG signature followed by 2.5 MB of filler: over the 2 MB limit.
    static var oversized: String {
        let path = folder.appendingPathComponent("oversized.png").path
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += [UInt8](repeating: 7, count: 2_500_000)
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// A PNG signature and garbage: looks like a PNG, does not decode.
    static var corruptPNG: String {
        let path = folder.appendingPathComponent("corrupt.png").path
        FileManager.default.createFile(atPath: path, contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4, 5]))
        return path
    }
}
