import Foundation
import Logging
import MediaCore
import MixerTask

/// The mixing thread's state for one task: one tick loop (OBS-style) that composes the
/// canvas at the task's fps and mixes audio in encoder-sized blocks, in time order, then
/// encodes once and fans packets out to every output. Updates are applied between ticks.
/// Confined to that thread.
final class MixSession: TaskSession {
    private let engine: MixEngine
    private let options: EngineOptions
    private var task: TaskDocument
    private let param: EncoderParam
    private let format: AudioFormat
    /// One track per planned input, in plan order; a track keeps its thread across updates
    /// for as long as its input (user, stream type and URL) stays in the task.
    private var tracks: [InputTrack] = []
    private let compositor: Compositor?
    /// The output's SEI (nil for an audio-only task, which has no video to carry it).
    private let sei: OutputSEI?
    /// Who the layout/volume SEI lists, from the current layout.
    private var seiRegions: [LayoutVolumeReport.Region] = []
    private let encoder: MixEncoder
    private let streams: [StreamParameters]
    private var outputs: [OutputWorker] = []
    private let audioFrame: Frame
    /// The running sum of one block, reused every block.
    private var mixBuffer: [Float]
    private let blockSize: Int
    private var audioGains: [Int: Float] = [:]
    private let logger: Logger
    private let live: Bool
    private let liveTiming: InputTrack.LiveTiming?
    /// Monotonic time of output time 0.
    private let start: Double
    /// Output time of the next tick (video or audio), where inputs added by an update begin.
    private var now = 0.0
    /// What has been produced, for status.
    private var frameIndex: Int64 = 0
    private var blockIndex: Int64 = 0
    private var bytes = 0
    /// Status is published at most this often (it copies every input's and output's state).
    private static let statusInterval = 0.1
    private var statusPublishedAt = -Double.infinity

    init(engine: MixEngine) throws {
        self.engine = engine
        options = engine.options
        logger = options.logger
        task = engine.task
        guard let param = task.encoderParam else {
            throw TaskError.missing("EncoderParam", "encoderParam is required for mode \(task.target.mode.name)")
        }
        self.param = param
        format = AudioFormat(sampleRate: param.audioSampleRate, channels: param.audioChannels)
        live = options.realtime
        start = MonotonicClock.now()
        liveTiming = live ? InputTrack.LiveTiming(start: start, latency: options.liveLatency) : nil
        encoder = try MixEncoder(param: param, options: options)
        blockSize = encoder.audioFrameSize
        audioFrame = try Frame.audio(samples: blockSize, sampleRate: param.audioSampleRate, channels: param.audioChannels)
        mixBuffer = [Float](repeating: 0, count: blockSize * param.audioChannels)
        compositor = param.isAudioOnly ? nil : try Compositor(width: param.width, height: param.height, quality: options.scaleQuality,
                                                                 images: options.images)
        sei = param.isAudioOnly ? nil : OutputSEI(param: param)
        var streams = [encoder.audio.parameters]
        if let video = encoder.video { streams.insert(video.parameters, at: 0) }
        self.streams = streams
    }

    func run() -> EndReason {
        apply(task, starting: true)
        let reason = loop()
        publishStatus()
        finish()
        return reason
    }

    // MARK: - the task's shape: inputs, layout, outputs

