import Foundation
import MediaCore
import MixerEngine
import MixerTask
import Synchronization
import XCTest

/// Runs a task in-process, offline, and keeps what the engine reported about every tick.
struct EngineRun {
    let task: TaskDocument
    let output: String
    let reason: EndReason
    let ticks: [TickReport]
    let audio: [AudioBlockReport]

    var param: EncoderParam { task.encoderParam! }

    /// `{OUT}` in the task text is replaced by a fresh output file with `ext`.
    static func run(_ text: String, ext: String = "mp4", duration: Double? = nil, captureCanvas: Bool = false,
                    configure: (inout EngineOptions) -> Void = { _ in },
                    onEngine: (MixEngine) -> Void = { _ in }) throws -> EngineRun {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-tests", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let output = folder.appendingPathComponent("\(UUID().uuidString).\(ext)").path
        let task = try TaskParser.parse(text.replacingOccurrences(of: "{OUT}", with: output))
        let collected = Mutex<([TickReport], [AudioBlockReport])>(([], []))
        var options = EngineOptions()
        options.duration = duration
        options.captureCanvas = captureCanvas
        options.onTick = { report in collected.withLock { $0.0.append(report) } }
        options.onAudioBlock = { report in collected.withLock { $0.1.append(report) } }
        options.logger.logLevel = .error
        configure(&options)
        let engine = MixEngine(task: task, json: try JSONValue.parse(text.replacingOccurrences(of: "{OUT}", with: output)), options: options)
        onEngine(engine)
        let reason = try engine.run()
        let (ticks, audio) = collected.withLock { $0 }
        return EngineRun(task: task, output: output, reason: reason, ticks: ticks, audio: audio)
    }

    /// Loads an example task from layouts/examples, writing to `{OUT}` instead.
    static func example(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../layouts/examples/\(name).json").standardized
        var json = try String(contentsOf: url, encoding: .utf8)
        // Send the example's outputs to the test's file.
        let pattern = try NSRegularExpression(pattern: #""rtmpUrl"\s*:\s*"[^"]*""#)
        json = pattern.stringByReplacingMatches(in: json, range: NSRange(json.startIndex..., in: json), withTemplate: #""rtmpUrl": "{OUT}""#)
        return json
    }

    /// The framecrc text: a header, then one line per video tick and one per audio block.
    var framecrc: String {
        var lines = ["#canvas: \(param.width)x\(param.height) tb 1/\(param.fps)",
                     "#audio: \(param.audioSampleRate) Hz \(param.audioChannels) ch tb 1/\(param.audioSampleRate)"]
        lines += ticks.map { "v, \($0.index), 0x\(String($0.canvasChecksum, radix: 16))" }
        lines += audio.map { block in
            var adler = Adler32()
            block.audio.samples.withUnsafeBytes { adler.update($0.bindMemory(to: UInt8.self).baseAddress!, count: $0.count) }
            return "a, \(block.firstSample), 0x\(String(adler.value, radix: 16))"
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Checks the encoded file FATE-style: codec parameters, frame count, evenly spaced
    /// monotonic timestamps, the keyframe interval, and PSNR against the composed canvas.
    func checkEncodedVideo(minimumPSNR: Double = 32, file: StaticString = #filePath, line: UInt = #line) throws {
        let stream = try Tools.stream(output, "v:0")
        XCTAssertEqual(stream["codec_name"], param.videoCodec == .h265 ? "hevc" : "h264", file: file, line: line)
        XCTAssertEqual(stream["width"], "\(param.width)", file: file, line: line)
        XCTAssertEqual(stream["height"], "\(param.height)", file: file, line: line)
        XCTAssertEqual(stream["pix_fmt"], "yuv420p", file: file, line: line)
        XCTAssertEqual(stream["r_frame_rate"], "\(param.fps)/1", file: file, line: line)
        let packets = try Tools.packets(output, stream: "v:0").sorted { $0.pts < $1.pts }
        XCTAssertEqual(packets.count, ticks.count, "one encoded frame per tick", file: file, line: line)
        // Evenly spaced, up to the container's rounding (MKV and FLV count milliseconds: 66/67).
        let steps = zip(packets.dropFirst(), packets).map { $0.pts - $1.pts }
        XCTAssertLessThanOrEqual((steps.max() ?? 0) - (steps.min() ?? 0), 1, "timestamps evenly spaced: \(Set(steps))", file: file, line: line)
        XCTAssertGreaterThan(steps.min() ?? 1, 0, "timestamps increase", file: file, line: line)
        let gop = param.gopSeconds * param.fps
        let keyframes = packets.enumerated().filter(\.element.key).map(\.offset)
        XCTAssertEqual(keyframes, Array(stride(from: 0, to: packets.count, by: gop)), "a keyframe every \(gop) frames", file: file, line: line)
        let canvases = ticks.compactMap(\.canvas)
        guard !canvases.isEmpty else { return }
        let decoded = try Tools.decodedLuma(output, width: param.width, height: param.height)
        XCTAssertEqual(decoded.count, canvases.count, file: file, line: line)
        let psnrs = zip(decoded, canvases).map { frame, canvas in
            Spectrum.psnr(frame, canvas.withImage { Array(UnsafeBufferPointer(start: $0.planes[0], count: param.width * param.height)) })
        }
        let mean = psnrs.reduce(0, +) / Double(max(1, psnrs.count))
        XCTAssertGreaterThanOrEqual(mean, minimumPSNR, "mean luma PSNR of the encoded output against the canvas", file: file, line: line)
    }
}

extension VideoPicture {
    /// The Y, U, V of the pixel at (x, y).
    func yuv(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        withImage { image in
            (image.planes[0]![y * Int(image.strides[0]) + x],
             image.planes[1]![(y / 2) * Int(image.strides[1]) + x / 2],
             image.planes[2]![(y / 2) * Int(image.strides[2]) + x / 2])
        }
    }
}
