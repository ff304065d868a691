import Foundation
import Logging
import MediaCore
import MixerTask
import Synchronization

/// What runs on a task's main thread: a mix (decode, compose, encode) or a relay (copy).
protocol TaskSession {
    func run() -> EndReason
}

/// Runs one task: starts its inputs, its mixing thread and its outputs, reports status,
/// and takes updates. The public face is thread-safe; the FFmpeg work happens on the
/// threads it starts.
public final class MixEngine: Sendable {
    let options: EngineOptions
    let stopFlag = StopFlag()
    let statusBox = Mutex(EngineStatus())
    private let done = DispatchGroup()
    private let outcome = Mutex<Result<EndReason, any Error>?>(nil)
    private let document: Mutex<Document>
    /// The latest accepted update, taken by the mixing thread at its next tick.
    private let pendingUpdate = Mutex<TaskDocument?>(nil)

    /// The running task as last accepted, with the JSON updates are merged over.
    private struct Document {
        var json: JSONValue?
        var task: TaskDocument
        var sequenceNumber: Int64?
    }

    /// `json` is the task as the user gave it; without it the task cannot be updated.
    public init(task: TaskDocument, json: JSONValue? = nil, options: EngineOptions) {
        self.options = options
        document = Mutex(Document(json: json, task: task, sequenceNumber: task.sequenceNumber))
    }

    /// The running task (with every accepted update).
    public var task: TaskDocument { document.withLock { $0.task } }

    public var plan: InputPlan { InputPlan(task: task, roomURLTemplate: options.roomURLTemplate) }

    /// Starts the task's thread (which starts everything else) and returns at once.
    public func start() {
        done.enter()
        let thread = Thread { [self] in
            defer { done.leave() }
            let result: Result<EndReason, any Error>
            do {
                let relayCopy = task.target.mode.isRelay && task.encoderParam == nil
                let session: any TaskSession = relayCopy ? try RelaySession(engine: self) : try MixSession(engine: self)
                result = .success(session.run())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            statusBox.withLock { status in
                status.ended = switch result {
                case .success(let reason): reason
                case .failure(let error): .failed("\(error)")
                }
            }
        }
        thread.name = "mixer-mix"
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Blocks until the task has ended and every output is closed.
    public func wait() throws -> EndReason {
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// Ends the task at the next tick: encoders are flushed and outputs closed cleanly.
    public func requestStop() { stopFlag.set() }

    public var status: EngineStatus { statusBox.withLock { $0 } }

    /// Runs a task to its end (start + wait).
    public func run() throws -> EndReason {
        start()
        return try wait()
    }

    /// Validates an update (SPEC §2) and hands it to the task, which applies it at its next
    /// tick. A refusal changes nothing. Returns the task as it will run.
    @discardableResult
    public func update(_ json: JSONValue, capabilities: WorkerCapabilities) throws(TaskError) -> TaskDocument {
        if status.ended != nil { throw TaskError("FailedOperation.TaskNotExist", "the task has already ended") }
        let updated = try document.withLock { document throws(TaskError) -> TaskDocument in
            guard let current = document.json else {
                throw TaskError("InternalError", "this task was started without its JSON and cannot be updated")
            }
            if case .object(let fields) = json, case .integer(let sequence)? = fields["sequenceNumber"],
               let last = document.sequenceNumber, sequence <= last {
                throw TaskError("FailedOperation.OutdateRequest", "sequenceNumber \(sequence) is not greater than \(last), the last one applied")
            }
            let merged = try TaskUpdate.merge(json, over: current)
            let task = try TaskParser.parse(merged, capabilities: capabilities)
            try TaskUpdate.checkAllowed(from: document.task, to: task)
            _ = try Preflight.check(task, roomURLTemplate: options.roomURLTemplate, images: options.images)
            document = Document(json: merged, task: task, sequenceNumber: task.sequenceNumber ?? document.sequenceNumber)
            return task
        }
        pendingUpdate.withLock { $0 = updated }
        return updated
    }

    /// The update accepted since the last call, if any (mixing thread, once per tick).
    func takePendingUpdate() -> TaskDocument? {
        pendingUpdate.withLock { pending in
            defer { pending = nil }
            return pending
        }
    }
}
