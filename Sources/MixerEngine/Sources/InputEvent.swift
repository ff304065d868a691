import MediaCore

/// A picture and its time on the input's own timeline (seconds from the input's start),
/// with the monotonic time it arrived at (for live anchoring).
struct TimedPicture: Sendable {
    var time: Double
    var picture: VideoPicture
    var arrival: Double
}

/// Audio converted to the task's rate and channels, placed by sample index on the
/// input's timeline.
struct TimedAudio: Sendable {
    var start: Int64
    var audio: PlanarAudio
    var arrival: Double
}

/// SEI messages found in one video packet, stamped with that packet's time on the input's
/// timeline (the time of the picture they belong to).
struct TimedSEI: Sendable {
    var time: Double
    var messages: [SEIMessage]
}

/// What an input thread tells the mixing thread, in the order it happens.
enum InputEvent: Sendable {
    /// Connected (again): a new timeline starts.
    case opened(hasVideo: Bool, hasAudio: Bool, summary: String)
    case video(TimedPicture)
    case audio(TimedAudio)
    /// Forwardable SEI of a picture; sent before the picture itself.
    case sei(TimedSEI)
    /// Relay: the streams whose packets follow, as they are in the input.
    case streams([StreamParameters])
    /// Relay: one packet, unchanged.
    case packet(EncodedPacket)
    /// The connection dropped; the input thread is trying again.
    case lost(reason: String)
    /// The input is over for good: `failure` is nil at a clean end of stream.
    case ended(failure: String?)
}

/// The audio format every input is converted to: the task's encoder format, planar float.
struct AudioFormat: Sendable, Hashable {
    var sampleRate: Int
    var channels: Int
}
