import Foundation
import Logging
import MixerEngine
import MixerTask

/// Settings of the worker.
public struct WorkerSettings: Sendable {
    /// The `mixer` executable that runs each task.
    public var executable: String
    public var maxTasks: Int
    public var roomURLTemplate: String
    /// Extra arguments for every task's `mixer run` (log levels, preset, …).
    public var taskArguments: [String]
    /// Seconds a task's process has to say it is ready.
    public var readyTimeout = 10.0
    /// Seconds a stopping task has to flush and close before it is killed.
    public var stopGrace = 15.0
    /// Seconds an update may wait for the task's reply.
    public var updateTimeout = 5.0

    public init(executable: String, maxTasks: Int, roomURLTemplate: String, taskArguments: [String]) {
        self.executable = executable
        self.maxTasks = maxTasks
        self.roomURLTemplate = roomURLTemplate
        self.taskArguments = taskArguments
    }
}

/// A task as `GET /v1/tasks` shows it.
public struct TaskView: Codable, Sendable {
    public init(taskId: String, state: String, pid: Int32, sequenceNumber: Int64?, status: TaskStatus?) {
        self.taskId = taskId
        self.state = state
        self.pid = pid
        self.sequenceNumber = sequenceNumber
        self.status = status
    }

    public var taskId: String
    /// starting, running, stopping
    public var state: String
    public var pid: Int32
    public var sequenceNumber: Int64?
    public var status: TaskStatus?
}

