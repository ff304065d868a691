import Foundation
import Logging
import MediaCore
import MixerTask

/// One input's thread: demuxes and decodes (or synthesises `testsrc:`), converts to the
/// canvas and audio formats, and hands Sendable pictures and samples to the mixing thread
/// through a bounded queue. Every FFmpeg object it uses is created and freed on its thread.
///
/// In a live task, files and `testsrc:` are released at their native rate, and a network
/// input that drops is reopened with backoff until the task stops.
final class InputWorker: Sendable {
    let index: Int
    let key: InputKey
    let url: String
    let events: BoundedQueue<InputEvent>
    private let audioFormat: AudioFormat
    private let live: Bool
    /// Relay: forward packets as they are instead of decoding them.
    private let copyPackets: Bool
    private let stop = StopFlag()
    private let interrupt = InterruptFlag()
    private let finished = DispatchGroup()
    private let logger: Logger

    /// Seconds allowed for opening a network input before it counts as lost.
    static let openTimeout = 10.0
    /// Waits between reconnection attempts: doubling from the first, capped at the last.
    static let backoff = (first: 0.5, limit: 5.0)

    init(index: Int, key: InputKey, url: String, audioFormat: AudioFormat, live: Bool, copyPackets: Bool = false,
         queueCapacity: Int, logger: Logger) {
        self.copyPackets = copyPackets
        self.index = index
        self.key = key
        self.url = url
        self.audioFormat = audioFormat
        self.live = live
        self.events = BoundedQueue(capacity: queueCapacity)
        var logger = logger
        logger[metadataKey: "input"] = "\(key)"
        self.logger = logger
    }

    var isNetwork: Bool { url.contains("://") && !url.lowercased().hasPrefix("file://") && !TestSourceSpec.isTestSource(url) }

    func start() {
        finished.enter()
        let thread = Thread { [self] in
            defer { finished.leave() }
            let failure: String?
            do {
                if TestSourceSpec.isTestSource(url) {
                    try runTestSource(TestSourceSpec(url: url))
                } else if isNetwork && live {
                    runReconnecting()
                } else {
                    try runDemuxer()
                }
                failure = nil
            } catch let error as FFmpegError where error.isInterrupted && stop.isSet {
                failure = nil
            } catch {
                failure = "\(error)"
                logger.warning("input failed: \(error)")
            }
            events.push(.ended(failure: failure))
        }
        thread.name = "mixer-input-\(index)"
        thread.start()
    }

    /// Stops the thread: blocked pushes return, blocking FFmpeg calls are interrupted.
    func requestStop() {
        stop.set()
        interrupt.requestStop()
        events.close()
    }

    /// Waits up to `timeout` seconds for the thread to end; false if it did not.
    func join(timeout: Double) -> Bool {
        finished.wait(timeout: .now() + timeout) == .success
    }

    private func send(_ event: InputEvent) -> Bool { !stop.isSet && events.push(event) }

    // MARK: - network inputs in a live task

    /// Opens, reads until the stream drops, reports it lost, waits, and opens again.
    private func runReconnecting() {
        var wait = InputWorker.backoff.first
        while !stop.isSet {
            var delivered = false
            let reason: String
            do {
                delivered = try runDemuxer()
                reason = "end of stream"
            } catch let error as FFmpegError where error.isInterrupted && stop.isSet {
                return
            } catch {
                reason = "\(error)"
            }
            guard !stop.isSet, send(.lost(reason: reason)) else { return }
            logger.info("input lost (\(reason)); retrying in \(wait) s")
            if delivered { wait = InputWorker.backoff.first }
            let until = MonotonicClock.now() + wait
            while !stop.isSet && MonotonicClock.now() < until { MonotonicClock.sleep(until: min(until, MonotonicClock.now() + 0.05)) }
            wait = min(wait * 2, InputWorker.backoff.limit)
        }
    }

    // MARK: - testsrc:

    private func runTestSource(_ spec: TestSourceSpec) throws {
        let pattern = TestPattern(spec: spec)
        let hasAudio = spec.toneHz > 0
        guard send(.opened(hasVideo: spec.hasVideo, hasAudio: hasAudio, summary: "testsrc \(spec.width)x\(spec.height)@\(spec.fps)")) else { return }
        let rate = audioFormat.sampleRate
        let totalSamples = spec.duration.map { Int64(($0 * Double(rate)).rounded()) } ?? Int64.max
        let totalFrames = spec.duration.map { Int(($0 * Double(spec.fps)).rounded(.up)) } ?? Int.max
        var pacer = Pacer(stop: stop)
        var frame = 0
        var sample: Int64 = 0
        let chunk = 1024
        while !stop.isSet {
            let videoDone = !spec.hasVideo || frame >= totalFrames
            let audioDone = !hasAudio || sample >= totalSamples
            if videoDone && audioDone { return }
            let videoTime = Double(frame) / Double(spec.fps)
            let audioTime = Double(sample) / Double(rate)
            if !videoDone && (audioDone || videoTime <= audioTime) {
                if live && !pacer.wait(until: videoTime) { return }
                if let message = pattern.sei(frame) {
                    guard send(.sei(TimedSEI(time: videoTime, messages: [message]))) else { return }
                }
                let picture = TimedPicture(time: videoTime, picture: pattern.picture(frame), arrival: MonotonicClock.now())
                guard send(.video(picture)) else { return }
                frame += 1
            } else {
                if live && !pacer.wait(until: audioTime) { return }
                let count = Int(min(Int64(chunk), totalSamples - sample))
                let audio = pattern.tone(start: sample, count: count, sampleRate: rate, channels: audioFormat.channels)
                guard send(.audio(TimedAudio(start: sample, audio: audio, arrival: MonotonicClock.now()))) else { return }
                sample += Int64(count)
            }
        }
    }

