import Foundation
import MediaCore
import XCTest

/// Encode → mux → demux → decode through the thin layer, the path every task takes.
final class RoundTripTests: XCTestCase {
    private func gradient(width: Int, height: Int, shift: Int) -> VideoPicture {
        VideoPicture(width: width, height: height) { y, u, v, strides in
            for row in 0..<height {
                for column in 0..<width { y[row * strides[0] + column] = UInt8((row + column + shift) & 0xFF) }
            }
            for row in 0..<(height / 2) {
                (u + row * strides[1]).update(repeating: 90, count: width / 2)
                (v + row * strides[2]).update(repeating: 160, count: width / 2)
            }
        }
    }

    func test_encodedFrames_comeBackFromTheFileInOrder() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("roundtrip-\(UUID().uuidString).mkv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let encoder = try Encoder(video: VideoEncoderSettings(
            codecName: "libx264", width: 64, height: 48, fps: 10, bitRate: 200_000, keyframeInterval: 5,
            options: ["preset": "ultrafast"]))
        let output = try OutputFile(url: path, formatName: nil)
        let stream = try output.addStream(encoder.parameters)
        try output.start()
        let frame = try Frame.video(width: 64, height: 48, format: .yuv420p)
        let packet = Packet()
        var keyframes: [Int64] = []
        func drain(_ input: Frame?) throws {
            _ = try encoder.send(input)
            while try encoder.receive(into: packet) == .output {
                if packet.isKeyframe { keyframes.append(packet.pts ?? -1) }
                try output.write(packet.encoded(kind: .video, timeBase: encoder.timeBase), streamIndex: stream)
            }
        }
        for index in 0..<12 {
            try frame.makeWritable()
            try gradient(width: 64, height: 48, shift: index).withImage { try Scaler(quality: .bitExactBilinear).scale($0, into: frame.image) }
            frame.pts = Int64(index)
            try drain(frame)
        }
        try drain(nil)
        try output.finish()
        XCTAssertEqual(keyframes, [0, 5, 10], "keyframe every keyframeInterval frames")

        let input = try InputFile(url: path)
        let videoStream = try XCTUnwrap(input.bestStream(.video))
        XCTAssertEqual(input.streams[videoStream].width, 64)
        let decoder = try Decoder(input: input, streamIndex: videoStream)
        var times: [Int64] = []
        let decoded = Frame()
        func collect() throws {
            while try decoder.receive(into: decoded) == .output { times.append(decoded.pts ?? -1) }
        }
        while try input.read(into: packet) == .packet {
            _ = try decoder.send(packet)
            try collect()
        }
        _ = try decoder.send(nil)
        try collect()
        XCTAssertEqual(times.count, 12)
        XCTAssertEqual(times, times.sorted(), "pictures come out in presentation order")
    }

    func test_bitExactScaling_givesTheSameBytesEveryTime() throws {
        let source = gradient(width: 97 * 2, height: 55 * 2, shift: 3)
        func scaled() throws -> [UInt8] {
            let target = try Frame.video(width: 120, height: 68, format: .yuv420p)
            try source.withImage { try Scaler(quality: .bitExactBilinear).scale($0, into: target.image) }
            return VideoPicture(copying: target).withImage { image in
                Array(UnsafeBufferPointer(start: image.planes[0], count: 120 * 68))
            }
        }
        XCTAssertEqual(try scaled(), try scaled())
    }

    func test_resampler_convertsRateAndKeepsTheSignal() throws {
        let resampler = Resampler(outputRate: 48000, outputChannels: 2)
        let frame = try Frame.audio(samples: 4410, sampleRate: 44100, channels: 1)
        for i in 0..<4410 { frame.floatSamples(0)[i] = 0.5 }
        var total = try resampler.convert(frame).count
        let rest = try resampler.convert(nil)
        total += rest.count
        XCTAssertEqual(total, 4800, accuracy: 2, "0.1 s at 44.1 kHz is 4800 samples at 48 kHz")
        XCTAssertEqual(rest.channels, 2)
    }

    func test_png_encodesAPictureFFmpegCanRead() throws {
        let bytes = try gradient(width: 32, height: 16, shift: 0).withImage { try ImageWriter.png(of: $0) }
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }
}
