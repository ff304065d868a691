import CFFmpeg

/// A YUV 4:2:0 picture held in Swift memory (one buffer, three planes). Sendable, so a
/// decoded picture can move from its input's thread to the mixing thread without
/// sharing any FFmpeg object.
public struct VideoPicture: Sendable {
    public let width: Int
    public let height: Int
    public private(set) var bytes: [UInt8]
    public let strides: [Int]
    public let offsets: [Int]

    /// A picture of the given size with uninitialised contents, to be filled by `fill`.
    public init(width: Int, height: Int, fill: (_ y: UnsafeMutablePointer<UInt8>, _ u: UnsafeMutablePointer<UInt8>,
                                                 _ v: UnsafeMutablePointer<UInt8>, _ strides: [Int]) -> Void) {
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        self.width = width
        self.height = height
        strides = [width, chromaWidth, chromaWidth]
        offsets = [0, width * height, width * height + chromaWidth * chromaHeight]
        let total = width * height + 2 * chromaWidth * chromaHeight
        let strides = self.strides
        let offsets = self.offsets
        bytes = [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
            let base = buffer.baseAddress!
            fill(base + offsets[0], base + offsets[1], base + offsets[2], strides)
            count = total
        }
    }

    /// Copies a decoded yuv420p (or yuvj420p) frame.
    public init(copying frame: Frame) {
        precondition(frame.pixelFormat == .yuv420p || frame.pixelFormat == .yuvj420p, "convert to yuv420p first")
        let planeHeights = [frame.height, (frame.height + 1) / 2, (frame.height + 1) / 2]
        let rowBytes = [frame.width, (frame.width + 1) / 2, (frame.width + 1) / 2]
        self.init(width: frame.width, height: frame.height) { y, u, v, strides in
            for (plane, target) in [y, u, v].enumerated() {
                let source = frame.data(plane)!
                let sourceStride = frame.linesize(plane)
                for row in 0..<planeHeights[plane] {
                    (target + row * strides[plane]).update(from: source + row * sourceStride, count: rowBytes[plane])
                }
            }
        }
    }

    /// Lends the picture's planes to FFmpeg calls (read-only in practice).
    public func withImage<R>(_ body: (PlanarImage) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeMutablePointer(mutating: buffer.baseAddress!)
            let image = PlanarImage(planes: offsets.map { base + $0 }, strides: strides.map { Int32($0) },
                                    width: width, height: height, format: .yuv420p)
            return try body(image)
        }
    }
}

extension Frame {
    /// This frame's planes as a `PlanarImage` (valid while the frame is).
    public var image: PlanarImage {
        PlanarImage(planes: (0..<3).map { data($0) }, strides: (0..<3).map { Int32(linesize($0)) },
                    width: width, height: height, format: pixelFormat)
    }
}
