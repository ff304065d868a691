import Foundation
import MediaCore
@testable import MixerEngine
import MixerTask
import XCTest

/// SPEC §3 end to end through files: black frames, the task's own SEI, the layout/volume
/// SEI and forwarded SEI, read back from the encoded output.
final class SEIOutputTests: XCTestCase {
    private func task(fps: Int = 15, gop: Int = 1, width: Int = 64, height: Int = 64, codec: Int = 0, encoderExtra: String = "",
                      mixingExtra: String = "", cells: String = "[{}]", streams: String) -> String {
        """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "{OUT}"}]},
         "encoderParam": {"videoEncodedWidth": \(width), "videoEncodedHeight": \(height), "videoEncodedFPS": \(fps),
                          "videoEncodedGOP": \(gop), "videoEncodedKbps": 100, "videoEncodedCodecType": \(codec)\(encoderExtra)},
         "mixingConfig": {"videoLayoutList": \(cells)\(mixingExtra)},
         "streams": \(streams)}
        """
    }

    private let voice = #"[{"strRoomId": "r", "userId": "a", "url": "testsrc:?video=0&tone=440&duration=3"}]"#
    private let zeroUUID = "00000000000000010000000200000003"
    private var zeroUUIDBytes: [UInt8] { [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3] }

    func test_videoSei_typeUuidAndBytesExact_onTheFirstFrameOfEachInterval() throws {
        let content = "{\"song\":\"" + String(repeating: "la", count: 150) + "\"}"  // > 255 bytes: 0xFF-run size
        let sei = #", "videoSeiParams": {"payloadType": 5, "payloadUuid": "\#(zeroUUID)", "payloadContent": \#(JSONValue.quote(content)), "interval": 300}"#
        let run = try EngineRun.run(task(encoderExtra: sei, streams: voice))
        let frames = try SEIProbe.frames(run.output)
        XCTAssertEqual(frames.count, 45)
        let expected = SEIMessage(payloadType: 5, uuid: zeroUUIDBytes, content: Array(content.utf8))
        let carrying = frames.enumerated().filter { $0.element.messages.contains(expected) }.map(\.offset)
        // 300 ms at 15 fps: the first frame at or after 0, 300, 600, … ms.
        XCTAssertEqual(carrying, [0, 5, 9, 14, 18, 23, 27, 32, 36, 41])
        for (k, frame) in carrying.enumerated() {
            let time = Double(frame) / 15, due = Double(k) * 0.3
            XCTAssertTrue(time >= due - 1e-9 && time < due + 1.0 / 15, "message \(k) at \(time) s, due at \(due) s")
        }
        XCTAssertTrue(frames.allSatisfy { $0.messages.filter { $0 == expected }.count <= 1 }, "once per frame")
    }

    func test_videoSei_followIdr_everyIdrCarriesIt_andNothingElseDoes() throws {
        let sei = #", "videoSeiParams": {"payloadType": 242, "payloadContent": "idr-note", "interval": 60000, "followIdr": true}"#
        let run = try EngineRun.run(task(gop: 1, encoderExtra: sei, streams: voice))
        let frames = try SEIProbe.frames(run.output)
        let note = SEIMessage(payloadType: 242, content: Array("idr-note".utf8))
        let keyframes = frames.enumerated().filter(\.element.isKeyframe).map(\.offset)
        XCTAssertEqual(keyframes, [0, 15, 30])
        XCTAssertEqual(frames.enumerated().filter { $0.element.messages.contains(note) }.map(\.offset), keyframes)
    }

    func test_seiWriting_agreesWithFFmpegsOwnParser_h264_and_h265() throws {
        let long = String(repeating: "0123456789", count: 60)  // 600 bytes
        let sei = #", "videoSeiParams": {"payloadType": 5, "payloadUuid": "\#(zeroUUID)", "payloadContent": "\#(long)", "interval": 200}"#
        let volume = #", "layoutVolumeSei": {"appData": "x", "payloadType": 254, "interval": 500}"#
        for (codec, ext, syntax) in [(0, "mp4", NALSyntax.h264), (1, "mkv", .h265)] {
            let run = try EngineRun.run(task(codec: codec, encoderExtra: sei, mixingExtra: volume, streams: voice), ext: ext)
            let ours = try SEIProbe.frames(run.output).flatMap(\.messages)
            let ffmpegs = try SEIProbe.traceHeaders(run.output, codec: syntax)
            XCTAssertGreaterThan(ours.filter { $0.payloadType == 5 && $0.uuid == zeroUUIDBytes }.count, 10, ext)
            XCTAssertGreaterThan(ours.filter { $0.payloadType == 254 }.count, 4, ext)
            XCTAssertEqual(ours.summary, ffmpegs.summary, "\(ext): same messages, types and sizes")
            XCTAssertTrue(ours == ffmpegs, "\(ext): FFmpeg reads the same payload bytes")
            // Decoders accept the stream with the SEI in it.
            let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", run.output, "-f", "null", "-"])
            XCTAssertEqual(decoded.status, 0)
            XCTAssertEqual(decoded.stderr, "", "\(ext) decodes without complaint")
        }
    }

