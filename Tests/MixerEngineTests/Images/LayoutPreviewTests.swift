import Foundation
import MediaCore
@testable import MixerEngine
import MixerTask
import XCTest

/// `mixer preview`: the layout drawn without inputs, for a person designing it.
final class LayoutPreviewTests: XCTestCase {
    private var taskText: String {
        """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "/tmp/unused.mp4"}]},
         "encoderParam": {"videoEncodedWidth": 540, "videoEncodedHeight": 960},
         "mixingConfig": {"backgroundImage": "\(TestImages.background)",
           "videoLayoutList": [
             {"rect": {"x": 0, "y": 0, "width": 540, "height": 960}, "zOrder": 0, "fixedVideoUser": {"strRoomId": "r", "userId": "anchor"}},
             {"rect": {"x": 400, "y": 250, "width": 135, "height": 240}, "zOrder": 1, "fillMode": 1, "placeHolderImage": "\(TestImages.placeholder)",
              "fixedVideoUser": {"strRoomId": "r", "userId": "guest1"}},
             {"rect": {"x": 400, "y": 495, "width": 135, "height": 240}, "zOrder": 1, "backgroundColor": "0x404040"}],
           "watermarkList": [{"watermarkUrl": "\(TestImages.halfRedLogo)", "rect": {"x": 20, "y": 20, "width": 160, "height": 80}, "zOrder": 2}]},
         "streams": [{"strRoomId": "r", "userId": "guest2", "url": "rtmp://127.0.0.1/live/g2"}]}
        """
    }

    func test_preview_drawsImagesOutlinesAndLabels_matchingGolden() throws {
        let document = try TaskParser.parse(taskText)
        let images = ImageLibrary()
        try images.load(for: document)
        let png = try LayoutPreview.png(of: document, images: images, roomURLTemplate: WorkerCapabilities.defaultRoomURLTemplate)
        let image = try StillImageLoader.decode(png)
        XCTAssertEqual(image.width, 540)
        XCTAssertEqual(image.height, 960)
        var adler = Adler32()
        image.rgba.withUnsafeBufferPointer { adler.update($0.baseAddress!, count: $0.count) }
        GoldenFile.check("preview_cohost", "540x960 rgba 0x\(String(adler.value, radix: 16))\n")
        func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let i = (y * 540 + x) * 4
            return (Int(image.rgba[i]), Int(image.rgba[i + 1]), Int(image.rgba[i + 2]))
        }
        // The anchor's cell (first, yellow outline) along the canvas edge.
        let edge = rgb(270, 0)
        XCTAssertTrue(edge.0 > 200 && edge.1 > 180 && edge.2 < 80, "yellow outline: \(edge)")
        // Guest 1 has no video: its placeholder (0x2040C0) fills the cell (fit mode) inside the outline.
        let placeholder = rgb(467, 400)
        XCTAssertEqual(placeholder.0, 0x20, accuracy: 6)
        XCTAssertEqual(placeholder.2, 0xC0, accuracy: 6)
        // The third cell is auto-filled with guest2 and shows its background colour.
        XCTAssertEqual(rgb(467, 700).0, 0x40, accuracy: 4)
        // Labels: white text on a black box in the top-left corner of a cell.
        let box = (0..<30).flatMap { dy in (0..<60).map { dx in rgb(404 + dx, 254 + dy) } }
        XCTAssertTrue(box.contains { $0.0 > 200 && $0.1 > 200 && $0.2 > 200 }, "label text")
        XCTAssertTrue(box.contains { $0.0 < 20 && $0.1 < 20 && $0.2 < 20 }, "label box")
    }

    func test_previewCommand_writesThePNG_andRefusesAnAudioOnlyTask() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-preview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let taskFile = folder.appendingPathComponent("task.json").path, output = folder.appendingPathComponent("layout.png").path
        try taskText.write(toFile: taskFile, atomically: true, encoding: .utf8)
        let result = try Tools.run(Tools.mixerBinary, ["preview", taskFile, "-o", output])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.text.contains("540x960, 3 cell(s), 1 watermark(s)"), result.text)
        let probe = try Tools.stream(output, "v:0")
        XCTAssertEqual(probe["codec_name"], "png")
        XCTAssertEqual(probe["width"], "540")
        let audioOnly = taskText.replacingOccurrences(of: #""videoEncodedWidth": 540, "videoEncodedHeight": 960"#,
                                                      with: #""videoEncodedWidth": 0, "videoEncodedHeight": 0"#)
        try audioOnly.write(toFile: taskFile, atomically: true, encoding: .utf8)
        let refused = try Tools.run(Tools.mixerBinary, ["preview", taskFile, "-o", output])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("UnsupportedOperation.Preview"), refused.stderr)
    }
}
