import MediaCore
import MixerTask

/// The task's one encoder pair. Lives for the whole task on the mixing thread, so the
/// outgoing stream stays one continuous sequence across updates.
final class MixEncoder {
    let video: Encoder?
    let audio: Encoder
    private let packet = Packet()

    /// AAC profiles as FFmpeg numbers them (FF_PROFILE_AAC_HE, FF_PROFILE_AAC_HE_V2).
    private static let heAACProfile: Int32 = 4
    private static let heAACv2Profile: Int32 = 28

    init(param: EncoderParam, options: EngineOptions) throws {
        if param.isAudioOnly {
            video = nil
        } else {
            let h265 = param.videoCodec == .h265
            var codecOptions: [String: String] = h265
                ? ["preset": options.videoPreset, "x265-params": "scenecut=0:log-level=error", "forced-idr": "1"]
                : ["preset": options.videoPreset, "sc_threshold": "0", "forced-idr": "1"]
            // Live: no lookahead and slice threads instead of frame threads, so a picture
            // leaves the encoder in the tick it was composed in.
            if options.realtime { codecOptions["tune"] = "zerolatency" }
            video = try Encoder(video: VideoEncoderSettings(
                codecName: h265 ? "libx265" : "libx264", width: param.width, height: param.height, fps: param.fps,
                bitRate: param.effectiveVideoKbps * 1000, keyframeInterval: param.gopSeconds * param.fps,
                options: codecOptions, threads: options.encoderThreads))
        }
        let audioCodec: String
        var profile: Int32?
        switch param.audioCodec {
        case .lcAAC:
            audioCodec = "aac"
        case .heAAC, .heAACv2:
            guard let name = options.heAACEncoder else {
                throw FFmpegError(operation: "HE-AAC", message: "the linked FFmpeg has no HE-AAC encoder")
            }
            audioCodec = name
            profile = param.audioCodec == .heAAC ? MixEncoder.heAACProfile : MixEncoder.heAACv2Profile
        }
        audio = try Encoder(audio: AudioEncoderSettings(
            codecName: audioCodec, sampleRate: param.audioSampleRate, channels: param.audioChannels,
            bitRate: param.audioKbps * 1000, profile: profile))
    }

    /// Changes the video bitrate from the next frame on, without a new keyframe or new
    /// parameter sets (libx264 reconfigures itself when the context's rates change).
    func setVideoBitRate(_ bitRate: Int) {
        video?.setBitRate(bitRate)
    }

    /// Samples per audio frame, which is the mixing block size.
    var audioFrameSize: Int { audio.frameSize > 0 ? audio.frameSize : 1024 }

    /// Encodes the canvas as frame `index`; `keyframe` makes it an IDR (the GOP grid is
    /// enforced here, so SEI that follows IDRs knows them before encoding).
    func encodeVideo(_ frame: Frame, index: Int64, keyframe: Bool) throws -> [EncodedPacket] {
        guard let video else { return [] }
        frame.pts = index
        frame.requestsKeyframe = keyframe
        return try run(video, frame)
    }

    func encodeAudio(_ frame: Frame, firstSample: Int64) throws -> [EncodedPacket] {
        frame.pts = firstSample
        return try run(audio, frame)
    }

    /// Drains both encoders at the end of the task.
    func finish() throws -> [EncodedPacket] {
        var packets: [EncodedPacket] = []
        if let video { packets += try run(video, nil) }
        packets += try run(audio, nil)
        return packets
    }

    private func run(_ encoder: Encoder, _ frame: Frame?) throws -> [EncodedPacket] {
        var packets: [EncodedPacket] = []
        while true {
            let sent = try encoder.send(frame)
            while try encoder.receive(into: packet) == .output {
                packets.append(packet.encoded(kind: encoder.kind, timeBase: encoder.timeBase))
            }
            if sent == .accepted { return packets }
        }
    }
}
