import Foundation
import MediaCore
import MixerTask

/// Draws the pictures and tone of a `testsrc:` source. Pure functions of the spec and
/// the frame or sample index, so the same URL always gives the same media.
struct TestPattern {
    let spec: TestSourceSpec
    private let background: YUVColor

    private static let bars: [YUVColor] = [
        RGBColor(rgb: 0xBFBFBF), RGBColor(rgb: 0xBFBF00), RGBColor(rgb: 0x00BFBF), RGBColor(rgb: 0x00BF00),
        RGBColor(rgb: 0xBF00BF), RGBColor(rgb: 0xBF0000), RGBColor(rgb: 0x0000BF), RGBColor(rgb: 0x101010),
    ].map(YUVColor.init)

    init(spec: TestSourceSpec) {
        self.spec = spec
        // A background hue per label, so that inputs are told apart at a glance.
        var hash: UInt32 = 2_166_136_261
        for byte in spec.label.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        background = YUVColor(TestPattern.color(hue: Double(hash % 360), saturation: 0.55, value: 0.55))
    }

    /// Frame `index`: label-coloured field, colour bars, a box moving one step a frame,
    /// and the label and frame number in large type.
    func picture(_ index: Int) -> VideoPicture {
        let width = spec.width, height = spec.height
        let black = spec.black
        return VideoPicture(width: width, height: height) { y, u, v, strides in
            let planes = YUVPlanes(y: y, u: u, v: v, strides: strides, width: width, height: height)
            if black { return planes.fill(x: 0, y: 0, width: width, height: height, color: .black) }
            planes.fill(x: 0, y: 0, width: width, height: height, color: background)
            let barTop = (height * 3 / 4) & ~1
            let barWidth = max(2, (width / 8) & ~1)
            for (bar, color) in TestPattern.bars.enumerated() {
                let left = bar * barWidth
                planes.fill(x: left, y: barTop, width: bar == 7 ? width - left : barWidth, height: height - barTop, color: color)
            }
            let box = max(2, (min(width, height) / 4) & ~1)
            let step = max(2, (width / 48) & ~1)
            let travel = max(1, width - box)
            let boxX = ((index * step) % travel) & ~1
            planes.fill(x: boxX, y: (height / 2 - box / 2) & ~1, width: box, height: box, color: .white)
            let scale = max(1, min(width, height) / 90)
            let lines = [spec.label, String(format: "#%05d", index)].filter { !$0.isEmpty }
            planes.drawLabel(lines, x: 0, y: 0, scale: scale, padding: (2 * scale, scale))
        }
    }

    /// Payload type of the progress SEI, one users commonly pick for their own messages.
    static let seiPayloadType = 242

    /// The SEI frame `index` carries, if any: the source's label, frame and progress in ms,
    /// like a karaoke performer's lyric position.
    func sei(_ index: Int) -> SEIMessage? {
        guard spec.seiEvery > 0, index % spec.seiEvery == 0 else { return nil }
        let progress = index * 1000 / spec.fps
        let json = "{\"label\":\(JSONValue.quote(spec.label)),\"frame\":\(index),\"progress_ms\":\(progress)}"
        return SEIMessage(payloadType: TestPattern.seiPayloadType, content: Array(json.utf8))
    }

    /// `count` samples of the tone from sample `start`, at `sampleRate` on every channel.
    func tone(start: Int64, count: Int, sampleRate: Int, channels: Int) -> PlanarAudio {
        var samples = [Float](repeating: 0, count: channels * count)
        let step = 2 * Double.pi * Double(spec.toneHz) / Double(sampleRate)
        let cycle = Int64(sampleRate)  // the phase repeats every second for whole-hertz tones
        for i in 0..<count {
            let value = Float(spec.amplitude * sin(step * Double((start + Int64(i)) % cycle)))
            for channel in 0..<channels { samples[channel * count + i] = value }
        }
        return PlanarAudio(channels: channels, count: count, samples: samples)
    }

    private static func color(hue: Double, saturation: Double, value: Double) -> RGBColor {
        let c = value * saturation
        let x = c * (1 - abs((hue / 60).truncatingRemainder(dividingBy: 2) - 1))
        let m = value - c
        let (r, g, b): (Double, Double, Double) = switch hue {
        case ..<60: (c, x, 0)
        case ..<120: (x, c, 0)
        case ..<180: (0, c, x)
        case ..<240: (0, x, c)
        case ..<300: (x, 0, c)
        default: (c, 0, x)
        }
        func byte(_ value: Double) -> UInt8 { UInt8(((value + m) * 255).rounded()) }
        return RGBColor(red: byte(r), green: byte(g), blue: byte(b))
    }
}