    // MARK: - FFmpeg inputs

    /// Reads the input to its end. Returns whether any media was delivered.
    @discardableResult
    private func runDemuxer() throws -> Bool {
        let path = url.hasPrefix("file://") ? String(url.dropFirst(7)) : url
        interrupt.arm(timeout: isNetwork ? InputWorker.openTimeout : 0)
        let file = try InputFile(url: path, options: InputWorker.protocolOptions(for: url), interrupt: interrupt)
        interrupt.arm(timeout: 0)
        if copyPackets { return try forwardPackets(of: file) }
        let video = openDecoder(file, kind: .video)
        let audio = openDecoder(file, kind: .audio)
        let summary = file.streams.filter { $0.kind != nil }.map {
            $0.kind == .video ? "\($0.codecName) \($0.width)x\($0.height)" : "\($0.codecName) \($0.sampleRate)Hz/\($0.channels)ch"
        }.joined(separator: ", ")
        guard send(.opened(hasVideo: video != nil, hasAudio: audio != nil, summary: summary)) else { return false }
        var state = DecodeState(zero: file.startTime, audioFormat: audioFormat, pacer: live && !isNetwork ? Pacer(stop: stop) : nil)
        let seiReader = video.flatMap { SEIReader(codecName: file.streams[$0.stream].codecName, extradata: file.streams[$0.stream].extradata) }
        let packet = Packet()
        let frame = Frame()
        var delivered = false
        reading: while !stop.isSet {
            guard try file.read(into: packet) == .packet else { break reading }
            delivered = true
            if let video, packet.streamIndex == video.stream {
                if let seiReader, let sei = forwardableSEI(packet, seiReader, video.decoder.timeBase, &state) {
                    guard send(.sei(sei)) else { return true }
                }
                guard try decode(video.decoder, packet, frame, { try emitVideo($0, video.decoder.timeBase, &state) }) else { return true }
            } else if let audio, packet.streamIndex == audio.stream {
                guard try decode(audio.decoder, packet, frame, { try emitAudio($0, audio.decoder.timeBase, &state) }) else { return true }
            }
        }
        if let video {
            guard try decode(video.decoder, nil, frame, { try emitVideo($0, video.decoder.timeBase, &state) }) else { return true }
        }
        if let audio {
            guard try decode(audio.decoder, nil, frame, { try emitAudio($0, audio.decoder.timeBase, &state) }) else { return true }
            let rest = try state.resampler.convert(nil)
            if rest.count > 0, let start = state.nextSample {
                _ = send(.audio(TimedAudio(start: start, audio: rest, arrival: MonotonicClock.now())))
            }
        }
        return delivered
    }

    /// Relay: sends the best video and audio streams' packets on unchanged.
    private func forwardPackets(of file: InputFile) throws -> Bool {
        let streams = [file.bestStream(.video), file.bestStream(.audio)].compactMap { $0 }
        let parameters = streams.map { StreamParameters(input: file, stream: $0) }
        let summary = parameters.map(\.codecName).joined(separator: ", ") + " (copied)"
        guard send(.opened(hasVideo: parameters.contains { $0.kind == .video }, hasAudio: parameters.contains { $0.kind == .audio },
                           summary: summary)),
              send(.streams(parameters)) else { return false }
        var pacer = live && !isNetwork ? Pacer(stop: stop) : nil
        let packet = Packet()
        var delivered = false
        while !stop.isSet, try file.read(into: packet) == .packet {
            guard let position = streams.firstIndex(of: packet.streamIndex), let dts = packet.dts ?? packet.pts else { continue }
            let timeBase = file.streams[packet.streamIndex].timeBase
            if pacer != nil, !pacer!.wait(until: Double(dts) * timeBase.doubleValue) { return delivered }
            var copy = packet.encoded(kind: parameters[position].kind, timeBase: timeBase)
            copy.dts = dts
            copy.pts = packet.pts ?? dts
            guard send(.packet(copy)) else { return delivered }
            delivered = true
        }
        return delivered
    }

