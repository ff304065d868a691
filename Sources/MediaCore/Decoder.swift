import CFFmpeg

public enum SendResult {
    /// The codec took the input.
    case accepted
    /// The codec is full: receive its output first, then send the same input again.
    case full
}

public enum ReceiveResult {
    case output
    case needsInput
    case endOfStream
}

/// A decoder for one stream of an `InputFile`. Confined to its input's thread.
public final class Decoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    public let kind: MediaKind
    public let timeBase: Rational
    private let label: String

    public init(input: InputFile, streamIndex: Int, threads: Int = 1) throws {
        let parameters = input.codecParameters(streamIndex)
        label = "\(input.streams[streamIndex].codecName)#\(streamIndex)"
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw FFmpegError(operation: "avcodec_find_decoder", message: "no decoder for \(label)")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(operation: "avcodec_alloc_context3", message: "out of memory")
        }
        self.context = context
        kind = input.streams[streamIndex].kind ?? .video
        timeBase = input.timeBase(streamIndex)
        try check(avcodec_parameters_to_context(context, parameters), "avcodec_parameters_to_context(\(label))")
        context.pointee.pkt_timebase = timeBase.av
        context.pointee.thread_count = Int32(threads)
        // Bit-exact decoding so that the same input always yields the same pictures.
        context.pointee.flags |= AV_CODEC_FLAG_BITEXACT
        try check(avcodec_open2(context, codec, nil), "avcodec_open2(\(label))")
    }

    deinit { avcodec_free_context(&context) }

    /// Sends a packet, or nil to start draining.
    public func send(_ packet: Packet?) throws -> SendResult {
        let result = avcodec_send_packet(context, packet?.pointer)
        if result == AVCode.again { return .full }
        if result == AVCode.endOfFile { return .accepted }  // already draining
        try check(result, "avcodec_send_packet(\(label))")
        return .accepted
    }

    public func receive(into frame: Frame) throws -> ReceiveResult {
        frame.unref()
        let result = avcodec_receive_frame(context, frame.pointer)
        if result == AVCode.again { return .needsInput }
        if result == AVCode.endOfFile { return .endOfStream }
        try check(result, "avcodec_receive_frame(\(label))")
        return .output
    }
}
