import MixerTask

/// A colour in limited-range BT.601 YCbCr, the space the canvas is composed in.
struct YUVColor: Sendable, Hashable {
    var y: UInt8
    var u: UInt8
    var v: UInt8

    init(y: UInt8, u: UInt8, v: UInt8) {
        self.y = y
        self.u = u
        self.v = v
    }

    init(_ rgb: RGBColor) {
        let r = Double(rgb.red), g = Double(rgb.green), b = Double(rgb.blue)
        func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
        y = clamp(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255)
        u = clamp(128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255)
        v = clamp(128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255)
    }

    static let black = YUVColor(y: 16, u: 128, v: 128)
    static let white = YUVColor(y: 235, u: 128, v: 128)
}

/// Raw access to the three planes of a YUV 4:2:0 picture, for fills and drawing.
struct YUVPlanes {
    var y: UnsafeMutablePointer<UInt8>
    var u: UnsafeMutablePointer<UInt8>
    var v: UnsafeMutablePointer<UInt8>
    var strides: [Int]
    var width: Int
    var height: Int

    /// Fills the rectangle (clipped to the picture) with `color`. Chroma covers the
    /// 2x2 blocks the rectangle touches, so rects should start on even coordinates.
    func fill(x: Int, y top: Int, width: Int, height: Int, color: YUVColor) {
        let x0 = max(0, x), y0 = max(0, top)
        let x1 = min(self.width, x + width), y1 = min(self.height, top + height)
        guard x1 > x0, y1 > y0 else { return }
        for row in y0..<y1 {
            (y + row * strides[0] + x0).update(repeating: color.y, count: x1 - x0)
        }
        let cx0 = x0 / 2, cx1 = (x1 + 1) / 2, cy0 = y0 / 2, cy1 = (y1 + 1) / 2
        for row in cy0..<cy1 {
            (u + row * strides[1] + cx0).update(repeating: color.u, count: cx1 - cx0)
            (v + row * strides[2] + cx0).update(repeating: color.v, count: cx1 - cx0)
        }
    }

    /// Draws `text` in luma with the bitmap font, each font pixel `scale` pixels wide.
    func draw(text: String, x: Int, y top: Int, scale: Int, luma: UInt8) {
        for (index, character) in text.enumerated() {
            let left = x + index * BitmapFont.glyphWidth * scale
            for (row, bits) in BitmapFont.rows(of: character).enumerated() where bits != 0 {
                for column in 0..<BitmapFont.glyphWidth where bits & (1 << (BitmapFont.glyphWidth - 1 - column)) != 0 {
                    let px = left + column * scale, py = top + row * scale
                    guard px >= 0, py >= 0, px + scale <= width, py + scale <= height else { continue }
                    for line in 0..<scale {
                        (y + (py + line) * strides[0] + px).update(repeating: luma, count: scale)
                    }
                }
            }
        }
    }

    /// Lines of near-white text on a black box whose top-left corner is (x, y), the text
    /// `padding` in from the box's edges.
    func drawLabel(_ lines: [String], x: Int, y top: Int, scale: Int, padding: (x: Int, y: Int)) {
        let lineHeight = BitmapFont.glyphHeight * scale
        let textWidth = (lines.map(\.count).max() ?? 0) * BitmapFont.glyphWidth * scale
        fill(x: x, y: top, width: textWidth + 2 * padding.x, height: lines.count * lineHeight + 2 * padding.y, color: .black)
        for (line, text) in lines.enumerated() {
            draw(text: text, x: x + padding.x, y: top + padding.y + line * lineHeight, scale: scale, luma: 235)
        }
    }
}
