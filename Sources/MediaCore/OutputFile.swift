import CFFmpeg
import CFFmpegShims

/// A muxer writing to a file or a network URL. Confined to its output's thread.
/// Teardown order is FFmpeg's: trailer → avio_closep → avformat_free_context.
public final class OutputFile {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let packet = Packet()
    private var headerWritten = false
    private var finished = false
    public let url: String

    /// Prepares a muxer for `url`; `formatName` overrides guessing from the extension.
    public init(url: String, formatName: String?) throws {
        self.url = url
        var context: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&context, nil, formatName, url), "avformat_alloc_output_context2(\(url))")
        self.context = context
    }

    deinit {
        if let context, context.pointee.pb != nil, context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            avio_closep(&context.pointee.pb)
        }
        avformat_free_context(context)
    }

    /// Adds a stream described by an encoder's parameters; returns its index.
    public func addStream(_ parameters: StreamParameters) throws -> Int {
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError(operation: "avformat_new_stream(\(url))", message: "out of memory")
        }
        try parameters.apply(to: stream.pointee.codecpar)
        stream.pointee.time_base = parameters.timeBase.av
        if parameters.kind == .video {
            stream.pointee.avg_frame_rate = AVRational(num: parameters.timeBase.den, den: parameters.timeBase.num)
        }
        return Int(stream.pointee.index)
    }

    /// Opens the destination and writes the header. `options` go to the protocol and muxer.
    public func start(options: [String: String] = [:], interrupt: InterruptFlag? = nil) throws {
        guard let context else { return }
        if let interrupt { context.pointee.interrupt_callback = interrupt.callback }
        var dictionary = Dictionary(options)
        defer { dictionary.free() }
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            var callback = interrupt?.callback ?? AVIOInterruptCB(callback: nil, opaque: nil)
            try check(avio_open2(&context.pointee.pb, url, AVIO_FLAG_WRITE, &callback, &dictionary.pointer),
                      "avio_open2(\(url))")
        }
        try check(avformat_write_header(context, &dictionary.pointer), "avformat_write_header(\(url))")
        headerWritten = true
    }

    /// Writes one encoded packet to stream `streamIndex`, rescaling its timestamps.
    public func write(_ encoded: EncodedPacket, streamIndex: Int) throws {
        guard let context else { return }
        try packet.load(encoded)
        packet.streamIndex = streamIndex
        packet.rescale(from: encoded.timeBase, to: Rational(context.pointee.streams[streamIndex]!.pointee.time_base))
        try check(av_interleaved_write_frame(context, packet.pointer), "av_interleaved_write_frame(\(url))")
    }

    /// Writes the trailer and closes the destination, so that the file is playable.
    public func finish() throws {
        guard let context, headerWritten, !finished else { return }
        finished = true
        let trailer = av_write_trailer(context)
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 { avio_closep(&context.pointee.pb) }
        try check(trailer, "av_write_trailer(\(url))")
    }
}
