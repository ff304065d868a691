import Foundation
import Logging
import MediaCore
import MixerTask

/// Relay without transcoding (`bigStreamToCdn` / `subStreamToCdn` with no encoderParam):
/// the relayed user's packets go to every URL unchanged. Timestamps are rebased to start
/// at 0 and to continue after the input reconnects, so each output stays one stream.
final class RelaySession: TaskSession {
    private let engine: MixEngine
    private let worker: InputWorker
    private let live: Bool
    private let logger: Logger
    private var outputs: [OutputWorker] = []
    /// The streams being relayed, once the input has said what they are.
    private var streams: [StreamParameters]?
    private var rebase = TimestampRebase()

    init(engine: MixEngine) throws {
        self.engine = engine
        logger = engine.options.logger
        live = engine.options.realtime
        guard let input = engine.plan.inputs.first else {
            throw TaskError.missing("RelayUser", "target.relayUser is required to relay a stream")
        }
        worker = InputWorker(index: 0, key: input.key, url: input.url, audioFormat: AudioFormat(sampleRate: 48000, channels: 1),
                             live: live, copyPackets: true, queueCapacity: live ? 256 : 32, logger: logger)
    }

    func run() -> EndReason {
        let start = MonotonicClock.now()
        worker.start()
        var lastDelivery = 0.0
        var state = InputState.connecting
        var videoPackets: Int64 = 0
        var bytes = 0
        var publishedAt = -Double.infinity
        /// Status at most every 0.1 s (it copies every output's state), and once at the end.
        func publishStatus() {
            publishedAt = MonotonicClock.now()
            let status = (frames: videoPackets, time: rebase.outputTime, elapsed: publishedAt - start, bytes: bytes, state: state)
            engine.statusBox.withLock { [outputs, worker] engineStatus in
                engineStatus.videoFrames = status.frames
                engineStatus.mediaTime = status.time
                engineStatus.elapsed = status.elapsed
                engineStatus.bytes = status.bytes
                engineStatus.outputs = outputs.map(\.status)
                engineStatus.inputs = [.init(key: worker.key, state: status.state)]
            }
        }
        defer {
            publishStatus()
            finish()
        }
        while true {
            let elapsed = MonotonicClock.now() - start
            if engine.stopFlag.isSet { return .stopped }
            if let update = engine.takePendingUpdate(), let streams { updateOutputs(update.target.cdnUrls, streams: streams) }
            if let duration = engine.options.duration, rebase.outputTime >= duration { return .durationReached }
            let idleFor = live ? elapsed - lastDelivery : rebase.outputTime - lastDelivery
            if idleFor >= Double(engine.task.maxIdleTime) { return .idle(seconds: engine.task.maxIdleTime) }
            let event = live ? worker.events.pop(before: MonotonicClock.now() + 0.1) : worker.events.pop()
            switch event {
            case nil:
                if worker.events.isClosed { return .inputsEnded }
            case .streams(let parameters):
                guard streams == nil else { break }  // after a reconnection the first streams stay
                streams = parameters
                updateOutputs(engine.task.target.cdnUrls, streams: parameters, starting: true)
            case .packet(var packet):
                rebase.apply(to: &packet)
                lastDelivery = live ? MonotonicClock.now() - start : rebase.outputTime
                if packet.kind == .video { videoPackets += 1 }
                bytes += packet.data.count
                outputs.forEach { $0.send(packet) }
            case .opened(_, _, let summary):
                rebase.reconnected()
                state = .live
                logger.info("relay input joined (\(summary))")
            case .lost(let reason):
                state = .lost
                logger.info("relay input lost (\(reason)); reconnecting")
            case .ended(let failure):
                if let failure { logger.warning("relay input ended: \(failure)") }
                return .inputsEnded
            case .video, .audio, .sei:
                break  // a relay copies packets (SEI and all), never decodes them
            }
            if MonotonicClock.now() - publishedAt >= 0.1 { publishStatus() }
        }
    }

    /// Keeps the outputs whose URL stays, starts new ones (from the next keyframe), and
    /// closes removed ones in the background.
    private func updateOutputs(_ targets: [CdnURL], streams: [StreamParameters], starting: Bool = false) {
        outputs = OutputWorker.reconcile(outputs, with: targets) { [live, engine, logger] target in
            OutputWorker(target: target, streams: streams, live: live || target.kind.isLive, retry: engine.options.outputRetry,
                         joinsMidStream: !starting, logger: logger)
        }
    }

    private func finish() {
        outputs.forEach { $0.finish(timeout: 10) }
        worker.requestStop()
        _ = worker.join(timeout: 5)
        engine.statusBox.withLock { [outputs] in $0.outputs = outputs.map(\.status) }
    }
}

/// Maps relayed timestamps onto one continuous output timeline: the first packet of each
/// connection lands just after the last one written.
struct TimestampRebase {
    /// Seconds to add to input times of the current connection; nil until its first packet.
    private var offset: Double?
    /// Output time of the latest packet.
    private(set) var outputTime = 0.0
    private var started = false

    mutating func reconnected() { offset = nil }

    mutating func apply(to packet: inout EncodedPacket) {
        let base = packet.timeBase.doubleValue
        let time = Double(packet.dts) * base
        if offset == nil {
            // Resume a frame's worth after what was written, or at 0 for the very first packet.
            offset = (started ? outputTime + 0.04 : 0) - time
            started = true
        }
        let shift = Int64((offset! / base).rounded())
        packet.dts += shift
        packet.pts += shift
        outputTime = max(outputTime, Double(packet.dts) * base)
    }
}