    /// Makes the session match `task`: inputs and outputs that stay keep their threads and
    /// connections; new ones start; removed ones stop (outputs close in the background, so
    /// the tick is not held up). The encoder is never touched but for a live bitrate change.
    private func apply(_ task: TaskDocument, starting: Bool = false) {
        let plan = InputPlan(task: task, roomURLTemplate: options.roomURLTemplate)
        var kept: [InputTrack] = []
        for input in plan.inputs {
            if let track = tracks.first(where: { $0.worker.key == input.key && $0.worker.url == input.url }) {
                kept.append(track)
                continue
            }
            // Small input queues offline: each entry may hold a whole decoded picture.
            let worker = InputWorker(index: kept.count, key: input.key, url: input.url, audioFormat: format, live: live,
                                     queueCapacity: live ? 32 : 6, logger: logger)
            let track = InputTrack(worker: worker, audioFormat: format, live: liveTiming, offlineStart: now)
            track.keepsPictures = compositor != nil
            worker.start()
            kept.append(track)
        }
        for track in tracks where !kept.contains(where: { $0 === track }) {
            logger.info("input \(track.worker.key) removed")
            track.worker.requestStop()
        }
        tracks = kept

        audioGains = Dictionary(plan.audio.map { ($0.input, $0.gain) }, uniquingKeysWith: { $1 })
        seiRegions = MixSession.regions(task, plan, canvasWidth: param.width, canvasHeight: param.height)
        if let compositor {
            // Normally loaded when the task or update was accepted; a failure here only skips the image.
            do { try options.images.load(for: task) } catch { logger.warning("\(error.code): \(error.message)") }
            if task.target.mode.isRelay {
                // Relay with transcoding: the relayed user fills the canvas, whole picture shown.
                let cell = VideoCell(rect: Rect(x: 0, y: 0, width: compositor.width, height: compositor.height), zOrder: 0,
                                     fillMode: .fit, backgroundColor: task.mixingConfig.backgroundColor, placeHolderImage: nil,
                                     fixedVideoUser: nil, fixedVideoStreamType: .big)
                compositor.setLayout(background: task.mixingConfig.backgroundColor, cells: [cell], inputs: [plan.inputs.isEmpty ? nil : 0])
            } else {
                compositor.setLayout(background: task.mixingConfig.backgroundColor, backgroundImage: task.mixingConfig.backgroundImage,
                                     cells: task.mixingConfig.videoLayoutList, inputs: plan.cellInputs,
                                     watermarks: task.mixingConfig.watermarkList)
            }
        }

        var targets = task.target.cdnUrls
        if task.target.mode == .mixStreamToRoom, let robot = task.target.mixStreamIdentity {
            let url = InputPlan.roomURL(for: InputKey(user: robot, streamType: .big), template: options.roomURLTemplate)
            if !targets.contains(where: { $0.url == url }) { targets.append(CdnURL(url: url, isInternalLine: true, kind: .rtmp)) }
        }
        outputs = OutputWorker.reconcile(outputs, with: targets) { target in
            OutputWorker(target: target, streams: streams, live: live || target.kind.isLive, retry: options.outputRetry,
                         joinsMidStream: !starting, logger: logger)
        }

        if !starting, let before = self.task.encoderParam, let after = task.encoderParam,
           before.effectiveVideoKbps != after.effectiveVideoKbps {
            encoder.setVideoBitRate(after.effectiveVideoKbps * 1000)
        }
        self.task = task
    }

    // MARK: - the tick loop

