import Foundation
import MixerEngine
import MixerTask
import XCTest

/// bigStreamToCdn / subStreamToCdn: packet copy without encoderParam, transcoding with it.
final class RelayTests: XCTestCase {
    private static func fixture() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-fixtures")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("relay-source.flv").path
        if !FileManager.default.fileExists(atPath: path) {
            let made = try Tools.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15:duration=4",
                                                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=4",
                                                "-c:v", "libx264", "-preset", "veryfast", "-g", "15", "-bf", "0", "-c:a", "aac",
                                                "-shortest", path])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        return path
    }

    /// (stream, size, md5) of every packet, as FFmpeg's framemd5 lists them.
    private func packetHashes(_ path: String) throws -> [String] {
        let result = try Tools.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"])
        return result.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return "\(fields[0]) \(fields[4]) \(fields[5])"
        }
    }

    private func relayTask(source: String, outputs: [String], encoder: String? = nil) -> String {
        """
        {"target": {"mode": "bigStreamToCdn", "relayUser": {"strRoomId": "r", "userId": "anchor"},
                    "cdnUrlList": [\(outputs.map { #"{"rtmpUrl": "\#($0)"}"# }.joined(separator: ","))]},
         \(encoder.map { "\"encoderParam\": \($0)," } ?? "")
         "streams": [{"strRoomId": "r", "userId": "anchor", "url": "\(source)"}]}
        """
    }

    func test_relayWithoutEncoderParam_copiesEveryPacketBitForBit() throws {
        let source = try Self.fixture()
        let run = try EngineRun.run(relayTask(source: source, outputs: ["{OUT}"]), ext: "flv")
        XCTAssertEqual(run.reason, .inputsEnded)
        XCTAssertTrue(run.ticks.isEmpty, "nothing is composed")
        let input = try packetHashes(source), output = try packetHashes(run.output)
        XCTAssertEqual(output.count, input.count)
        XCTAssertEqual(output, input)
        // The output starts at 0 and keeps the source's offset between audio and video.
        let firstVideo = try XCTUnwrap(Tools.packets(run.output, stream: "v:0").first?.pts)
        let firstAudio = try XCTUnwrap(Tools.packets(run.output, stream: "a:0").first?.pts)
        XCTAssertEqual(min(firstVideo, firstAudio), 0)
        let sourceVideo = try XCTUnwrap(Tools.packets(source, stream: "v:0").first?.pts)
        let sourceAudio = try XCTUnwrap(Tools.packets(source, stream: "a:0").first?.pts)
        XCTAssertEqual(firstVideo - firstAudio, sourceVideo - sourceAudio)
    }

    func test_relayThroughRTMP_forwardsAContiguousRunOfTheSourcePackets() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: RTMPServer.module), "libnginx-mod-rtmp is not installed")
        let source = try Self.fixture()
        let server = try RTMPServer()
        let publisher = Process()
        publisher.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        publisher.arguments = ["-v", "error", "-re", "-stream_loop", "-1", "-i", source, "-c", "copy", "-f", "flv", server.url("r_anchor_main")]
        try publisher.run()
        defer { publisher.terminate(); publisher.waitUntilExit() }
        let live = try LiveEngine(relayTask(source: server.url("r_anchor_main"), outputs: [server.url("relayed")]))
        XCTAssertTrue(eventually(within: 10) { live.status.outputs.first?.state == .publishing })
        let pulled = FileManager.default.temporaryDirectory.appendingPathComponent("relayed-\(UUID().uuidString).flv").path
        let pull = try Tools.run("ffmpeg", ["-v", "error", "-rw_timeout", "10000000", "-i", server.url("relayed"), "-t", "2",
                                            "-c", "copy", "-y", pulled])
        XCTAssertEqual(pull.status, 0, pull.stderr)
        let video = { (hashes: [String]) in hashes.filter { $0.hasPrefix("0 ") } }
        let relayed = video(try packetHashes(pulled)), original = video(try packetHashes(source))
        XCTAssertGreaterThan(relayed.count, 20)
        // The source loops, so a run may wrap around its end.
        let looped = original + original + original
        let start = try XCTUnwrap(looped.firstIndex(of: relayed[0]), "the first relayed packet is one of the source's")
        XCTAssertEqual(Array(looped[start..<start + relayed.count]), relayed, "packets arrive unchanged and in order")
        _ = try live.stop()
    }

    func test_relayWithEncoderParam_transcodesTheUserOntoTheCanvas() throws {
        let encoder = #"{"videoEncodedWidth": 160, "videoEncodedHeight": 160, "videoEncodedGOP": 1}"#
        let run = try EngineRun.run(relayTask(source: "testsrc:?size=320x180&duration=1", outputs: ["{OUT}"], encoder: encoder),
                                    captureCanvas: true)
        XCTAssertEqual(run.ticks.count, 15)
        let canvas = try XCTUnwrap(run.ticks.first?.canvas)
        XCTAssertEqual(canvas.yuv(x: 80, y: 2).0, 16, "fitted 16:9 picture leaves black bars above and below")
        try run.checkEncodedVideo()
    }
}
