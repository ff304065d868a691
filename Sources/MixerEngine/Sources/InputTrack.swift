import Foundation
import MediaCore

/// The mixing thread's view of one input: what it has delivered so far, the picture due
/// at each tick, and its audio. In offline mode the mixing thread waits here until the
/// input has delivered everything due, which makes runs deterministic; in real-time
/// mode it takes only what has already arrived.
final class InputTrack {
    let worker: InputWorker
    private(set) var opened = false
    private(set) var hasVideo = true
    private(set) var hasAudio = true
    private(set) var ended = false
    private(set) var failure: String?
    private var pending: [TimedPicture] = []
    private var current: TimedPicture?
    private(set) var fifo: AudioFifo
    /// The latest video time and the end of the audio received (input timeline, seconds).
    private(set) var videoHorizon = -Double.infinity
    private var lastFrameInterval = 0.04
    private let sampleRate: Double
    /// Announced once by `takeStateChange` for status and logs.
    private var unreportedChange: String?
    /// False in audio-only tasks: pictures are counted for timing, then dropped.
    var keepsPictures = true

    /// How far one kind of media may run ahead while waiting for the other before the
    /// late kind is treated as absent for now.
    static let lookahead = 1.0

    init(worker: InputWorker, audioFormat: AudioFormat) {
        self.worker = worker
        fifo = AudioFifo(channels: audioFormat.channels)
        sampleRate = Double(audioFormat.sampleRate)
    }

    /// The sample index just past the audio received so far.
    private var audioEndSample = Int64.min

    /// The end of the audio received so far (input timeline, seconds).
    var audioHorizon: Double { audioEndSample == .min ? -Double.infinity : Double(audioEndSample) / sampleRate }

    /// When the input's pictures stop (the end of its last one); nil if it sent none.
    var videoEnd: Double? { videoHorizon.isFinite ? videoHorizon + lastFrameInterval : nil }

    /// When the input's audio stops; nil if it sent none.
    var audioEnd: Double? { audioHorizon.isFinite ? audioHorizon : nil }

    /// The last time (input timeline) that this input delivered media for.
    var activeUntil: Double { max(videoHorizon, audioHorizon) }

    func takeStateChange() -> String? {
        defer { unreportedChange = nil }
        return unreportedChange
    }

    /// Takes events until `satisfied` holds (offline) or until none is waiting (real time).
    private func pump(blocking: Bool, until satisfied: () -> Bool) {
        while !ended && !satisfied() {
            let event = blocking ? worker.events.pop() : worker.events.poll()
            guard let event else {
                if blocking { absorb(.ended(failure: nil)) }
                return
            }
            absorb(event)
        }
    }

    private func absorb(_ event: InputEvent) {
        switch event {
        case .opened(let video, let audio, let summary):
            opened = true
            hasVideo = video
            hasAudio = audio
            unreportedChange = "joined (\(summary))"
        case .video(let picture):
            if picture.time > videoHorizon, videoHorizon.isFinite {
                lastFrameInterval = min(1, picture.time - videoHorizon)
            }
            videoHorizon = max(videoHorizon, picture.time)
            if keepsPictures { pending.append(picture) }
        case .audio(let chunk):
            fifo.append(chunk)
            audioEndSample = max(audioEndSample, chunk.start + Int64(chunk.audio.count))
        case .ended(let failure):
            ended = true
            self.failure = failure
            unreportedChange = failure.map { "lost (\($0))" } ?? "ended"
        }
    }

    /// The picture to show at `time`: the latest one due (within `tolerance`, i.e. nearest
    /// to the tick), held at most `hold` seconds past its own time.
    func picture(at time: Double, tolerance: Double, hold: Double, blocking: Bool) -> VideoPicture? {
        let due = time + tolerance
        pump(blocking: blocking) {
            opened && (!hasVideo || videoHorizon > due || audioHorizon > due + InputTrack.lookahead)
        }
        let dueCount = pending.prefix { $0.time <= due }.count
        if dueCount > 0 {
            current = pending[dueCount - 1]
            // Release the pictures passed over at once: each holds a whole decoded frame.
            pending.removeFirst(dueCount)
        }
        if let shown = current, time - shown.time > hold { current = nil }
        return current?.picture
    }

    /// Adds this input's samples of [start, start + count) times `gain` into `mix`.
    func mixAudio(start: Int64, count: Int, gain: Float, into mix: UnsafeMutablePointer<Float>, blocking: Bool) {
        awaitAudio(upTo: start + Int64(count), blocking: blocking)
        fifo.mix(from: start, count: count, gain: gain, into: mix)
    }

    /// Moves an input that is not mixed past `index`, so that it keeps flowing (and its end
    /// is seen) while its samples are dropped.
    func discardAudio(upTo index: Int64, blocking: Bool) {
        awaitAudio(upTo: index, blocking: blocking)
        fifo.discard(upTo: index)
    }

    private func awaitAudio(upTo end: Int64, blocking: Bool) {
        pump(blocking: blocking) {
            opened && (!hasAudio || audioEndSample >= end || videoHorizon > Double(end) / sampleRate + InputTrack.lookahead)
        }
    }

    /// Waits (offline) until the input has said whether it opened.
    func awaitOpen(blocking: Bool) {
        pump(blocking: blocking) { opened }
    }
}
