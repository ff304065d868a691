import Foundation
import Logging
import MediaCore
import MixerTask
import Synchronization

/// What runs on a task's main thread: a mix (decode, compose, encode) or a relay (copy).
protocol TaskSession {
    func run() -> EndReason
}

/// Runs one task: starts its inputs, its mixing thread and its outputs, and reports status.
/// The public face is thread-safe; the FFmpeg work happens on the threads it starts.
public final class MixEngine: Sendable {
    public let task: TaskDocument
    public let plan: InputPlan
    let options: EngineOptions
    let stopFlag = StopFlag()
    let statusBox = Mutex(EngineStatus())
    private let done = DispatchGroup()
    private let outcome = Mutex<Result<EndReason, any Error>?>(nil)

    public init(task: TaskDocument, options: EngineOptions) {
        self.task = task
        self.options = options
        plan = InputPlan(task: task, roomURLTemplate: options.roomURLTemplate)
    }

    /// Starts the mixing thread (which starts everything else) and returns at once.
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

    /// Runs a task to its end on the calling thread's behalf (start + wait).
    public func run() throws -> EndReason {
        start()
        return try wait()
    }
}
