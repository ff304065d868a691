/// One input of a task and where its media comes from.
public struct PlannedInput: Sendable, Equatable {
    public let key: InputKey
    public let url: String
}

/// An input whose audio is mixed, with its gain (soundLevel / 100).
public struct AudioSource: Sendable, Equatable {
    public let input: Int
    public let gain: Float

    public init(input: Int, gain: Float) {
        self.input = input
        self.gain = gain
    }
}

/// Which inputs a task has, which input each cell shows, and whose audio is mixed.
/// Derived from the task alone, so validation and the engine agree on it.
public struct InputPlan: Sendable, Equatable {
    /// Distinct (room, user, stream type), in order of first appearance: fixed cell users,
    /// then `audioMixUserList`, then `streams`, then the relay user.
    public let inputs: [PlannedInput]
    /// For each entry of `videoLayoutList`, the index in `inputs` it shows, or nil.
    public let cellInputs: [Int?]
    public let audio: [AudioSource]

    public init(task: TaskDocument, roomURLTemplate: String) {
        var keys: [InputKey] = []
        func index(of key: InputKey) -> Int {
            if let existing = keys.firstIndex(of: key) { return existing }
            keys.append(key)
            return keys.count - 1
        }
        let config = task.mixingConfig
        let isRelay = task.target.mode.isRelay
        var cells: [Int?] = []
        var audio: [AudioSource] = []
        if isRelay, let user = task.target.relayUser {
            let relayed = index(of: InputKey(user: user, streamType: task.target.mode == .subStreamToCdn ? .sub : .big))
            audio = [AudioSource(input: relayed, gain: 1)]
        } else {
            let fixed = config.videoLayoutList.map { cell in
                cell.fixedVideoUser.map { index(of: InputKey(user: $0, streamType: cell.fixedVideoStreamType)) }
            }
            let audioInputs = config.audioMixUserList.map {
                (index(of: InputKey(user: $0.user, streamType: .big)), Float($0.soundLevel) / 100)
            }
            for stream in task.streams { _ = index(of: stream.key) }
            // Cells without a fixed user take the other known inputs in order of first appearance.
            let shown = Set(fixed.compactMap { $0 })
            var unplaced = keys.indices.filter { !shown.contains($0) }[...]
            cells = fixed.map { $0 ?? unplaced.popFirst() }
            audio = config.audioMixUserList.isEmpty
                ? keys.indices.map { AudioSource(input: $0, gain: 1) }
                : audioInputs.map { AudioSource(input: $0.0, gain: $0.1) }
        }
        inputs = keys.map { key in
            let url = task.streams.first { $0.key == key }?.url ?? InputPlan.roomURL(for: key, template: roomURLTemplate)
            return PlannedInput(key: key, url: url)
        }
        cellInputs = cells
        self.audio = audio
    }

    /// The room-directory URL of a user's stream.
    public static func roomURL(for key: InputKey, template: String) -> String {
        template
            .replacingAll("{roomId}", with: key.user.roomId)
            .replacingAll("{userId}", with: key.user.userId)
            .replacingAll("{streamType}", with: key.streamType.urlName)
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
