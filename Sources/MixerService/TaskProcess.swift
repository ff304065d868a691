import Foundation
import Logging
import MixerTask
import Synchronization

/// How a task's process ended.
public struct ProcessExit: Sendable, Equatable {
    /// The exit status, or the signal number when `signaled`.
    public let status: Int32
    public let signaled: Bool

    public var succeeded: Bool { !signaled && status == 0 }

    public var description: String {
        signaled ? "the task's process was killed by signal \(status)" : "the task's process exited with status \(status)"
    }
}

/// One task's child process: `mixer run TASK --control - --report`, the same code path as
/// `mixer run`, so that a crash inside FFmpeg on one stream takes down only that task.
/// Its standard output carries report lines (ready, replies, status); its standard error is
/// the task's log, passed on with the task's id in front.
final class TaskProcess: Sendable {
    let taskId: String
    private let process: Process
    private let input: FileHandle
    private let state = Mutex(State())
    private let logger: Logger

    private struct State {
        var ready = false
        var exit: ProcessExit?
        var status: TaskStatus?
        var stdoutBuffer = Data()
        var stderrBuffer = Data()
        var readyWaiters: [CheckedContinuation<Bool, Never>] = []
        var exitWaiters: [CheckedContinuation<ProcessExit, Never>] = []
        /// Replies arrive in the order the control lines were written.
        var replyWaiters: [UUID] = []
        var replies: [UUID: CheckedContinuation<TaskReport?, Never>] = [:]
        var onStatus: (@Sendable (TaskStatus) -> Void)?
        var onExit: (@Sendable (ProcessExit, TaskStatus?) -> Void)?
    }

    /// Starts `executable run taskFile --control - --report` with `arguments` added.
    init(taskId: String, executable: String, taskFile: String, arguments: [String], logger: Logger) throws {
        self.taskId = taskId
        self.logger = logger
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["run", taskFile, "--control", "-", "--report", "--quiet"] + arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        self.process = process
        input = stdin.fileHandleForWriting
        stdout.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.received(handle.availableData, fromErrors: false) }
        stderr.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.received(handle.availableData, fromErrors: true) }
        process.terminationHandler = { [weak self] finished in
            let exit = ProcessExit(status: finished.terminationStatus, signaled: finished.terminationReason == .uncaughtSignal)
            self?.exited(exit)
        }
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var latestStatus: TaskStatus? { state.withLock { $0.status } }
    var exit: ProcessExit? { state.withLock { $0.exit } }

    /// Called with every status line, and once when the process has ended.
    func observe(status: @escaping @Sendable (TaskStatus) -> Void, exit: @escaping @Sendable (ProcessExit, TaskStatus?) -> Void) {
        let ended: (ProcessExit, TaskStatus?)? = state.withLock { state in
            state.onStatus = status
            state.onExit = exit
            return state.exit.map { ($0, state.status) }
        }
        if let ended { exit(ended.0, ended.1) }
    }

    /// Waits for the ready line; false if the process ended first or `timeout` passed.
    func waitUntilReady(timeout: Double) async -> Bool {
        let timer = Task { [self] in
            try? await Task.sleep(for: .seconds(timeout))
            resumeReadyWaiters(false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let answer: Bool? = state.withLock { state in
                if state.ready { return true }
                if state.exit != nil { return false }
                state.readyWaiters.append(continuation)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Sends one update line and waits for its reply; nil if the process ended or did not
    /// answer within `timeout`.
    func update(_ json: Data, timeout: Double) async -> TaskReport? {
        let id = UUID()
        let timer = Task { [self] in
            try? await Task.sleep(for: .seconds(timeout))
            resolveReply(id, nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let accepted = state.withLock { state -> Bool in
                guard state.exit == nil else { return false }
                state.replyWaiters.append(id)
                state.replies[id] = continuation
                return true
            }
            guard accepted else { return continuation.resume(returning: nil) }
            var line = json.filter { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
            line.append(UInt8(ascii: "\n"))
            do { try input.write(contentsOf: line) } catch { resolveReply(id, nil) }
        }
    }

    /// Asks the task to stop cleanly (SIGTERM: flush, trailers), escalating to SIGKILL
    /// after `grace` seconds. Returns how the process ended.
    func stop(grace: Double) async -> ProcessExit {
        if let exit { return exit }
        kill(process.processIdentifier, SIGTERM)
        let killer = Task { [self] in
            try? await Task.sleep(for: .seconds(grace))
            if self.exit == nil {
                logger.warning("task \(taskId) did not stop within \(grace) s; killing it")
                kill(process.processIdentifier, SIGKILL)
            }
        }
        defer { killer.cancel() }
        return await waitForExit()
    }

    func waitForExit() async -> ProcessExit {
        await withCheckedContinuation { continuation in
            let exit: ProcessExit? = state.withLock { state in
                if let exit = state.exit { return exit }
                state.exitWaiters.append(continuation)
                return nil
            }
            if let exit { continuation.resume(returning: exit) }
        }
    }

    // MARK: - the pipes

    private func received(_ data: Data, fromErrors: Bool) {
        let lines: [Data] = state.withLock { state in
            if fromErrors { state.stderrBuffer.append(data) } else { state.stdoutBuffer.append(data) }
            var buffer = fromErrors ? state.stderrBuffer : state.stdoutBuffer
            var lines: [Data] = []
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(Data(buffer[buffer.startIndex..<newline]))
                buffer = Data(buffer[buffer.index(after: newline)...])
            }
            if data.isEmpty && !buffer.isEmpty {  // end of the pipe: the last, unterminated line
                lines.append(buffer)
                buffer = Data()
            }
            if fromErrors { state.stderrBuffer = buffer } else { state.stdoutBuffer = buffer }
            return lines
        }
        for line in lines {
            if fromErrors {
                logger.notice("\(String(decoding: line, as: UTF8.self))", metadata: ["task": "\(taskId)"])
            } else if let report = try? JSONDecoder().decode(TaskReport.self, from: line) {
                handle(report)
            }
        }
    }

    private func handle(_ report: TaskReport) {
        switch report.type {
        case .ready:
            state.withLock { $0.ready = true }
            resumeReadyWaiters(true)
        case .reply:
            let id = state.withLock { $0.replyWaiters.isEmpty ? nil : $0.replyWaiters.removeFirst() }
            if let id { resolveReply(id, report) }
        case .status:
            guard let status = report.status else { return }
            let observer = state.withLock { state in
                state.status = status
                return state.onStatus
            }
            observer?(status)
        }
    }

    private func exited(_ exit: ProcessExit) {
        let (readers, exits, replies, observer, status) = state.withLock { state in
            state.exit = exit
            defer {
                state.readyWaiters = []
                state.exitWaiters = []
                state.replies = [:]
                state.replyWaiters = []
            }
            return (state.readyWaiters, state.exitWaiters, Array(state.replies.values), state.onExit, state.status)
        }
        readers.forEach { $0.resume(returning: false) }
        exits.forEach { $0.resume(returning: exit) }
        replies.forEach { $0.resume(returning: nil) }
        observer?(exit, status)
    }

    private func resumeReadyWaiters(_ ready: Bool) {
        let waiters = state.withLock { state in
            defer { state.readyWaiters = [] }
            return state.readyWaiters
        }
        waiters.forEach { $0.resume(returning: ready) }
    }

    private func resolveReply(_ id: UUID, _ report: TaskReport?) {
        // The id stays in `replyWaiters` after a timeout, so that a late reply is matched to
        // it (and dropped) rather than to the next update's.
        let continuation = state.withLock { $0.replies.removeValue(forKey: id) }
        continuation?.resume(returning: report)
    }
}