    func test_layoutVolumeSei_listsEachUsersRegion_andTheirMeasuredVolume() throws {
        let streams = """
        [{"strRoomId": "r", "userId": "loud", "url": "testsrc:?size=160x180&tone=440&amp=0.5&duration=3"},
         {"strRoomId": "r", "userId": "mute", "url": "testsrc:?size=160x180&tone=0&duration=3"},
         {"strRoomId": "r", "userId": "voice", "url": "testsrc:?video=0&tone=330&amp=0.4&duration=3"}]
        """
        let cells = """
        [{"rect": {"x": 0, "y": 0, "width": 160, "height": 180}, "zOrder": 1, "fixedVideoUser": {"strRoomId": "r", "userId": "loud"}},
         {"rect": {"x": 160, "y": 0, "width": 160, "height": 180}, "zOrder": 2, "fixedVideoUser": {"strRoomId": "r", "userId": "mute"}}]
        """
        let mixing = """
        , "audioMixUserList": [{"strRoomId": "r", "userId": "loud"}, {"strRoomId": "r", "userId": "mute"},
                               {"strRoomId": "r", "userId": "voice", "soundLevel": 50}],
          "layoutVolumeSei": {"appData": "room-7", "payloadType": 100, "interval": 1000}
        """
        let before = Int(Date().timeIntervalSince1970)
        let run = try EngineRun.run(task(width: 320, height: 180, mixingExtra: mixing, cells: cells, streams: streams))
        let frames = try SEIProbe.frames(run.output)
        let reports = frames.enumerated().compactMap { index, frame in
            frame.messages.first { $0.payloadType == 100 }.map { (index, $0) }
        }
        XCTAssertEqual(reports.map(\.0), [0, 15, 30])
        for (index, message) in reports.dropFirst() {
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
            XCTAssertEqual(json["app_data"] as? String, "room-7")
            XCTAssertEqual(json["ver"] as? String, "1.0")
            XCTAssertEqual(json["canvas"] as? [String: Int], ["w": 320, "h": 180])
            let ts = try XCTUnwrap(json["ts"] as? Int)
            XCTAssertTrue((before - 1)...(before + 60) ~= ts, "ts \(ts) is Unix seconds")
            let regions = try XCTUnwrap(json["regions"] as? [[String: Any]])
            XCTAssertEqual(regions.map { $0["uid"] as? String }, ["loud", "mute", "voice"])
            XCTAssertEqual(regions.map { [$0["x"], $0["y"], $0["w"], $0["h"], $0["zorder"]] as? [Int] },
                           [[0, 0, 160, 180, 1], [160, 0, 160, 180, 2], [0, 0, 0, 0, 0]], "frame \(index)")
            let volumes = regions.map { $0["volume"] as? Int ?? -1 }
            XCTAssertEqual(Double(volumes[0]), 50, accuracy: 2, "a 0.5 sine reads 50")
            XCTAssertEqual(volumes[1], 0, "no audio reads 0")
            XCTAssertEqual(Double(volumes[2]), 20, accuracy: 2, "a 0.4 sine mixed at soundLevel 50 reads 20")
        }
    }

    /// A performer who is only mixed for audio sends lyric progress on every frame.
    private func performerFixture(fps: Int, frames: Int) throws -> (path: String, messages: [[SEIMessage]]) {
        let messages = (0..<frames).map { index -> [SEIMessage] in
            var list = [SEIMessage(payloadType: 242, content: Array("{\"lyric\":\(index),\"ms\":\(index * 1000 / fps)}".utf8))]
            if index % 7 == 3 {
                list.append(SEIMessage(payloadType: 5, uuid: zeroUUIDBytes, content: (0..<300).map { UInt8(($0 * 7 + index) % 256) }))
            }
            if index == 10 { list.append(SEIMessage(payloadType: 100, content: [0, 0, 0, 1])) }
            return list
        }
        let path = try SEIFixture.path("flv")
        try SEIFixture.write(path, fps: fps, frames: frames) { messages[$0] }
        return (path, messages)
    }

    func test_fixture_carriesItsSEI_asFFmpegReadsIt() throws {
        let fixture = try performerFixture(fps: 25, frames: 30)
        let sent = fixture.messages.flatMap { $0 }
        XCTAssertTrue(try SEIProbe.forwardable(fixture.path) == sent, "read back in presentation order")
        let fileOrder = try SEIProbe.frames(fixture.path, presentationOrder: false).flatMap { $0.messages.filter(\.isForwardable) }
        XCTAssertNotEqual(fileOrder.summary, sent.summary, "B-frames: file order differs")
        XCTAssertTrue(try SEIProbe.traceHeaders(fixture.path, codec: .h264).filter(\.isForwardable) == fileOrder, "FFmpeg reads the same")
        XCTAssertTrue(try Tools.run("ffprobe", ["-v", "error", "-show_entries", "stream=has_b_frames", "-of", "csv=p=0", fixture.path]).text.hasPrefix("2"),
                      "the fixture has B-frames, so its decode order is not its presentation order")
    }

