import Foundation
import MediaCore

/// What a task's status says of an input (SPEC §4.2).
public enum InputState: String, Sendable {
    case connecting
    case live
    case lost
    case ended
}

/// The mixing thread's view of one input: what it has delivered so far, the picture due
/// at each tick, and its audio, all on the output timeline.
///
/// Offline, the mixing thread waits here until the input has delivered everything due,
/// which makes runs deterministic. Live, it never waits: each input's timeline is anchored
/// to the output clock when its media first arrives (again after a reconnection or a jump
/// of over a second), plus a small jitter buffer, and what is late is simply late.
final class InputTrack {
    let worker: InputWorker
    private(set) var opened = false
    private(set) var hasVideo = true
    private(set) var hasAudio = true
    private(set) var ended = false
    private(set) var connection = InputState.connecting
    private(set) var failure: String?
    private var pending: [TimedPicture] = []
    /// Forwardable SEI not yet written, in arrival (decode) order. Live, on the input's own
    /// timeline (mapped with the anchor of the moment they are taken, so that an anchor that
    /// moves while they wait cannot reorder them); offline, on the output timeline.
    private var pendingSEI: [TimedSEI] = []
    /// At most this many packets' SEI wait; past it the oldest is dropped (and reported)
    /// rather than kept without bound (only reachable with timestamps that never come due).
    static let seiBacklogLimit = 1024
    private var current: TimedPicture?
    private(set) var fifo: AudioFifo
    /// The latest video time received (output timeline, seconds).
    private(set) var videoHorizon = -Double.infinity
    private var lastFrameInterval = 0.04
    /// The sample index (output timeline) just past the audio received so far.
    private var audioEndSample = Int64.min
    private let sampleRate: Double
    /// Announced once by `takeStateChange` for status and logs.
    private var unreportedChange: String?
    /// False in audio-only tasks: pictures are counted for timing, then dropped.
    var keepsPictures = true

    private let live: LiveTiming?
    /// Input timeline + anchor = output timeline (live only; 0 offline): the shortest transit
    /// seen (arrival minus timestamp).
    private var anchor: Double?
    /// The shortest transit within the current window, to let the anchor move later when
    /// transit grows for good (a slower source clock, a longer network path).
    private var windowMinimum = Double.infinity
    private var windowStart = 0.0
    /// Output-clock time of the last media that arrived (live), for idle detection.
    private(set) var lastArrival: Double?

    /// How far one kind of media may run ahead while waiting for the other before the
    /// late kind is treated as absent for now.
    static let lookahead = 1.0
    /// A live input whose timestamps stray further than this from the anchor is re-anchored.
    static let jumpThreshold = 1.0
    /// How often the anchor may move later, and by at least how much.
    static let anchorWindow = (seconds: 5.0, slack: 0.05)

    /// Clock and buffering of a live task.
    struct LiveTiming {
        /// Monotonic time of output time 0.
        let start: Double
        /// Jitter buffer: media is shown this long after it is first due.
        let latency: Double
    }

    /// Offline, where the input's time 0 lands on the output timeline (an input added by an
    /// update starts at the tick it was added at).
    private let offlineStart: Double

    init(worker: InputWorker, audioFormat: AudioFormat, live: LiveTiming?, offlineStart: Double = 0) {
        self.worker = worker
        self.live = live
        self.offlineStart = offlineStart
        fifo = AudioFifo(channels: audioFormat.channels)
        sampleRate = Double(audioFormat.sampleRate)
    }

    /// The end of the audio received so far (output timeline, seconds).
    var audioHorizon: Double { audioEndSample == .min ? -Double.infinity : Double(audioEndSample) / sampleRate }

    /// When the input's pictures stop (the end of its last one); nil if it sent none.
    var videoEnd: Double? { videoHorizon.isFinite ? videoHorizon + lastFrameInterval : nil }

    /// When the input's audio stops; nil if it sent none.
    var audioEnd: Double? { audioHorizon.isFinite ? audioHorizon : nil }

    /// The last time (output timeline) this input delivered media for: by timestamps
    /// offline, by arrival live.
    var activeUntil: Double { live == nil ? max(videoHorizon, audioHorizon) : (lastArrival ?? -Double.infinity) }

    func takeStateChange() -> String? {
        defer { unreportedChange = nil }
        return unreportedChange
    }

    /// Offline: takes events until `satisfied` holds. Live: takes every event waiting.
    private func pump(until satisfied: () -> Bool) {
        guard live == nil else {
            while let event = worker.events.poll() { absorb(event) }
            return
        }
        while !ended && !satisfied() {
            guard let event = worker.events.pop() else { return absorb(.ended(failure: nil)) }
            absorb(event)
        }
    }

