/// What a task's process reports to the worker daemon, one JSON object per line on its
/// standard output (`mixer run --report`), and what the daemon serves as a task's state.
public struct TaskReport: Codable, Sendable, Equatable {
    /// `ready` (the task started), `reply` (to a control line), `status` (periodic).
    public var type: Kind
    public var code: ResultCode?
    public var message: String?
    public var status: TaskStatus?

    public enum Kind: String, Codable, Sendable {
        case ready
        case reply
        case status
    }

    public init(type: Kind, code: ResultCode? = nil, message: String? = nil, status: TaskStatus? = nil) {
        self.type = type
        self.code = code
        self.message = message
        self.status = status
    }
}

/// TRTC's result code: 0 for success, else the refusal's stable string code.
public enum ResultCode: Codable, Sendable, Equatable {
    case ok
    case refused(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self), number == 0 {
            self = .ok
        } else {
            self = .refused(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .ok: try container.encode(0)
        case .refused(let code): try container.encode(code)
        }
    }
}

/// A running task's state (SPEC §4.2 `GET /v1/tasks/{taskId}`).
public struct TaskStatus: Codable, Sendable, Equatable {
    public var frames: Int64
    public var mediaTime: Double
    public var uptime: Double
    public var fps: Double
    public var speed: Double
    public var bitrateKbps: Double
    public var droppedPackets: Int
    public var inputs: [Input]
    public var outputs: [Output]
    /// Why the task ended, once it has.
    public var ended: String?

    public struct Input: Codable, Sendable, Equatable {
        public var roomId: String
        public var userId: String
        public var streamType: String
        /// connecting, live, lost, ended
        public var state: String

        public init(roomId: String, userId: String, streamType: String, state: String) {
            self.roomId = roomId
            self.userId = userId
            self.streamType = streamType
            self.state = state
        }
    }

    public struct Output: Codable, Sendable, Equatable {
        public var url: String
        /// TRTC's CDN states: 0 idle, 1 connecting, 2 publishing, 3 reconnecting, 4 failed, 5 disconnecting.
        public var state: Int
        public var droppedPackets: Int
        public var bytes: Int
        public var connections: Int
        public var error: String?

        public init(url: String, state: Int, droppedPackets: Int, bytes: Int, connections: Int, error: String?) {
            self.url = url
            self.state = state
            self.droppedPackets = droppedPackets
            self.bytes = bytes
            self.connections = connections
            self.error = error
        }
    }

    public init(frames: Int64, mediaTime: Double, uptime: Double, fps: Double, speed: Double, bitrateKbps: Double,
                droppedPackets: Int, inputs: [Input], outputs: [Output], ended: String?) {
        self.frames = frames
        self.mediaTime = mediaTime
        self.uptime = uptime
        self.fps = fps
        self.speed = speed
        self.bitrateKbps = bitrateKbps
        self.droppedPackets = droppedPackets
        self.inputs = inputs
        self.outputs = outputs
        self.ended = ended
    }
}