    /// The SEI a video packet carries that is to be forwarded (SPEC §3), timed like its picture.
    private func forwardableSEI(_ packet: Packet, _ reader: SEIReader, _ timeBase: Rational, _ state: inout DecodeState) -> TimedSEI? {
        let messages = packet.withBytes { reader.messages(in: $0) }.filter(\.isForwardable)
        guard !messages.isEmpty else { return nil }
        let time = (packet.pts ?? packet.dts).map { state.seconds($0, timeBase) } ?? state.lastVideoTime ?? 0
        return TimedSEI(time: time, messages: messages)
    }

    private func openDecoder(_ file: InputFile, kind: MediaKind) -> (stream: Int, decoder: Decoder)? {
        guard let stream = file.bestStream(kind) else { return nil }
        do {
            return (stream, try Decoder(input: file, streamIndex: stream))
        } catch {
            logger.warning("ignoring the \(kind) stream: \(error)")
            return nil
        }
    }

    /// Feeds one packet (nil: end of stream) and hands every frame out to `emit`.
    /// Returns false when the mixing side is gone. A corrupt packet is skipped, not fatal.
    private func decode(_ decoder: Decoder, _ packet: Packet?, _ frame: Frame, _ emit: (Frame) throws -> Bool) throws -> Bool {
        while true {
            let sent: SendResult
            do {
                sent = try decoder.send(packet)
            } catch let error as FFmpegError where !error.isInterrupted {
                logger.debug("skipping a packet: \(error)")
                return true
            }
            while true {
                let received: ReceiveResult
                do {
                    received = try decoder.receive(into: frame)
                } catch let error as FFmpegError where !error.isInterrupted {
                    logger.debug("skipping a frame: \(error)")
                    continue
                }
                guard received == .output else { break }
                guard try emit(frame) else { return false }
            }
            if sent == .accepted { return true }
        }
    }

    private func emitVideo(_ frame: Frame, _ timeBase: Rational, _ state: inout DecodeState) throws -> Bool {
        let time = state.videoTime(pts: frame.pts, timeBase: timeBase)
        let picture: VideoPicture
        if frame.isYUV420 {
            picture = VideoPicture(sharing: frame)
        } else {
            let converted = try Frame.video(width: frame.width, height: frame.height, format: .yuv420p)
            try state.converter.scale(frame.image, into: converted.image)
            picture = VideoPicture(sharing: converted)
        }
        if state.pacer?.wait(until: time) == false { return false }
        return send(.video(TimedPicture(time: time, picture: picture, arrival: MonotonicClock.now())))
    }

    private func emitAudio(_ frame: Frame, _ timeBase: Rational, _ state: inout DecodeState) throws -> Bool {
        let audio = try state.resampler.convert(frame)
        guard audio.count > 0 else { return true }
        let start = state.place(audio.count, pts: frame.pts, timeBase: timeBase)
        if state.pacer?.wait(until: Double(start) / Double(audioFormat.sampleRate)) == false { return false }
        return send(.audio(TimedAudio(start: start, audio: audio, arrival: MonotonicClock.now())))
    }

    /// Network inputs get a 10 s read timeout so that a dead peer ends the read.
    static func protocolOptions(for url: String) -> [String: String] {
        url.contains("://") && !url.lowercased().hasPrefix("file://") ? ["rw_timeout": "10000000"] : [:]
    }
}

/// Timing state of one FFmpeg input: its zero point, and the running audio position
/// that small timestamp jitter must not disturb.
struct DecodeState {
    var zero: Double?
    let audioFormat: AudioFormat
    let resampler: Resampler
    let converter = Scaler(quality: .bitExactBilinear)
    var nextSample: Int64?
    var lastVideoTime: Double?
    /// Set for files read in a live task: releases media at its native rate.
    var pacer: Pacer?

    /// Audio timestamps that stray less than this from the running count are jitter.
    static let alignmentThreshold = 0.040

    init(zero: Double?, audioFormat: AudioFormat, pacer: Pacer?) {
        self.zero = zero
        self.audioFormat = audioFormat
        self.pacer = pacer
        resampler = Resampler(outputRate: audioFormat.sampleRate, outputChannels: audioFormat.channels)
    }

    mutating func seconds(_ pts: Int64, _ timeBase: Rational) -> Double {
        let absolute = Double(pts) * timeBase.doubleValue
        if zero == nil { zero = absolute }
        return absolute - zero!
    }

    mutating func videoTime(pts: Int64?, timeBase: Rational) -> Double {
        let time = pts.map { seconds($0, timeBase) } ?? ((lastVideoTime ?? -0.04) + 0.04)
        lastVideoTime = time
        return time
    }

    /// The first sample index for `count` new samples stamped `pts`.
    mutating func place(_ count: Int, pts: Int64?, timeBase: Rational) -> Int64 {
        let rate = Double(audioFormat.sampleRate)
        if let pts {
            let expected = Int64((seconds(pts, timeBase) * rate).rounded())
            if nextSample == nil || abs(expected - nextSample!) > Int64(DecodeState.alignmentThreshold * rate) {
                nextSample = expected
            }
        }
        let start = nextSample ?? 0
        nextSample = start + Int64(count)
        return start
    }
}
