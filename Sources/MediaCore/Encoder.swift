import CFFmpeg

/// Settings of a video encoder.
public struct VideoEncoderSettings: Sendable {
    public var codecName: String
    public var width: Int
    public var height: Int
    public var fps: Int
    public var bitRate: Int
    public var keyframeInterval: Int
    /// Private codec options, e.g. ["preset": "veryfast"].
    public var options: [String: String]
    public var threads: Int
    /// B-frames between references; the mixer's own output uses none (lowest latency,
    /// decode order = presentation order), test fixtures use some.
    public var bFrames: Int

    public init(codecName: String, width: Int, height: Int, fps: Int, bitRate: Int,
                keyframeInterval: Int, options: [String: String], threads: Int = 0, bFrames: Int = 0) {
        self.bFrames = bFrames
        self.codecName = codecName
        self.width = width
        self.height = height
        self.fps = fps
        self.bitRate = bitRate
        self.keyframeInterval = keyframeInterval
        self.options = options
        self.threads = threads
    }
}

/// Settings of an audio encoder (planar float input).
public struct AudioEncoderSettings: Sendable {
    public var codecName: String
    public var sampleRate: Int
    public var channels: Int
    public var bitRate: Int
    public var profile: Int32?

    public init(codecName: String, sampleRate: Int, channels: Int, bitRate: Int, profile: Int32? = nil) {
        self.codecName = codecName
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitRate = bitRate
        self.profile = profile
    }
}

/// An encoder. Confined to the mixing thread that owns it.
public final class Encoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    public let kind: MediaKind
    public let parameters: StreamParameters
    private let label: String

    /// True when the linked FFmpeg has an encoder called `name`.
    public static func isAvailable(_ name: String) -> Bool { avcodec_find_encoder_by_name(name) != nil }

    public init(video settings: VideoEncoderSettings) throws {
        let (codec, context) = try Encoder.allocate(settings.codecName)
        self.context = context
        kind = .video
        label = settings.codecName
        context.pointee.width = Int32(settings.width)
        context.pointee.height = Int32(settings.height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.time_base = AVRational(num: 1, den: Int32(settings.fps))
        context.pointee.framerate = AVRational(num: Int32(settings.fps), den: 1)
        context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        context.pointee.gop_size = Int32(settings.keyframeInterval)
        context.pointee.keyint_min = Int32(settings.keyframeInterval)
        context.pointee.max_b_frames = Int32(settings.bFrames)
        context.pointee.bit_rate = Int64(settings.bitRate)
        context.pointee.rc_max_rate = Int64(settings.bitRate)
        context.pointee.rc_buffer_size = Int32(clamping: settings.bitRate)
        context.pointee.thread_count = Int32(settings.threads)
        // Every output (FLV, MP4, MKV) wants SPS/PPS out of band; MPEG-TS gets them re-inserted.
        context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        try Encoder.open(context, codec, settings.options, label: label)
        parameters = try StreamParameters(kind: .video, context: context)
    }

    public init(audio settings: AudioEncoderSettings) throws {
        let (codec, context) = try Encoder.allocate(settings.codecName)
        self.context = context
        kind = .audio
        label = settings.codecName
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.sample_rate = Int32(settings.sampleRate)
        av_channel_layout_default(&context.pointee.ch_layout, Int32(settings.channels))
        context.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
        context.pointee.bit_rate = Int64(settings.bitRate)
        if let profile = settings.profile { context.pointee.profile = profile }
        context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        try Encoder.open(context, codec, [:], label: label)
        parameters = try StreamParameters(kind: .audio, context: context)
    }

    deinit { avcodec_free_context(&context) }

    private static func allocate(_ name: String) throws -> (UnsafePointer<AVCodec>, UnsafeMutablePointer<AVCodecContext>) {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw FFmpegError(operation: "avcodec_find_encoder_by_name", message: "the linked FFmpeg has no encoder \(name)")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(operation: "avcodec_alloc_context3", message: "out of memory")
        }
        return (codec, context)
    }

    private static func open(_ context: UnsafeMutablePointer<AVCodecContext>, _ codec: UnsafePointer<AVCodec>,
                             _ options: [String: String], label: String) throws {
        var dictionary = Dictionary(options)
        let result = avcodec_open2(context, codec, &dictionary.pointer)
        let unused = dictionary.unusedKeys
        dictionary.free()
        try check(result, "avcodec_open2(\(label))")
        if !unused.isEmpty {
            throw FFmpegError(operation: "avcodec_open2(\(label))", message: "unknown options \(unused.joined(separator: ", "))")
        }
    }

    /// Sets the target and maximum rate and the 1 s buffer; libx264 applies them from the
    /// next frame it is sent.
    public func setBitRate(_ bitRate: Int) {
        context!.pointee.bit_rate = Int64(bitRate)
        context!.pointee.rc_max_rate = Int64(bitRate)
        context!.pointee.rc_buffer_size = Int32(clamping: bitRate)
    }

    /// Samples per frame the audio encoder wants (1024 for AAC).
    public var frameSize: Int { Int(context!.pointee.frame_size) }

    public var timeBase: Rational { parameters.timeBase }

    /// Sends a frame, or nil to flush.
    public func send(_ frame: Frame?) throws -> SendResult {
        let result = avcodec_send_frame(context, frame?.pointer)
        if result == AVCode.again { return .full }
        if result == AVCode.endOfFile { return .accepted }
        try check(result, "avcodec_send_frame(\(label))")
        return .accepted
    }

    public func receive(into packet: Packet) throws -> ReceiveResult {
        packet.unref()
        let result = avcodec_receive_packet(context, packet.pointer)
        if result == AVCode.again { return .needsInput }
        if result == AVCode.endOfFile { return .endOfStream }
        try check(result, "avcodec_receive_packet(\(label))")
        return .output
    }
}
