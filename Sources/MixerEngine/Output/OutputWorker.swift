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

/// What the mixing thread sends an output.
enum OutputMessage: Sendable {
    case packet(EncodedPacket)
    case finish
}

/// One destination on its own thread behind a bounded queue: the muxer is created, used
/// and closed there. Offline, the mixing thread waits for room (a file must be complete);
/// live, a full queue drops this output's packets only, never the mix or other outputs.
final class OutputWorker: Sendable {
    let target: CdnURL
    private let streams: [StreamParameters]
    private let queue: BoundedQueue<OutputMessage>
    private let live: Bool
    private let stateValue = Atomic<Int>(OutputState.idle.rawValue)
    private let lastError = Mutex<String?>(nil)
    let droppedPackets = Counter()
    let writtenBytes = Counter()
    private let interrupt = InterruptFlag()
    private let finished = DispatchGroup()
    private let logger: Logger

    init(target: CdnURL, streams: [StreamParameters], live: Bool, logger: Logger) {
        self.target = target
        self.streams = streams
        self.live = live
        self.queue = BoundedQueue(capacity: live ? 256 : 64)
        var logger = logger
        logger[metadataKey: "output"] = "\(target.url)"
        self.logger = logger
    }

    var state: OutputState { OutputState(rawValue: stateValue.load(ordering: .relaxed)) ?? .idle }
    var failure: String? { lastError.withLock { $0 } }

    func start() {
        finished.enter()
        stateValue.store(OutputState.connecting.rawValue, ordering: .relaxed)
        let thread = Thread { [self] in
            defer { finished.leave() }
            do {
                try run()
                stateValue.store(OutputState.idle.rawValue, ordering: .relaxed)
            } catch {
                lastError.withLock { $0 = "\(error)" }
                stateValue.store(OutputState.failed.rawValue, ordering: .relaxed)
                logger.error("output failed: \(error)")
                // Keep draining so that the mixing thread never waits on a dead output.
                while let message = queue.pop() {
                    if case .finish = message { break }
                    droppedPackets.add()
                }
            }
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

    private func run() throws {
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
        try output.start(options: options, interrupt: interrupt)
        stateValue.store(OutputState.publishing.rawValue, ordering: .relaxed)
        while let message = queue.pop() {
            switch message {
            case .packet(let packet):
                guard let index = indices[packet.kind] else { continue }
                try output.write(packet, streamIndex: index)
                writtenBytes.add(packet.data.count)
            case .finish:
                stateValue.store(OutputState.disconnecting.rawValue, ordering: .relaxed)
                try output.finish()
                return
            }
        }
        try output.finish()
    }
}