    /// Maps a time on the input's timeline to the output timeline. Live, the anchor is the
    /// shortest transit seen: media that arrives sooner than the anchor predicts (the first
    /// packets come late, held back while FFmpeg probed the stream) moves it earlier, so the
    /// input catches up with its live edge; a window with no transit near the anchor moves it
    /// later; a reconnection or a jump of over a second re-anchors at once.
    private func outputTime(_ time: Double, arrival: Double) -> Double {
        guard let live else { return time + offlineStart }
        let now = arrival - live.start
        lastArrival = now
        let transit = now - time
        if anchor == nil || abs(transit - anchor!) > InputTrack.jumpThreshold || transit < anchor! {
            anchor = transit
        }
        windowMinimum = min(windowMinimum, transit)
        if now - windowStart >= InputTrack.anchorWindow.seconds {
            if windowMinimum > anchor! + InputTrack.anchorWindow.slack { anchor = windowMinimum }
            windowMinimum = .infinity
            windowStart = now
        }
        return time + anchor! + live.latency
    }

    private func absorb(_ event: InputEvent) {
        switch event {
        case .opened(let video, let audio, let summary):
            // What the previous connection left is due now, before the timeline restarts.
            for index in pendingSEI.indices { pendingSEI[index].time = -Double.infinity }
            opened = true
            hasVideo = video
            hasAudio = audio
            anchor = nil
            windowMinimum = .infinity
            connection = .live
            unreportedChange = "joined (\(summary))"
        case .video(var picture):
            picture.time = outputTime(picture.time, arrival: picture.arrival)
            if picture.time > videoHorizon, videoHorizon.isFinite {
                lastFrameInterval = min(1, picture.time - videoHorizon)
            }
            videoHorizon = max(videoHorizon, picture.time)
            if keepsPictures { pending.append(picture) }
        case .sei(var sei):
            guard keepsPictures else { break }
            // SEI never moves the anchor: it is read before its picture is decoded.
            if live == nil { sei.time += offlineStart }
            pendingSEI.append(sei)
            if pendingSEI.count > InputTrack.seiBacklogLimit {
                let dropped = pendingSEI.removeFirst().messages.count
                unreportedChange = "dropped \(dropped) SEI message(s) whose time never came due"
            }
        case .audio(var chunk):
            let seconds = Double(chunk.start) / sampleRate
            chunk.start = Int64((outputTime(seconds, arrival: chunk.arrival) * sampleRate).rounded())
            fifo.append(chunk)
            audioEndSample = max(audioEndSample, chunk.start + Int64(chunk.audio.count))
        case .streams, .packet:
            break  // relay events; a mixing task never asks for them
        case .lost(let reason):
            connection = .lost
            unreportedChange = "lost (\(reason)); reconnecting"
        case .ended(let failure):
            ended = true
            connection = .ended
            self.failure = failure
            unreportedChange = failure.map { "lost (\($0))" } ?? "ended"
        }
    }

    /// The picture to show at `time`: the latest one due (within `tolerance`, i.e. nearest
    /// to the tick), held at most `hold` seconds past its own time.
    func picture(at time: Double, tolerance: Double, hold: Double) -> VideoPicture? {
        let due = time + tolerance
        pump { opened && (!hasVideo || videoHorizon > due || audioHorizon > due + InputTrack.lookahead) }
        let dueCount = pending.prefix { $0.time <= due }.count
        if dueCount > 0 {
            current = pending[dueCount - 1]
            // Release the pictures passed over at once: each holds a whole decoded frame.
            pending.removeFirst(dueCount)
        }
        if let shown = current, time - shown.time > hold { current = nil }
        return current?.picture
    }

    /// Takes the SEI due by `due` (call after `picture(at:)`, which has read that far), in
    /// presentation order; what is later stays for a later frame, so each message is
    /// taken exactly once.
    func takeSEI(upTo due: Double) -> [TimedSEI] {
        // Live: due on the input's timeline; before the input is anchored, everything is due.
        let limit = live.map { live in anchor.map { due - $0 - live.latency } ?? .infinity } ?? due
        guard pendingSEI.contains(where: { $0.time <= limit }) else { return [] }
        var taken: [TimedSEI] = []
        pendingSEI.removeAll { entry in
            guard entry.time <= limit else { return false }
            taken.append(entry)
            return true
        }
        // Decode order differs from presentation order around B-frames; keep ties in order.
        return taken.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// Adds this input's samples of [start, start + count) times `gain` into `mix`.
    /// Returns the energy (sum of squares) of what it added, for volume reports.
    @discardableResult
    func mixAudio(start: Int64, count: Int, gain: Float, into mix: UnsafeMutablePointer<Float>) -> Float {
        awaitAudio(upTo: start + Int64(count))
        return fifo.mix(from: start, count: count, gain: gain, into: mix)
    }

    /// Moves an input that is not mixed past `index`, so that it keeps flowing (and its end
    /// is seen) while its samples are dropped.
    func discardAudio(upTo index: Int64) {
        awaitAudio(upTo: index)
        fifo.discard(upTo: index)
    }

    private func awaitAudio(upTo end: Int64) {
        pump { opened && (!hasAudio || audioEndSample >= end || videoHorizon > Double(end) / sampleRate + InputTrack.lookahead) }
    }

    /// Offline, waits until the input has said whether it opened.
    func awaitOpen() {
        pump { opened }
    }
}
