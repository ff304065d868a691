import Foundation
import MediaCore
@testable import MixerEngine
import MixerTask
import XCTest

/// Layout templates (SPEC §1.4 `layoutTemplate`): data files in layouts/ that fill the
/// layout for any canvas and 1–16 users, re-flowed when users come and go.
final class LayoutTemplateTests: XCTestCase {
    private static let templates = ["float", "grid", "screenShare", "pk"]
    private static let canvases = [(name: "portrait", width: 360, height: 640), (name: "landscape", width: 640, height: 360)]

    /// `{OUT}` is left for `EngineRun`; parsed directly, the task writes nowhere.
    private func task(_ template: String, width: Int, height: Int, users: Int, extra: String = "", output: String = "/tmp/unused.mp4") -> String {
        let streams = (0..<users).map { #"{"strRoomId": "r", "userId": "u\#($0)", "url": "testsrc:?size=320x180&label=U\#($0)&duration=1"}"# }
        return """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "\(output)"}]},
         "encoderParam": {"videoEncodedWidth": \(width), "videoEncodedHeight": \(height), "videoEncodedFPS": 15},
         "mixingConfig": {"layoutTemplate": "\(template)", "backgroundColor": "0x202020"\(extra)},
         "streams": [\(streams.joined(separator: ","))]}
        """
    }

    /// The canvas of the first tick with every user's testsrc picture in its cell.
    private func compose(_ document: TaskDocument) throws -> UInt32 {
        let param = try XCTUnwrap(document.encoderParam)
        let compositor = try Compositor(width: param.width, height: param.height, quality: .bitExactBilinear)
        let plan = InputPlan(task: document, roomURLTemplate: WorkerCapabilities.defaultRoomURLTemplate)
        compositor.setLayout(background: document.mixingConfig.backgroundColor, cells: document.mixingConfig.videoLayoutList,
                             inputs: plan.cellInputs)
        let pictures = try plan.inputs.map { input in TestPattern(spec: try TestSourceSpec(url: input.url)).picture(0) }
        try compositor.compose { pictures[$0] }
        return compositor.checksum()
    }

    func test_everyTemplate_fitsPortraitAndLandscape_with1_2_4_and16Users_matchingGoldens() throws {
        for template in LayoutTemplateTests.templates {
            var lines: [String] = []
            for canvas in LayoutTemplateTests.canvases {
                for users in [1, 2, 4, 16] {
                    let document = try TaskParser.parse(task(template, width: canvas.width, height: canvas.height, users: users))
                    let cells = document.mixingConfig.videoLayoutList
                    let context = "\(template) \(canvas.name) \(users) users"
                    XCTAssertEqual(cells.count, users, "\(context): one cell per user")
                    XCTAssertEqual(cells.compactMap { $0.fixedVideoUser?.userId }, (0..<users).map { "u\($0)" }, "\(context): users in order")
                    for cell in cells {
                        XCTAssertTrue(cell.rect.width > 0 && cell.rect.height > 0, "\(context): \(cell.rect)")
                        XCTAssertTrue(cell.rect.x >= 0 && cell.rect.y >= 0 && cell.rect.x + cell.rect.width <= canvas.width
                                      && cell.rect.y + cell.rect.height <= canvas.height, "\(context): \(cell.rect) inside the canvas")
                    }
                    lines.append("\(canvas.name), \(users), 0x\(String(try compose(document), radix: 16))")
                }
            }
            GoldenFile.check("template_\(template)", lines.joined(separator: "\n") + "\n")
        }
    }

    func test_grid_tilesTheCanvasWithEqualCells_wideOnLandscape_tallOnPortrait() throws {
        for canvas in LayoutTemplateTests.canvases {
            for users in [1, 2, 4, 9, 16] {
                let cells = try TaskParser.parse(task("grid", width: canvas.width, height: canvas.height, users: users)).mixingConfig.videoLayoutList
                let area = cells.reduce(0) { $0 + $1.rect.width * $1.rect.height }
                XCTAssertEqual(area, canvas.width * canvas.height, "\(canvas.name) \(users): the cells tile the canvas")
                // Equal up to the rounding of thirds (640 / 3 is 213 or 214 pixels).
                XCTAssertLessThanOrEqual(cells.map(\.rect.width).max()! - cells.map(\.rect.width).min()!, 1, "equal widths")
                XCTAssertLessThanOrEqual(cells.map(\.rect.height).max()! - cells.map(\.rect.height).min()!, 1, "equal heights")
                if users == 2 {
                    let sideBySide = cells[1].rect.x > 0
                    XCTAssertEqual(sideBySide, canvas.name == "landscape", "2 users: side by side on landscape, stacked on portrait")
                }
            }
        }
    }

    func test_pk_putsTheTwoAnchorsSideBySide_andFloat_keepsTheFirstUserFullScreen() throws {
        for canvas in LayoutTemplateTests.canvases {
            let pk = try TaskParser.parse(task("pk", width: canvas.width, height: canvas.height, users: 4)).mixingConfig.videoLayoutList
            XCTAssertEqual(pk[0].rect, Rect(x: 0, y: 0, width: canvas.width / 2, height: canvas.height))
            XCTAssertEqual(pk[1].rect, Rect(x: canvas.width / 2, y: 0, width: canvas.width / 2, height: canvas.height))
            XCTAssertTrue(pk[2...].allSatisfy { $0.zOrder > 0 }, "guests float above the anchors")
            let float = try TaskParser.parse(task("float", width: canvas.width, height: canvas.height, users: 4)).mixingConfig.videoLayoutList
            XCTAssertEqual(float[0].rect, Rect(x: 0, y: 0, width: canvas.width, height: canvas.height))
            XCTAssertTrue(float[1...].allSatisfy { $0.zOrder == 1 && $0.rect.x > canvas.width / 2 }, "small windows at the right, on top")
        }
    }

    func test_anUpdateThatAddsOrRemovesUsers_reflowsTheTemplate() throws {
        let start = try JSONValue.parse(task("grid", width: 640, height: 360, users: 2))
        let before = try TaskParser.parse(start)
        XCTAssertEqual(before.mixingConfig.videoLayoutList.count, 2)
        let more = #"{"streams": [\#((0..<4).map { #"{"strRoomId": "r", "userId": "u\#($0)", "url": "testsrc:?label=U\#($0)"}"# }.joined(separator: ","))]}"#
        let merged = try TaskUpdate.merge(try JSONValue.parse(more), over: start)
        let after = try TaskParser.parse(merged)
        XCTAssertEqual(after.mixingConfig.videoLayoutList.map(\.rect.width), [320, 320, 320, 320], "2×2 now")
        XCTAssertEqual(after.mixingConfig.layoutTemplate, "grid")
        let fewer = try TaskParser.parse(try TaskUpdate.merge(try JSONValue.parse(#"{"streams": [{"strRoomId": "r", "userId": "u3", "url": "testsrc:"}]}"#), over: merged))
        XCTAssertEqual(fewer.mixingConfig.videoLayoutList.map(\.rect), [Rect(x: 0, y: 0, width: 640, height: 360)])
        XCTAssertEqual(fewer.mixingConfig.videoLayoutList.first?.fixedVideoUser?.userId, "u3")
    }

    func test_unknownTemplate_orTemplateWithCells_isRefused() throws {
        XCTAssertThrowsError(try TaskParser.parse(task("nope", width: 640, height: 360, users: 2))) { error in
            XCTAssertEqual((error as? TaskError)?.code, "ResourceNotFound.LayoutTemplate")
            XCTAssertTrue((error as? TaskError)?.message.contains("known: float, grid, pk, screenShare") ?? false, "\(error)")
        }
        let both = task("grid", width: 640, height: 360, users: 2, extra: #", "videoLayoutList": [{}]"#)
        XCTAssertThrowsError(try TaskParser.parse(both)) { error in
            XCTAssertEqual((error as? TaskError)?.code, "InvalidParameter.LayoutTemplate")
        }
    }

    func test_templateTask_runsThroughTheEngine() throws {
        let run = try EngineRun.run(task("pk", width: 640, height: 360, users: 2, output: "{OUT}"), captureCanvas: true)
        XCTAssertEqual(run.ticks.count, 15)
        let canvas = try XCTUnwrap(run.ticks.first?.canvas)
        XCTAssertNotEqual(canvas.yuv(x: 160, y: 180).0, canvas.yuv(x: 480, y: 180).0, "two different anchors side by side")
    }
}
