import CFFmpeg
import CFFmpegShims

/// FFmpeg's log level, as a Swift value.
public enum FFmpegLogLevel: Int32, Sendable {
    case quiet = -8
    case error = 16
    case warning = 24
    case info = 32
    case verbose = 40
    case debug = 48
}

public enum FFmpegLog {
    /// Routes FFmpeg's messages at `level` or more severe to `sink` (a C function, so it
    /// cannot capture; it is called on whichever thread FFmpeg logs from).
    public static func install(level: FFmpegLogLevel, sink: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void) {
        av_log_set_level(level.rawValue)
        mx_log_install(sink)
    }
}
