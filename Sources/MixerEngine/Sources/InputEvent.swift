import MediaCore

/// A picture and its time on the input's own timeline (seconds from the input's start).
struct TimedPicture: Sendable {
    var time: Double
    var picture: VideoPicture
}

/// Audio converted to the task's rate and channels, placed by sample index on the
/// input's timeline.
struct TimedAudio: Sendable {
    var start: Int64
    var audio: PlanarAudio
}

/// What an input thread tells the mixing thread, in the order it happens.
enum InputEvent: Sendable {
    case opened(hasVideo: Bool, hasAudio: Bool, summary: String)
    case video(TimedPicture)
    case audio(TimedAudio)
    /// The input is over: `failure` is nil at a clean end of stream.
    case ended(failure: String?)
}

/// The audio format every input is converted to: the task's encoder format, planar float.
struct AudioFormat: Sendable, Hashable {
    var sampleRate: Int
    var channels: Int
}
