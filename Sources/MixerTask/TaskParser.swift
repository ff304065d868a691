/// What the worker can do, which some rules depend on.
public struct WorkerCapabilities: Sendable {
    /// Whether the linked FFmpeg has an encoder for HE-AAC (and v2), e.g. libfdk_aac.
    public var heAACEncoder: String?
    /// The room directory: `{roomId}`, `{userId}` and `{streamType}` are filled in.
    public var roomURLTemplate: String
    /// Where `layoutTemplate` names are looked up.
    public var layouts: LayoutTemplateLibrary

    public static let defaultRoomURLTemplate = "rtmp://127.0.0.1:1935/live/{roomId}_{userId}_{streamType}"

    public init(heAACEncoder: String? = nil, roomURLTemplate: String = WorkerCapabilities.defaultRoomURLTemplate,
                layouts: LayoutTemplateLibrary = LayoutTemplateLibrary(directory: LayoutTemplateLibrary.locate())) {
        self.heAACEncoder = heAACEncoder
        self.roomURLTemplate = roomURLTemplate
        self.layouts = layouts
    }
}

/// Parses and validates a whole task document (SPEC §1), refusing with the codes of §5.
public enum TaskParser {
    public static let maxInputs = 16
    public static let maxCdnUrls = 10

    public static func parse(_ text: String, capabilities: WorkerCapabilities = .init()) throws(TaskError) -> TaskDocument {
        try parse(JSONValue.parse(text), capabilities: capabilities)
    }

    public static func parse(_ json: JSONValue, capabilities: WorkerCapabilities = .init()) throws(TaskError) -> TaskDocument {
        var root = try FieldReader(json, path: "", code: "Json")
        let taskId = try root.string("taskId", code: "TaskId", maxLength: 128)
        if let taskId { try validateTaskId(taskId) }
        let sequenceNumber = try root.integer("sequenceNumber", code: "SequenceNumber", range: 0...Int64.max)
        let maxIdleTime = try root.integer("maxIdleTime", code: "MaxIdleTime", range: 5...86400, default: 30)!
        guard let (targetKey, targetValue) = root.value("target") else {
            throw TaskError.missing("Target", "target is required")
        }
        let target = try parseTarget(targetValue, path: targetKey)
        let encoderParam = try root.value("encoderParam").map { (key, value) throws(TaskError) in
            try parseEncoderParam(value, path: key)
        }
        let mixingConfig = try root.value("mixingConfig").map { (key, value) throws(TaskError) in
            try parseMixingConfig(value, path: key)
        } ?? .empty
        var streams: [StreamSource] = []
        for (path, value) in try root.array("streams", code: "Streams", maxCount: 64) {
            streams.append(try parseStream(value, path: path))
        }
        try root.finish()
        var document = TaskDocument(
            taskId: taskId, sequenceNumber: sequenceNumber, maxIdleTime: Int(maxIdleTime), target: target,
            encoderParam: encoderParam, mixingConfig: mixingConfig, streams: streams)
        if let name = mixingConfig.layoutTemplate { try applyTemplate(name, to: &document, capabilities: capabilities) }
        try validateWhole(document, capabilities: capabilities)
        return document
    }

    /// Fills `videoLayoutList` from the named template with the task's users in order of first
    /// appearance (`audioMixUserList`, then `streams`), so an update that adds or removes a
    /// user re-flows the layout.
    static func applyTemplate(_ name: String, to task: inout TaskDocument, capabilities: WorkerCapabilities) throws(TaskError) {
        let field = "mixingConfig.layoutTemplate"
        guard task.mixingConfig.videoLayoutList.isEmpty else {
            throw TaskError.invalid("LayoutTemplate", "\(field) \"\(name)\" and mixingConfig.videoLayoutList are both given; a template makes the cells, so give one or the other")
        }
        guard let param = task.encoderParam, !param.isAudioOnly else {
            throw TaskError.invalid("LayoutTemplate", "\(field) \"\(name)\" needs a video canvas (encoderParam.videoEncodedWidth/Height)")
        }
        let template = try capabilities.layouts.template(named: name, field: field)
        let users = InputPlan(task: task, roomURLTemplate: capabilities.roomURLTemplate).inputs.map(\.key)
        task.mixingConfig.videoLayoutList = template.cells(width: param.width, height: param.height, users: users,
                                                           background: task.mixingConfig.backgroundColor)
    }

