import CFFmpeg
import CFFmpegShims

/// A failure reported by FFmpeg (negative return code) or by this layer around it.
/// Expected outcomes (EAGAIN, EOF) are never thrown; they come back as values.
public struct FFmpegError: Error, Sendable, Equatable, CustomStringConvertible {
    /// FFmpeg's negative error code, or nil when the failure is this layer's own.
    public let code: Int32?
    /// What was being done, e.g. "avcodec_send_packet(video#3)".
    public let operation: String
    public let message: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
        self.message = FFmpegError.describe(code)
    }

    public init(operation: String, message: String) {
        self.code = nil
        self.operation = operation
        self.message = message
    }

    public var description: String { "\(operation): \(message)" }

    /// True when FFmpeg reported that the interrupt callback stopped the call.
    public var isInterrupted: Bool { code == mx_AVERROR_EXIT }

    public static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        mx_av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Throws for a negative FFmpeg return code, passes others through.
@discardableResult
func check(_ code: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
    if code < 0 { throw FFmpegError(code: code, operation: operation()) }
    return code
}

/// Well-known FFmpeg return codes as Swift values.
public enum AVCode {
    public static let again = mx_AVERROR_EAGAIN
    public static let endOfFile = mx_AVERROR_EOF
    public static let exit = mx_AVERROR_EXIT
    public static let noTimestamp = mx_AV_NOPTS_VALUE
    public static func posix(_ errno: Int32) -> Int32 { mx_AVERROR(errno) }
}
