import Foundation
import MixerService
import MixerTask
import XCTest

/// `mixer serve` through its Unix socket, as SPEC §4.2 describes it.
final class WorkerDaemonTests: XCTestCase {
    private func task(_ id: String, outputs: [String], cells: String, streams: String, kbps: Int = 600) -> String {
        """
        {"taskId": "\(id)",
         "target": {"mode": "mixStreamToCdn", "cdnUrlList": [\(outputs.map { #"{"rtmpUrl": "\#($0)"}"# }.joined(separator: ","))]},
         "encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180, "videoEncodedFPS": 15, "videoEncodedGOP": 1, "videoEncodedKbps": \(kbps)},
         "mixingConfig": {"videoLayoutList": \(cells)},
         "streams": \(streams)}
        """
    }

    private func cell(_ user: String, x: Int, background: String = "0x000000") -> String {
        #"{"rect": {"x": \#(x), "y": 0, "width": 160, "height": 180}, "backgroundColor": "\#(background)", "fixedVideoUser": {"strRoomId": "r", "userId": "\#(user)"}}"#
    }

    private func stream(_ user: String, _ query: String) -> String {
        #"{"strRoomId": "r", "userId": "\#(user)", "url": "testsrc:?\#(query)"}"#
    }

    private func file(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("mixer-daemon-\(UUID().uuidString.prefix(8))-\(name)").path
    }

