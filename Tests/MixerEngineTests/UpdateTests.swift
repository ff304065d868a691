import Foundation
import MediaCore
import MixerEngine
import MixerTask
import Synchronization
import XCTest

/// SPEC §2: updates apply at the next tick and keep the one encoder and the outputs going.
final class UpdateTests: XCTestCase {
    /// Runs `text` offline and submits `updates[tick]` from inside that tick's report, so the
    /// update lands at an exact frame. Returns the run and each update's outcome.
    private func run(_ text: String, updates: [Int64: String], duration: Double? = nil,
                     ext: String = "mp4") throws -> (EngineRun, [Int64: Result<TaskDocument, TaskError>]) {
        let box = EngineBox()
        let outcomes = Mutex<[Int64: Result<TaskDocument, TaskError>]>([:])
        let result = try EngineRun.run(text, ext: ext, duration: duration, captureCanvas: true) { options in
            let previous = options.onTick
            options.onTick = { report in
                previous?(report)
                guard let update = updates[report.index], let engine = box.engine.withLock({ $0 }) else { return }
                let outcome = Result { () throws(TaskError) in
                    try engine.update(try JSONValue.parse(update), capabilities: .init())
                }
                outcomes.withLock { $0[report.index] = outcome }
            }
        } onEngine: { engine in
            box.engine.withLock { $0 = engine }
        }
        return (result, outcomes.withLock { $0 })
    }

    private final class EngineBox: Sendable {
        let engine = Mutex<MixEngine?>(nil)
    }

    private func cell(_ user: String, x: Int, background: String) -> String {
        #"{"rect": {"x": \#(x), "y": 0, "width": 160, "height": 180}, "backgroundColor": "\#(background)", "fixedVideoUser": {"strRoomId": "r", "userId": "\#(user)"}}"#
    }

    private func task(cells: [String], streams: [String], outputs: [String] = ["{OUT}"], kbps: Int = 800, gop: Int = 2,
                      extra: String = "") -> String {
        """
        {"taskId": "t", \(extra)
         "target": {"mode": "mixStreamToCdn", "cdnUrlList": [\(outputs.map { #"{"rtmpUrl": "\#($0)"}"# }.joined(separator: ","))]},
         "encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180, "videoEncodedGOP": \(gop), "videoEncodedKbps": \(kbps)},
         "mixingConfig": {"videoLayoutList": [\(cells.joined(separator: ","))]},
         "streams": [\(streams.joined(separator: ","))]}
        """
    }

    private func stream(_ user: String, _ query: String) -> String {
        #"{"strRoomId": "r", "userId": "\#(user)", "url": "testsrc:?\#(query)"}"#
    }

    func test_layoutUpdate_showsInTheFirstFrameAfterIt_withOneContinuousStream() throws {
        let audioOnly = [stream("a", "video=0&tone=300&duration=2"), stream("b", "video=0&tone=500&duration=2")]
        let before = task(cells: [cell("a", x: 0, background: "0xFF0000"), cell("b", x: 160, background: "0x0000FF")], streams: audioOnly)
        let swapped = #"{"mixingConfig": {"videoLayoutList": [\#(cell("a", x: 160, background: "0xFF0000")), \#(cell("b", x: 0, background: "0x0000FF"))]}}"#
        let (run, outcomes) = try run(before, updates: [10: swapped])
        XCTAssertNoThrow(try outcomes[10]?.get())
        let red = YUVColorProbe.red.y, blue = YUVColorProbe.blue.y
        for tick in 0...10 { XCTAssertEqual(run.ticks[tick].canvas?.yuv(x: 40, y: 90).0, red, "tick \(tick): old layout") }
        for tick in 11..<run.ticks.count { XCTAssertEqual(run.ticks[tick].canvas?.yuv(x: 40, y: 90).0, blue, "tick \(tick): new layout") }
        GoldenFile.check("update_swaps_layout_at_tick_11", run.framecrc)
        // One encoder for the whole task: evenly spaced timestamps, keyframes only on the GOP grid.
        try run.checkEncodedVideo()
    }

