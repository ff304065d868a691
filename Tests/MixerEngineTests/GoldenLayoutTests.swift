import MediaCore
import MixerEngine
import MixerTask
import XCTest

/// Golden-frame regression tests: the canvas of every tick and every mixed audio block is
/// hashed before encoding and compared with a reference; the encoded file is checked by
/// decoding it.
final class GoldenLayoutTests: XCTestCase {
    private func task(canvas: (Int, Int), kbps: Int = 800, background: String = "0x000000",
                      cells: [String], streams: [String], audio: String = "") -> String {
        """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "{OUT}"}]},
         "encoderParam": {"videoEncodedWidth": \(canvas.0), "videoEncodedHeight": \(canvas.1), "videoEncodedFPS": 15,
                          "videoEncodedGOP": 1, "videoEncodedKbps": \(kbps)},
         "mixingConfig": {"backgroundColor": "\(background)", "videoLayoutList": [\(cells.joined(separator: ","))]\(audio)},
         "streams": [\(streams.joined(separator: ","))]}
        """
    }

    private func cell(_ user: String?, _ x: Int, _ y: Int, _ w: Int, _ h: Int, z: Int = 0, fill: Int = 0,
                      background: String = "0x000000") -> String {
        let fixed = user.map { #", "fixedVideoUser": {"strRoomId": "r", "userId": "\#($0)"}"# } ?? ""
        return #"{"rect": {"x": \#(x), "y": \#(y), "width": \#(w), "height": \#(h)}, "zOrder": \#(z), "fillMode": \#(fill), "backgroundColor": "\#(background)"\#(fixed)}"#
    }

    private func stream(_ user: String, _ query: String) -> String {
        #"{"strRoomId": "r", "userId": "\#(user)", "url": "testsrc:?\#(query)"}"#
    }

    func test_singleFullScreenInput_matchesGolden() throws {
        let run = try EngineRun.run(task(canvas: (320, 180), cells: [cell("a", 0, 0, 320, 180)],
                                         streams: [stream("a", "size=640x360&label=A&duration=2")]), captureCanvas: true)
        XCTAssertEqual(run.reason, .inputsEnded)
        XCTAssertEqual(run.ticks.count, 30)
        GoldenFile.check("single_fullscreen", run.framecrc)
        try run.checkEncodedVideo()
    }

    func test_ecommerceCoHostLayout_matchesGolden() throws {
        let run = try EngineRun.run(EngineRun.example("cohost"), duration: 2, captureCanvas: true)
        XCTAssertEqual(run.reason, .durationReached)
        XCTAssertEqual(run.ticks.count, 30)
        GoldenFile.check("cohost", run.framecrc)
        try run.checkEncodedVideo()
    }

    func test_pkSideBySide_matchesGolden() throws {
        let run = try EngineRun.run(EngineRun.example("pk"), duration: 2, captureCanvas: true)
        XCTAssertEqual(run.ticks.count, 30)
        GoldenFile.check("pk", run.framecrc)
        try run.checkEncodedVideo()
        XCTAssertEqual(try Tools.stream(run.output, "a:0")["channels"], "2")
    }

    /// Sixteen overlapping cells: every fill mode, portrait and landscape sources, zOrders
    /// that put later cells under earlier ones.
    func test_sixteenCellGrid_overlappingZOrdersAndAllFillModes_matchesGolden() throws {
        var cells: [String] = [], streams: [String] = []
        for i in 0..<16 {
            let user = "u\(i)"
            cells.append(cell(user, 80 * (i % 4) - 8, 46 * (i / 4) - 6, 96, 56, z: (i * 7) % 16, fill: i % 3,
                              background: "0x\(String(0x203040 + i * 0x0B0906, radix: 16))"))
            let size = i % 2 == 0 ? "96x160" : "160x96"
            streams.append(stream(user, "size=\(size)&fps=15&tone=\(200 + 50 * i)&amp=0.05&label=\(i)&duration=1"))
        }
        let run = try EngineRun.run(task(canvas: (320, 180), kbps: 1500, cells: cells, streams: streams), captureCanvas: true)
        XCTAssertEqual(run.ticks.count, 15)
        GoldenFile.check("grid16_overlap_fillmodes", run.framecrc)
        try run.checkEncodedVideo(minimumPSNR: 30)
    }

    func test_fitMode_letterboxesWithTheCellBackground() throws {
        let red = YUVColorProbe.red
        let run = try EngineRun.run(task(canvas: (240, 240), cells: [cell("a", 0, 0, 240, 240, fill: 1, background: "0xFF0000")],
                                         streams: [stream("a", "size=320x180&label=A&duration=1")]), captureCanvas: true)
        GoldenFile.check("fit_letterbox", run.framecrc)
        let canvas = try XCTUnwrap(run.ticks.last?.canvas)
        // 320x180 fitted into 240x240 is 240x135: bars of about 52 rows above and below.
        for y in [0, 40, 200, 239] { XCTAssertEqual(canvas.yuv(x: 120, y: y).0, red.y, "bar row \(y)") }
        XCTAssertNotEqual(canvas.yuv(x: 230, y: 120).0, red.y, "picture in the middle")
        try run.checkEncodedVideo()
    }

    func test_rectsLeavingTheCanvas_areClipped() throws {
        let cells = [cell("a", -80, -40, 200, 120), cell("b", 220, 100, 200, 120, z: 1)]
        let run = try EngineRun.run(task(canvas: (320, 180), background: "0x0000FF", cells: cells,
                                         streams: [stream("a", "size=200x120&label=A&duration=1"),
                                                   stream("b", "size=200x120&label=B&duration=1")]), captureCanvas: true)
        GoldenFile.check("clipped_rect", run.framecrc)
        let canvas = try XCTUnwrap(run.ticks.first?.canvas)
        let blue = YUVColorProbe.blue
        XCTAssertEqual(canvas.yuv(x: 160, y: 60).0, blue.y, "canvas background between the cells")
        XCTAssertNotEqual(canvas.yuv(x: 10, y: 10).0, blue.y, "cell a shows in the top-left corner")
        XCTAssertNotEqual(canvas.yuv(x: 300, y: 170).0, blue.y, "cell b shows in the bottom-right corner")
        try run.checkEncodedVideo()
    }

    func test_cellWhoseUserHasNoVideo_showsItsBackground() throws {
        let cells = [cell("a", 0, 0, 160, 180), cell("b", 160, 0, 160, 180, background: "0x00FF00")]
        let run = try EngineRun.run(task(canvas: (320, 180), cells: cells,
                                         streams: [stream("a", "size=160x180&label=A&duration=1"),
                                                   stream("b", "video=0&tone=330&duration=1")]), captureCanvas: true)
        GoldenFile.check("no_video_user", run.framecrc)
        let green = YUVColorProbe.green
        let canvas = try XCTUnwrap(run.ticks.last?.canvas)
        XCTAssertEqual(canvas.yuv(x: 240, y: 90).0, green.y)
        XCTAssertEqual(canvas.yuv(x: 240, y: 90).1, green.u)
        // The audio-only user is still heard.
        let mixed = run.audio.flatMap(\.audio.samples)
        XCTAssertGreaterThan(Spectrum.amplitude(of: 330, in: mixed[...], sampleRate: 48000), 0.3)
    }

    func test_inputThatEnds_holdsItsLastPictureForOneSecondThenShowsTheBackground() throws {
        let cells = [cell("a", 0, 0, 160, 180, background: "0xFFFFFF"), cell("b", 160, 0, 160, 180)]
        let run = try EngineRun.run(task(canvas: (320, 180), cells: cells,
                                         streams: [stream("a", "size=160x180&label=A&duration=1"),
                                                   stream("b", "size=160x180&label=B&duration=3")]), captureCanvas: true)
        XCTAssertEqual(run.ticks.count, 45)
        let white = YUVColorProbe.white
        let lastOfA = try XCTUnwrap(run.ticks[14].canvas)
        for tick in 15...29 {
            let held = try XCTUnwrap(run.ticks[tick].canvas)
            XCTAssertEqual(held.yuv(x: 80, y: 20).0, lastOfA.yuv(x: 80, y: 20).0, "tick \(tick) holds a's last picture")
        }
        for tick in 31...44 {
            XCTAssertEqual(try XCTUnwrap(run.ticks[tick].canvas).yuv(x: 80, y: 90).0, white.y, "tick \(tick) shows a's background")
        }
        GoldenFile.check("input_ends_hold_then_background", run.framecrc)
    }

    func test_cellsWithoutFixedUser_areFilledInOrderOfAppearance() throws {
        let cells = [cell(nil, 0, 0, 160, 180), cell(nil, 160, 0, 160, 180)]
        let run = try EngineRun.run(task(canvas: (320, 180), cells: cells,
                                         streams: [stream("a", "size=160x180&label=A&duration=1"),
                                                   stream("b", "size=160x180&label=B&duration=1")]), captureCanvas: true)
        GoldenFile.check("auto_filled_cells", run.framecrc)
    }

    func test_sameTaskTwice_givesTheSameCanvasBytes() throws {
        let text = try EngineRun.example("cohost")
        let first = try EngineRun.run(text, duration: 1)
        let second = try EngineRun.run(text, duration: 1)
        XCTAssertEqual(first.framecrc, second.framecrc)
    }
}

/// Colours as the canvas stores them (BT.601 limited range).
enum YUVColorProbe {
    static let red = (y: UInt8(81), u: UInt8(90), v: UInt8(240))
    static let green = (y: UInt8(145), u: UInt8(54), v: UInt8(34))
    static let blue = (y: UInt8(41), u: UInt8(240), v: UInt8(110))
    static let white = (y: UInt8(235), u: UInt8(128), v: UInt8(128))
}
