import Foundation
import MediaCore
@testable import MixerEngine
import XCTest

/// Test inputs that carry SEI, as a performer's app sends them: x264 video with B-frames
/// (so decode order differs from presentation order) where frame i's access unit carries
/// `messages(i)`, plus an AAC tone, muxed by FFmpeg.
enum SEIFixture {
    static func write(_ path: String, fps: Int, frames: Int, width: Int = 64, height: Int = 64, toneHz: Double = 440,
                      messages: (Int) -> [SEIMessage]) throws {
        let video = try Encoder(video: VideoEncoderSettings(
            codecName: "libx264", width: width, height: height, fps: fps, bitRate: 200_000, keyframeInterval: fps,
            options: ["preset": "veryfast"], threads: 1, bFrames: 2))
        let audio = try Encoder(audio: AudioEncoderSettings(codecName: "aac", sampleRate: 48000, channels: 1, bitRate: 64000))
        let output = try OutputFile(url: path, formatName: nil)
        let videoIndex = try output.addStream(video.parameters)
        let audioIndex = try output.addStream(audio.parameters)
        try output.start()
        let packet = Packet()

        func drain(_ encoder: Encoder, _ frame: Frame?, into stream: Int) throws {
            while true {
                let sent = try encoder.send(frame)
                while try encoder.receive(into: packet) == .output {
                    var encoded = packet.encoded(kind: encoder.kind, timeBase: encoder.timeBase)
                    if encoder.kind == .video {
                        encoded.data = SEIWriter.insert(messages(Int(encoded.pts)), into: encoded.data, syntax: .h264)
                    }
                    try output.write(encoded, streamIndex: stream)
                }
                if sent == .accepted { return }
            }
        }

        let samplesPerFrame = 48000 / fps
        var sample = 0
        for index in 0..<frames {
            let picture = try Frame.video(width: width, height: height, format: .yuv420p)
            // A moving gradient, so that the encoder makes real P- and B-frames.
            for plane in 0..<3 {
                let rows = plane == 0 ? height : height / 2, columns = plane == 0 ? width : width / 2
                let base = picture.data(plane)!, stride = picture.linesize(plane)
                for row in 0..<rows {
                    for column in 0..<columns { base[row * stride + column] = plane == 0 ? UInt8((row + column + index * 3) % 200 + 16) : 128 }
                }
            }
            picture.pts = Int64(index)
            try drain(video, picture, into: videoIndex)
            while sample < (index + 1) * samplesPerFrame {
                let block = try Frame.audio(samples: 1024, sampleRate: 48000, channels: 1)
                let samples = block.floatSamples(0)
                for i in 0..<1024 { samples[i] = Float(0.5 * sin(2 * Double.pi * toneHz * Double(sample + i) / 48000)) }
                block.pts = Int64(sample)
                try drain(audio, block, into: audioIndex)
                sample += 1024
            }
        }
        try drain(video, nil, into: videoIndex)
        try drain(audio, nil, into: audioIndex)
        try output.finish()
    }

    /// A path for a fixture in the tests' temporary folder.
    static func path(_ ext: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-tests", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("sei-\(UUID().uuidString).\(ext)").path
    }
}

/// One video frame of a file and the SEI it carries.
struct FrameSEI {
    var pts: Int64
    var seconds: Double
    var isKeyframe: Bool
    var messages: [SEIMessage]
}

/// Reads back the SEI of a file's video (any container FFmpeg reads), frame by frame in
/// presentation order.
enum SEIProbe {
    /// `presentationOrder` false: in file (decode) order, as `traceHeaders` reads them.
    static func frames(_ path: String, presentationOrder: Bool = true) throws -> [FrameSEI] {
        let file = try InputFile(url: path)
        let stream = try XCTUnwrap(file.bestStream(.video), "\(path) has no video")
        let info = file.streams[stream]
        let reader = try XCTUnwrap(SEIReader(codecName: info.codecName, extradata: info.extradata))
        let packet = Packet()
        var frames: [FrameSEI] = []
        while try file.read(into: packet) == .packet {
            guard packet.streamIndex == stream, let pts = packet.pts ?? packet.dts else { continue }
            frames.append(FrameSEI(pts: pts, seconds: Double(pts) * info.timeBase.doubleValue, isKeyframe: packet.isKeyframe,
                                   messages: packet.withBytes { reader.messages(in: $0) }))
        }
        guard presentationOrder else { return frames }
        return frames.enumerated().sorted { ($0.element.pts, $0.offset) < ($1.element.pts, $1.offset) }.map(\.element)
    }

    /// The messages a user sent (what forwarding carries), in presentation order.
    static func forwardable(_ path: String) throws -> [SEIMessage] {
        try frames(path).flatMap { $0.messages.filter(\.isForwardable) }
    }

    /// The SEI messages FFmpeg's own parser (`-bsf:v trace_headers`) finds, in file order:
    /// an independent reading of the bitstream to check the mixer's writer and reader against.
    static func traceHeaders(_ path: String, codec: NALSyntax) throws -> [SEIMessage] {
        let result = try Tools.run("ffmpeg", ["-v", "trace", "-i", path, "-map", "0:v:0", "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        let field = try NSRegularExpression(pattern: #"^\[trace_headers @ [^\]]*\]\s+\d+\s+(\S+)\s+[01]+\s+=\s+(\d+)$"#)
        var messages: [SEIMessage] = []
        var accumulated = 0
        var inSEI = false
        let seiTypes: Set<Int> = codec == .h264 ? [6] : [39, 40]
        var inPackets = false  // extradata (parameter sets, x265's notes) is not part of any frame
        for line in result.stderr.split(separator: "\n").map(String.init) where line.hasPrefix("[trace_headers") {
            if line.contains("] Packet: ") { inPackets = true }
            guard inPackets, let match = field.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                  let nameRange = Range(match.range(at: 1), in: line), let valueRange = Range(match.range(at: 2), in: line),
                  let value = Int(line[valueRange]) else { continue }
            let name = String(line[nameRange])
            if name == "nal_unit_type" { inSEI = seiTypes.contains(value) }
            guard inSEI else { continue }
            switch name {
            case "ff_byte": accumulated += value
            case "last_payload_type_byte":
                messages.append(SEIMessage(payloadType: accumulated + value, payload: []))
                accumulated = 0
            case "last_payload_size_byte": accumulated = 0
            case _ where name.hasPrefix("uuid_iso_iec_11578[") || name.hasPrefix("user_data_payload_byte[") || name.hasPrefix("payload_byte["):
                messages[messages.count - 1].payload.append(UInt8(value))
            default: break
            }
        }
        return messages
    }
}

extension Array where Element == SEIMessage {
    /// A short description for assertion messages: each message's type and size.
    var summary: String { map { "\($0.payloadType):\($0.payload.count)" }.joined(separator: " ") }
}