    func test_usersJoiningAndLeaving_takeEffectAtTheNextTick() throws {
        let start = task(cells: [cell("a", x: 0, background: "0x000000")], streams: [stream("a", "size=160x180&label=A&duration=3")])
        let join = #"{"mixingConfig": {"videoLayoutList": [\#(cell("a", x: 0, background: "0x000000")), \#(cell("b", x: 160, background: "0x00FF00"))]}, "streams": [\#(stream("a", "size=160x180&label=A&duration=3")), \#(stream("b", "size=160x180&label=B&duration=3"))]}"#
        let leave = #"{"mixingConfig": {"videoLayoutList": [\#(cell("b", x: 160, background: "0x00FF00"))]}, "streams": [\#(stream("b", "size=160x180&label=B&duration=3"))]}"#
        let (run, outcomes) = try run(start, updates: [10: join, 25: leave], duration: 3)
        XCTAssertNoThrow(try outcomes[10]?.get())
        XCTAssertNoThrow(try outcomes[25]?.get())
        let canvasBlack = UInt8(16)
        XCTAssertEqual(run.ticks[10].canvas?.yuv(x: 240, y: 90).0, canvasBlack, "b's cell is not there before the update")
        XCTAssertNotEqual(run.ticks[11].canvas?.yuv(x: 240, y: 90).0, canvasBlack, "b shows from the next tick")
        XCTAssertNotEqual(run.ticks[25].canvas?.yuv(x: 80, y: 90).0, canvasBlack, "a shows until it leaves")
        XCTAssertEqual(run.ticks[26].canvas?.yuv(x: 80, y: 90).0, canvasBlack, "a's cell is gone at the next tick")
        GoldenFile.check("update_users_join_and_leave", run.framecrc)
    }

    func test_encoderAndMediaKindChanges_areRefused_andTheTaskRunsOnUnchanged() throws {
        let text = task(cells: [cell("a", x: 0, background: "0x000000")], streams: [stream("a", "size=160x180&duration=2")])
        let fps = #"{"encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180, "videoEncodedFPS": 30}}"#
        let audioOnly = #"{"encoderParam": {"videoEncodedWidth": 0, "videoEncodedHeight": 0}}"#
        let sampleRate = #"{"encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180, "audioEncodedSampleRate": 44100}}"#
        let (run, outcomes) = try run(text, updates: [3: fps, 4: audioOnly, 5: sampleRate])
        for (tick, code, field) in [(Int64(3), "UnsupportedOperation.EncoderParamChange", "videoEncodedFPS cannot change"),
                                    (4, "UnsupportedOperation.MediaKindChange", "audio+video output into audio-only"),
                                    (5, "UnsupportedOperation.EncoderParamChange", "audioEncodedSampleRate cannot change")] {
            guard case .failure(let error)? = outcomes[tick] else { XCTFail("tick \(tick) update was accepted"); continue }
            XCTAssertEqual(error.code, code)
            XCTAssertTrue(error.message.contains(field), error.message)
        }
        XCTAssertEqual(run.ticks.count, 30)
        XCTAssertEqual(try Tools.stream(run.output, "v:0")["r_frame_rate"], "15/1")
        XCTAssertEqual(try Tools.stream(run.output, "a:0")["sample_rate"], "48000")
    }