    func test_forwardedSei_fromAnAudioOnlyUser_arrivesOnceInOrder_inTheNextFrame_atLowerAndHigherOutputFps() throws {
        let inputFPS = 25
        let fixture = try performerFixture(fps: inputFPS, frames: 60)
        let streams = #"[{"strRoomId": "r", "userId": "singer", "url": "\#(fixture.path)"}]"#
        for outputFPS in [10, 30] {
            let run = try EngineRun.run(task(fps: outputFPS, streams: streams))
            let frames = try SEIProbe.frames(run.output)
            let forwarded = frames.flatMap { frame in frame.messages.filter(\.isForwardable).map { (frame.seconds, $0) } }
            let sent = fixture.messages.flatMap { $0 }
            XCTAssertEqual(forwarded.map(\.1).summary, sent.summary, "\(outputFPS) fps")
            XCTAssertTrue(forwarded.map(\.1) == sent, "\(outputFPS) fps: complete, in order, once each, bytes unchanged")
            // Each lands in the output frame nearest after its own picture's time.
            let inputTimes = fixture.messages.enumerated().flatMap { index, list in list.map { _ in Double(index) / Double(inputFPS) } }
            for ((outputTime, _), inputTime) in zip(forwarded, inputTimes) {
                XCTAssertTrue(outputTime >= inputTime - 0.5 / Double(outputFPS) - 0.002 && outputTime <= inputTime + 1 / Double(outputFPS) + 0.002,
                              "\(outputFPS) fps: sent at \(inputTime) s, written at \(outputTime) s")
            }
        }
    }

    func test_forwardedSei_isNotWritten_whenEnableStreamSeiIsFalse() throws {
        let fixture = try performerFixture(fps: 25, frames: 25)
        let streams = #"[{"strRoomId": "r", "userId": "singer", "url": "\#(fixture.path)"}]"#
        let run = try EngineRun.run(task(mixingExtra: #", "enableStreamSei": false"#, streams: streams))
        XCTAssertEqual(try SEIProbe.forwardable(run.output), [])
        XCTAssertGreaterThanOrEqual(try SEIProbe.frames(run.output).count, 15, "the video itself is there")
    }

    func test_voiceRoomExample_blackFramesAtItsFpsAndGop_cheaply_carryingTheVolumeReport() throws {
        let run = try EngineRun.run(try EngineRun.example("voice-room"), ext: "flv")
        let video = try Tools.stream(run.output, "v:0")
        XCTAssertEqual(video["width"], "64")
        XCTAssertEqual(video["height"], "64")
        XCTAssertEqual(video["r_frame_rate"], "15/1")
        let packets = try Tools.packets(run.output, stream: "v:0")
        XCTAssertEqual(packets.count, 150, "10 s at 15 fps")
        XCTAssertEqual(packets.enumerated().filter(\.element.key).map(\.offset), Array(stride(from: 0, to: 150, by: 45)), "GOP 3 s")
        // Every decoded pixel is the background colour (black: Y 16, U and V 128).
        let raw = try Tools.run("ffmpeg", ["-v", "error", "-i", run.output, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]).stdout
        XCTAssertEqual(raw.count, 150 * 64 * 64 * 3 / 2)
        let frameSize = 64 * 64 * 3 / 2
        for (offset, byte) in raw.enumerated() {
            let expected: UInt8 = offset % frameSize < 64 * 64 ? 16 : 128
            if abs(Int(byte) - Int(expected)) > 1 { return XCTFail("byte \(offset) is \(byte), not the background's \(expected)") }
        }
        // An unchanging canvas costs the encoder next to nothing: P-frames are a few bytes.
        let sizes = try Tools.packetSizes(run.output, stream: "v:0")
        let predicted = sizes.enumerated().filter { !packets[$0.offset].key }.map(\.element).sorted()
        XCTAssertLessThan(predicted[predicted.count / 2], 40, "median P-frame size")
        let reports = try SEIProbe.frames(run.output).filter { $0.messages.contains { $0.payloadType == 100 } }
        XCTAssertEqual(reports.count, 10, "one layout/volume report a second")
        let last = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reports[5].messages.first { $0.payloadType == 100 }!.payload)) as? [String: Any])
        let volumes = (last["regions"] as? [[String: Any]])?.map { ($0["uid"] as? String ?? "", $0["volume"] as? Int ?? -1) }
        XCTAssertEqual(volumes?.map(\.0), ["owner", "mic1", "mic2"])
        XCTAssertEqual(volumes?.map(\.1), [60, 30, 10], "each speaker's level, to show who is talking")
    }
}