    static func validateTaskId(_ taskId: String) throws(TaskError) {
        let allowed = taskId.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.:".unicodeScalars.contains($0)
        }
        guard !taskId.isEmpty, allowed else {
            throw TaskError.invalid("TaskId", "taskId \"\(taskId)\" must be 1–128 characters of letters, digits and - _ . :")
        }
    }

    // MARK: - target

    static func parseTarget(_ value: JSONValue, path: String) throws(TaskError) -> PublishTarget {
        var reader = try FieldReader(value, path: path, code: "Target")
        guard let (modeKey, modeValue) = reader.value("mode") else {
            throw TaskError.missing("Mode", "\(path).mode is required: bigStreamToCdn, subStreamToCdn, mixStreamToCdn or mixStreamToRoom (or 1–4)")
        }
        let mode = try parseMode(modeValue, name: reader.name(modeKey))
        var urls: [CdnURL] = []
        for (itemPath, item) in try reader.array("cdnUrlList", code: "CdnUrlList", maxCount: maxCdnUrls) {
            var entry = try FieldReader(item, path: itemPath, code: "CdnUrl")
            guard let url = try entry.string("rtmpUrl", code: "CdnUrl", maxLength: 1024) else {
                throw TaskError.missing("RtmpUrl", "\(itemPath).rtmpUrl is required")
            }
            let isInternalLine = try entry.bool("isInternalLine", code: "CdnUrl", default: true)
            try entry.finish()
            let kind = try outputKind(url, name: "\(itemPath).rtmpUrl")
            if urls.contains(where: { $0.url == url }) {
                throw TaskError.invalid("CdnUrl", "\(itemPath).rtmpUrl \"\(url)\" appears twice in the list")
            }
            urls.append(CdnURL(url: url, isInternalLine: isInternalLine, kind: kind))
        }
        let identity = try reader.value("mixStreamIdentity").map { (key, value) throws(TaskError) in
            try parseUser(value, path: reader.name(key))
        }
        let relayUser = try reader.value("relayUser").map { (key, value) throws(TaskError) in
            try parseUser(value, path: reader.name(key))
        }
        try reader.finish()
        switch mode {
        case .bigStreamToCdn, .subStreamToCdn:
            guard relayUser != nil else {
                throw TaskError.missing("RelayUser", "\(path).relayUser is required for mode \(mode.name)")
            }
            guard !urls.isEmpty else {
                throw TaskError.missing("CdnUrlList", "\(path).cdnUrlList needs at least one URL for mode \(mode.name)")
            }
        case .mixStreamToCdn:
            guard !urls.isEmpty else {
                throw TaskError.missing("CdnUrlList", "\(path).cdnUrlList needs at least one URL for mode mixStreamToCdn")
            }
        case .mixStreamToRoom:
            guard identity != nil else {
                throw TaskError.missing("MixStreamIdentity", "\(path).mixStreamIdentity is required for mode mixStreamToRoom")
            }
        }
        return PublishTarget(mode: mode, cdnUrls: urls, mixStreamIdentity: identity, relayUser: relayUser)
    }

    static func parseMode(_ value: JSONValue, name: String) throws(TaskError) -> PublishMode {
        let rule = "must be bigStreamToCdn, subStreamToCdn, mixStreamToCdn or mixStreamToRoom (or 1–4)"
        switch value {
        case .integer(let number):
            guard let mode = PublishMode(rawValue: Int(number)) else {
                throw TaskError.invalid("Mode", "\(name) \(number) \(rule)")
            }
            return mode
        case .string(let text):
            let names: [String: PublishMode] = [
                "bigStreamToCdn": .bigStreamToCdn, "subStreamToCdn": .subStreamToCdn,
                "mixStreamToCdn": .mixStreamToCdn, "mixStreamToRoom": .mixStreamToRoom,
            ]
            guard let mode = names[text] else { throw TaskError.invalid("Mode", "\(name) \"\(text)\" \(rule)") }
            return mode
        default:
            throw TaskError.invalid("Mode", "\(name) \(rule), got \(value.typeName)")
        }
    }

    /// Which output a CDN URL names: rtmp(s), srt, or a file by extension.
    public static func outputKind(_ url: String, name: String) throws(TaskError) -> OutputKind {
        let lowered = url.lowercased()
        if lowered.hasPrefix("rtmp://") || lowered.hasPrefix("rtmps://") { return .rtmp }
        if lowered.hasPrefix("srt://") { return .srt }
        let containers = [".flv": "flv", ".mp4": "mp4", ".mkv": "matroska", ".ts": "mpegts"]
        if !lowered.contains("://") || lowered.hasPrefix("file://") {
            for (suffix, container) in containers where lowered.hasSuffix(suffix) {
                return .file(container: container)
            }
        }
        throw TaskError.invalid("CdnUrl", "\(name) \"\(url)\" must be an rtmp://, rtmps:// or srt:// URL, or a file path ending in .flv, .mp4, .mkv or .ts")
    }

    // MARK: - users and streams

    static func parseUser(_ value: JSONValue, path: String) throws(TaskError) -> UserRef {
        var reader = try FieldReader(value, path: path, code: "User")
        let user = try parseUserFields(&reader)
        try reader.finish()
        return user
    }

    /// Reads `userId` and the room (`strRoomId`, its alias `roomId`, or `intRoomId`).
    static func parseUserFields(_ reader: inout FieldReader) throws(TaskError) -> UserRef {
        guard let userId = try reader.string("userId", code: "UserId", maxLength: 128) else {
            throw TaskError.missing("UserId", "\(reader.name("userId")) is required")
        }
        guard !userId.isEmpty else { throw TaskError.invalid("UserId", "\(reader.name("userId")) must not be empty") }
        let room: String
        if let text = try reader.string("strRoomId", "roomId", code: "RoomId", maxLength: 64) {
            guard !text.isEmpty else { throw TaskError.invalid("RoomId", "\(reader.name("strRoomId")) must not be empty") }
            room = text
        } else if let number = try reader.integer("intRoomId", code: "RoomId", range: 1...4_294_967_294) {
            room = String(number)
        } else {
            throw TaskError.missing("RoomId", "\(reader.path) needs strRoomId (or intRoomId)")
        }
        return UserRef(roomId: room, userId: userId)
    }

    static func parseStreamType(_ reader: inout FieldReader, key: String) throws(TaskError) -> StreamType {
        guard let (key, value) = reader.value(key) else { return .big }
        let rule = "must be 0 (big), 1 (small) or 2 (sub), or \"big\", \"small\", \"sub\""
        switch value {
        case .integer(let number):
            guard let type = StreamType(rawValue: Int(number)) else {
                throw TaskError.invalid("StreamType", "\(reader.name(key)) \(number) \(rule)")
            }
            return type
        case .string(let text):
            let names: [String: StreamType] = ["big": .big, "main": .big, "small": .small, "sub": .sub, "aux": .sub]
            guard let type = names[text] else { throw TaskError.invalid("StreamType", "\(reader.name(key)) \"\(text)\" \(rule)") }
            return type
        default:
            throw TaskError.invalid("StreamType", "\(reader.name(key)) \(rule), got \(value.typeName)")
        }
    }

    static func parseStream(_ value: JSONValue, path: String) throws(TaskError) -> StreamSource {
        var reader = try FieldReader(value, path: path, code: "Streams")
        let user = try parseUserFields(&reader)
        let type = try parseStreamType(&reader, key: "streamType")
        guard let url = try reader.string("url", code: "StreamUrl", maxLength: 2048) else {
            throw TaskError.missing("StreamUrl", "\(path).url is required")
        }
        try reader.finish()
        try validateInputURL(url, name: "\(path).url")
        return StreamSource(key: InputKey(user: user, streamType: type), url: url)
    }

    /// Input URLs: anything FFmpeg opens over the listed protocols, a file path, or testsrc:.
    static func validateInputURL(_ url: String, name: String) throws(TaskError) {
        guard !url.isEmpty else { throw TaskError.invalid("StreamUrl", "\(name) must not be empty") }
        if TestSourceSpec.isTestSource(url) {
            _ = try TestSourceSpec(url: url, field: name)
            return
        }
        guard let schemeEnd = url.range(of: "://") else { return }  // a file path
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let schemes = ["rtmp", "rtmps", "srt", "rtsp", "http", "https", "file"]
        guard schemes.contains(scheme) else {
            throw TaskError.invalid("StreamUrl", "\(name) \"\(url)\" uses \(scheme)://; inputs may be rtmp, rtmps, srt, rtsp, http(s) (FLV or HLS), a file path, or testsrc:")
        }
    }

    // MARK: - encoderParam

    static func parseEncoderParam(_ value: JSONValue, path: String) throws(TaskError) -> EncoderParam {
        var reader = try FieldReader(value, path: path, code: "EncoderParam")
        var param = EncoderParam.defaults
        let width = try reader.integer("videoEncodedWidth", code: "VideoResolution", range: 0...4096, default: 0)!
        let height = try reader.integer("videoEncodedHeight", code: "VideoResolution", range: 0...4096, default: 0)!
        let resolution = "\(path).videoEncodedWidth/Height \(width)x\(height)"
        if (width == 0) != (height == 0) {
            throw TaskError.invalid("VideoResolution", "\(resolution): set both to 0 for an audio-only task, or both to even sizes in 2–4096")
        }
        if width % 2 != 0 || height % 2 != 0 {
            throw TaskError.invalid("VideoResolution", "\(resolution) must be even (YUV 4:2:0)")
        }
        param.width = Int(width)
        param.height = Int(height)
        param.fps = Int(try reader.integer("videoEncodedFPS", code: "VideoFps", range: 1...60, default: 15)!)
        param.gopSeconds = Int(try reader.integer("videoEncodedGOP", code: "VideoGop", range: 1...10, default: 2,
                                                  rule: "1–10 (seconds between keyframes)")!)
        let kbps = try reader.integer("videoEncodedKbps", code: "VideoBitrate", range: 0...50000, default: 0)!
        if kbps != 0 && kbps < 10 {
            throw TaskError.invalid("VideoBitrate", "\(reader.name("videoEncodedKbps")) \(kbps) is outside 10–50000 (or 0 to choose from the resolution)")
        }
        param.videoKbps = Int(kbps)
        let videoCodec = try reader.integer("videoEncodedCodecType", code: "VideoCodec", range: 0...1, default: 0,
                                            rule: "0 (H.264) or 1 (H.265)")!
        param.videoCodec = VideoCodec(rawValue: Int(videoCodec))!
        let rates: [Int64] = [48000, 44100, 32000, 24000, 16000, 8000]
        let rate = try reader.integer("audioEncodedSampleRate", code: "AudioSampleRate", range: 1...192_000, default: 48000)!
        guard rates.contains(rate) else {
            throw TaskError.invalid("AudioSampleRate", "\(reader.name("audioEncodedSampleRate")) \(rate) must be one of 48000, 44100, 32000, 24000, 16000, 8000")
        }
        param.audioSampleRate = Int(rate)
        param.audioChannels = Int(try reader.integer("audioEncodedChannelNum", code: "AudioChannel", range: 1...2, default: 1,
                                                     rule: "1 or 2")!)
        param.audioKbps = Int(try reader.integer("audioEncodedKbps", code: "AudioBitrate", range: 8...500, default: 50)!)
        let audioCodec = try reader.integer("audioEncodedCodecType", code: "AudioCodec", range: 0...2, default: 0,
                                            rule: "0 (LC-AAC), 1 (HE-AAC) or 2 (HE-AACv2)")!
        param.audioCodec = AudioCodec(rawValue: Int(audioCodec))!
        if param.audioCodec == .heAACv2 && param.audioChannels != 2 {
            throw TaskError.invalid("AudioCodec", "\(reader.name("audioEncodedCodecType")) 2 (HE-AACv2) is stereo only: set audioEncodedChannelNum to 2")
        }
        if param.audioCodec != .lcAAC && param.audioSampleRate < 16000 {
            throw TaskError.invalid("AudioCodec", "\(reader.name("audioEncodedCodecType")) \(param.audioCodec.name) needs audioEncodedSampleRate of 16000 or more")
        }
        if let (key, value) = reader.value("videoSeiParams") {
            param.videoSei = try parseSeiParams(value, path: reader.name(key))
        }
        try reader.finish()
        return param
    }

    /// `videoSeiParams`: an object, or (as TRTC passes it) a JSON string holding one.
    static func parseSeiParams(_ value: JSONValue, path: String) throws(TaskError) -> SeiParams {
        var value = value
        if case .string(let text) = value {
            do { value = try JSONValue.parse(text) } catch {
                throw TaskError.invalid("VideoSeiParams", "\(path) is a string that is not valid JSON")
            }
        }
        var reader = try FieldReader(value, path: path, code: "VideoSeiParams")
        guard let content = try reader.string("payloadContent", "payLoadContent", code: "SeiPayloadContent", maxLength: 4096),
              !content.isEmpty else {
            throw TaskError.missing("SeiPayloadContent", "\(path).payloadContent is required and must not be empty")
        }
        let (type, uuid) = try parsePayloadType(&reader, path: path, default: nil)
        let interval = try reader.integer("interval", code: "SeiInterval", range: 10...3_600_000, default: 1000,
                                          rule: "10–3600000 milliseconds")!
        let followIdr = try reader.bool("followIdr", code: "SeiFollowIdr", default: false)
        try reader.finish()
        return SeiParams(payloadContent: content, payloadType: type, payloadUuid: uuid, intervalMs: Int(interval), followIdr: followIdr)
    }

    /// `payloadType` 5 (with a 32-hex-digit `payloadUuid`) or 100–254 except 244.
    static func parsePayloadType(_ reader: inout FieldReader, path: String, default fallback: Int64?)
        throws(TaskError) -> (Int, [UInt8]?) {
        guard let type = try reader.integer("payloadType", code: "SeiPayloadType", range: 0...255, default: fallback,
                                            rule: "5 or 100–254 except 244") else {
            throw TaskError.missing("SeiPayloadType", "\(path).payloadType is required: 5 (with payloadUuid) or 100–254 except 244")
        }
        guard type == 5 || ((100...254).contains(type) && type != 244) else {
            throw TaskError.invalid("SeiPayloadType", "\(path).payloadType \(type) must be 5 or 100–254 except 244 (244 is reserved)")
        }
        let uuidText = try reader.string("payloadUuid", code: "SeiPayloadUuid", maxLength: 64)
        guard type == 5 else { return (Int(type), nil) }
        guard let uuidText else {
            throw TaskError.missing("SeiPayloadUuid", "\(path).payloadUuid is required when payloadType is 5")
        }
        let hex = Array(uuidText.utf8)
        let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap {
            UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)
        }
        guard hex.count == 32, bytes.count == 16 else {
            throw TaskError.invalid("SeiPayloadUuid", "\(path).payloadUuid must be 32 hexadecimal characters (16 bytes)")
        }
        return (5, bytes)
    }

    // MARK: - mixingConfig

    static func parseMixingConfig(_ value: JSONValue, path: String) throws(TaskError) -> MixingConfig {
        var reader = try FieldReader(value, path: path, code: "MixingConfig")
        var config = MixingConfig.empty
        config.backgroundColor = try parseColor(&reader, key: "backgroundColor", code: "BackgroundColor") ?? .black
        config.backgroundImage = try parseImageURL(&reader, key: "backgroundImage")
        for (itemPath, item) in try reader.array("videoLayoutList", code: "VideoLayoutList", maxCount: 16) {
            config.videoLayoutList.append(try parseCell(item, path: itemPath))
        }
        for (itemPath, item) in try reader.array("audioMixUserList", code: "AudioMixUserList", maxCount: maxInputs) {
            var entry = try FieldReader(item, path: itemPath, code: "AudioMixUserList")
            let user = try parseUserFields(&entry)
            let level = try entry.integer("soundLevel", code: "SoundLevel", range: 0...100, default: 100)!
            try entry.finish()
            if config.audioMixUserList.contains(where: { $0.user == user }) {
                throw TaskError.invalid("AudioMixUserList", "\(itemPath) lists user \(user) a second time")
            }
            config.audioMixUserList.append(AudioMixUser(user: user, soundLevel: Int(level)))
        }
        for (itemPath, item) in try reader.array("watermarkList", code: "WatermarkList", maxCount: 16) {
            var entry = try FieldReader(item, path: itemPath, code: "Watermark")
            guard let url = try parseImageURL(&entry, key: "watermarkUrl") else {
                throw TaskError.missing("WatermarkUrl", "\(itemPath).watermarkUrl is required")
            }
            let rect = try parseRect(&entry)
            let zOrder = try entry.integer("zOrder", code: "ZOrder", range: 0...15, default: 0)!
            try entry.finish()
            config.watermarkList.append(Watermark(url: url, rect: rect, zOrder: Int(zOrder)))
        }
        if let (key, value) = reader.value("layoutVolumeSei") {
            var entry = try FieldReader(value, path: reader.name(key), code: "LayoutVolumeSei")
            let appData = try entry.string("appData", code: "LayoutVolumeSei", maxLength: 4096) ?? ""
            let (type, uuid) = try parsePayloadType(&entry, path: entry.path, default: 100)
            let interval = try entry.integer("interval", code: "SeiInterval", range: 10...3_600_000, default: 1000,
                                             rule: "10–3600000 milliseconds")!
            let followIdr = try entry.bool("followIdr", code: "SeiFollowIdr", default: false)
            try entry.finish()
            config.layoutVolumeSei = LayoutVolumeSei(appData: appData, payloadType: type, payloadUuid: uuid,
                                                     intervalMs: Int(interval), followIdr: followIdr)
        }
        config.enableStreamSei = try reader.bool("enableStreamSei", code: "EnableStreamSei", default: true)
        if let template = try reader.string("layoutTemplate", code: "LayoutTemplate", maxLength: 64) {
            let valid = !template.isEmpty && template.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_".unicodeScalars.contains($0)
            }
            guard valid else {
                throw TaskError.invalid("LayoutTemplate", "\(reader.name("layoutTemplate")) \"\(template)\" must be a template name of letters, digits, - and _")
            }
            config.layoutTemplate = template
        }
        try reader.finish()
        return config
    }

    static func parseCell(_ value: JSONValue, path: String) throws(TaskError) -> VideoCell {
        var reader = try FieldReader(value, path: path, code: "VideoLayout")
        let rect = try parseRect(&reader)
        let zOrder = try reader.integer("zOrder", code: "ZOrder", range: 0...15, default: 0)!
        let fill = try reader.integer("fillMode", code: "FillMode", range: 0...2, default: 0,
                                      rule: "0 (fill), 1 (fit) or 2 (stretch)")!
        let background = try parseColor(&reader, key: "backgroundColor", code: "BackgroundColor") ?? .black
        let placeholder = try parseImageURL(&reader, key: "placeHolderImage")
        let user = try reader.value("fixedVideoUser").map { (key, value) throws(TaskError) in
            try parseUser(value, path: reader.name(key))
        }
        let type = try parseStreamType(&reader, key: "fixedVideoStreamType")
        try reader.finish()
        return VideoCell(rect: rect, zOrder: Int(zOrder), fillMode: FillMode(rawValue: Int(fill))!,
                         backgroundColor: background, placeHolderImage: placeholder, fixedVideoUser: user,
                         fixedVideoStreamType: type)
    }

    static func parseRect(_ reader: inout FieldReader) throws(TaskError) -> Rect {
        guard let (key, value) = reader.value("rect") else { return Rect(x: 0, y: 0, width: 0, height: 0) }
        var rect = try FieldReader(value, path: reader.name(key), code: "Rect")
        let x = try rect.integer("x", code: "Rect", range: -8192...8192, default: 0)!
        let y = try rect.integer("y", code: "Rect", range: -8192...8192, default: 0)!
        let width = try rect.integer("width", code: "Rect", range: 0...8192, default: 0)!
        let height = try rect.integer("height", code: "Rect", range: 0...8192, default: 0)!
        try rect.finish()
        return Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
    }

    /// Colours: an integer 0xRRGGBB, or a string "0xRRGGBB" / "#RRGGBB".
    static func parseColor(_ reader: inout FieldReader, key: String, code: String) throws(TaskError) -> RGBColor? {
        guard let (key, value) = reader.value(key) else { return nil }
        let rule = "must be 0xRRGGBB as an integer, or a string \"0xRRGGBB\" or \"#RRGGBB\""
        switch value {
        case .integer(let number):
            guard (0...0xFFFFFF).contains(number) else { throw TaskError.invalid(code, "\(reader.name(key)) \(number) \(rule)") }
            return RGBColor(rgb: UInt32(number))
        case .string(let text):
            let digits = text.hasPrefix("#") ? text.dropFirst() : (text.lowercased().hasPrefix("0x") ? text.dropFirst(2) : Substring(text))
            guard digits.count == 6, let number = UInt32(digits, radix: 16) else {
                throw TaskError.invalid(code, "\(reader.name(key)) \"\(text)\" \(rule)")
            }
            return RGBColor(rgb: number)
        default:
            throw TaskError.invalid(code, "\(reader.name(key)) \(rule), got \(value.typeName)")
        }
    }

    /// Image references: a file path or an http(s) URL of at most 512 bytes.
    static func parseImageURL(_ reader: inout FieldReader, key: String) throws(TaskError) -> String? {
        guard let url = try reader.string(key, code: "Image", maxLength: 512) else { return nil }
        if url.isEmpty { return nil }
        if let schemeEnd = url.range(of: "://") {
            let scheme = url[..<schemeEnd.lowerBound].lowercased()
            guard ["http", "https", "file"].contains(scheme) else {
                throw TaskError.invalid("Image", "\(reader.name(key)) \"\(url)\" must be a file path or an http(s) URL")
            }
        }
        return url
    }

    // MARK: - the whole task

    static func validateWhole(_ task: TaskDocument, capabilities: WorkerCapabilities) throws(TaskError) {
        let mode = task.target.mode
        if !mode.isRelay && task.encoderParam == nil {
            throw TaskError.missing("EncoderParam", "encoderParam is required for mode \(mode.name)")
        }
        if let param = task.encoderParam {
            if param.audioCodec != .lcAAC && capabilities.heAACEncoder == nil {
                throw TaskError.unsupported("AudioCodec", "encoderParam.audioEncodedCodecType \(param.audioCodec.rawValue) (\(param.audioCodec.name)) needs an HE-AAC encoder such as libfdk_aac, which the linked FFmpeg does not have; use 0 (LC-AAC)")
            }
            if param.videoCodec == .h265 && !param.isAudioOnly {
                if let flv = task.target.cdnUrls.first(where: { $0.kind.isFLV }) {
                    throw TaskError.unsupported("VideoCodec", "encoderParam.videoEncodedCodecType 1 (H.265) cannot be sent over RTMP/FLV (\(flv.url)); use H.264 or an .mp4, .mkv, .ts or srt:// output")
                }
                if mode == .mixStreamToRoom {
                    throw TaskError.unsupported("VideoCodec", "encoderParam.videoEncodedCodecType 1 (H.265) cannot be published to a room, which is reached over RTMP; use H.264")
                }
            }
            if param.isAudioOnly {
                let smallCanvas = "set a small canvas such as 64x64 (videoEncodedWidth/Height) so that black frames carry the SEI"
                if param.videoSei != nil {
                    throw TaskError.unsupported("SeiOnAudioOnly", "encoderParam.videoSeiParams needs video to travel in, but the task is audio-only (0x0): \(smallCanvas)")
                }
                if task.mixingConfig.layoutVolumeSei != nil {
                    throw TaskError.unsupported("SeiOnAudioOnly", "mixingConfig.layoutVolumeSei needs video to travel in, but the task is audio-only (0x0): \(smallCanvas)")
                }
            }
        }
        var seen = Set<InputKey>()
        for (index, stream) in task.streams.enumerated() where !seen.insert(stream.key).inserted {
            throw TaskError.invalid("Streams", "streams[\(index)] repeats \(stream.key), which already has a URL")
        }
        let plan = InputPlan(task: task, roomURLTemplate: capabilities.roomURLTemplate)
        if plan.inputs.count > maxInputs {
            throw TaskError.invalid("InputCount", "the task mixes \(plan.inputs.count) inputs (distinct room, user and stream type across videoLayoutList, audioMixUserList and streams); at most \(maxInputs) are allowed")
        }
        if mode == .mixStreamToRoom, let robot = task.target.mixStreamIdentity,
           plan.inputs.contains(where: { $0.key.user == robot }) {
            throw TaskError.invalid("MixStreamIdentity", "target.mixStreamIdentity \(robot) is also one of the mixed users; the robot must be a user of its own")
        }
    }
}
