import Logging
import MediaCore
import MixerTask

/// What a test or the CLI learns about each composed video tick.
public struct TickReport: Sendable {
    public let index: Int64
    /// Adler-32 of the canvas before encoding.
    public let canvasChecksum: UInt32
    /// The canvas itself, when `EngineOptions.captureCanvas` is on.
    public let canvas: VideoPicture?
}

/// One mixed audio block, before encoding (for tests).
public struct AudioBlockReport: Sendable {
    public let firstSample: Int64
    public let audio: PlanarAudio
}

/// Worker-level settings of a run (the task says what to mix; these say how).
public struct EngineOptions: Sendable {
    /// Pace the output on the wall clock (live) instead of running as fast as possible.
    public var realtime = false
    /// Stop after this many seconds of output.
    public var duration: Double?
    /// x264/x265 preset.
    public var videoPreset = "veryfast"
    /// Encoder threads, 0 = FFmpeg's choice.
    public var encoderThreads = 0
    public var scaleQuality = ScaleQuality.bitExactBilinear
    /// Name of an HE-AAC encoder in the linked FFmpeg, if any.
    public var heAACEncoder: String?
    public var roomURLTemplate = WorkerCapabilities.defaultRoomURLTemplate
    /// Write a PNG of the canvas every `snapshotEvery` frames into this directory.
    public var snapshotDirectory: String?
    public var snapshotEvery = 0
    /// Called on the mixing thread after each video tick is composed.
    public var onTick: (@Sendable (TickReport) -> Void)?
    public var captureCanvas = false
    /// Called on the mixing thread with each mixed audio block.
    public var onAudioBlock: (@Sendable (AudioBlockReport) -> Void)?
    /// How long a cell keeps showing an input's last picture once it stops coming.
    public var holdLastFrame = 1.0
    /// Live jitter buffer: input media is composed this long after it first arrives.
    public var liveLatency = 0.2
    /// How live outputs retry after a failure.
    public var outputRetry = RetryPolicy()
    public var logger = Logger(label: "mixer")
    /// The task's images, loaded when the task was checked (shared with updates).
    public var images = ImageLibrary()

    public init() {}
}

/// Why a run ended.
public enum EndReason: Sendable, Equatable, CustomStringConvertible {
    case inputsEnded
    case durationReached
    case idle(seconds: Int)
    case stopped
    case failed(String)

    public var description: String {
        switch self {
        case .inputsEnded: "all inputs ended"
        case .durationReached: "duration reached"
        case .idle(let seconds): "no input delivered media for \(seconds) s (maxIdleTime)"
        case .stopped: "stopped"
        case .failed(let message): "failed: \(message)"
        }
    }
}

/// A live view of a running task, for the progress line and status queries.
public struct EngineStatus: Sendable {
    public struct Output: Sendable {
        public let url: String
        public let state: OutputState
        public let droppedPackets: Int
        public let bytes: Int
        /// Successful connections so far (more than one: it reconnected).
        public let connections: Int
        public let error: String?
    }

    public struct Input: Sendable {
        public let key: InputKey
        public let state: InputState
    }

    public var videoFrames: Int64 = 0
    public var audioBlocks: Int64 = 0
    /// Seconds of output produced.
    public var mediaTime: Double = 0
    /// Wall-clock seconds since the task started.
    public var elapsed: Double = 0
    public var bytes: Int = 0
    public var outputs: [Output] = []
    public var inputs: [Input] = []
    public var ended: EndReason?

    public var speed: Double { elapsed > 0 ? mediaTime / elapsed : 0 }
    public var fps: Double { elapsed > 0 ? Double(videoFrames) / elapsed : 0 }
    public var kilobitsPerSecond: Double { mediaTime > 0 ? Double(bytes) * 8 / mediaTime / 1000 : 0 }
}

extension EngineStatus {
    /// The status as the worker API reports it.
    public var report: TaskStatus {
        TaskStatus(
            frames: videoFrames, mediaTime: mediaTime, uptime: elapsed, fps: fps, speed: speed, bitrateKbps: kilobitsPerSecond,
            droppedPackets: outputs.map(\.droppedPackets).reduce(0, +),
            inputs: inputs.map { .init(roomId: $0.key.user.roomId, userId: $0.key.user.userId, streamType: $0.key.streamType.urlName,
                                      state: $0.state.rawValue) },
            outputs: outputs.map { .init(url: $0.url, state: $0.state.rawValue, droppedPackets: $0.droppedPackets, bytes: $0.bytes,
                                        connections: $0.connections, error: $0.error) },
            ended: ended?.description)
    }
}
