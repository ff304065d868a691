import Foundation
import Logging
import MediaCore
import MixerEngine
import MixerTask

/// Exit statuses of SPEC §4.1.
enum ExitStatus {
    static let done: Int32 = 0
    static let runtimeFailure: Int32 = 1
    static let invalidTask: Int32 = 2
}

extension GlobalOptions {
    var roomURLTemplate: String {
        roomURL ?? ProcessInfo.processInfo.environment["MIXER_ROOM_URL"] ?? WorkerCapabilities.defaultRoomURLTemplate
    }

    /// Sets up logging (mixer's and FFmpeg's) and the process environment every command
    /// shares: `--layouts` becomes MIXER_LAYOUTS, so that a daemon's task processes find the
    /// same templates.
    func makeLogger() -> Logger {
        if let layouts { setenv("MIXER_LAYOUTS", layouts, 1) }
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "mixer")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .warning
        let levels: [String: FFmpegLogLevel] = [
            "quiet": .quiet, "error": .error, "warning": .warning, "info": .info, "verbose": .verbose, "debug": .debug,
        ]
        FFmpegLog.install(level: levels[ffmpegLogLevel] ?? .error) { _, line in
            guard let line else { return }
            writeStderr("[ffmpeg] " + String(cString: line))
        }
        return logger
    }
}

/// A task as read: the document, its JSON (which updates are merged over), and warnings.
struct LoadedTask {
    let document: TaskDocument
    let json: JSONValue
    let warnings: [String]
    /// Its images, loaded while it was checked.
    let images: ImageLibrary
}

/// Reads, parses and checks a task file; refusals are printed and become exit status 2.
func loadTask(path: String, options: GlobalOptions) -> LoadedTask? {
    guard let text = readTaskText(path: path) else { return nil }
    do {
        let capabilities = Preflight.capabilities(roomURLTemplate: options.roomURLTemplate)
        let json = try JSONValue.parse(text)
        let task = try TaskParser.parse(json, capabilities: capabilities)
        let images = ImageLibrary()
        let warnings = try Preflight.check(task, roomURLTemplate: options.roomURLTemplate, images: images)
        return LoadedTask(document: task, json: json, warnings: warnings, images: images)
    } catch {
        printRefusal(error)
        return nil
    }
}

/// A task file's text ('-': standard input); a file that cannot be read is refused.
func readTaskText(path: String) -> String? {
    if path == "-" { return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
    guard let data = FileManager.default.contents(atPath: path) else {
        printRefusal(TaskError.notFound("TaskFile", "cannot read the task file \(path)"))
        return nil
    }
    return String(decoding: data, as: UTF8.self)
}

func printRefusal(_ error: TaskError) {
    writeStderr("error: \(error.code): \(error.message)\n")
}

/// Writes text to standard error unbuffered (progress lines, refusals, FFmpeg's log).
func writeStderr(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