/// The worker's tasks: starts each in its own process after validating it, forwards updates,
/// stops them, and turns what they report into events and metrics. An actor, so every
/// decision about the set of tasks (ids, admission, shutdown) is made in one place.
actor TaskRegistry {
    private let settings: WorkerSettings
    private let events: EventBus
    private let metrics: WorkerMetrics
    private let logger: Logger
    private let folder: URL
    private var tasks: [String: Entry] = [:]
    private var acceptingTasks = true

    private struct Entry {
        let process: TaskProcess
        var state: String
        var sequenceNumber: Int64?
        let folder: URL
    }

    init(settings: WorkerSettings, events: EventBus, metrics: WorkerMetrics, logger: Logger) {
        self.settings = settings
        self.events = events
        self.metrics = metrics
        self.logger = logger
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-worker-\(getpid())")
    }

    var count: Int { tasks.count }

    // MARK: - start

    /// Validates a task in full (before anything starts), admits it, and starts its process.
    func start(_ body: Data) async throws(APIError) -> String {
        guard acceptingTasks else {
            throw APIError(TaskError("FailedOperation.RestrictedConcurrency", "the worker is shutting down and takes no new tasks"))
        }
        let capabilities = Preflight.capabilities(roomURLTemplate: settings.roomURLTemplate)
        var json: JSONValue
        let task: TaskDocument
        do {
            json = try JSONValue.parse(body)
            task = try TaskParser.parse(json, capabilities: capabilities)
            _ = try Preflight.check(task, roomURLTemplate: settings.roomURLTemplate)
        } catch {
            throw APIError(error)
        }
        let taskId = task.taskId ?? "task-\(UUID().uuidString.prefix(8).lowercased())"
        if tasks[taskId] != nil {
            throw APIError(TaskError("FailedOperation.TaskExist", "task \(taskId) is already running; update or stop it"))
        }
        guard tasks.count < settings.maxTasks else {
            throw APIError(TaskError("FailedOperation.RestrictedConcurrency", "the worker runs \(tasks.count) tasks, its maximum (--max-tasks)"))
        }
        if case .object(var fields) = json, task.taskId == nil {
            fields["taskId"] = .string(taskId)
            json = .object(fields)
        }
        let taskFolder = folder.appendingPathComponent(taskId)
        let process: TaskProcess
        do {
            try FileManager.default.createDirectory(at: taskFolder, withIntermediateDirectories: true)
            let file = taskFolder.appendingPathComponent("task.json")
            try Data(json.text.utf8).write(to: file)
            process = try TaskProcess(taskId: taskId, executable: settings.executable, taskFile: file.path,
                                      arguments: ["--room-url", settings.roomURLTemplate] + settings.taskArguments, logger: logger)
        } catch {
            throw APIError(TaskError("InternalError", "cannot start the task's process: \(error)"))
        }
        tasks[taskId] = Entry(process: process, state: "starting", sequenceNumber: task.sequenceNumber, folder: taskFolder)
        metrics.setTaskCount(tasks.count)
        process.observe(
            status: { [weak self] status in Task { await self?.received(status, task: taskId) } },
            exit: { [weak self] exit, status in Task { await self?.exited(taskId, process: process, exit: exit, status: status) } })
        guard await process.waitUntilReady(timeout: settings.readyTimeout) else {
            let exit = await process.stop(grace: 2)
            throw APIError(TaskError("InternalError", "task \(taskId) did not start: \(exit.description)"))
        }
        if tasks[taskId]?.process === process { tasks[taskId]?.state = "running" }
        events.publish(WorkerEvent(event: "onStartPublishMediaStream", taskId: taskId, code: .ok, message: "started"))
        logger.info("task \(taskId) started (pid \(process.pid))")
        return taskId
    }

    // MARK: - update

    /// Forwards an update to the task, which validates it against what it runs (SPEC §2).
    func update(_ taskId: String, body: Data) async throws(APIError) -> String {
        guard let entry = tasks[taskId], entry.state != "stopping" else {
            throw APIError(TaskError("FailedOperation.TaskNotExist", "task \(taskId) is not running"))
        }
        let json: JSONValue
        do { json = try JSONValue.parse(body) } catch { throw APIError(error) }
        if case .object(let fields) = json, case .string(let id)? = fields["taskId"], id != taskId {
            throw APIError(TaskError.invalid("TaskId", "taskId \"\(id)\" in the body does not match \(taskId) in the path"))
        }
        guard let reply = await entry.process.update(body, timeout: settings.updateTimeout) else {
            throw APIError(TaskError("InternalError", "task \(taskId) did not answer the update"))
        }
        switch reply.code {
        case .ok?:
            events.publish(WorkerEvent(event: "onUpdatePublishMediaStream", taskId: taskId, code: .ok, message: reply.message))
            return reply.message ?? "updated"
        case .refused(let code)?:
            events.publish(WorkerEvent(event: "onUpdatePublishMediaStream", taskId: taskId, code: .refused(code), message: reply.message))
            throw APIError(TaskError(code, reply.message ?? ""))
        case nil:
            throw APIError(TaskError("InternalError", "task \(taskId) gave a reply without a code"))
        }
    }

    // MARK: - stop

    /// Stops a task cleanly (flush, trailers) and waits until its process has ended.
    func stop(_ taskId: String) async throws(APIError) {
        guard let entry = tasks[taskId] else {
            throw APIError(TaskError("FailedOperation.TaskNotExist", "task \(taskId) is not running"))
        }
        tasks[taskId]?.state = "stopping"
        _ = await entry.process.stop(grace: settings.stopGrace)
    }

    /// Stops every task at once; returns their ids.
    func stopAll() async -> [String] {
        let ids = Array(tasks.keys)
        await withTaskGroup(of: Void.self) { group in
            for id in ids { group.addTask { try? await self.stop(id) } }
        }
        return ids.sorted()
    }

    /// Graceful shutdown: no new tasks, every task stopped cleanly, the event streams ended.
    func shutdown() async {
        acceptingTasks = false
        let stopped = await stopAll()
        if !stopped.isEmpty { logger.info("stopped \(stopped.count) task(s) for shutdown") }
        events.finish()
    }

    // MARK: - state

    func view(_ taskId: String) throws(APIError) -> TaskView {
        guard let entry = tasks[taskId] else {
            throw APIError(TaskError("FailedOperation.TaskNotExist", "task \(taskId) is not running"))
        }
        return TaskView(taskId: taskId, state: entry.state, pid: entry.process.pid, sequenceNumber: entry.sequenceNumber,
                        status: entry.process.latestStatus)
    }

    func views() -> [TaskView] { tasks.keys.sorted().compactMap { try? view($0) } }

    // MARK: - what the processes report

    private var lastStatus: [String: TaskStatus] = [:]

    /// Turns changes between two statuses into events: CDN URL states, inputs joining or lost.
    private func received(_ status: TaskStatus, task taskId: String) {
        guard tasks[taskId] != nil else { return }
        metrics.record(status, task: taskId)
        let previous = lastStatus[taskId]
        lastStatus[taskId] = status
        for output in status.outputs where previous?.outputs.first(where: { $0.url == output.url })?.state != output.state {
            events.publish(WorkerEvent(event: "onCdnStreamStateChanged", taskId: taskId, code: output.error == nil ? .ok : .refused("FailedOperation.CdnPublish"),
                                       message: output.error ?? TaskRegistry.cdnStateNames[output.state], cdnUrl: output.url, status: output.state))
        }
        for input in status.inputs {
            let before = previous?.inputs.first { $0.roomId == input.roomId && $0.userId == input.userId && $0.streamType == input.streamType }
            guard before?.state != input.state else { continue }
            switch input.state {
            case "live": events.publish(WorkerEvent(event: "onInputJoined", taskId: taskId, input: input))
            case "lost", "ended": events.publish(WorkerEvent(event: "onInputLost", taskId: taskId, message: input.state, input: input))
            default: break
            }
        }
    }

    static let cdnStateNames = [0: "idle", 1: "connecting", 2: "publishing", 3: "reconnecting", 4: "failed", 5: "disconnecting"]

    /// A task's process ended: by a stop, on its own (inputs ended, idle), or by a crash.
    private func exited(_ taskId: String, process: TaskProcess, exit: ProcessExit, status: TaskStatus?) {
        guard let entry = tasks[taskId], entry.process === process else { return }
        tasks[taskId] = nil
        lastStatus[taskId] = nil
        metrics.remove(task: taskId)
        metrics.setTaskCount(tasks.count)
        try? FileManager.default.removeItem(at: entry.folder)
        let reason = status?.ended ?? exit.description
        let code: ResultCode = exit.succeeded ? .ok : .refused(exit.signaled ? "InternalError.TaskKilled" : "InternalError.TaskFailed")
        events.publish(WorkerEvent(event: "onStopPublishMediaStream", taskId: taskId, code: code,
                                   message: exit.succeeded ? reason : "\(exit.description); \(reason)"))
        logger.info("task \(taskId) ended: \(exit.description) (\(reason))")
    }
}

extension JSONValue {
    /// Compact JSON text.
    var text: String {
        switch self {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .integer(let number): String(number)
        case .number(let number): number.isFinite ? "\(number)" : "null"
        case .string(let text): JSONValue.quote(text)
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let fields): "{" + fields.sorted { $0.key < $1.key }.map { JSONValue.quote($0.key) + ":" + $0.value.text }.joined(separator: ",") + "}"
        }
    }
}
