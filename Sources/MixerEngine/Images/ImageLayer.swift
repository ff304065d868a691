import MediaCore

/// An image scaled to the size it is drawn at, in the canvas's YUV 4:2:0 with an alpha
/// plane, made once per (image, crop, size) and drawn every tick. Confined to the mixing
/// thread.
final class ImageLayer {
    let width: Int
    let height: Int
    private let frame: Frame
    private let opaque: Bool

    /// Scales the `source` region (image pixels) of `image` to `width`×`height`.
    init(_ image: StillImage, source: PixelRect, width: Int, height: Int, quality: ScaleQuality) throws {
        self.width = width
        self.height = height
        opaque = !image.hasTransparency
        frame = try Frame.video(width: width, height: height, format: .yuva420p)
        try image.rgba.withUnsafeBufferPointer { pixels in
            let rowBytes = image.width * 4
            let start = UnsafeMutablePointer(mutating: pixels.baseAddress!) + source.y * rowBytes + source.x * 4
            let region = PlanarImage(planes: [start], strides: [Int32(rowBytes)], width: source.width, height: source.height,
                                     format: .rgba)
            try Scaler(quality: quality).scale(region, into: frame.image)
        }
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
                for i in 0..<(cx1 - cx0) {
                    // The mean alpha of the 2×2 luma block under this chroma sample.
                    let ax = 2 * (cx0 + i) - x, ay = 2 * row - y
                    var sum = 0, count = 0
                    for dy in 0...1 where ay + dy < height {
                        for dx in 0...1 where ax + dx < width {
                            sum += Int(alpha[(ay + dy) * alphaStride + ax + dx])
                            count += 1
                        }
                    }
                    target[i] = ImageLayer.blend(source[i], over: target[i], alpha: UInt8((sum + count / 2) / max(1, count)))
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
