import CFFmpeg
import Foundation

/// A decoded still image (PNG, JPEG, BMP) as 8-bit RGBA rows. Plain bytes, so it may be
/// shared across threads and scaled many times.
public struct StillImage: Sendable {
    public let width: Int
    public let height: Int
    /// `width * 4` bytes per row, R G B A.
    public let rgba: [UInt8]

    /// False when every pixel is opaque (such an image is copied, not blended).
    public let hasTransparency: Bool

    public init(width: Int, height: Int, rgba: [UInt8]) {
        self.width = width
        self.height = height
        self.rgba = rgba
        hasTransparency = stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] != 255 }
    }
}

/// Why an image could not be used.
public enum StillImageError: Error, CustomStringConvertible, Equatable {
    case unreadable(String)
    case tooLarge(bytes: Int, limit: Int)
    case undecodable(String)

    public var description: String {
        switch self {
        case .unreadable(let reason): "cannot be read: \(reason)"
        case .tooLarge(let bytes, let limit): "is \(bytes) bytes; images may be at most \(limit / (1024 * 1024)) MB (\(limit) bytes)"
        case .undecodable(let reason): "is not a decodable PNG, JPEG or BMP image: \(reason)"
        }
    }
}

public enum StillImageLoader {
    /// Reads an image's bytes from a local path or an http(s) URL (through FFmpeg's own
    /// protocols), refusing anything over `limit` bytes and giving up on a network read
    /// after `timeout` seconds.
    public static func fetch(_ location: String, limit: Int, timeout: Double) throws(StillImageError) -> [UInt8] {
        let lower = location.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            let path = lower.hasPrefix("file://") ? String(location.dropFirst(7)) : location
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  (attributes[.type] as? FileAttributeType) == .typeRegular else {
                throw .unreadable("no such file")
            }
            let size = (attributes[.size] as? Int) ?? 0
            if size > limit { throw .tooLarge(bytes: size, limit: limit) }
            guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable("permission denied") }
            return [UInt8](data)
        }
        let interrupt = InterruptFlag()
        interrupt.arm(timeout: timeout)
        var callback = interrupt.callback
        var io: UnsafeMutablePointer<AVIOContext>?
        var options = Dictionary(["rw_timeout": String(Int(timeout * 1_000_000))])
        let opened = avio_open2(&io, location, AVIO_FLAG_READ, &callback, &options.pointer)
        options.free()
        guard opened >= 0, let io else { throw .unreadable(FFmpegError(code: opened, operation: "open").message) }
        var owned: UnsafeMutablePointer<AVIOContext>? = io
        defer { avio_closep(&owned) }
        let announced = avio_size(io)  // negative when the server does not say
        if announced > limit { throw .tooLarge(bytes: Int(announced), limit: limit) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let read = chunk.withUnsafeMutableBufferPointer { avio_read(io, $0.baseAddress, Int32($0.count)) }
            if read == AVCode.endOfFile || read == 0 { break }
            guard read > 0 else { throw .unreadable(FFmpegError(code: read, operation: "read").message) }
            bytes += chunk.prefix(Int(read))
            if bytes.count > limit { throw .tooLarge(bytes: bytes.count, limit: limit) }
        }
        return bytes
    }

    /// Decodes PNG, JPEG or BMP bytes (told apart by their signature) with FFmpeg's decoders
    /// and converts them to RGBA.
    public static func decode(_ bytes: [UInt8]) throws(StillImageError) -> StillImage {
        let codecID: AVCodecID
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            codecID = AV_CODEC_ID_PNG
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            codecID = AV_CODEC_ID_MJPEG
        } else if bytes.starts(with: [0x42, 0x4D]) {
            codecID = AV_CODEC_ID_BMP
        } else {
            throw .undecodable("the file does not start like one")
        }
        do {
            return try decode(bytes, codecID)
        } catch let error as StillImageError {
            throw error
        } catch {
            throw .undecodable("\(error)")
        }
    }

    private static func decode(_ bytes: [UInt8], _ codecID: AVCodecID) throws -> StillImage {
        guard let codec = avcodec_find_decoder(codecID) else {
            throw StillImageError.undecodable("the linked FFmpeg has no \(String(cString: avcodec_get_name(codecID))) decoder")
        }
        guard var context = Optional(avcodec_alloc_context3(codec)), let c = context else {
            throw FFmpegError(operation: "avcodec_alloc_context3", message: "out of memory")
        }
        defer { avcodec_free_context(&context) }
        c.pointee.flags |= AV_CODEC_FLAG_BITEXACT
        try check(avcodec_open2(c, codec, nil), "avcodec_open2")
        let packet = Packet()
        try packet.load(EncodedPacket(kind: .video, data: bytes, pts: 0, dts: 0, duration: 1,
                                      timeBase: Rational(1, 1), isKeyframe: true))
        try check(avcodec_send_packet(c, packet.pointer), "avcodec_send_packet")
        _ = avcodec_send_packet(c, nil)
        let frame = Frame()
        try check(avcodec_receive_frame(c, frame.pointer), "avcodec_receive_frame")
        guard frame.width > 0, frame.height > 0, frame.width <= 8192, frame.height <= 8192 else {
            throw StillImageError.undecodable("its size \(frame.width)x\(frame.height) is outside 1–8192")
        }
        let rgba = try Frame.video(width: frame.width, height: frame.height, format: .rgba)
        try Scaler(quality: .bitExactBilinear).scale(frame.image, into: rgba.image)
        var pixels = [UInt8](repeating: 0, count: frame.width * frame.height * 4)
        let base = rgba.data(0)!, stride = rgba.linesize(0), rowBytes = frame.width * 4
        pixels.withUnsafeMutableBufferPointer { out in
            for row in 0..<frame.height {
                (out.baseAddress! + row * rowBytes).update(from: base + row * stride, count: rowBytes)
            }
        }
        return StillImage(width: frame.width, height: frame.height, rgba: pixels)
    }
}
