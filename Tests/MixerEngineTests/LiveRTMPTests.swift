import Foundation
import MediaCore
import MixerEngine
import MixerTask
import XCTest

/// Live operation against a real RTMP server: nginx-rtmp on loopback, anchors published by
/// the ffmpeg CLI, the mix pulled back and checked.
final class LiveRTMPTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: RTMPServer.module), "libnginx-mod-rtmp is not installed")
    }

    private func task(outputs: [String], cells: String, streams: String = "[]", mode: String = "mixStreamToCdn",
                      extra: String = "") -> String {
        """
        {"target": {"mode": "\(mode)", "cdnUrlList": [\(outputs.map { #"{"rtmpUrl": "\#($0)"}"# }.joined(separator: ","))]\(extra)},
         "encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180, "videoEncodedFPS": 15, "videoEncodedGOP": 1,
                          "videoEncodedKbps": 600},
         "mixingConfig": {"backgroundColor": "0x00FF00", "videoLayoutList": \(cells)},
         "streams": \(streams)}
        """
    }

    private func cell(_ user: String, x: Int, width: Int) -> String {
        #"{"rect": {"x": \#(x), "y": 0, "width": \#(width), "height": 180}, "backgroundColor": "0x00FF00", "fixedVideoUser": {"strRoomId": "r", "userId": "\#(user)"}}"#
    }

    func test_anchorsPulledFromTheRoomDirectory_areMixedAndPushed_andThePullShowsTheLayout() throws {
        let server = try RTMPServer()
        let red = try Publisher(to: server.url("r_a_main"), video: "color=c=red:size=320x240:rate=15", tone: 440)
        let blue = try Publisher(to: server.url("r_b_main"), video: "color=c=blue:size=240x320:rate=25", tone: 880)
        defer { red.stop(); blue.stop() }
        let live = try LiveEngine(task(outputs: [server.url("mix")], cells: "[\(cell("a", x: 0, width: 160)), \(cell("b", x: 160, width: 160))]")) {
            $0.roomURLTemplate = "rtmp://127.0.0.1:\(server.port)/live/{roomId}_{userId}_{streamType}"
        }
        XCTAssertTrue(eventually(within: 15) {
            live.status.outputs.first?.state == .publishing && live.status.inputs.allSatisfy { $0.state == .live }
        }, "inputs \(live.status.inputs.map(\.state)), output \(String(describing: live.status.outputs.first?.state))")
        Thread.sleep(forTimeInterval: 1)
        let (frames, info, pts) = try Tools.pull(server.url("mix"), seconds: 2, width: 320, height: 180)
        XCTAssertEqual(info["codec_name"], "h264")
        XCTAssertEqual(info["width"], "320")
        XCTAssertEqual(info["height"], "180")
        XCTAssertEqual(info["r_frame_rate"], "15/1")
        XCTAssertEqual(info["audio_codec_name"], "aac")
        XCTAssertEqual(Double(frames.count), 30, accuracy: 3, "2 s at 15 fps")
        // The wall-clock loop emits evenly spaced frames whatever the inputs' jitter (FLV counts ms: 66/67).
        let steps = Set(zip(pts.dropFirst(), pts).map { $0 - $1 })
        XCTAssertTrue(steps.isSubset(of: [66, 67]), "pulled frame spacing \(steps)")
        let last = try XCTUnwrap(frames.last)
        let left = pixel(last, width: 320, height: 180, x: 80, y: 90), right = pixel(last, width: 320, height: 180, x: 240, y: 90)
        XCTAssertEqual(Double(left.0), 81, accuracy: 8, "left cell shows the red anchor: \(left)")
        XCTAssertEqual(Double(left.2), 240, accuracy: 8)
        XCTAssertEqual(Double(right.0), 41, accuracy: 8, "right cell shows the blue anchor: \(right)")
        XCTAssertEqual(Double(right.1), 240, accuracy: 8)
        XCTAssertEqual(try live.stop(), .stopped)
    }

    func test_inputKilledMidTask_fallsBackWithinAboutASecond_andRejoinsWhenRepublished() throws {
        let server = try RTMPServer()
        var red: Publisher? = try Publisher(to: server.url("r_a_main"))
        let streams = #"[{"strRoomId": "r", "userId": "a", "url": "\#(server.url("r_a_main"))"}]"#
        let live = try LiveEngine(task(outputs: [server.url("mix")], cells: "[\(cell("a", x: 0, width: 160))]", streams: streams))
        let redLuma = 81.0, greenLuma = 145.0
        func showing(_ luma: Double) -> Bool { abs(Double(live.probeLuma.last?.y ?? 0) - luma) < 10 }
        XCTAssertTrue(eventually(within: 15) { showing(redLuma) }, "the input appears")
        Thread.sleep(forTimeInterval: 1)
        let killedAt = live.status.videoFrames
        red?.stop()
        red = nil
        XCTAssertTrue(eventually(within: 5) { showing(greenLuma) }, "the cell falls back to its background")
        let fallbackTick = try XCTUnwrap(live.probeLuma.first { $0.index > killedAt && abs(Double($0.y) - greenLuma) < 10 }?.index)
        let seconds = Double(fallbackTick - killedAt) / 15
        XCTAssertGreaterThan(seconds, 0.7, "the last picture is held first")
        XCTAssertLessThan(seconds, 2.0, "then the background shows within about a second")
        XCTAssertTrue(eventually(within: 5) { live.status.inputs.first?.state == .lost })
        // Its audio goes silent while it is gone.
        let silentFrom = Int64((Double(fallbackTick) / 15 + 0.5) * 48000)
        XCTAssertTrue(live.audioPeaks.filter { $0.first > silentFrom }.allSatisfy { $0.peak < 0.001 })

        red = try Publisher(to: server.url("r_a_main"))
        XCTAssertTrue(eventually(within: 15) { showing(redLuma) && live.status.inputs.first?.state == .live }, "the input rejoins")
        XCTAssertEqual(live.status.outputs.first?.state, .publishing)
        red?.stop()
        _ = try live.stop()
    }

    func test_serverRestartMidTask_pushReconnects_andTheTaskSurvives() throws {
        let server = try RTMPServer()
        let streams = #"[{"strRoomId": "r", "userId": "a", "url": "testsrc:?size=160x180&label=A"}]"#
        let live = try LiveEngine(task(outputs: [server.url("mix")], cells: "[\(cell("a", x: 0, width: 160))]", streams: streams))
        XCTAssertTrue(eventually(within: 10) { live.status.outputs.first?.state == .publishing })
        server.stop()
        XCTAssertTrue(eventually(within: 15) { [.reconnecting, .connecting].contains(live.status.outputs.first?.state) },
                      "state \(String(describing: live.status.outputs.first?.state))")
        try server.start()
        XCTAssertTrue(eventually(within: 15) { live.status.outputs.first?.state == .publishing && live.status.outputs.first?.connections == 2 })
        let (frames, _, _) = try Tools.pull(server.url("mix"), seconds: 1, width: 320, height: 180)
        XCTAssertGreaterThan(frames.count, 10)
        XCTAssertNil(live.status.ended)
        _ = try live.stop()
    }

    func test_deadURL_failsAlone_whileTheLiveOneKeepsPublishing() throws {
        let server = try RTMPServer()
        let dead = "rtmp://127.0.0.1:\(try RTMPServer.freePort())/live/nobody"
        let streams = #"[{"strRoomId": "r", "userId": "a", "url": "testsrc:?size=160x180&label=A"}]"#
        let live = try LiveEngine(task(outputs: [server.url("mix"), dead], cells: "[\(cell("a", x: 0, width: 160))]", streams: streams)) {
            $0.outputRetry = RetryPolicy(interval: 0.3, failAfter: 1.5)
        }
        XCTAssertTrue(eventually(within: 10) { live.status.outputs.last?.state == .failed }, "the dead URL reaches state 4")
        XCTAssertEqual(live.status.outputs.first?.state, .publishing)
        let (frames, _, _) = try Tools.pull(server.url("mix"), seconds: 1, width: 320, height: 180)
        XCTAssertGreaterThan(frames.count, 10)
        XCTAssertNil(live.status.ended, "one failed URL does not end the task")
        _ = try live.stop()
    }

    func test_mixStreamToRoom_publishesAtTheRobotsRoomURL() throws {
        let server = try RTMPServer()
        let streams = #"[{"strRoomId": "room9", "userId": "a", "url": "testsrc:?size=160x180&label=A"}]"#
        let cells = #"[{"rect": {"x": 0, "y": 0, "width": 320, "height": 180}, "fixedVideoUser": {"strRoomId": "room9", "userId": "a"}}]"#
        let text = task(outputs: [], cells: cells, streams: streams, mode: "mixStreamToRoom",
                        extra: #", "mixStreamIdentity": {"strRoomId": "room9", "userId": "robot"}"#)
        let live = try LiveEngine(text) { $0.roomURLTemplate = "rtmp://127.0.0.1:\(server.port)/live/{roomId}_{userId}_{streamType}" }
        XCTAssertTrue(eventually(within: 10) { live.status.outputs.first?.state == .publishing })
        XCTAssertEqual(live.status.outputs.first?.url, server.url("room9_robot_main"))
        let (frames, info, _) = try Tools.pull(server.url("room9_robot_main"), seconds: 1, width: 320, height: 180)
        XCTAssertGreaterThan(frames.count, 10)
        XCTAssertEqual(info["width"], "320")
        _ = try live.stop()
    }

    func test_srtInputAndSrtOutput_areMixedLive() throws {
        let inPort = try RTMPServer.freePort(), outPort = try RTMPServer.freePort()
        let sender = Process()
        sender.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        sender.arguments = ["-v", "error", "-re", "-f", "lavfi", "-i", "color=c=red:size=320x240:rate=15",
                            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-c:v", "libx264", "-preset", "ultrafast",
                            "-tune", "zerolatency", "-g", "15", "-c:a", "aac", "-f", "mpegts", "srt://127.0.0.1:\(inPort)?mode=listener"]
        let received = FileManager.default.temporaryDirectory.appendingPathComponent("srt-\(UUID().uuidString).ts").path
        let receiver = Process()
        receiver.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        receiver.arguments = ["-v", "error", "-i", "srt://127.0.0.1:\(outPort)?mode=listener", "-t", "3", "-c", "copy", "-y", received]
        try sender.run()
        try receiver.run()
        defer { sender.terminate(); receiver.terminate() }
        let streams = #"[{"strRoomId": "r", "userId": "a", "url": "srt://127.0.0.1:\#(inPort)"}]"#
        let live = try LiveEngine(task(outputs: ["srt://127.0.0.1:\(outPort)"], cells: "[\(cell("a", x: 0, width: 160))]", streams: streams))
        XCTAssertTrue(eventually(within: 15) { !receiver.isRunning }, "the receiver got 3 s of the mix")
        XCTAssertEqual(live.status.inputs.first?.state, .live)
        XCTAssertGreaterThan(try Tools.packets(received, stream: "v:0").count, 30)
        let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", received, "-f", "null", "-"])
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        _ = try live.stop()
    }

    func test_maxIdleTime_endsALiveTaskWhoseInputsNeverDeliver() throws {
        let server = try RTMPServer()
        let streams = #"[{"strRoomId": "r", "userId": "a", "url": "\#(server.url("nobody_publishes"))"}]"#
        let text = task(outputs: [server.url("mix")], cells: "[\(cell("a", x: 0, width: 160))]", streams: streams)
            .replacingOccurrences(of: #""streams""#, with: #""maxIdleTime": 5, "streams""#)
        let live = try LiveEngine(text)
        XCTAssertTrue(eventually(within: 12) { live.status.ended != nil })
        XCTAssertEqual(live.status.ended, .idle(seconds: 5))
        XCTAssertEqual(Double(live.status.mediaTime), 5, accuracy: 0.5)
    }
}
