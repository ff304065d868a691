import CFFmpeg
import CFFmpegShims

/// An owned AVFrame. Not Sendable: a frame lives on the thread that made it.
public final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    public init() {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    /// A writable video frame with its own buffers.
    public static func video(width: Int, height: Int, format: PixelFormat) throws -> Frame {
        let frame = Frame()
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = format.rawValue
        try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer(\(width)x\(height))")
        return frame
    }

    /// A writable planar-float audio frame with its own buffers.
    public static func audio(samples: Int, sampleRate: Int, channels: Int) throws -> Frame {
        let frame = Frame()
        frame.pointer.pointee.nb_samples = Int32(samples)
        frame.pointer.pointee.sample_rate = Int32(sampleRate)
        frame.pointer.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        av_channel_layout_default(&frame.pointer.pointee.ch_layout, Int32(channels))
        try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer(audio \(samples))")
        return frame
    }

    public func unref() { av_frame_unref(pointer) }

    /// Copies the buffers if an encoder still holds a reference to them.
    public func makeWritable() throws {
        try check(av_frame_make_writable(pointer), "av_frame_make_writable")
    }

    public var width: Int { Int(pointer.pointee.width) }
    public var height: Int { Int(pointer.pointee.height) }
    public var pixelFormat: PixelFormat { PixelFormat(rawValue: pointer.pointee.format) }
    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }
    public var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    public var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }

    /// Presentation time in the producer's time base; nil when unknown.
    public var pts: Int64? {
        get {
            let value = pointer.pointee.best_effort_timestamp != AVCode.noTimestamp
                ? pointer.pointee.best_effort_timestamp : pointer.pointee.pts
            return value == AVCode.noTimestamp ? nil : value
        }
        set {
            pointer.pointee.pts = newValue ?? AVCode.noTimestamp
            pointer.pointee.best_effort_timestamp = AVCode.noTimestamp
        }
    }

    /// Asks the encoder to make this picture a keyframe (an IDR with x264's and x265's
    /// `forced-idr`), or leaves the choice to it.
    public var requestsKeyframe: Bool {
        get { pointer.pointee.pict_type == AV_PICTURE_TYPE_I }
        set { pointer.pointee.pict_type = newValue ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE }
    }

    /// Plane `plane`'s memory; nil for planes the format does not have.
    public func data(_ plane: Int) -> UnsafeMutablePointer<UInt8>? { Frame.plane(pointer, plane) }

    public func linesize(_ plane: Int) -> Int { Frame.stride(pointer, plane) }

    static func plane(_ frame: UnsafePointer<AVFrame>, _ plane: Int) -> UnsafeMutablePointer<UInt8>? {
        mx_frame_data(frame, Int32(plane))
    }

    static func stride(_ frame: UnsafePointer<AVFrame>, _ plane: Int) -> Int { Int(mx_frame_linesize(frame, Int32(plane))) }

    /// Plane `plane` as floats (planar float audio only).
    public func floatSamples(_ plane: Int) -> UnsafeMutablePointer<Float> {
        UnsafeMutableRawPointer(data(plane)!).assumingMemoryBound(to: Float.self)
    }
}

/// A pixel format, named as FFmpeg names it.
public struct PixelFormat: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let yuv420p = PixelFormat(rawValue: AV_PIX_FMT_YUV420P.rawValue)
    public static let yuvj420p = PixelFormat(rawValue: AV_PIX_FMT_YUVJ420P.rawValue)
    public static let rgb24 = PixelFormat(rawValue: AV_PIX_FMT_RGB24.rawValue)
    public static let rgba = PixelFormat(rawValue: AV_PIX_FMT_RGBA.rawValue)
    /// YUV 4:2:0 with a full-resolution alpha plane: images ready to blend onto the canvas.
    public static let yuva420p = PixelFormat(rawValue: AV_PIX_FMT_YUVA420P.rawValue)

    var av: AVPixelFormat { AVPixelFormat(rawValue: rawValue) }

    public var description: String {
        guard let name = av_get_pix_fmt_name(av) else { return "pixfmt(\(rawValue))" }
        return String(cString: name)
    }
}
