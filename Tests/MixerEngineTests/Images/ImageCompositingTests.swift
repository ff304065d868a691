import Foundation
import MediaCore
@testable import MixerEngine
import MixerTask
import XCTest

/// SPEC §1.4 images: background image, placeholders, watermarks blended on the zOrder scale
/// of the cells. Golden canvases plus pixel checks that say what the goldens mean.
final class ImageCompositingTests: XCTestCase {
    private func task(cells: [String], streams: [String], extra: String = "") -> String {
        """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "{OUT}"}]},
         "encoderParam": {"videoEncodedWidth": 320, "videoEncodedHeight": 180, "videoEncodedFPS": 15, "videoEncodedGOP": 1,
                          "videoEncodedKbps": 800},
         "mixingConfig": {"backgroundColor": "0x000000", "videoLayoutList": [\(cells.joined(separator: ","))]\(extra)},
         "streams": [\(streams.joined(separator: ","))]}
        """
    }

    private func cell(_ user: String, _ x: Int, _ y: Int, _ w: Int, _ h: Int, z: Int = 0, placeholder: String? = nil) -> String {
        let image = placeholder.map { #", "placeHolderImage": "\#($0)""# } ?? ""
        return #"{"rect": {"x": \#(x), "y": \#(y), "width": \#(w), "height": \#(h)}, "zOrder": \#(z), "fixedVideoUser": {"strRoomId": "r", "userId": "\#(user)"}\#(image)}"#
    }

    private func stream(_ user: String, _ query: String) -> String {
        #"{"strRoomId": "r", "userId": "\#(user)", "url": "testsrc:?\#(query)"}"#
    }

    /// The image as the compositor would draw it at `width`×`height` (stretched), for
    /// pixel expectations independent of the compositor.
    private func scaled(_ path: String, width: Int, height: Int) throws -> (y: [UInt8], alpha: [UInt8]) {
        let image = try StillImageLoader.decode(try StillImageLoader.fetch(path, limit: 1 << 22, timeout: 1))
        let layer = try ImageLayer(image, source: PixelRect(x: 0, y: 0, width: image.width, height: image.height),
                                   width: width, height: height, quality: .bitExactBilinear)
        return (layer.plane(0), layer.plane(3))
    }

    func test_backgroundImage_isStretchedOverTheCanvas_behindTheCells() throws {
        let run = try EngineRun.run(task(cells: [cell("a", 80, 45, 160, 90)], streams: [stream("a", "size=160x90&label=A&duration=1")],
                                         extra: #", "backgroundImage": "\#(TestImages.background)""#), captureCanvas: true)
        XCTAssertEqual(run.ticks.count, 15)
        GoldenFile.check("image_background", run.framecrc)
        let canvas = try XCTUnwrap(run.ticks.first?.canvas)
        let background = try scaled(TestImages.background, width: 320, height: 180)
        for (x, y) in [(10, 10), (300, 20), (20, 170), (310, 170)] {
            XCTAssertEqual(canvas.yuv(x: x, y: y).0, background.y[y * 320 + x], "background image at (\(x), \(y))")
        }
        let cellPixel = canvas.yuv(x: 160, y: 120).0
        XCTAssertNotEqual(cellPixel, background.y[120 * 320 + 160], "the cell is drawn over the background image")
        try run.checkEncodedVideo()
    }

    func test_placeholder_showsForAnAudioOnlyUser_andForAUserWhoLeaves_afterTheHold() throws {
        let ph = TestImages.placeholder
        let run = try EngineRun.run(task(cells: [cell("voice", 0, 0, 160, 180, placeholder: ph), cell("leaver", 160, 0, 160, 180, placeholder: ph)],
                                         streams: [stream("voice", "video=0&tone=300&duration=3"), stream("leaver", "size=160x180&label=L&duration=1")]),
                                    captureCanvas: true)
        XCTAssertEqual(run.ticks.count, 45)
        GoldenFile.check("image_placeholder", run.framecrc)
        let placeholderY = Int(YUVColor(RGBColor(rgb: 0x2040C0)).y)
        func lumaAt(_ tick: Int, _ x: Int) throws -> Int { Int(try XCTUnwrap(run.ticks[tick].canvas).yuv(x: x, y: 90).0) }
        XCTAssertEqual(try lumaAt(0, 80), placeholderY, accuracy: 2, "the audio-only user shows the placeholder")
        XCTAssertEqual(try lumaAt(44, 80), placeholderY, accuracy: 2)
        XCTAssertNotEqual(try lumaAt(5, 240), placeholderY, "the leaver's video shows while it lasts")
        XCTAssertNotEqual(try lumaAt(25, 240), placeholderY, "then its last picture is held for 1 s")
        XCTAssertEqual(try lumaAt(35, 240), placeholderY, accuracy: 2, "then the placeholder replaces it")
    }

    func test_semiTransparentWatermark_isBlendedOverTheVideoCell_notPasted() throws {
        let cells = [cell("a", 0, 0, 320, 180, z: 1)]
        let streams = [stream("a", "size=320x180&label=A&duration=1")]
        let logo = #", "watermarkList": [{"watermarkUrl": "\#(TestImages.halfRedLogo)", "rect": {"x": 200, "y": 100, "width": 80, "height": 40}, "zOrder": 2}, {"watermarkUrl": "\#(TestImages.alphaGradient)", "rect": {"x": 20, "y": 20, "width": 64, "height": 32}, "zOrder": 2}]"#
        let plain = try EngineRun.run(task(cells: cells, streams: streams), captureCanvas: true)
        let marked = try EngineRun.run(task(cells: cells, streams: streams, extra: logo), captureCanvas: true)
        GoldenFile.check("image_watermark", marked.framecrc)
        let under = try XCTUnwrap(plain.ticks[3].canvas), over = try XCTUnwrap(marked.ticks[3].canvas)
        let red = YUVColor(RGBColor(rgb: 0xFF0000))
        let redY = Int(red.y), redV = Int(red.v)
        for (x, y) in [(210, 110), (240, 120), (270, 130)] {
            let base = under.yuv(x: x, y: y), blended = over.yuv(x: x, y: y)
            let expectedY = (redY * 128 + Int(base.0) * 127 + 127) / 255
            XCTAssertEqual(Int(blended.0), expectedY, accuracy: 2, "half-red over the video at (\(x), \(y)): base \(base)")
            XCTAssertEqual(Int(blended.2), (redV * 128 + Int(base.2) * 127 + 127) / 255, accuracy: 3)
        }
        // The gradient: invisible at its left edge, nearly opaque white at its right.
        XCTAssertEqual(Int(over.yuv(x: 20, y: 30).0), Int(under.yuv(x: 20, y: 30).0), accuracy: 2)
        XCTAssertEqual(Int(over.yuv(x: 82, y: 30).0), 235, accuracy: 6)
        // Outside the watermarks nothing changed.
        XCTAssertEqual(over.yuv(x: 150, y: 150).0, under.yuv(x: 150, y: 150).0)
    }

    func test_watermarkBelowACell_isCoveredByIt_sharingTheZOrderScale() throws {
        let logo = #", "watermarkList": [{"watermarkUrl": "\#(TestImages.halfRedLogo)", "rect": {"x": 0, "y": 0, "width": 320, "height": 180}, "zOrder": 0}]"#
        let run = try EngineRun.run(task(cells: [cell("a", 160, 0, 160, 180, z: 1)], streams: [stream("a", "size=160x180&label=A&duration=1")],
                                         extra: logo), captureCanvas: true)
        let plain = try EngineRun.run(task(cells: [cell("a", 160, 0, 160, 180, z: 1)], streams: [stream("a", "size=160x180&label=A&duration=1")]),
                                      captureCanvas: true)
        let with = try XCTUnwrap(run.ticks[2].canvas), without = try XCTUnwrap(plain.ticks[2].canvas)
        XCTAssertEqual(Int(with.yuv(x: 40, y: 90).0), (81 * 128 + 16 * 127 + 127) / 255, accuracy: 2, "the logo over the black background")
        XCTAssertEqual(with.yuv(x: 240, y: 90).0, without.yuv(x: 240, y: 90).0, "the cell (zOrder 1) covers the logo (zOrder 0)")
    }
}

extension ImageLayer {
    /// A copy of plane `index` (tests).
    func plane(_ index: Int) -> [UInt8] {
        let rows = index == 1 || index == 2 ? height / 2 : height, columns = index == 1 || index == 2 ? width / 2 : width
        return (0..<rows).flatMap { row in (0..<columns).map { planeData(index)[row * planeStride(index) + $0] } }
    }
}