    func test_socket_hasMode0660_andAnswersHealthz() async throws {
        let worker = try WorkerProcess(binary: Tools.mixerBinary)
        let mode = try FileManager.default.attributesOfItem(atPath: worker.socket)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o660)
        let (status, body) = try await worker.request("GET", "/healthz")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(body["status"] as? String, "ok")
    }

    func test_coHostJoinsAndAURLIsAdded_mid_stream_whileThePulledStreamStaysOneContinuousStream() async throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: RTMPServer.module), "libnginx-mod-rtmp is not installed")
        let server = try RTMPServer()
        let worker = try WorkerProcess(binary: Tools.mixerBinary)
        let events = EventRecorder(worker.client)
        let anchor = stream("anchor", "size=160x180&label=A")
        let start = task("cohost", outputs: [server.url("cohost")], cells: "[\(cell("anchor", x: 0))]", streams: "[\(anchor)]")
        let (created, reply) = try await worker.request("POST", "/v1/tasks", start)
        XCTAssertEqual(created, 201, "\(reply)")
        XCTAssertEqual(reply["taskId"] as? String, "cohost")
        XCTAssertEqual(reply["code"] as? Int, 0)
        try await Task.sleep(for: .seconds(1.5))

        // Pull across the update: one connection throughout.
        let pulled = file("pulled.flv")
        let puller = Process()
        puller.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        puller.arguments = ["-v", "error", "-rw_timeout", "10000000", "-i", server.url("cohost"), "-t", "4", "-c", "copy", "-y", pulled]
        try puller.run()
        try await Task.sleep(for: .seconds(1.5))
        let second = file("second.flv")
        let guest = stream("guest", "video=0&tone=660")
        let update = """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "\(server.url("cohost"))"}, {"rtmpUrl": "\(second)"}]},
         "mixingConfig": {"videoLayoutList": [\(cell("anchor", x: 0)), \(cell("guest", x: 160, background: "0x00FF00"))]},
         "streams": [\(anchor), \(guest)]}
        """
        let (updated, updateReply) = try await worker.request("PUT", "/v1/tasks/cohost", update)
        XCTAssertEqual(updated, 200, "\(updateReply)")
        puller.waitUntilExit()

        let pts = try Tools.packets(pulled, stream: "v:0").map(\.pts)
        XCTAssertGreaterThan(pts.count, 45)
        XCTAssertTrue(Set(zip(pts.dropFirst(), pts).map { $0 - $1 }).isSubset(of: [66, 67]), "evenly spaced across the update")
        let sideData = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_packets", "-show_entries", "packet_side_data=side_data_type", pulled])
        XCTAssertFalse(sideData.text.contains("New Extradata"), "no second sequence header")
        let frames = try Tools.decodedLuma(pulled, width: 320, height: 180)
        let green = Int(YUVColorProbe.green.y)
        XCTAssertNotEqual(Int(frames.first![90 * 320 + 240]), green, "before the update the right half is the canvas")
        XCTAssertEqual(Double(frames.last![90 * 320 + 240]), Double(green), accuracy: 6, "after it, the guest's cell")

        let view = try await worker.status(of: "cohost")
        XCTAssertEqual(view?.status?.outputs.map(\.url), [server.url("cohost"), second])
        XCTAssertEqual(view?.status?.outputs.first?.connections, 1, "the unchanged URL kept its connection")
        XCTAssertEqual(view?.status?.inputs.count, 2)
        let (stopped, _) = try await worker.request("DELETE", "/v1/tasks/cohost")
        XCTAssertEqual(stopped, 200)
        XCTAssertTrue(eventually(within: 5) { !events.named("onStopPublishMediaStream").isEmpty })
        XCTAssertEqual(events.named("onStartPublishMediaStream").first?["taskId"] as? String, "cohost")
        XCTAssertEqual(events.named("onUpdatePublishMediaStream").first?["code"] as? Int, 0)
        XCTAssertFalse(events.named("onCdnStreamStateChanged").filter { $0["status"] as? Int == 2 }.isEmpty)
        XCTAssertFalse(events.named("onInputJoined").isEmpty)
        XCTAssertGreaterThan(try Tools.packets(second, stream: "v:0").count, 0, "the added URL got the stream, from a keyframe")
    }

    func test_encoderParamChange_isRefusedWithItsCode_andTheTaskRunsOn() async throws {
        let worker = try WorkerProcess(binary: Tools.mixerBinary)
        let output = file("out.mp4")
        _ = try await worker.request("POST", "/v1/tasks", task("t", outputs: [output], cells: "[\(cell("a", x: 0))]", streams: "[\(stream("a", "size=160x180"))]"))
        try await Task.sleep(for: .seconds(1))
        let before = try await worker.status(of: "t")?.status?.frames ?? 0
        let (status, body) = try await worker.request("PUT", "/v1/tasks/t", #"{"encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180, "videoEncodedGOP": 3}}"#)
        XCTAssertEqual(status, 400)
        XCTAssertEqual(body["code"] as? String, "UnsupportedOperation.EncoderParamChange")
        XCTAssertTrue((body["message"] as? String ?? "").contains("encoderParam.videoEncodedGOP"))
        try await Task.sleep(for: .seconds(1))
        let after = try await worker.status(of: "t")?.status?.frames ?? 0
        XCTAssertGreaterThan(after, before + 10, "frames keep coming")
        _ = try await worker.request("DELETE", "/v1/tasks/t")
        let packets = try Tools.packets(output, stream: "v:0")
        XCTAssertEqual(packets.enumerated().filter(\.element.key).map(\.offset), Array(stride(from: 0, to: packets.count, by: 15)),
                       "the GOP stayed 1 s")
    }

    func test_killingATasksProcess_isReported_andTheWorkerAndOtherTasksGoOn() async throws {
        let worker = try WorkerProcess(binary: Tools.mixerBinary)
        let events = EventRecorder(worker.client)
        for id in ["victim", "bystander"] {
            let (status, body) = try await worker.request("POST", "/v1/tasks", task(id, outputs: [file("\(id).flv")], cells: "[]", streams: "[\(stream("a", "video=0"))]"))
            XCTAssertEqual(status, 201, "\(body)")
        }
        let victimView = try await worker.status(of: "victim")
        let victim = try XCTUnwrap(victimView)
        kill(victim.pid, SIGKILL)
        XCTAssertTrue(eventually(within: 5) { !events.named("onStopPublishMediaStream").isEmpty })
        let stop = try XCTUnwrap(events.named("onStopPublishMediaStream").first)
        XCTAssertEqual(stop["taskId"] as? String, "victim")
        XCTAssertEqual(stop["code"] as? String, "InternalError.TaskKilled")
        XCTAssertTrue((stop["message"] as? String ?? "").contains("signal 9"))
        let (health, body) = try await worker.request("GET", "/healthz")
        XCTAssertEqual(health, 200)
        XCTAssertEqual(body["tasks"] as? Int, 1, "the slot is free")
        let frames = try await worker.status(of: "bystander")?.status?.mediaTime ?? 0
        try await Task.sleep(for: .seconds(1))
        let later = try await worker.status(of: "bystander")?.status?.mediaTime ?? 0
        XCTAssertGreaterThan(later, frames + 0.5)
        let (missing, _) = try await worker.request("GET", "/v1/tasks/victim")
        XCTAssertEqual(missing, 404)
    }

    func test_hundredsOfMalformedOrHostileRequests_eachGetA4xx_andTheWorkerStaysUp() async throws {
        let worker = try WorkerProcess(binary: Tools.mixerBinary, arguments: ["--max-tasks", "1"])
        let seventeen = (0..<17).map { stream("u\($0)", "video=0") }.joined(separator: ",")
        let huge = "{\"taskId\": \"" + String(repeating: "x", count: 2 << 20) + "\"}"
        var cases: [(String, String, String?, Int, String?)] = [
            ("POST", "/v1/tasks", "{", 400, "InvalidParameter.Json"),
            ("POST", "/v1/tasks", "[]", 400, "InvalidParameter.Json"),
            ("POST", "/v1/tasks", "", 400, "InvalidParameter.Json"),
            ("POST", "/v1/tasks", #"{"target": 5}"#, 400, "InvalidParameter.Target"),
            ("POST", "/v1/tasks", #"{"target": {"mode": "x"}}"#, 400, "InvalidParameter.Mode"),
            ("POST", "/v1/tasks", task("many", outputs: [file("m.flv")], cells: "[]", streams: "[\(seventeen)]"), 400, "InvalidParameter.InputCount"),
            ("POST", "/v1/tasks", huge, 413, "InvalidParameter.BodyTooLarge"),
            ("PUT", "/v1/tasks/nobody", "{}", 404, "FailedOperation.TaskNotExist"),
            ("DELETE", "/v1/tasks/nobody", nil, 404, "FailedOperation.TaskNotExist"),
            ("GET", "/v1/tasks/nobody", nil, 404, "FailedOperation.TaskNotExist"),
            ("GET", "/v1/nothing", nil, 404, nil),
            ("PATCH", "/v1/tasks", "{}", 405, nil),
        ]
        // Wrong types in every section, and random bytes.
        for field in ["maxIdleTime", "sequenceNumber", "taskId", "encoderParam", "mixingConfig", "streams"] {
            cases.append(("POST", "/v1/tasks", "{\"\(field)\": {\"a\": [true]}, \"target\": {\"mode\": 3}}", 400, nil))
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 1...200, using: &generator)).map { _ in UInt8.random(in: 32...126, using: &generator) }
            cases.append(("POST", "/v1/tasks", String(decoding: bytes, as: UTF8.self), 400, nil))
        }
        for (method, path, body, expected, code) in cases {
            let (status, reply) = try await worker.request(method, path, body)
            if expected == 405 {
                XCTAssertTrue((400..<500).contains(status), "\(method) \(path): \(status)")
                continue
            }
            XCTAssertEqual(status, expected, "\(method) \(path) \(body?.prefix(80) ?? ""): \(reply)")
            if let code { XCTAssertEqual(reply["code"] as? String, code, "\(method) \(path)") }
            if path == "/v1/tasks" { XCTAssertNotNil(reply["message"], "a refusal says why") }
        }
        // Admission: one task at most.
        let ok = task("one", outputs: [file("one.flv")], cells: "[]", streams: "[\(stream("a", "video=0"))]")
        let first = try await worker.request("POST", "/v1/tasks", ok).0
        XCTAssertEqual(first, 201)
        let (full, reply) = try await worker.request("POST", "/v1/tasks", ok.replacingOccurrences(of: "\"one\"", with: "\"two\""))
        XCTAssertEqual(full, 503)
        XCTAssertEqual(reply["code"] as? String, "FailedOperation.RestrictedConcurrency")
        let (again, _) = try await worker.request("POST", "/v1/tasks", ok)
        XCTAssertEqual(again, 409, "the same taskId twice")
        let health = try await worker.request("GET", "/healthz").0
        XCTAssertEqual(health, 200)
        XCTAssertTrue(worker.process.isRunning)
    }

    func test_sigterm_stopsEveryTaskCleanly_andLeavesPlayableFiles() async throws {
        let worker = try WorkerProcess(binary: Tools.mixerBinary)
        let outputs = [file("a.mp4"), file("b.mp4")]
        for (index, output) in outputs.enumerated() {
            let (status, _) = try await worker.request("POST", "/v1/tasks", task("t\(index)", outputs: [output], cells: "[\(cell("a", x: 0))]", streams: "[\(stream("a", "size=160x180"))]"))
            XCTAssertEqual(status, 201)
        }
        try await Task.sleep(for: .seconds(1.5))
        let started = Date()
        worker.process.terminate()
        worker.process.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "shutdown is bounded")
        XCTAssertEqual(worker.process.terminationStatus, 0, worker.logText)
        XCTAssertFalse(FileManager.default.fileExists(atPath: worker.socket), "the socket is removed")
        for output in outputs {
            let packets = try Tools.packets(output, stream: "v:0")
            XCTAssertGreaterThan(packets.count, 15, "\(output) has its frames and its index (trailer)")
        }
    }

    func test_clientCommands_startListUpdateStatusStop() throws {
        let worker = try WorkerProcess(binary: Tools.mixerBinary)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-client-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let taskFile = folder.appendingPathComponent("task.json").path
        try task("cli", outputs: [folder.appendingPathComponent("out.flv").path], cells: "[]", streams: "[\(stream("a", "video=0"))]")
            .write(toFile: taskFile, atomically: true, encoding: .utf8)
        let refused = folder.appendingPathComponent("refused.json").path
        try #"{"encoderParam": {"videoEncodedWidth": 640, "videoEncodedHeight": 360}}"#.write(toFile: refused, atomically: true, encoding: .utf8)
        let socket = ["--socket", worker.socket]
        let started = try Tools.run(Tools.mixerBinary, ["start", taskFile] + socket)
        XCTAssertEqual(started.status, 0, started.stderr)
        XCTAssertTrue(started.text.contains(#""taskId":"cli""#), started.text)
        XCTAssertTrue(try Tools.run(Tools.mixerBinary, ["list"] + socket).text.contains(#""taskId":"cli""#))
        XCTAssertTrue(try Tools.run(Tools.mixerBinary, ["status", "cli"] + socket).text.contains(#""state":"running""#))
        let update = try Tools.run(Tools.mixerBinary, ["update", "cli", refused] + socket)
        XCTAssertEqual(update.status, 2, "a refusal exits 2")
        XCTAssertTrue(update.text.contains("UnsupportedOperation.EncoderParamChange"), update.text)
        XCTAssertEqual(try Tools.run(Tools.mixerBinary, ["stop", "cli"] + socket).status, 0)
        XCTAssertEqual(try Tools.run(Tools.mixerBinary, ["status", "cli"] + socket).status, 2)
    }
}
