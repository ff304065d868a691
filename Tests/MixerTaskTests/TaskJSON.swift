import MixerTask

/// Builds task documents section by section, so each test changes only what it is about.
enum TaskJSON {
    static let target = #"{"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "/tmp/mixer-test.mp4"}]}"#
    static let encoder = #"{"videoEncodedWidth": 640, "videoEncodedHeight": 360, "videoEncodedFPS": 15}"#
    static let mixing = #"""
    {"videoLayoutList": [{"rect": {"x": 0, "y": 0, "width": 640, "height": 360},
                          "fixedVideoUser": {"strRoomId": "r1", "userId": "a"}}]}
    """#
    static let streams = #"[{"strRoomId": "r1", "userId": "a", "url": "testsrc:?label=A"}]"#

    static func task(target: String = target, encoder: String? = encoder, mixing: String? = mixing,
                     streams: String? = streams, extra: String = "") -> String {
        var parts = [#""taskId": "t1""#, "\"target\": \(target)"]
        if let encoder { parts.append("\"encoderParam\": \(encoder)") }
        if let mixing { parts.append("\"mixingConfig\": \(mixing)") }
        if let streams { parts.append("\"streams\": \(streams)") }
        if !extra.isEmpty { parts.append(extra) }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    static func refusal(_ text: String, capabilities: WorkerCapabilities = .init()) -> TaskError? {
        do {
            _ = try TaskParser.parse(text, capabilities: capabilities)
            return nil
        } catch {
            return error
        }
    }

    static func user(_ id: String, room: String = "r1") -> String { #"{"strRoomId": "\#(room)", "userId": "\#(id)"}"# }
}
