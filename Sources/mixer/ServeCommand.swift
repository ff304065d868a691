import ArgumentParser
import Foundation
import Logging
import MixerService

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the worker daemon: start, update and stop tasks over a Unix socket (HTTP/1.1, JSON).",
        discussion: "Each task runs in its own process. SIGTERM stops every task cleanly, then the worker.")

    @Option(help: "The Unix socket to listen on (created with mode 0660).")
    var socket: String = WorkerSocket.defaultPath

    @Option(help: "The most tasks at once; more are refused with FailedOperation.RestrictedConcurrency.")
    var maxTasks = 8

    @Option(help: "x264/x265 preset of every task.")
    var preset = "veryfast"

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if maxTasks < 1 { throw ValidationError("--max-tasks must be at least 1") }
    }

    func run() async throws {
        var logger = global.makeLogger()
        logger.logLevel = min(logger.logLevel, .notice)
        var settings = WorkerSettings(
            executable: WorkerSocket.currentExecutable, maxTasks: maxTasks, roomURLTemplate: global.roomURLTemplate,
            // A worker's tasks run on the wall clock even when they only read and write files.
            taskArguments: ["--realtime", "--preset", preset, "--log-level", global.logLevel, "--ffmpeg-log-level", global.ffmpegLogLevel])
        settings.stopGrace = 15
        try await WorkerDaemon(socketPath: socket, settings: settings, logger: logger).run()
    }
}

enum WorkerSocket {
    static var defaultPath: String { ProcessInfo.processInfo.environment["MIXER_SOCKET"] ?? "/tmp/mixer.sock" }

    /// This very binary, which every task's process runs.
    static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
