import Foundation
import XCTest

/// `mixer run` and `mixer validate` as a user calls them.
final class CommandLineTests: XCTestCase {
    private var binary: String { Tools.mixerBinary }

    private func writeTask(_ text: String) throws -> (task: String, output: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let output = folder.appendingPathComponent("out.mp4").path
        let task = folder.appendingPathComponent("task.json").path
        try text.replacingOccurrences(of: "{OUT}", with: output).write(toFile: task, atomically: true, encoding: .utf8)
        return (task, output)
    }

    private func task(duration: String) -> String {
        """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "{OUT}"}]},
         "encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180},
         "mixingConfig": {"videoLayoutList": [{"rect": {"x": 0, "y": 0, "width": 320, "height": 180},
                                               "fixedVideoUser": {"strRoomId": "r", "userId": "a"}}]},
         "streams": [{"strRoomId": "r", "userId": "a", "url": "testsrc:?size=320x180&\(duration)"}]}
        """
    }

    func test_run_writesAPlayableFileAndExitsZero() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary), "build the mixer product first")
        let (taskPath, output) = try writeTask(task(duration: "duration=1"))
        let result = try Tools.run(binary, ["run", taskPath])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("frame=    15"), result.stderr)
        XCTAssertTrue(result.stderr.contains("done: all inputs ended"), result.stderr)
        XCTAssertEqual(try Tools.packets(output, stream: "v:0").count, 15)
    }

    func test_invalidTask_exitsTwoNamingTheField() throws {
        let (taskPath, _) = try writeTask(task(duration: "duration=1").replacingOccurrences(of: #""width": 320, "height": 180}"#, with: #""width": 320, "height": 180}, "zOrder": 17"#))
        for command in ["run", "validate"] {
            let result = try Tools.run(binary, [command, taskPath])
            XCTAssertEqual(result.status, 2, command)
            XCTAssertTrue(result.stderr.contains("InvalidParameter.ZOrder: mixingConfig.videoLayoutList[0].zOrder 17 is outside 0–15"), result.stderr)
        }
    }

    func test_missingInputFile_isRefusedBeforeStarting() throws {
        let text = task(duration: "duration=1").replacingOccurrences(of: "testsrc:?size=320x180&duration=1", with: "/nonexistent/a.flv")
        let (taskPath, output) = try writeTask(text)
        let result = try Tools.run(binary, ["run", taskPath])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("ResourceNotFound.Input: streams[0].url \"/nonexistent/a.flv\""), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func test_validate_describesTheInputs() throws {
        let (taskPath, _) = try writeTask(task(duration: "duration=1"))
        let result = try Tools.run(binary, ["validate", taskPath])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.text.contains("ok: mixStreamToCdn, 320x180@15, 1 input(s), 1 output(s)"), result.text)
    }

    func test_control_takesUpdatesOnStandardInput_andRepliesWithOneJSONLineEach() throws {
        let (taskPath, output) = try writeTask(task(duration: "duration=600"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run", taskPath, "--realtime", "--quiet", "--control", "-"]
        let input = Pipe(), replies = Pipe()
        process.standardInput = input
        process.standardOutput = replies
        try process.run()
        Thread.sleep(forTimeInterval: 1)
        let updates = [
            ##"{"mixingConfig": {"backgroundColor": "#FF0000"}}"##,
            #"{"encoderParam": {"videoEncodedWidth": 640, "videoEncodedHeight": 360}}"#,
            "not json",
        ]
        input.fileHandleForWriting.write(Data((updates.joined(separator: "\n") + "\n").utf8))
        var lines: [String] = []
        var buffer = Data()
        let deadline = Date().addingTimeInterval(10)
        while lines.count < 3 && Date() < deadline {
            buffer.append(replies.fileHandleForReading.availableData)
            lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(lines.count, 3, "\(lines)")
        XCTAssertTrue(lines[0].hasPrefix(#"{"code":0,"#), lines[0])
        XCTAssertTrue(lines[1].contains(#""code":"UnsupportedOperation.EncoderParamChange""#), lines[1])
        XCTAssertTrue(lines[2].contains(#""code":"InvalidParameter.Json""#), lines[2])
        XCTAssertGreaterThan(try Tools.packets(output, stream: "v:0").count, 10)
    }

    func test_sigint_closesTheFileCleanlyAndExitsZero() throws {
        let (taskPath, output) = try writeTask(task(duration: "duration=600"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run", taskPath, "--realtime", "--quiet"]
        try process.run()
        Thread.sleep(forTimeInterval: 2)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        // The MP4 has its index (written by the trailer), so it plays and has every frame.
        let packets = try Tools.packets(output, stream: "v:0")
        XCTAssertGreaterThan(packets.count, 15)
        XCTAssertLessThan(packets.count, 60)
        XCTAssertEqual(try Tools.stream(output, "v:0")["codec_name"], "h264")
    }
}
