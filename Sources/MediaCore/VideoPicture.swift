import CFFmpeg

/// A YUV 4:2:0 picture that may move from the thread that made it to the mixing thread.
/// Either pixels in Swift memory (synthesised pictures, copies), or a read-only reference
/// to a decoder's frame, so that decoded pictures cross threads without being copied.
public struct VideoPicture: Sendable {
    public let width: Int
    public let height: Int
    private let storage: Storage

    private enum Storage: Sendable {
        case owned(bytes: [UInt8], strides: [Int], offsets: [Int])
        case shared(FrozenFrame)
    }

    /// A picture of the given size with uninitialised contents, to be filled by `fill`.
    public init(width: Int, height: Int, fill: (_ y: UnsafeMutablePointer<UInt8>, _ u: UnsafeMutablePointer<UInt8>,
                                                 _ v: UnsafeMutablePointer<UInt8>, _ strides: [Int]) -> Void) {
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        let strides = [width, chromaWidth, chromaWidth]
        let offsets = [0, width * height, width * height + chromaWidth * chromaHeight]
        let total = width * height + 2 * chromaWidth * chromaHeight
        let bytes = [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
            let base = buffer.baseAddress!
            fill(base + offsets[0], base + offsets[1], base + offsets[2], strides)
            count = total
        }
        self.width = width
        self.height = height
        storage = .owned(bytes: bytes, strides: strides, offsets: offsets)
    }

    /// Copies a yuv420p (or yuvj420p) frame into Swift memory.
    public init(copying frame: Frame) {
        precondition(frame.isYUV420, "convert to yuv420p first")
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

    /// Takes a read-only reference to a decoded yuv420p (or yuvj420p) frame: no pixels are
    /// copied. `frame` stays usable; its producer may go on decoding into new buffers.
    public init(sharing frame: Frame) {
        precondition(frame.isYUV420, "convert to yuv420p first")
        width = frame.width
        height = frame.height
        storage = .shared(FrozenFrame(referencing: frame))
    }

    /// Lends the picture's planes to FFmpeg calls, read-only.
    public func withImage<R>(_ body: (PlanarImage) throws -> R) rethrows -> R {
        switch storage {
        case .owned(let bytes, let strides, let offsets):
            return try bytes.withUnsafeBufferPointer { buffer in
                let base = UnsafeMutablePointer(mutating: buffer.baseAddress!)
                return try body(PlanarImage(planes: offsets.map { base + $0 }, strides: strides.map { Int32($0) },
                                            width: width, height: height, format: .yuv420p))
            }
        case .shared(let frame):
            return try withExtendedLifetime(frame) {
                try body(PlanarImage(planes: (0..<3).map { Frame.plane(frame.pointer, $0) },
                                     strides: (0..<3).map { Int32(Frame.stride(frame.pointer, $0)) },
                                     width: width, height: height, format: .yuv420p))
            }
        }
    }
}

/// A decoded frame frozen for reading on any thread. It holds its own references to the
/// decoder's buffers (`av_frame_ref`); FFmpeg counts those references atomically, and a
/// decoder never writes into a buffer someone else still references, it takes a new one.
/// Nothing mutates the frame after `init`, which is why it may be shared.
final class FrozenFrame: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVFrame>

    init(referencing frame: Frame) {
        guard let clone = av_frame_clone(frame.pointer) else { fatalError("av_frame_clone: out of memory") }
        pointer = clone
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }
}

extension Frame {
    /// This frame's planes as a `PlanarImage` (valid while the frame is).
    public var image: PlanarImage {
        PlanarImage(planes: (0..<4).map { data($0) }, strides: (0..<4).map { Int32(linesize($0)) },
                    width: width, height: height, format: pixelFormat)
    }

    /// True for the layouts a `VideoPicture` holds as they are.
    public var isYUV420: Bool { pixelFormat == .yuv420p || pixelFormat == .yuvj420p }
}