    func test_sequenceNumbers_mustIncrease() throws {
        let text = task(cells: [], streams: [stream("a", "video=0&duration=1")], extra: #""sequenceNumber": 5,"#)
        let (_, outcomes) = try run(text, updates: [2: #"{"sequenceNumber": 5}"#, 3: #"{"sequenceNumber": 4}"#,
                                                    4: #"{"sequenceNumber": 6}"#, 5: #"{"sequenceNumber": 6}"#])
        for tick: Int64 in [2, 3, 5] {
            guard case .failure(let error)? = outcomes[tick] else { XCTFail("tick \(tick) accepted"); continue }
            XCTAssertEqual(error.code, "FailedOperation.OutdateRequest")
        }
        XCTAssertEqual(try outcomes[4]?.get().sequenceNumber, 6)
    }

    func test_bitrateChange_appliesLive_withoutANewKeyframe() throws {
        let noise = try FileInputFixtures.noise()
        let text = task(cells: [#"{"rect": {"x": 0, "y": 0, "width": 320, "height": 180}, "fixedVideoUser": {"strRoomId": "r", "userId": "n"}}"#],
                        streams: [#"{"strRoomId": "r", "userId": "n", "url": "\#(noise)"}"#], kbps: 4000)
        let (run, outcomes) = try run(text, updates: [44: #"{"encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180, "videoEncodedGOP": 2, "videoEncodedKbps": 200}}"#],
                                      duration: 6)
        XCTAssertNoThrow(try outcomes[44]?.get())
        let sizes = try Tools.packetSizes(run.output, stream: "v:0")
        let packets = try Tools.packets(run.output, stream: "v:0")
        XCTAssertEqual(packets.enumerated().filter(\.element.key).map(\.offset), [0, 30, 60], "keyframes stay on the 2 s grid")
        let before = sizes[31..<45].reduce(0, +) / 14, after = sizes[75..<89].reduce(0, +) / 14
        // 200 kbps at 15 fps is about 1667 bytes a frame.
        XCTAssertLessThan(Double(after), 1667 * 1.3, "P-frames keep to the new rate")
        XCTAssertLessThan(Double(after), Double(before) / 2, "P-frames shrink from ~\(before) to \(after) bytes")
    }

    func test_urlAdded_startsAtAKeyframe_andARemovedURLIsClosedPlayable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-update-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let first = folder.appendingPathComponent("first.mp4").path, second = folder.appendingPathComponent("second.flv").path
        let text = task(cells: [cell("a", x: 0, background: "0x000000")], streams: [stream("a", "size=160x180&duration=4")],
                        outputs: [first], gop: 1)
        let add = #"{"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "\#(first)"}, {"rtmpUrl": "\#(second)"}]}}"#
        let remove = #"{"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "\#(second)"}]}}"#
        let (run, outcomes) = try run(text, updates: [20: add, 40: remove])
        XCTAssertNoThrow(try outcomes[20]?.get())
        XCTAssertNoThrow(try outcomes[40]?.get())
        XCTAssertEqual(run.ticks.count, 60)
        // Packets leave the encoder a few frames after they are composed, so the URLs switch a
        // little later than the ticks: what matters is that nothing is missing in between.
        let firstPackets = try Tools.packets(first, stream: "v:0"), secondPackets = try Tools.packets(second, stream: "v:0")
        XCTAssertLessThan(firstPackets.count, 41, "the removed URL stops after its removal")
        XCTAssertGreaterThan(firstPackets.count, 20)
        XCTAssertEqual(secondPackets.first?.key, true, "the added URL starts at a keyframe")
        let secondStart = try XCTUnwrap(Tools.packetSeconds(second, stream: "v:0").first)
        let firstEnd = try XCTUnwrap(Tools.packetSeconds(first, stream: "v:0").max())
        XCTAssertLessThanOrEqual(secondStart, firstEnd + 1.0 / 15 + 0.001, "the two files overlap or meet: no gap")
        XCTAssertEqual(secondPackets.count, 60 - Int((secondStart * 15).rounded()), "every frame from there to the end")
        for file in [first, second] {
            let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", file, "-f", "null", "-"])
            XCTAssertEqual(decoded.stderr, "", "\(file) decodes cleanly (the removed one has its trailer)")
        }
    }
}

enum FileInputFixtures {
    /// 6 s of full-screen noise, hard to compress, so that bitrate limits show.
    static func noise() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-fixtures")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("noise.mkv").path
        if !FileManager.default.fileExists(atPath: path) {
            let made = try Tools.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "nullsrc=s=320x180:r=15:d=6,geq=random(1)*255:128:128",
                                                "-c:v", "libx264", "-qp", "0", "-preset", "ultrafast", path])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        return path
    }
}
