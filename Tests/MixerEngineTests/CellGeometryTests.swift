@testable import MixerEngine
import MixerTask
import XCTest

final class CellGeometryTests: XCTestCase {
    private let canvas = (width: 640, height: 360)

    private func place(_ source: (Int, Int), _ cell: PixelRect, _ mode: FillMode) -> CellPlacement? {
        CellPlacement.place(sourceWidth: source.0, sourceHeight: source.1, in: cell, mode: mode,
                            canvasWidth: canvas.width, canvasHeight: canvas.height)
    }

    func test_fill_cropsTheCentreOfTheSourceToTheCellsAspect() {
        let placement = place((360, 640), PixelRect(x: 0, y: 0, width: 320, height: 180), .fill)
        XCTAssertEqual(placement?.destination, PixelRect(x: 0, y: 0, width: 320, height: 180))
        // 360 wide at 16:9 is rows 218.75–421.25 of 640; each edge goes to the nearest even row.
        XCTAssertEqual(placement?.source, PixelRect(x: 0, y: 218, width: 360, height: 204))
    }

    func test_fit_centresTheWholeSourceInsideTheCell() {
        let placement = place((640, 360), PixelRect(x: 100, y: 0, width: 200, height: 200), .fit)
        XCTAssertEqual(placement?.source, PixelRect(x: 0, y: 0, width: 640, height: 360))
        XCTAssertEqual(placement?.destination, PixelRect(x: 100, y: 44, width: 200, height: 112))
    }

    func test_stretch_usesTheWholeSourceAndTheWholeCell() {
        let placement = place((640, 360), PixelRect(x: 10, y: 20, width: 100, height: 300), .stretch)
        XCTAssertEqual(placement, CellPlacement(source: PixelRect(x: 0, y: 0, width: 640, height: 360),
                                                destination: PixelRect(x: 10, y: 20, width: 100, height: 300)))
    }

    func test_clipping_cutsTheSourceInProportion() {
        let placement = place((200, 100), PixelRect(x: -100, y: 0, width: 200, height: 100), .stretch)
        XCTAssertEqual(placement?.destination, PixelRect(x: 0, y: 0, width: 100, height: 100))
        XCTAssertEqual(placement?.source, PixelRect(x: 100, y: 0, width: 100, height: 100))
        XCTAssertNil(place((200, 100), PixelRect(x: 700, y: 0, width: 100, height: 100), .fill), "entirely off the canvas")
    }

    func test_cellRects_startOnEvenPixels() {
        XCTAssertEqual(CellPlacement.alignedCell(Rect(x: 401, y: 5, width: 135, height: 240)),
                       PixelRect(x: 400, y: 4, width: 136, height: 240))
        XCTAssertEqual(CellPlacement.alignedCell(Rect(x: -3, y: 0, width: 10, height: 0)),
                       PixelRect(x: -4, y: 0, width: 10, height: 0))
    }

    func test_colours_convertWithBT601LimitedRange() {
        XCTAssertEqual(YUVColor(RGBColor(rgb: 0x000000)), YUVColor(y: 16, u: 128, v: 128))
        XCTAssertEqual(YUVColor(RGBColor(rgb: 0xFFFFFF)), YUVColor(y: 235, u: 128, v: 128))
        XCTAssertEqual(YUVColor(RGBColor(rgb: 0xFF0000)), YUVColor(y: 81, u: 90, v: 240))
    }
}
