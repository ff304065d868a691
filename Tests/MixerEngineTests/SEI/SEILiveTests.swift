import Foundation
import MediaCore
@testable import MixerEngine
import MixerTask
import XCTest

/// Forwarded SEI through a real RTMP server both ways: a karaoke performer's black frames
/// with lyric progress published to nginx-rtmp, mixed back into the room, recorded there.
final class SEILiveTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: RTMPServer.module), "libnginx-mod-rtmp is not installed")
    }

    /// An ffmpeg CLI process copying `input` to `output` (flushing every packet, so that
    /// what it got is on disk whenever it is stopped).
    private func copyProcess(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    private func stop(_ process: Process, within seconds: Double) {
        guard process.isRunning else { return }
        process.terminate()
        if !eventually(within: seconds, { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    func test_karaokePerformersSEI_throughNginxBothWays_arrivesCompleteInOrderOnce() throws {
        let server = try RTMPServer()
        // 4 s at 25 fps; lyric progress from the second second on, one message a frame.
        let fps = 25, frames = 100
        let messages = (0..<frames).map { index -> [SEIMessage] in
            index < 25 ? [] : [SEIMessage(payloadType: 242, content: Array("{\"lyric\":\(index)}".utf8))]
        }
        let fixture = try SEIFixture.path("flv")
        try SEIFixture.write(fixture, fps: fps, frames: frames) { messages[$0] }
        let task = """
        {"target": {"mode": "mixStreamToRoom", "mixStreamIdentity": {"strRoomId": "ktv", "userId": "singer_robot"}},
         "encoderParam": {"videoEncodedWidth": 64, "videoEncodedHeight": 64, "videoEncodedFPS": 15, "videoEncodedGOP": 1,
                          "videoEncodedKbps": 30},
         "mixingConfig": {"videoLayoutList": [{}], "audioMixUserList": [{"strRoomId": "ktv", "userId": "singer"}]}}
        """
        let live = try LiveEngine(task, probe: (10, 10)) { $0.roomURLTemplate = "rtmp://127.0.0.1:\(server.port)/live/{roomId}_{userId}_{streamType}" }
        XCTAssertTrue(eventually(within: 15) { live.status.outputs.first?.state == .publishing }, "the mix is published to the room")
        // A listener of the mix; the performer starts once it is receiving.
        let recording = try SEIFixture.path("flv")
        let recorder = try copyProcess(["-rw_timeout", "30000000", "-i", server.url("ktv_singer_robot_main"), "-c", "copy",
                                        "-flush_packets", "1", "-f", "flv", recording])
        defer { stop(recorder, within: 1) }
        XCTAssertTrue(eventually(within: 15) { (try? FileManager.default.attributesOfItem(atPath: recording)[.size] as? Int ?? 0) ?? 0 > 1000 },
                      "the listener receives the mix")
        let performer = try copyProcess(["-re", "-i", fixture, "-c", "copy", "-f", "flv", server.url("ktv_singer_main")])
        XCTAssertTrue(eventually(within: 20) { !performer.isRunning }, "the performer's 4 s were sent")
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try live.stop(), .stopped)
        Thread.sleep(forTimeInterval: 0.5)
        stop(recorder, within: 3)

        let sent = messages.flatMap { $0 }
        let received = try SEIProbe.forwardable(recording)
        XCTAssertEqual(received.map { String(decoding: $0.content, as: UTF8.self) }.joined(), sent.map { String(decoding: $0.content, as: UTF8.self) }.joined())
        XCTAssertTrue(received == sent, "every lyric message once, in order, bytes unchanged")
        // Black frames carried them: the recording is the 64×64 mix at 15 fps.
        let video = try Tools.stream(recording, "v:0")
        XCTAssertEqual(video["width"], "64")
        XCTAssertEqual(video["r_frame_rate"], "15/1")
    }
}
