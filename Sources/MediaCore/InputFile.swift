import CFFmpeg
import CFFmpegShims

/// What one stream of an input holds.
public struct StreamInfo: Sendable {
    public let index: Int
    public let kind: MediaKind?
    public let codecName: String
    public let timeBase: Rational
    public let width: Int
    public let height: Int
    public let sampleRate: Int
    public let channels: Int
    /// Codec configuration (e.g. H.264 avcC or Annex-B parameter sets); empty if none.
    public let extradata: [UInt8]
}

public enum ReadResult {
    case packet
    case endOfFile
}

/// A demuxer over any URL FFmpeg opens. Confined to the thread that opened it.
public final class InputFile {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    public let url: String
    public let streams: [StreamInfo]
    private let interrupt: InterruptFlag?

    /// Opens `url` and probes its streams. `options` are format/protocol options
    /// (e.g. "rw_timeout"); the interrupt flag makes opening and reading stoppable.
    public init(url: String, options: [String: String] = [:], interrupt: InterruptFlag? = nil) throws {
        self.url = url
        self.interrupt = interrupt
        var context = avformat_alloc_context()
        guard context != nil else { throw FFmpegError(operation: "avformat_alloc_context", message: "out of memory") }
        if let interrupt { context!.pointee.interrupt_callback = interrupt.callback }
        var dictionary = Dictionary(options)
        let opened = avformat_open_input(&context, url, nil, &dictionary.pointer)
        dictionary.free()
        try check(opened, "avformat_open_input(\(url))")
        self.context = context
        do {
            try check(avformat_find_stream_info(context, nil), "avformat_find_stream_info(\(url))")
        } catch {
            avformat_close_input(&self.context)
            throw error
        }
        var infos: [StreamInfo] = []
        for index in 0..<Int(context!.pointee.nb_streams) {
            let stream = context!.pointee.streams[index]!
            let parameters = stream.pointee.codecpar!.pointee
            let kind: MediaKind? = switch parameters.codec_type {
            case AVMEDIA_TYPE_VIDEO: .video
            case AVMEDIA_TYPE_AUDIO: .audio
            default: nil
            }
            infos.append(StreamInfo(
                index: index, kind: kind,
                codecName: String(cString: avcodec_get_name(parameters.codec_id)),
                timeBase: Rational(stream.pointee.time_base),
                width: Int(parameters.width), height: Int(parameters.height),
                sampleRate: Int(parameters.sample_rate), channels: Int(parameters.ch_layout.nb_channels),
                extradata: parameters.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size))) } ?? []))
        }
        streams = infos
    }

    deinit { avformat_close_input(&context) }

    /// The stream FFmpeg considers best for `kind`, if the input has one.
    public func bestStream(_ kind: MediaKind) -> Int? {
        let type = kind == .video ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO
        let index = av_find_best_stream(context, type, -1, -1, nil, 0)
        return index >= 0 ? Int(index) : nil
    }

    /// The input's start time in seconds, when the container knows it.
    public var startTime: Double? {
        let value = context!.pointee.start_time
        return value == AVCode.noTimestamp ? nil : Double(value) / Double(AV_TIME_BASE)
    }

    /// Reads the next packet into `packet`.
    public func read(into packet: Packet) throws -> ReadResult {
        packet.unref()
        let result = av_read_frame(context, packet.pointer)
        if result == AVCode.endOfFile { return .endOfFile }
        try check(result, "av_read_frame(\(url))")
        return .packet
    }

    func codecParameters(_ index: Int) -> UnsafeMutablePointer<AVCodecParameters> {
        context!.pointee.streams[index]!.pointee.codecpar!
    }

    func timeBase(_ index: Int) -> Rational { streams[index].timeBase }
}
