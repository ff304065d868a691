import CFFmpeg

/// An owned AVPacket. Not Sendable: see `EncodedPacket` for the copy that crosses threads.
public final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    public init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    public func unref() { av_packet_unref(pointer) }

    public var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }

    public var pts: Int64? {
        let value = pointer.pointee.pts
        return value == AVCode.noTimestamp ? nil : value
    }

    public var dts: Int64? {
        let value = pointer.pointee.dts
        return value == AVCode.noTimestamp ? nil : value
    }

    public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    public var size: Int { Int(pointer.pointee.size) }

    /// Reads the payload in place, without copying it.
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: pointer.pointee.data, count: pointer.pointee.data == nil ? 0 : size))
    }

    /// A Sendable copy of this packet's payload and timing.
    public func encoded(kind: MediaKind, timeBase: Rational) -> EncodedPacket {
        let bytes = pointer.pointee.data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        return EncodedPacket(
            kind: kind, data: bytes,
            pts: pointer.pointee.pts, dts: pointer.pointee.dts, duration: pointer.pointee.duration,
            timeBase: timeBase, isKeyframe: isKeyframe)
    }

    /// Fills this packet from a Sendable copy.
    public func load(_ encoded: EncodedPacket) throws {
        unref()
        try check(av_new_packet(pointer, Int32(encoded.data.count)), "av_new_packet")
        encoded.data.withUnsafeBufferPointer { source in
            if let base = source.baseAddress, let target = pointer.pointee.data {
                target.update(from: base, count: source.count)
            }
        }
        pointer.pointee.pts = encoded.pts
        pointer.pointee.dts = encoded.dts
        pointer.pointee.duration = encoded.duration
        pointer.pointee.flags = encoded.isKeyframe ? AV_PKT_FLAG_KEY : 0
    }

    func rescale(from source: Rational, to target: Rational) {
        av_packet_rescale_ts(pointer, source.av, target.av)
    }
}

public enum MediaKind: Sendable, Hashable {
    case video
    case audio
}

/// An encoded packet copied out of FFmpeg so that it may cross to an output thread.
public struct EncodedPacket: Sendable {
    public init(kind: MediaKind, data: [UInt8], pts: Int64, dts: Int64, duration: Int64, timeBase: Rational, isKeyframe: Bool) {
        self.kind = kind
        self.data = data
        self.pts = pts
        self.dts = dts
        self.duration = duration
        self.timeBase = timeBase
        self.isKeyframe = isKeyframe
    }

    public var kind: MediaKind
    public var data: [UInt8]
    public var pts: Int64
    public var dts: Int64
    public var duration: Int64
    public var timeBase: Rational
    public var isKeyframe: Bool
}
