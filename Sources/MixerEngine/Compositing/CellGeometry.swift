import MixerTask

/// An integer rectangle in pixels.
struct PixelRect: Sendable, Hashable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    var isEmpty: Bool { width <= 0 || height <= 0 }
}

/// Where a source picture lands in a cell: the part of the source that is shown and the
/// part of the canvas it is scaled into, both on even coordinates for 4:2:0 chroma.
struct CellPlacement: Sendable, Hashable {
    var source: PixelRect
    var destination: PixelRect

    /// Places a `sourceWidth`×`sourceHeight` picture into `cell` by `mode`, clipped to the
    /// canvas. Fill crops the source's centre so only what is shown gets scaled; fit
    /// letterboxes; stretch ignores the aspect ratio. Nil when nothing is visible.
    static func place(sourceWidth: Int, sourceHeight: Int, in cell: PixelRect, mode: FillMode,
                      canvasWidth: Int, canvasHeight: Int) -> CellPlacement? {
        guard !cell.isEmpty, sourceWidth > 0, sourceHeight > 0 else { return nil }
        let sw = Double(sourceWidth), sh = Double(sourceHeight)
        // The shown source window and the canvas area it covers.
        var window = (x: 0.0, y: 0.0, w: sw, h: sh)
        var area = (x: Double(cell.x), y: Double(cell.y), w: Double(cell.width), h: Double(cell.height))
        switch mode {
        case .stretch:
            break
        case .fill:
            let scale = max(area.w / sw, area.h / sh)
            window.w = min(sw, area.w / scale)
            window.h = min(sh, area.h / scale)
            window.x = (sw - window.w) / 2
            window.y = (sh - window.h) / 2
        case .fit:
            let scale = min(area.w / sw, area.h / sh)
            let w = sw * scale, h = sh * scale
            area = (area.x + (area.w - w) / 2, area.y + (area.h - h) / 2, w, h)
        }
        // Clip the area to the canvas and cut the source window by the same proportions.
        let x0 = max(area.x, 0), y0 = max(area.y, 0)
        let x1 = min(area.x + area.w, Double(canvasWidth)), y1 = min(area.y + area.h, Double(canvasHeight))
        guard x1 > x0, y1 > y0 else { return nil }
        let sx0 = window.x + (x0 - area.x) * window.w / area.w
        let sx1 = window.x + (x1 - area.x) * window.w / area.w
        let sy0 = window.y + (y0 - area.y) * window.h / area.h
        let sy1 = window.y + (y1 - area.y) * window.h / area.h
        guard let destination = evenRect(x0, y0, x1, y1, limitWidth: canvasWidth, limitHeight: canvasHeight),
              let source = evenRect(sx0, sy0, sx1, sy1, limitWidth: sourceWidth, limitHeight: sourceHeight) else {
            return nil
        }
        return CellPlacement(source: source, destination: destination)
    }

    /// Rounds a rectangle to even corners (at least 2×2), kept within the limits.
    private static func evenRect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double,
                                 limitWidth: Int, limitHeight: Int) -> PixelRect? {
        func even(_ value: Double) -> Int { Int((value / 2).rounded()) * 2 }
        let left = max(0, even(x0)), top = max(0, even(y0))
        let right = min(limitWidth, max(left + 2, even(x1))), bottom = min(limitHeight, max(top + 2, even(y1)))
        let rect = PixelRect(x: left, y: top, width: right - left, height: bottom - top)
        return rect.isEmpty ? nil : rect
    }

    /// A cell's rectangle on even coordinates (4:2:0 chroma covers 2×2 pixels).
    static func alignedCell(_ rect: Rect) -> PixelRect {
        let x = rect.x & ~1, y = rect.y & ~1
        return PixelRect(x: x, y: y, width: (rect.x + rect.width - x) & ~1, height: (rect.y + rect.height - y) & ~1)
    }
}
