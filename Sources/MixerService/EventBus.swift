import Foundation
import MixerTask
import Synchronization

/// One callback of the worker (SPEC §4.2 `GET /v1/events`): TRTC's onStart/onUpdate/
/// onStopPublishMediaStream and onCdnStreamStateChanged, plus input joined / lost.
public struct WorkerEvent: Codable, Sendable, Equatable {
    public var event: String
    public var taskId: String
    public var code: ResultCode?
    public var message: String?
    public var cdnUrl: String?
    public var status: Int?
    public var roomId: String?
    public var userId: String?
    public var streamType: String?
    /// Seconds since 1970.
    public var time: Double

    public init(event: String, taskId: String, code: ResultCode? = nil, message: String? = nil, cdnUrl: String? = nil,
                status: Int? = nil, input: TaskStatus.Input? = nil) {
        self.event = event
        self.taskId = taskId
        self.code = code
        self.message = message
        self.cdnUrl = cdnUrl
        self.status = status
        roomId = input?.roomId
        userId = input?.userId
        streamType = input?.streamType
        time = Date().timeIntervalSince1970
    }
}

/// Fans events out to every connected `GET /v1/events` stream as JSON lines.
final class EventBus: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<Data>.Continuation]>([:])
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A stream of JSON lines that ends when the bus finishes or the subscriber goes away.
    func subscribe() -> AsyncStream<Data> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Data>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { _ = $0.removeValue(forKey: id) } }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    func publish(_ event: WorkerEvent) {
        guard var line = try? encoder.encode(event) else { return }
        line.append(UInt8(ascii: "\n"))
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.yield(line) }
    }

    /// Ends every stream (graceful shutdown).
    func finish() {
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.finish() }
    }
}
