/// What differs between H.264 and H.265 for finding pictures and SEI in a bitstream.
enum NALSyntax: Sendable {
    case h264
    case h265

    init?(codecName: String) {
        switch codecName {
        case "h264": self = .h264
        case "hevc", "h265": self = .h265
        default: return nil
        }
    }

    /// Bytes of the NAL unit header.
    var headerSize: Int { self == .h264 ? 1 : 2 }

    func type(ofHeader first: UInt8) -> Int {
        self == .h264 ? Int(first & 0x1F) : Int((first >> 1) & 0x3F)
    }

    /// Slices (the picture itself); an access unit's SEI must come before its first one.
    func isPicture(_ type: Int) -> Bool {
        self == .h264 ? (1...5).contains(type) : (0...31).contains(type)
    }

    /// H.264 SEI (6); H.265 prefix SEI (39). H.265 suffix SEI (40) is read too.
    func isSEI(_ type: Int) -> Bool {
        self == .h264 ? type == 6 : (type == 39 || type == 40)
    }

    /// The header of the SEI NAL units the mixer writes: H.264 type 6 with nal_ref_idc 0;
    /// H.265 prefix SEI (type 39), layer 0, temporal id 1.
    var seiHeader: [UInt8] { self == .h264 ? [0x06] : [39 << 1, 0x01] }
}

/// How NAL units are delimited in packets: start codes (MPEG-TS, raw streams, what x264 and
/// x265 produce) or length prefixes (FLV and MP4 demuxers, sized by the stream's avcC/hvcC).
enum NALFraming: Sendable, Equatable {
    case annexB
    case lengthPrefixed(size: Int)

    /// Reads the framing from a stream's extradata: avcC/hvcC start with version 1.
    init(syntax: NALSyntax, extradata: [UInt8]) {
        switch syntax {
        case .h264 where extradata.count >= 7 && extradata[0] == 1:
            self = .lengthPrefixed(size: Int(extradata[4] & 3) + 1)
        case .h265 where extradata.count >= 23 && extradata[0] == 1:
            self = .lengthPrefixed(size: Int(extradata[21] & 3) + 1)
        default:
            self = .annexB
        }
    }

    /// The byte ranges of the NAL units in `data` (without start codes or length prefixes).
    func units(in data: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        switch self {
        case .annexB: NALFraming.annexBUnits(data)
        case .lengthPrefixed(let size): NALFraming.prefixedUnits(data, lengthSize: size)
        }
    }

    private static func prefixedUnits(_ data: UnsafeBufferPointer<UInt8>, lengthSize: Int) -> [Range<Int>] {
        var units: [Range<Int>] = []
        var position = 0
        while position + lengthSize <= data.count {
            var length = 0
            for i in 0..<lengthSize { length = length << 8 | Int(data[position + i]) }
            position += lengthSize
            guard length > 0, position + length <= data.count else { break }
            units.append(position..<(position + length))
            position += length
        }
        return units
    }

    /// Positions of each `00 00 01` start code's first byte, and the NAL units between them
    /// (trailing zero bytes, part of a following 4-byte start code, trimmed).
    private static func annexBUnits(_ data: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < data.count {
            if data[i + 2] > 1 { i += 3; continue }
            if data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1 {
                starts.append(i + 3)
                i += 3
            } else {
                i += 1
            }
        }
        var units: [Range<Int>] = []
        for (n, start) in starts.enumerated() {
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : data.count
            while end > start && data[end - 1] == 0 { end -= 1 }
            if end > start { units.append(start..<end) }
        }
        return units
    }
}
