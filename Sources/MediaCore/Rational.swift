import CFFmpeg

/// A time base or frame rate, as FFmpeg's AVRational.
public struct Rational: Sendable, Hashable, CustomStringConvertible {
    public var num: Int32
    public var den: Int32

    public init(_ num: Int32, _ den: Int32) {
        self.num = num
        self.den = den
    }

    init(_ value: AVRational) { self.init(value.num, value.den) }

    var av: AVRational { AVRational(num: num, den: den) }

    public var doubleValue: Double { den == 0 ? 0 : Double(num) / Double(den) }
    public var description: String { "\(num)/\(den)" }

    /// Rescales `value` from this time base to `target`, rounding to nearest.
    public func rescale(_ value: Int64, to target: Rational) -> Int64 {
        av_rescale_q(value, av, target.av)
    }
}
