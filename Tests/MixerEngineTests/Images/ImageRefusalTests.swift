import Foundation
import MediaCore
@testable import MixerEngine
import MixerTask
import XCTest

/// Images that cannot be used are refused before anything starts or changes (SPEC §5),
/// with `ResourceNotFound.Image` naming the field; good ones load from files and http(s).
final class ImageRefusalTests: XCTestCase {
    private func task(watermark: String) -> String {
        """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "/tmp/never-written.mp4"}]},
         "encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180},
         "mixingConfig": {"watermarkList": [{"watermarkUrl": "\(watermark)", "rect": {"x": 0, "y": 0, "width": 80, "height": 40}}]},
         "streams": [{"strRoomId": "r", "userId": "a", "url": "testsrc:?duration=1"}]}
        """
    }

    private func refusal(_ watermark: String) throws -> TaskError? {
        let parsed = try TaskParser.parse(task(watermark: watermark))
        do {
            _ = try Preflight.check(parsed, roomURLTemplate: WorkerCapabilities.defaultRoomURLTemplate)
            return nil
        } catch {
            return error
        }
    }

    func test_missingOversizedAndUndecodableImages_areRefused_namingTheField() throws {
        let field = "mixingConfig.watermarkList[0].watermarkUrl"
        for (path, says) in [("/nonexistent/logo.png", "no such file"), (TestImages.oversized, "at most 2 MB"),
                             (TestImages.notAnImage, "not a decodable PNG, JPEG or BMP"), (TestImages.corruptPNG, "not a decodable PNG, JPEG or BMP")] {
            let error = try XCTUnwrap(try refusal(path), "\(path) is refused")
            XCTAssertEqual(error.code, "ResourceNotFound.Image", path)
            XCTAssertTrue(error.message.hasPrefix("\(field) \"\(path)\""), error.message)
            XCTAssertTrue(error.message.contains(says), error.message)
        }
        XCTAssertNil(try refusal(TestImages.halfRedLogo), "a good PNG is accepted")
    }

    func test_anUpdateWithABadImage_isRefused_andTheTaskStaysAsItWas() throws {
        let text = task(watermark: TestImages.halfRedLogo)
        let engine = MixEngine(task: try TaskParser.parse(text), json: try JSONValue.parse(text), options: EngineOptions())
        let update = #"{"mixingConfig": {"backgroundImage": "/nonexistent/bg.jpg"}}"#
        XCTAssertThrowsError(try engine.update(try JSONValue.parse(update), capabilities: WorkerCapabilities())) { error in
            XCTAssertEqual((error as? TaskError)?.code, "ResourceNotFound.Image")
            XCTAssertTrue((error as? TaskError)?.message.contains("mixingConfig.backgroundImage") ?? false)
        }
        XCTAssertNil(engine.task.mixingConfig.backgroundImage, "nothing changed")
        XCTAssertEqual(engine.task.mixingConfig.watermarkList.count, 1)
        XCTAssertNil(engine.takePendingUpdate(), "nothing reaches the mixing thread")
    }

    func test_pngJpegAndBmp_decodeToTheirSizeAndColour() throws {
        for (path, width, height, rgb) in [(TestImages.placeholder, 64, 64, (0x20, 0x40, 0xC0)), (TestImages.jpeg, 96, 64, (0x40, 0xA0, 0x60)),
                                            (TestImages.halfRedLogo, 80, 40, (0xFF, 0, 0))] {
            let image = try StillImageLoader.decode(try StillImageLoader.fetch(path, limit: ImageLibrary.sizeLimit, timeout: 1))
            XCTAssertEqual(image.width, width, path)
            XCTAssertEqual(image.height, height, path)
            let centre = ((height / 2) * width + width / 2) * 4
            XCTAssertEqual(Int(image.rgba[centre]), rgb.0, accuracy: 3, path)
            XCTAssertEqual(Int(image.rgba[centre + 1]), rgb.1, accuracy: 3, path)
            XCTAssertEqual(Int(image.rgba[centre + 2]), rgb.2, accuracy: 3, path)
        }
        let logo = try StillImageLoader.decode(try StillImageLoader.fetch(TestImages.halfRedLogo, limit: ImageLibrary.sizeLimit, timeout: 1))
        XCTAssertTrue(logo.hasTransparency)
        XCTAssertEqual(Int(logo.rgba[3]), 128, accuracy: 1, "50 % alpha")
    }

    func test_imagesOverHTTP_load_andA404OrAClosedPortIsRefused() throws {
        let server = try HTTPFileServer(directory: TestImages.folder.path, file: TestImages.halfRedLogo)
        defer { server.stop() }
        let logoName = URL(fileURLWithPath: TestImages.halfRedLogo).lastPathComponent
        XCTAssertNil(try refusal("http://127.0.0.1:\(server.port)/\(logoName)"), "served over http")
        let missing = try XCTUnwrap(try refusal("http://127.0.0.1:\(server.port)/nope.png"))
        XCTAssertEqual(missing.code, "ResourceNotFound.Image")
        let closed = try XCTUnwrap(try refusal("http://127.0.0.1:\(try RTMPServer.freePort())/logo.png"))
        XCTAssertEqual(closed.code, "ResourceNotFound.Image")
        XCTAssertTrue(closed.message.contains("cannot be read"), closed.message)
    }
}

/// Python's http.server on a free loopback port, serving a folder.
final class HTTPFileServer {
    let port: Int
    private let process = Process()

    init(directory: String, file: String) throws {
        port = try RTMPServer.freePort()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-m", "http.server", "\(port)", "--bind", "127.0.0.1", "--directory", directory]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard eventually(within: 10, { RTMPServer.accepts(port: self.port) }) else {
            stop()
            throw NSError(domain: "HTTPFileServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "http.server did not start"])
        }
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
