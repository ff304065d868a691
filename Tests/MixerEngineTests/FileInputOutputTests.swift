import Foundation
import MediaCore
import MixerEngine
import MixerTask
import XCTest

/// Real files in, several files out: the containers of SPEC §1.1 and §1.2.
final class FileInputOutputTests: XCTestCase {
    private static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-fixtures")

    /// A 2 s fixture made by the ffmpeg CLI: `rate` fps video of `size`, a `tone` Hz sine.
    private func fixture(_ name: String, size: String, rate: Int, tone: Int, sampleRate: Int, channels: Int,
                         codecs: [String]) throws -> String {
        try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
        let path = Self.folder.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: path) { return path }
        let result = try Tools.run("ffmpeg", ["-v", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate):duration=2",
            "-f", "lavfi", "-i", "sine=frequency=\(tone):sample_rate=\(sampleRate):duration=2",
            "-ac", "\(channels)"] + codecs + ["-shortest", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return path
    }

    func test_flvMkvAndTsInputs_areDecodedResampledAndMixed() throws {
        let flv = try fixture("a.flv", size: "320x240", rate: 25, tone: 500, sampleRate: 44100, channels: 2,
                              codecs: ["-c:v", "libx264", "-bf", "2", "-c:a", "aac"])
        let mkv = try fixture("b.mkv", size: "240x320", rate: 30, tone: 1200, sampleRate: 48000, channels: 1,
                              codecs: ["-c:v", "libx264", "-pix_fmt", "yuv444p", "-c:a", "libopus"])
        let ts = try fixture("c.ts", size: "176x144", rate: 15, tone: 2000, sampleRate: 32000, channels: 1,
                             codecs: ["-c:v", "mpeg2video", "-c:a", "mp2"])
        let text = """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "{OUT}"}]},
         "encoderParam": {"videoEncodedWidth": 480, "videoEncodedHeight": 160, "videoEncodedFPS": 15, "videoEncodedGOP": 1,
                          "audioEncodedKbps": 128},
         "mixingConfig": {"videoLayoutList": [
            {"rect": {"x": 0, "y": 0, "width": 160, "height": 160}, "fixedVideoUser": {"strRoomId": "r", "userId": "a"}},
            {"rect": {"x": 160, "y": 0, "width": 160, "height": 160}, "fixedVideoUser": {"strRoomId": "r", "userId": "b"}},
            {"rect": {"x": 320, "y": 0, "width": 160, "height": 160}, "fixedVideoUser": {"strRoomId": "r", "userId": "c"}}]},
         "streams": [{"strRoomId": "r", "userId": "a", "url": "\(flv)"}, {"strRoomId": "r", "userId": "b", "url": "\(mkv)"},
                     {"strRoomId": "r", "userId": "c", "url": "\(ts)"}]}
        """
        let run = try EngineRun.run(text, captureCanvas: true)
        XCTAssertEqual(run.reason, .inputsEnded)
        // 2 s at the task's 15 fps, whatever the inputs' rates; the FLV's and TS's pictures start
        // 15–23 ms after their audio, and keeping them in sync adds one tick.
        XCTAssertEqual(run.ticks.count, 31)
        let samples = run.audio.flatMap(\.audio.samples)[4800..<91200]
        for tone in [500.0, 1200, 2000] {
            XCTAssertGreaterThan(Spectrum.amplitude(of: tone, in: samples, sampleRate: 48000), 0.05, "\(tone) Hz is in the mix")
        }
        // Every cell shows moving pictures: its content changes between the first and last tick.
        let first = try XCTUnwrap(run.ticks.first?.canvas), last = try XCTUnwrap(run.ticks.last?.canvas)
        for x in [80, 240, 400] {
            let column = (0..<160).map { first.yuv(x: x, y: $0).0 } != (0..<160).map { last.yuv(x: x, y: $0).0 }
            XCTAssertTrue(column, "cell at x=\(x) changes over time")
        }
        // No golden here: the fixtures are encoded at test time by x264, whose bitstream may
        // differ between CPUs, so their pixels are not stable enough to hash.
        try run.checkEncodedVideo(minimumPSNR: 30)
    }

    func test_oneEncoder_feedsMp4FlvMkvAndTsOutputsAtOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-outputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let outputs = ["x.mp4", "x.flv", "x.mkv", "x.ts"].map { folder.appendingPathComponent($0).path }
        let text = """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [\(outputs.map { #"{"rtmpUrl": "\#($0)"}"# }.joined(separator: ","))]},
         "encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180, "videoEncodedGOP": 1},
         "mixingConfig": {"videoLayoutList": [{"rect": {"x": 0, "y": 0, "width": 320, "height": 180}}]},
         "streams": [{"strRoomId": "r", "userId": "a", "url": "testsrc:?size=320x180&duration=2"}]}
        """
        let run = try EngineRun.run(text)
        XCTAssertEqual(run.ticks.count, 30)
        for output in outputs {
            XCTAssertEqual(try Tools.packets(output, stream: "v:0").count, 30, output)
            XCTAssertEqual(try Tools.stream(output, "a:0")["codec_name"], "aac", output)
            // Every output decodes from its start (the TS one needs SPS/PPS in band).
            let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
            XCTAssertEqual(decoded.status, 0, "\(output): \(decoded.stderr)")
            XCTAssertEqual(decoded.stderr, "", output)
        }
    }

    func test_h265_isEncodedForFileOutputs() throws {
        let text = """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "{OUT}"}]},
         "encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180, "videoEncodedCodecType": 1, "videoEncodedGOP": 1},
         "mixingConfig": {"videoLayoutList": [{"rect": {"x": 0, "y": 0, "width": 320, "height": 180}}]},
         "streams": [{"strRoomId": "r", "userId": "a", "url": "testsrc:?size=320x180&duration=1"}]}
        """
        let run = try EngineRun.run(text, ext: "mkv", captureCanvas: true)
        try run.checkEncodedVideo()
    }
}