    private func loop() -> EndReason {
        let fps = Double(param.fps)
        let rate = Double(param.audioSampleRate)
        let tolerance = 0.5 / fps
        tracks.forEach { $0.awaitOpen() }
        while true {
            if let update = engine.takePendingUpdate() { apply(update) }
            // Once every input has ended, video and audio each stop at the end of their own content.
            let ended = !tracks.isEmpty && tracks.allSatisfy(\.ended)
            let contentEnd = tracks.compactMap { [$0.videoEnd, $0.audioEnd].compactMap { $0 }.max() }.max() ?? 0
            let videoEnd = tracks.compactMap(\.videoEnd).max() ?? contentEnd
            let audioEnd = tracks.compactMap(\.audioEnd).max() ?? contentEnd
            var videoTime = compositor == nil ? Double.infinity : Double(frameIndex) / fps
            var audioTime = Double(blockIndex * Int64(blockSize)) / rate
            if ended && videoTime >= videoEnd - 1e-9 { videoTime = .infinity }
            if ended && audioTime >= audioEnd - 1e-9 { audioTime = .infinity }
            now = min(videoTime, audioTime)
            if engine.stopFlag.isSet { return .stopped }
            if now == .infinity { return .inputsEnded }
            if let duration = options.duration, now >= duration - 1e-9 { return .durationReached }
            let lastActive = max(0, tracks.map(\.activeUntil).max() ?? 0)
            if now - lastActive >= Double(task.maxIdleTime) { return .idle(seconds: task.maxIdleTime) }
            if live { MonotonicClock.sleep(until: start + now) }
            do {
                let packets: [EncodedPacket]
                if audioTime <= videoTime {
                    packets = try mixAudio(blockIndex)
                    blockIndex += 1
                } else {
                    packets = try composeVideo(frameIndex, time: videoTime, tolerance: tolerance)
                    frameIndex += 1
                }
                for packet in packets {
                    bytes += packet.data.count
                    outputs.forEach { $0.send(packet) }
                }
            } catch {
                logger.error("mixing failed: \(error)")
                return .failed("\(error)")
            }
            if MonotonicClock.now() - statusPublishedAt >= MixSession.statusInterval { publishStatus() }
            if !outputs.isEmpty && outputs.allSatisfy({ $0.state == .failed }) {
                return .failed("every output failed: \(outputs.compactMap(\.failure).joined(separator: "; "))")
            }
        }
    }

    private func composeVideo(_ index: Int64, time: Double, tolerance: Double) throws -> [EncodedPacket] {
        guard let compositor else { return [] }
        // Every input moves forward, shown or not, so that its queue keeps flowing.
        let pictures = tracks.map { $0.picture(at: time, tolerance: tolerance, hold: options.holdLastFrame) }
        try compositor.compose { pictures[$0] }
        // Each input's SEI up to this frame, in its own order, input after input; taken
        // whether or not it is forwarded, so that none piles up.
        let due = time + tolerance
        let forwarded = tracks.flatMap { $0.takeSEI(upTo: due).flatMap(\.messages) }
        sei?.plan(frame: index, task: task, regions: seiRegions, forwarded: task.mixingConfig.enableStreamSei ? forwarded : [])
        if let report = options.onTick {
            report(TickReport(index: index, canvasChecksum: compositor.checksum(),
                              canvas: options.captureCanvas ? compositor.copy() : nil))
        }
        if let directory = options.snapshotDirectory, options.snapshotEvery > 0, index % Int64(options.snapshotEvery) == 0 {
            try writeSnapshot(compositor, index: index, directory: directory)
        }
        let packets = try encoder.encodeVideo(compositor.canvas, index: index, keyframe: sei?.isIDR(index) ?? false)
        return sei?.attach(packets) ?? packets
    }

    private func mixAudio(_ index: Int64) throws -> [EncodedPacket] {
        let first = index * Int64(blockSize)
        let channels = format.channels
        try audioFrame.makeWritable()
        // Accumulate in float, then clamp into the encoder's planes: a sum of loud inputs
        // saturates instead of wrapping.
        let blockSize = self.blockSize
        mixBuffer.withUnsafeMutableBufferPointer { buffer in
            buffer.update(repeating: 0)
            for (input, track) in tracks.enumerated() {
                if let gain = audioGains[input] {
                    let energy = track.mixAudio(start: first, count: blockSize, gain: gain, into: buffer.baseAddress!)
                    sei?.addAudio(track.worker.key, energy: energy)
                } else {
                    track.discardAudio(upTo: first + Int64(blockSize))
                }
            }
            for channel in 0..<channels {
                let plane = audioFrame.floatSamples(channel)
                for i in 0..<blockSize { plane[i] = min(1, max(-1, buffer[channel * blockSize + i])) }
            }
        }
        if let report = options.onAudioBlock {
            var samples = [Float](repeating: 0, count: channels * blockSize)
            for channel in 0..<channels {
                for i in 0..<blockSize { samples[channel * blockSize + i] = audioFrame.floatSamples(channel)[i] }
            }
            report(AudioBlockReport(firstSample: first, audio: PlanarAudio(channels: channels, count: blockSize, samples: samples)))
        }
        sei?.addAudioSamples(blockSize * channels)
        return try encoder.encodeAudio(audioFrame, firstSample: first)
    }

