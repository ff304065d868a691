import Foundation
import Logging
import MediaCore
import MixerTask
import Synchronization

/// A CDN URL's state, numbered as TRTC's onCdnStreamStateChanged numbers them.
public enum OutputState: Int, Sendable {
    case idle = 0
    case connecting = 1
    case publishing = 2
    case reconnecting = 3
    case failed = 4
    case disconnecting = 5
}

/// How a live output retries (SPEC §4.2: every 5 s, failed after 60 s without success).
public struct RetryPolicy: Sendable {
    public var interval: Double
    public var failAfter: Double

    public init(interval: Double = 5, failAfter: Double = 60) {
        self.interval = interval
        self.failAfter = failAfter
    }
}

/// What the mixing thread sends an output.
enum OutputMessage: Sendable {
    case packet(EncodedPacket)
    case finish
}

/// One destination on its own thread behind a bounded queue: the muxer is created, used
/// and closed there. Offline, the mixing thread waits for room (a file must be complete);
/// live, a full queue drops this output's packets only, never the mix or other outputs.
/// A live URL that fails is reopened every `retry.interval` seconds, resuming at the next
/// keyframe, until `retry.failAfter` seconds pass without success.
final class OutputWorker: Sendable {
    let target: CdnURL
    private let streams: [StreamParameters]
    private let queue: BoundedQueue<OutputMessage>
    private let live: Bool
    private let retry: RetryPolicy
    /// Added to a running task: its first packets are not the stream's first.
    private let joinsMidStream: Bool
    private let stateValue = Atomic<Int>(OutputState.idle.rawValue)
    private let lastError = Mutex<String?>(nil)
    let droppedPackets = Counter()
    let writtenBytes = Counter()
    let connections = Counter()
    private let interrupt = InterruptFlag()
    private let finished = DispatchGroup()
    let logger: Logger

    /// Seconds allowed for connecting and writing the header.
    static let connectTimeout = 10.0

    init(target: CdnURL, streams: [StreamParameters], live: Bool, retry: RetryPolicy, joinsMidStream: Bool = false, logger: Logger) {
        self.joinsMidStream = joinsMidStream
        self.target = target
        self.streams = streams
        self.live = live
        self.retry = retry
        self.queue = BoundedQueue(capacity: live ? 256 : 64)
        var logger = logger
        logger[metadataKey: "output"] = "\(target.url)"
        self.logger = logger
    }

    var state: OutputState { OutputState(rawValue: stateValue.load(ordering: .relaxed)) ?? .idle }
    var failure: String? { lastError.withLock { $0 } }

    var status: EngineStatus.Output {
        .init(url: target.url, state: state, droppedPackets: droppedPackets.current, bytes: writtenBytes.current,
              connections: connections.current, error: failure)
    }

    private func set(_ state: OutputState) {
        let old = stateValue.exchange(state.rawValue, ordering: .relaxed)
        if old != state.rawValue { logger.info("output state \(state.rawValue) (\(state))") }
    }

    func start() {
        finished.enter()
        set(.connecting)
        let thread = Thread { [self] in
            defer { finished.leave() }
            run()
        }
        thread.name = "mixer-output"
        thread.start()
    }

    func send(_ packet: EncodedPacket) {
        if live || state == .failed {
            if !queue.offer(.packet(packet)) { droppedPackets.add() }
        } else {
            queue.push(.packet(packet))
        }
    }

    /// Asks the output to flush and close; waits up to `timeout` seconds, then interrupts it.
    func finish(timeout: Double) {
        if live {
            // A stuck connection may have filled the queue: never wait for room here.
            if !queue.offer(.finish) { queue.close() }
        } else {
            queue.push(.finish)
        }
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            logger.warning("output did not close in \(timeout) s; interrupting it")
            interrupt.requestStop()
            queue.close()
            _ = finished.wait(timeout: .now() + 2)
        }
    }

    private func run() {
        var failingSince: Double?
        while true {
            do {
                try publish { failingSince = nil }
                set(.idle)
                return
            } catch {
                lastError.withLock { $0 = "\(error)" }
                let now = MonotonicClock.now()
                failingSince = failingSince ?? now
                guard target.kind.isLive, !interrupt.isStopRequested, now - failingSince! < retry.failAfter else {
                    logger.error("output failed: \(error)")
                    set(.failed)
                    dropUntilFinished(deadline: .infinity)
                    return
                }
                logger.warning("output error: \(error); retrying in \(retry.interval) s")
                set(connections.current > 0 ? .reconnecting : .connecting)
                if !dropUntilFinished(deadline: now + retry.interval) { set(.idle); return }
            }
        }
    }

    /// Drops packets (counted) until `deadline`; false if the task finished meanwhile.
    @discardableResult
    private func dropUntilFinished(deadline: Double) -> Bool {
        while let message = deadline == .infinity ? queue.pop() : queue.pop(before: deadline) {
            if case .finish = message { return false }
            droppedPackets.add()
        }
        return deadline != .infinity && !queue.isClosed
    }

    /// Opens the destination and writes packets until the task finishes. Throws when the
    /// connection fails; `onConnected` runs once the header is written.
    private func publish(onConnected: () -> Void) throws {
        let path = target.url.hasPrefix("file://") ? String(target.url.dropFirst(7)) : target.url
        let container: String = switch target.kind {
        case .rtmp: "flv"
        case .srt: "mpegts"
        case .file(let container): container
        }
        let output = try OutputFile(url: path, formatName: container)
        var indices: [MediaKind: Int] = [:]
        for stream in streams { indices[stream.kind] = try output.addStream(stream) }
        let options: [String: String] = target.kind.isLive ? ["rw_timeout": "10000000"] : [:]
        interrupt.arm(timeout: target.kind.isLive ? OutputWorker.connectTimeout : 0)
        try output.start(options: options, interrupt: interrupt)
        interrupt.arm(timeout: 0)
        connections.add()
        onConnected()
        set(.publishing)
        // A reconnection, or a URL added to a running task, starts at a keyframe so that
        // players can decode from its first packet.
        var awaitingKeyframe = indices[.video] != nil && (connections.current > 1 || joinsMidStream)
        while let message = queue.pop() {
            switch message {
            case .packet(let packet):
                guard let index = indices[packet.kind] else { continue }
                if awaitingKeyframe {
                    guard packet.kind == .video && packet.isKeyframe else { droppedPackets.add(); continue }
                    awaitingKeyframe = false
                }
                try output.write(packet, streamIndex: index)
                writtenBytes.add(packet.data.count)
            case .finish:
                set(.disconnecting)
                try output.finish()
                return
            }
        }
        try output.finish()
    }
}

extension OutputWorker {
    /// The outputs for `targets`: those whose URL stays are kept with their connection
    /// untouched, new ones are made by `make` and started, removed ones close in the
    /// background so that the caller's tick is not held up.
    static func reconcile(_ outputs: [OutputWorker], with targets: [CdnURL], make: (CdnURL) -> OutputWorker) -> [OutputWorker] {
        let current = targets.map { target in
            outputs.first { $0.target.url == target.url } ?? {
                let output = make(target)
                output.start()
                return output
            }()
        }
        for output in outputs where !current.contains(where: { $0 === output }) {
            output.logger.info("output removed")
            Thread.detachNewThread { output.finish(timeout: 10) }
        }
        return current
    }
}
