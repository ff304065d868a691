import Foundation
import XCTest

/// The ffmpeg/ffprobe command-line tools, used to check outputs independently of mixer.
enum Tools {
    struct Result {
        let status: Int32
        let stdout: Data
        let stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// The `mixer` built beside this test bundle (same configuration, same folder).
    static var mixerBinary: String {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [runner, runner.deletingLastPathComponent()].map { $0.appendingPathComponent("mixer").path }
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "mixer"
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/\(executable)")
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes while the process runs, so that neither fills up and blocks it.
        let errorData = ErrorCollector(err.fileHandleForReading)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: data, stderr: errorData.finish())
    }

    /// One row per packet of a stream: pts and whether it is a keyframe.
    static func packets(_ path: String, stream: String) throws -> [(pts: Int64, key: Bool)] {
        let result = try run("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts,flags",
                                         "-of", "csv=p=0", path])
        return result.text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let pts = Int64(fields[0]) else { return nil }
            return (pts, fields[1].hasPrefix("K"))
        }
    }

    /// Presentation times in seconds of every packet of a stream, in file order.
    static func packetSeconds(_ path: String, stream: String) throws -> [Double] {
        let result = try run("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
        return result.text.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The size in bytes of every packet of a stream, in file order.
    static func packetSizes(_ path: String, stream: String) throws -> [Int] {
        let result = try run("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "packet=size", "-of", "csv=p=0", path])
        return result.text.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Stream properties by name (codec_name, width, …) of the first stream of a kind.
    static func stream(_ path: String, _ stream: String) throws -> [String: String] {
        let result = try run("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries",
                                         "stream=codec_name,width,height,pix_fmt,r_frame_rate,sample_rate,channels,profile,time_base",
                                         "-of", "default=nw=1", path])
        var values: [String: String] = [:]
        for line in result.text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values
    }

    /// The decoded luma planes of a video file.
    static func decodedLuma(_ path: String, width: Int, height: Int) throws -> [[UInt8]] {
        // yuv420p as stored (not "gray", which would stretch limited-range luma to full range).
        let result = try run("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        let luma = width * height, frame = luma + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        let bytes = [UInt8](result.stdout)
        return stride(from: 0, to: bytes.count - frame + 1, by: frame).map { Array(bytes[$0..<$0 + luma]) }
    }

    /// The decoded audio of a file as mono float samples at its own rate (first channel).
    static func decodedAudio(_ path: String) throws -> [Float] {
        let result = try run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-f", "f32le", "-"])
        return result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

/// Collects a pipe's output on a background thread.
private final class ErrorCollector: @unchecked Sendable {
    // @unchecked: `data` is written by the reader thread before `done` is signalled and read after.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func finish() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Signal measurements for audio checks.
enum Spectrum {
    /// Amplitude of the `frequency` component of `samples` (Goertzel), for a pure tone
    /// of amplitude A this is ≈ A.
    static func amplitude(of frequency: Double, in samples: ArraySlice<Float>, sampleRate: Double) -> Double {
        let omega = 2 * Double.pi * frequency / sampleRate
        let coefficient = 2 * cos(omega)
        var s1 = 0.0, s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
        return 2 * sqrt(max(0, power)) / Double(samples.count)
    }

    /// Peak signal-to-noise ratio of two 8-bit planes, in dB.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count)
        var squared = 0.0
        for i in 0..<a.count {
            let difference = Double(a[i]) - Double(b[i])
            squared += difference * difference
        }
        let mse = squared / Double(a.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }
}