    /// The users the layout/volume SEI lists: each cell showing a user, in list order, then
    /// the users mixed only for audio, with an empty region.
    private static func regions(_ task: TaskDocument, _ plan: InputPlan, canvasWidth: Int, canvasHeight: Int) -> [LayoutVolumeReport.Region] {
        if task.target.mode.isRelay {
            return plan.inputs.prefix(1).map { .init(key: $0.key, zOrder: 0, rect: Rect(x: 0, y: 0, width: canvasWidth, height: canvasHeight)) }
        }
        var regions: [LayoutVolumeReport.Region] = []
        for (cell, input) in zip(task.mixingConfig.videoLayoutList, plan.cellInputs) {
            guard let input, !regions.contains(where: { $0.key == plan.inputs[input].key }) else { continue }
            regions.append(.init(key: plan.inputs[input].key, zOrder: cell.zOrder, rect: cell.rect))
        }
        for source in plan.audio where !regions.contains(where: { $0.key == plan.inputs[source.input].key }) {
            regions.append(.init(key: plan.inputs[source.input].key, zOrder: 0, rect: Rect(x: 0, y: 0, width: 0, height: 0)))
        }
        return regions
    }

    private func writeSnapshot(_ compositor: Compositor, index: Int64, directory: String) throws {
        let png = try ImageWriter.png(of: compositor.canvas.image)
        let path = "\(directory)/frame-\(String(format: "%06lld", index)).png"
        guard FileManager.default.createFile(atPath: path, contents: Data(png)) else {
            throw FFmpegError(operation: "snapshot", message: "cannot write \(path)")
        }
    }

    private func publishStatus() {
        statusPublishedAt = MonotonicClock.now()
        // Seconds of output produced so far (`now` is the next tick's time, infinite at the end).
        let videoTime = compositor == nil ? 0 : Double(frameIndex) / Double(param.fps)
        let audioTime = Double(blockIndex * Int64(blockSize)) / Double(param.audioSampleRate)
        let frames = frameIndex, blocks = blockIndex, mediaTime = max(videoTime, audioTime), bytes = bytes
        let elapsed = statusPublishedAt - start
        for track in tracks {
            if let change = track.takeStateChange() { logger.info("input \(track.worker.key) \(change)") }
        }
        engine.statusBox.withLock { status in
            status.videoFrames = frames
            status.audioBlocks = blocks
            status.mediaTime = mediaTime
            status.elapsed = elapsed
            status.bytes = bytes
            status.outputs = outputs.map(\.status)
            status.inputs = tracks.map { track in
                // A connected input that has gone quiet for longer than the hold time is lost too.
                let stalled = live && track.connection == .live && mediaTime - (track.lastArrival ?? mediaTime) > options.holdLastFrame
                return .init(key: track.worker.key, state: stalled ? .lost : track.connection)
            }
        }
    }

    /// Flushes the encoder into every output, closes them, and stops the inputs.
    private func finish() {
        do {
            let flushed = try encoder.finish()
            for packet in sei?.attach(flushed) ?? flushed { outputs.forEach { $0.send(packet) } }
        } catch {
            logger.error("flushing the encoder failed: \(error)")
        }
        outputs.forEach { $0.finish(timeout: 10) }
        tracks.forEach { $0.worker.requestStop() }
        for track in tracks where !track.worker.join(timeout: 5) {
            logger.warning("input \(track.worker.key) did not stop within 5 s")
        }
        engine.statusBox.withLock { [outputs] in $0.outputs = outputs.map(\.status) }
    }
}
