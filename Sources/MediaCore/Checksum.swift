import CFFmpeg

/// Adler-32, as FFmpeg's framecrc uses, over a sequence of byte runs.
public struct Adler32 {
    public private(set) var value: UInt32 = 1

    public init() {}

    public mutating func update(_ bytes: UnsafePointer<UInt8>, count: Int) {
        value = av_adler32_update(value, bytes, count)
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { if let base = $0.baseAddress { update(base, count: $0.count) } }
    }
}
