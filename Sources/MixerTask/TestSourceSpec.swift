/// The built-in synthetic source, `testsrc:?size=640x360&fps=15&tone=440&label=A&duration=20`:
/// a moving pattern with the label and frame number drawn on it (or black frames), a sine
/// tone, and optionally SEI on its pictures.
/// The same URL always yields the same frames and samples.
public struct TestSourceSpec: Sendable, Hashable {
    public var width = 640
    public var height = 360
    public var fps = 15
    /// Sine frequency in Hz; 0 means the source has no audio.
    public var toneHz = 440
    /// Peak amplitude of the tone, 0–1.
    public var amplitude = 0.5
    public var sampleRate = 48000
    public var label = ""
    /// Seconds; nil runs forever.
    public var duration: Double?
    /// false: the source sends audio only (a user with the camera off).
    public var hasVideo = true
    /// Every this many frames, a picture carries an SEI message (payload type 242) with the
    /// source's progress, as a karaoke performer's lyric sync does; 0: no SEI.
    public var seiEvery = 0
    /// Black pictures instead of the pattern (a performer's black frames).
    public var black = false

    public static let scheme = "testsrc:"

    public static func isTestSource(_ url: String) -> Bool { url.hasPrefix(scheme) }

    /// Parses a `testsrc:` URL; `field` names it in refusals.
    public init(url: String, field: String = "url") throws(TaskError) {
        guard url.hasPrefix(TestSourceSpec.scheme) else {
            throw TaskError.invalid("StreamUrl", "\(field) \"\(url)\" is not a testsrc: URL")
        }
        var query = Substring(url.dropFirst(TestSourceSpec.scheme.count))
        if query.hasPrefix("?") { query = query.dropFirst() }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            let key = parts[0]
            let value = parts.count > 1 ? parts[1] : ""
            func bad(_ rule: String) -> TaskError {
                TaskError.invalid("StreamUrl", "\(field): testsrc parameter \(key)=\(value) \(rule)")
            }
            func integer(_ range: ClosedRange<Int>) throws(TaskError) -> Int {
                guard let number = Int(value), range.contains(number) else {
                    throw bad("must be an integer in \(range.lowerBound)–\(range.upperBound)")
                }
                return number
            }
            switch key {
            case "size":
                let sides = value.split(separator: "x").compactMap { Int($0) }
                guard sides.count == 2, sides.allSatisfy({ (2...4096).contains($0) && $0 % 2 == 0 }) else {
                    throw bad("must be WIDTHxHEIGHT with even sides in 2–4096")
                }
                width = sides[0]
                height = sides[1]
            case "fps": fps = try integer(1...120)
            case "tone": toneHz = try integer(0...20000)
            case "rate": sampleRate = try integer(8000...96000)
            case "amp":
                guard let number = Double(value), (0...1).contains(number) else { throw bad("must be a number in 0–1") }
                amplitude = number
            case "label":
                let text = value.removingPercentEncodingSafely
                guard text.count <= 32 else { throw bad("must be at most 32 characters") }
                label = text
            case "duration":
                guard let number = Double(value), number > 0, number <= 86400 else {
                    throw bad("must be a number of seconds in (0, 86400]")
                }
                duration = number
            case "video":
                guard value == "0" || value == "1" else { throw bad("must be 0 or 1") }
                hasVideo = value == "1"
            case "black":
                guard value == "0" || value == "1" else { throw bad("must be 0 or 1") }
                black = value == "1"
            case "sei": seiEvery = try integer(0...1000)
            default:
                throw TaskError.invalid("StreamUrl", "\(field): unknown testsrc parameter \"\(key)\" (known: size, fps, tone, amp, rate, label, duration, video, black, sei)")
            }
        }
    }
}

extension String {
    /// Decodes %XX escapes and '+' as space; leaves malformed escapes as they are.
    var removingPercentEncodingSafely: String {
        var bytes: [UInt8] = []
        var iterator = Array(utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                      let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
