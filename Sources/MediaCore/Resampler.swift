import CFFmpeg

/// Planar float audio held in Swift memory: channel `c` occupies
/// `samples[c * count ..< (c + 1) * count]`. Sendable, so it may cross threads.
public struct PlanarAudio: Sendable {
    public var channels: Int
    public var count: Int
    public var samples: [Float]

    public init(channels: Int, count: Int, samples: [Float]) {
        precondition(samples.count == channels * count)
        self.channels = channels
        self.count = count
        self.samples = samples
    }

    public static func silence(channels: Int, count: Int) -> PlanarAudio {
        PlanarAudio(channels: channels, count: count, samples: [Float](repeating: 0, count: channels * count))
    }
}

/// Converts decoded audio of any layout, rate and sample format to planar float at the
/// task's rate and channel count. Confined to its input's thread.
public final class Resampler {
    private var context: OpaquePointer?
    private var inputKey: InputKey?
    public let outputRate: Int
    public let outputChannels: Int

    private struct InputKey: Equatable {
        var rate: Int
        var channels: Int
        var format: Int32
    }

    public init(outputRate: Int, outputChannels: Int) {
        self.outputRate = outputRate
        self.outputChannels = outputChannels
    }

    deinit { swr_free(&context) }

    /// Converts `frame`, or with nil drains what the resampler still holds.
    public func convert(_ frame: Frame?) throws -> PlanarAudio {
        if let frame { try configure(for: frame) }
        guard let context else { return PlanarAudio(channels: outputChannels, count: 0, samples: []) }
        let inputCount = frame?.sampleCount ?? 0
        let capacity = Int(swr_get_out_samples(context, Int32(inputCount))) + 16
        var buffer = [Float](repeating: 0, count: outputChannels * capacity)
        let channels = outputChannels
        let produced = try buffer.withUnsafeMutableBufferPointer { output -> Int in
            var outputs: [UnsafeMutablePointer<UInt8>?] = (0..<channels).map {
                UnsafeMutableRawPointer(output.baseAddress! + $0 * capacity).assumingMemoryBound(to: UInt8.self)
            }
            let inputs = frame.map {
                UnsafeMutableRawPointer($0.pointer.pointee.extended_data!).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
            }
            return Int(try check(swr_convert(context, &outputs, Int32(capacity), inputs, Int32(inputCount)), "swr_convert"))
        }
        if produced == capacity { return PlanarAudio(channels: channels, count: produced, samples: buffer) }
        var samples = [Float]()
        samples.reserveCapacity(channels * produced)
        for channel in 0..<channels {
            samples.append(contentsOf: buffer[channel * capacity ..< channel * capacity + produced])
        }
        return PlanarAudio(channels: channels, count: produced, samples: samples)
    }

    private func configure(for frame: Frame) throws {
        let key = InputKey(rate: frame.sampleRate, channels: frame.channelCount, format: frame.pointer.pointee.format)
        if key == inputKey { return }
        swr_free(&context)
        var outputLayout = AVChannelLayout()
        av_channel_layout_default(&outputLayout, Int32(outputChannels))
        defer { av_channel_layout_uninit(&outputLayout) }
        var inputLayout = AVChannelLayout()
        if frame.pointer.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || frame.channelCount == 0 {
            av_channel_layout_default(&inputLayout, Int32(max(frame.channelCount, 1)))
        } else {
            try check(av_channel_layout_copy(&inputLayout, &frame.pointer.pointee.ch_layout), "av_channel_layout_copy")
        }
        defer { av_channel_layout_uninit(&inputLayout) }
        try check(swr_alloc_set_opts2(&context, &outputLayout, AV_SAMPLE_FMT_FLTP, Int32(outputRate),
                                      &inputLayout, AVSampleFormat(rawValue: key.format), Int32(key.rate), 0, nil),
                  "swr_alloc_set_opts2")
        try check(swr_init(context), "swr_init")
        inputKey = key
    }
}
