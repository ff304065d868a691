import MediaCore

/// An image scaled to the size it is drawn at, in the canvas's YUV 4:2:0 with an alpha
/// plane, made once per (image, crop, size) and drawn every tick. Confined to the mixing
/// thread.
final class ImageLayer {
    let width: Int
    let height: Int
    private let frame: Frame
    private let opaque: Bool
    /// The mean alpha of each 2×2 block, i.e. per chroma sample (empty when opaque).
    private let chromaAlpha: [UInt8]

    /// Scales the `source` region (image pixels) of `image` to `width`×`height`.
    init(_ image: StillImage, source: PixelRect, width: Int, height: Int, quality: ScaleQuality) throws {
        self.width = width
        self.height = height
        opaque = !image.hasTransparency
        let frame = try Frame.video(width: width, height: height, format: .yuva420p)
        self.frame = frame
        try image.rgba.withUnsafeBufferPointer { pixels in
            let rowBytes = image.width * 4
            let start = UnsafeMutablePointer(mutating: pixels.baseAddress!) + source.y * rowBytes + source.x * 4
            let region = PlanarImage(planes: [start], strides: [Int32(rowBytes)], width: source.width, height: source.height,
                                     format: .rgba)
            try Scaler(quality: quality).scale(region, into: frame.image)
        }
        chromaAlpha = image.hasTransparency ? ImageLayer.blockMeans(frame.data(3)!, stride: frame.linesize(3), width: width, height: height) : []
    }

    private static func blockMeans(_ alpha: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int) -> [UInt8] {
        let columns = (width + 1) / 2, rows = (height + 1) / 2
        var means = [UInt8](repeating: 0, count: columns * rows)
        for row in 0..<rows {
            for column in 0..<columns {
                var sum = 0, count = 0
                for y in (2 * row)..<min(2 * row + 2, height) {
                    for x in (2 * column)..<min(2 * column + 2, width) {
                        sum += Int(alpha[y * stride + x])
                        count += 1
                    }
                }
                means[row * columns + column] = UInt8((sum + count / 2) / count)
            }
        }
        return means
    }

    /// Draws the layer with its top-left corner at (x, y) (even), clipped to the canvas:
    /// opaque images are copied; others are blended, out = (a·image + (255 − a)·canvas) / 255,
    /// chroma with the mean alpha of its 2×2 block.
    func draw(into canvas: YUVPlanes, x: Int, y: Int) {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(canvas.width, x + width), y1 = min(canvas.height, y + height)
        guard x1 > x0, y1 > y0 else { return }
        let alpha = frame.data(3)!, alphaStride = frame.linesize(3)
        let luma = frame.data(0)!, lumaStride = frame.linesize(0)
        for row in y0..<y1 {
            let source = luma + (row - y) * lumaStride + (x0 - x)
            let target = canvas.y + row * canvas.strides[0] + x0
            if opaque {
                target.update(from: source, count: x1 - x0)
            } else {
                let weights = alpha + (row - y) * alphaStride + (x0 - x)
                for i in 0..<(x1 - x0) { target[i] = ImageLayer.blend(source[i], over: target[i], alpha: weights[i]) }
            }
        }
        let cx0 = x0 / 2, cx1 = (x1 + 1) / 2, cy0 = y0 / 2, cy1 = (y1 + 1) / 2
        for plane in 1...2 {
            let chroma = frame.data(plane)!, chromaStride = frame.linesize(plane)
            let canvasPlane = plane == 1 ? canvas.u : canvas.v
            for row in cy0..<cy1 {
                let source = chroma + (row - y / 2) * chromaStride + (cx0 - x / 2)
                let target = canvasPlane + row * canvas.strides[plane] + cx0
                if opaque {
                    target.update(from: source, count: cx1 - cx0)
                    continue
                }
                let weights = (row - y / 2) * ((width + 1) / 2) + (cx0 - x / 2)
                for i in 0..<(cx1 - cx0) {
                    target[i] = ImageLayer.blend(source[i], over: target[i], alpha: chromaAlpha[weights + i])
                }
            }
        }
    }

    func planeData(_ plane: Int) -> UnsafeMutablePointer<UInt8> { frame.data(plane)! }
    func planeStride(_ plane: Int) -> Int { frame.linesize(plane) }

    @inline(__always)
    static func blend(_ value: UInt8, over base: UInt8, alpha: UInt8) -> UInt8 {
        let a = Int(alpha)
        return UInt8((Int(value) * a + Int(base) * (255 - a) + 127) / 255)
    }
}
