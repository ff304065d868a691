import CFFmpeg

/// An encoder's stream description, copied out of FFmpeg so that output threads can
/// create their muxer streams from it.
public struct StreamParameters: Sendable {
    public let kind: MediaKind
    public let codecID: UInt32
    public let codecName: String
    public let timeBase: Rational
    public let extradata: [UInt8]
    public let format: Int32
    public let bitRate: Int64
    public let width: Int32
    public let height: Int32
    public let sampleRate: Int32
    public let channels: Int32
    public let frameSize: Int32
    public let profile: Int32
    public let level: Int32
    public let initialPadding: Int32
    public let videoDelay: Int32

    /// An encoder's parameters.
    init(kind: MediaKind, context: UnsafeMutablePointer<AVCodecContext>) throws {
        guard let parameters = avcodec_parameters_alloc() else {
            throw FFmpegError(operation: "avcodec_parameters_alloc", message: "out of memory")
        }
        var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters
        defer { avcodec_parameters_free(&owned) }
        try check(avcodec_parameters_from_context(parameters, context), "avcodec_parameters_from_context")
        self.init(kind: kind, parameters: parameters.pointee, timeBase: Rational(context.pointee.time_base))
    }

    /// The parameters of an input's stream, for copying its packets unchanged (relay).
    public init(input: InputFile, stream index: Int) {
        let kind = input.streams[index].kind ?? .video
        self.init(kind: kind, parameters: input.codecParameters(index).pointee, timeBase: input.timeBase(index))
    }

    private init(kind: MediaKind, parameters p: AVCodecParameters, timeBase: Rational) {
        self.kind = kind
        codecID = p.codec_id.rawValue
        codecName = String(cString: avcodec_get_name(p.codec_id))
        self.timeBase = timeBase
        extradata = p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.extradata_size))) } ?? []
        format = p.format
        bitRate = p.bit_rate
        width = p.width
        height = p.height
        sampleRate = p.sample_rate
        channels = p.ch_layout.nb_channels
        frameSize = p.frame_size
        profile = p.profile
        level = p.level
        initialPadding = p.initial_padding
        videoDelay = p.video_delay
    }

    /// Writes these parameters into a muxer stream's codecpar.
    func apply(to parameters: UnsafeMutablePointer<AVCodecParameters>) throws {
        parameters.pointee.codec_type = kind == .video ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO
        parameters.pointee.codec_id = AVCodecID(rawValue: codecID)
        parameters.pointee.codec_tag = 0
        if !extradata.isEmpty {
            let size = extradata.count
            guard let buffer = av_mallocz(size + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
                throw FFmpegError(operation: "av_mallocz", message: "out of memory")
            }
            let bytes = buffer.assumingMemoryBound(to: UInt8.self)
            extradata.withUnsafeBufferPointer { bytes.update(from: $0.baseAddress!, count: size) }
            parameters.pointee.extradata = bytes
            parameters.pointee.extradata_size = Int32(size)
        }
        parameters.pointee.format = format
        parameters.pointee.bit_rate = bitRate
        parameters.pointee.width = width
        parameters.pointee.height = height
        parameters.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        parameters.pointee.sample_rate = sampleRate
        if kind == .audio { av_channel_layout_default(&parameters.pointee.ch_layout, channels) }
        parameters.pointee.frame_size = frameSize
        parameters.pointee.profile = profile
        parameters.pointee.level = level
        parameters.pointee.initial_padding = initialPadding
        parameters.pointee.video_delay = videoDelay
    }
}
