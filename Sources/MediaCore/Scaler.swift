import CFFmpeg

/// A picture region in memory: plane pointers and strides of a planar image.
public struct PlanarImage {
    public var planes: [UnsafeMutablePointer<UInt8>?]
    public var strides: [Int32]
    public var width: Int
    public var height: Int
    public var format: PixelFormat

    public init(planes: [UnsafeMutablePointer<UInt8>?], strides: [Int32], width: Int, height: Int, format: PixelFormat) {
        self.planes = planes
        self.strides = strides
        self.width = width
        self.height = height
        self.format = format
    }

    /// The region of a YUV 4:2:0 image starting at (x, y), both even, of the given size.
    public func yuv420Region(x: Int, y: Int, width: Int, height: Int) -> PlanarImage {
        precondition(x % 2 == 0 && y % 2 == 0, "4:2:0 regions start on even coordinates")
        var region = self
        region.planes = [
            planes[0].map { $0 + y * Int(strides[0]) + x },
            planes[1].map { $0 + (y / 2) * Int(strides[1]) + x / 2 },
            planes[2].map { $0 + (y / 2) * Int(strides[2]) + x / 2 },
        ]
        region.width = width
        region.height = height
        return region
    }
}

/// How pictures are resampled. Bit-exact flags make the same inputs give the same bytes
/// on any CPU, which golden tests rely on.
public struct ScaleQuality: Sendable, Hashable {
    public let flags: Int32
    public static let bitExactBilinear = ScaleQuality(flags: SWS_BILINEAR | SWS_ACCURATE_RND | SWS_BITEXACT)
}

/// A cached swscale context; rebuilt only when the geometry or formats change.
public final class Scaler {
    private var context: OpaquePointer?
    private var key: Key?
    private let quality: ScaleQuality

    private struct Key: Hashable {
        var srcWidth, srcHeight, dstWidth, dstHeight: Int
        var srcFormat, dstFormat: PixelFormat
    }

    public init(quality: ScaleQuality) { self.quality = quality }

    deinit { sws_freeContext(context) }

    /// Scales all of `source` into all of `destination`.
    public func scale(_ source: PlanarImage, into destination: PlanarImage) throws {
        let wanted = Key(srcWidth: source.width, srcHeight: source.height, dstWidth: destination.width,
                         dstHeight: destination.height, srcFormat: source.format, dstFormat: destination.format)
        if wanted != key {
            sws_freeContext(context)
            context = sws_getContext(Int32(source.width), Int32(source.height), source.format.av,
                                     Int32(destination.width), Int32(destination.height), destination.format.av,
                                     quality.flags, nil, nil, nil)
            key = context == nil ? nil : wanted
            guard context != nil else {
                throw FFmpegError(operation: "sws_getContext",
                                  message: "cannot scale \(source.width)x\(source.height) \(source.format) to \(destination.width)x\(destination.height) \(destination.format)")
            }
        }
        let sourcePlanes = source.planes.map { UnsafePointer($0) }
        let scaled = sws_scale(context, sourcePlanes, source.strides, 0, Int32(source.height),
                               destination.planes, destination.strides)
        try check(scaled, "sws_scale")
    }
}
