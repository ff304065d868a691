import Foundation
import MediaCore
import MixerEngine
import MixerTask
import Synchronization
import XCTest

/// A task running in-process on the wall clock, with what it composed and mixed recorded.
final class LiveEngine {
    let engine: MixEngine
    private let recorder = Recorder()
    let probe: (x: Int, y: Int)

    /// What the mixing thread reports, kept for the test thread.
    private final class Recorder: Sendable {
        let ticks = Mutex<[(index: Int64, y: UInt8)]>([])
        let peaks = Mutex<[(first: Int64, peak: Float)]>([])
    }

    init(_ text: String, probe: (x: Int, y: Int) = (80, 90), configure: (inout EngineOptions) -> Void = { _ in }) throws {
        let task = try TaskParser.parse(text)
        var options = EngineOptions()
        options.realtime = true
        options.captureCanvas = true
        options.logger.logLevel = .error
        options.outputRetry = RetryPolicy(interval: 0.5, failAfter: 60)
        self.probe = probe
        let recorder = self.recorder
        options.onTick = { report in
            guard let canvas = report.canvas else { return }
            let luma = canvas.yuv(x: probe.x, y: probe.y).0
            recorder.ticks.withLock { $0.append((report.index, luma)) }
        }
        options.onAudioBlock = { block in
            let peak = block.audio.samples.map(abs).max() ?? 0
            recorder.peaks.withLock { $0.append((block.firstSample, peak)) }
        }
        configure(&options)
        engine = MixEngine(task: task, options: options)
        engine.start()
    }

    deinit { engine.requestStop() }

    var status: EngineStatus { engine.status }

    /// Luma at the probe point of every tick so far.
    var probeLuma: [(index: Int64, y: UInt8)] { recorder.ticks.withLock { $0 } }

    var audioPeaks: [(first: Int64, peak: Float)] { recorder.peaks.withLock { $0 } }

    func stop() throws -> EndReason {
        engine.requestStop()
        return try engine.wait()
    }
}

extension Tools {
    /// Pulls `seconds` of a live stream and returns its decoded frames (yuv420p) and stream info.
    static func pull(_ url: String, seconds: Double, width: Int, height: Int) throws -> (frames: [[UInt8]], info: [String: String], videoPTS: [Int64]) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pull-\(UUID().uuidString).flv").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let pulled = try run("ffmpeg", ["-v", "error", "-rw_timeout", "10000000", "-i", url, "-t", "\(seconds)", "-c", "copy", "-y", file])
        XCTAssertEqual(pulled.status, 0, pulled.stderr)
        let info = try stream(file, "v:0").merging(try stream(file, "a:0").mapKeys { "audio_" + $0 }) { $1 }
        let videoPTS = try packets(file, stream: "v:0").map(\.pts)
        let decoded = try run("ffmpeg", ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        let size = width * height * 3 / 2
        let bytes = [UInt8](decoded.stdout)
        let frames = stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<$0 + size]) }
        return (frames, info, videoPTS)
    }
}

extension Dictionary {
    func mapKeys(_ transform: (Key) -> Key) -> [Key: Value] {
        Dictionary(uniqueKeysWithValues: map { (transform($0.key), $0.value) })
    }
}

/// Y, U, V of pixel (x, y) of a yuv420p frame.
func pixel(_ frame: [UInt8], width: Int, height: Int, x: Int, y: Int) -> (Int, Int, Int) {
    let chroma = (width / 2) * (height / 2)
    let luma = width * height
    return (Int(frame[y * width + x]), Int(frame[luma + (y / 2) * (width / 2) + x / 2]),
            Int(frame[luma + chroma + (y / 2) * (width / 2) + x / 2]))
}
