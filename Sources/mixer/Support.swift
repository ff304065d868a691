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

    func makeLogger() -> Logger {
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
}

/// Reads, parses and checks a task file; refusals are printed and become exit status 2.
func loadTask(path: String, options: GlobalOptions) -> LoadedTask? {
    let text: String
    if path == "-" {
        text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    } else {
        guard let data = FileManager.default.contents(atPath: path) else {
            printRefusal(TaskError.notFound("TaskFile", "cannot read the task file \(path)"))
            return nil
        }
        text = String(decoding: data, as: UTF8.self)
    }
    do {
        let capabilities = Preflight.capabilities(roomURLTemplate: options.roomURLTemplate)
        let json = try JSONValue.parse(text)
        let task = try TaskParser.parse(json, capabilities: capabilities)
        let warnings = try Preflight.check(task, roomURLTemplate: options.roomURLTemplate)
        return LoadedTask(document: task, json: json, warnings: warnings)
    } catch {
        printRefusal(error)
        return nil
    }
}

func printRefusal(_ error: TaskError) {
    writeStderr("error: \(error.code): \(error.message)\n")
}

/// Writes text to standard error unbuffered (progress lines, refusals, FFmpeg's log).
func writeStderr(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
