import ArgumentParser
import Dispatch
import Foundation
import MixerEngine
import MixerTask

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run one task in the foreground until it ends.",
        discussion: """
        Ends at --duration, when the inputs end, at maxIdleTime, or on SIGINT/SIGTERM, which flush \
        the encoder and close every output cleanly. Exit status: 0 done, 2 invalid task, 1 runtime failure.
        """)

    @Argument(help: "The task JSON file ('-' for standard input).")
    var task: String

    @Option(help: "Stop after this many seconds of output.")
    var duration: Double?

    @Flag(help: "Pace the output on the wall clock (default when any input or output is live).")
    var realtime = false

    @Flag(help: "Run as fast as possible (default when everything is a file or testsrc:).")
    var offline = false

    @Option(help: "Write PNG snapshots of the composed canvas into this folder.")
    var snapshot: String?

    @Option(help: "Write a snapshot every N frames (default: one per second of output).")
    var snapshotEvery: Int?

    @Option(help: "x264/x265 preset.")
    var preset = "veryfast"

    @Flag(help: "Do not print the progress line.")
    var quiet = false

    @Option(help: "Read updates (task JSON, one per line) from this file, '-' for standard input; each gets a one-line JSON reply on standard output.")
    var control: String?

    @Flag(help: "Report to a supervising worker: JSON lines on standard output (ready, status every 0.5 s, replies).")
    var report = false

    @Option(help: "Live jitter buffer in seconds: input media is composed this long after it arrives.")
    var latency = 0.2

    @Option(help: "Seconds between attempts to reconnect a failed live output.")
    var outputRetry = 5.0

    @Option(help: "Seconds without a successful connection after which a live output is marked failed.")
    var outputFailAfter = 60.0

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if realtime && offline { throw ValidationError("--realtime and --offline exclude each other") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
        if let snapshotEvery, snapshotEvery <= 0 { throw ValidationError("--snapshot-every must be positive") }
        if latency < 0 || latency > 5 { throw ValidationError("--latency must be within 0–5 seconds") }
        if outputRetry <= 0 || outputFailAfter <= 0 { throw ValidationError("--output-retry and --output-fail-after must be positive") }
    }

    func run() throws {
        let logger = global.makeLogger()
        guard let loaded = loadTask(path: task, options: global) else { throw ExitCode(ExitStatus.invalidTask) }
        let document = loaded.document
        for warning in loaded.warnings { logger.warning("\(warning)") }
        var options = EngineOptions()
        options.logger = logger
        options.duration = duration
        options.videoPreset = preset
        options.liveLatency = latency
        options.outputRetry = RetryPolicy(interval: outputRetry, failAfter: outputFailAfter)
        options.roomURLTemplate = global.roomURLTemplate
        options.images = loaded.images
        options.heAACEncoder = Preflight.capabilities(roomURLTemplate: global.roomURLTemplate).heAACEncoder
        options.realtime = realtime || (!offline && !Preflight.isOffline(document, roomURLTemplate: global.roomURLTemplate))
        if let snapshot {
            try FileManager.default.createDirectory(atPath: snapshot, withIntermediateDirectories: true)
            options.snapshotDirectory = snapshot
            options.snapshotEvery = snapshotEvery ?? document.encoderParam?.fps ?? 15
        }
        let engine = MixEngine(task: document, json: loaded.json, options: options)
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { engine.requestStop() }
            source.resume()
            return source
        }
        engine.start()
        if let control {
            let capabilities = Preflight.capabilities(roomURLTemplate: global.roomURLTemplate)
            guard let input = control == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: control) else {
                throw ValidationError("cannot read the control file \(control)")
            }
            Thread.detachNewThread { ControlChannel(engine: engine, capabilities: capabilities).serve(input) }
        }
        if report { ReportWriter.shared.write(TaskReport(type: .ready, code: .ok, message: document.taskId)) }
        let progress = ProgressLine(enabled: !quiet)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? engine.wait()
            finished.signal()
        }
        while finished.wait(timeout: .now() + 0.5) == .timedOut {
            progress.show(engine.status)
            if report { ReportWriter.shared.write(TaskReport(type: .status, status: engine.status.report)) }
        }
        signals.forEach { $0.cancel() }
        let status = engine.status
        progress.finish(status)
        if report { ReportWriter.shared.write(TaskReport(type: .status, status: status.report)) }
        do {
            let reason = try engine.wait()
            if case .failed(let message) = reason {
                writeStderr("error: \(message)\n")
                throw ExitCode(ExitStatus.runtimeFailure)
            }
            for output in status.outputs where output.state == .failed {
                writeStderr("error: output \(output.url) failed: \(output.error ?? "unknown")\n")
                throw ExitCode(ExitStatus.runtimeFailure)
            }
            if !quiet { writeStderr("done: \(reason)\n") }
        } catch let error as TaskError {
            printRefusal(error)
            throw ExitCode(ExitStatus.invalidTask)
        } catch let error as ExitCode {
            throw error
        } catch {
            writeStderr("error: \(error)\n")
            throw ExitCode(ExitStatus.runtimeFailure)
        }
    }
}

/// ffmpeg's style of progress: one line, rewritten in place on a terminal.
struct ProgressLine {
    let enabled: Bool
    private let isTerminal = isatty(STDERR_FILENO) != 0

    func show(_ status: EngineStatus) {
        guard enabled else { return }
        writeStderr((isTerminal ? "\r" : "") + Self.format(status) + (isTerminal ? "\u{1B}[K" : "\n"))
    }

    func finish(_ status: EngineStatus) {
        guard enabled else { return }
        writeStderr((isTerminal ? "\r" : "") + Self.format(status) + "\n")
    }

    static func format(_ status: EngineStatus) -> String {
        let seconds = status.mediaTime
        let time = String(format: "%02d:%02d:%05.2f", Int(seconds) / 3600, Int(seconds) / 60 % 60, seconds.truncatingRemainder(dividingBy: 60))
        let states = status.outputs.enumerated().map { "out\($0.offset)=\(stateName($0.element.state))" }.joined(separator: " ")
        return String(format: "frame=%6lld fps=%5.1f time=%@ bitrate=%7.1fkbit/s speed=%5.2fx ",
                      status.videoFrames, status.fps, time, status.kilobitsPerSecond, status.speed) + states
    }

    static func stateName(_ state: OutputState) -> String {
        switch state {
        case .idle: "idle"
        case .connecting: "connecting"
        case .publishing: "publishing"
        case .reconnecting: "reconnecting"
        case .failed: "failed"
        case .disconnecting: "closing"
        }
    }
}
