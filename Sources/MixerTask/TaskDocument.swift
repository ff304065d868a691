/// The task document of SPEC §1, validated. Field names follow TRTC's
/// `startPublishMediaStream(target, encoderParam, mixingConfig)`.
public struct TaskDocument: Sendable, Equatable {
    public var taskId: String?
    public var sequenceNumber: Int64?
    public var maxIdleTime: Int
    public var target: PublishTarget
    public var encoderParam: EncoderParam?
    public var mixingConfig: MixingConfig
    public var streams: [StreamSource]
}

/// A user: `userId` within a room (`strRoomId`; an `intRoomId` is kept as its decimal text).
public struct UserRef: Sendable, Hashable, CustomStringConvertible {
    public var roomId: String
    public var userId: String

    public init(roomId: String, userId: String) {
        self.roomId = roomId
        self.userId = userId
    }

    public var description: String { "\(roomId)/\(userId)" }
}

public enum StreamType: Int, Sendable, Hashable, CaseIterable {
    case big = 0
    case small = 1
    case sub = 2

    /// The `{streamType}` word of room-directory URLs.
    public var urlName: String {
        switch self {
        case .big: "main"
        case .small: "small"
        case .sub: "aux"
        }
    }
}

/// One input of a task: a distinct (room, user, stream type).
public struct InputKey: Sendable, Hashable, CustomStringConvertible {
    public var user: UserRef
    public var streamType: StreamType

    public init(user: UserRef, streamType: StreamType) {
        self.user = user
        self.streamType = streamType
    }

    public var description: String { "\(user)#\(streamType.urlName)" }
}

public enum PublishMode: Int, Sendable, Hashable {
    case bigStreamToCdn = 1
    case subStreamToCdn = 2
    case mixStreamToCdn = 3
    case mixStreamToRoom = 4

    public var isRelay: Bool { self == .bigStreamToCdn || self == .subStreamToCdn }

    public var name: String {
        switch self {
        case .bigStreamToCdn: "bigStreamToCdn"
        case .subStreamToCdn: "subStreamToCdn"
        case .mixStreamToCdn: "mixStreamToCdn"
        case .mixStreamToRoom: "mixStreamToRoom"
        }
    }
}

/// Where a CDN URL entry sends the stream.
public enum OutputKind: Sendable, Hashable {
    case rtmp
    case srt
    /// A local file; `container` is the FFmpeg muxer chosen by the extension.
    case file(container: String)

    /// True for outputs that must run on the wall clock.
    public var isLive: Bool { if case .file = self { false } else { true } }

    /// FLV-family outputs cannot carry H.265 (FFmpeg 5.1 has no enhanced FLV).
    public var isFLV: Bool {
        switch self {
        case .rtmp: true
        case .srt: false
        case .file(let container): container == "flv"
        }
    }
}

public struct CdnURL: Sendable, Hashable {
    public var url: String
    public var isInternalLine: Bool
    public var kind: OutputKind

    public init(url: String, isInternalLine: Bool, kind: OutputKind) {
        self.url = url
        self.isInternalLine = isInternalLine
        self.kind = kind
    }
}

public struct PublishTarget: Sendable, Equatable {
    public var mode: PublishMode
    public var cdnUrls: [CdnURL]
    public var mixStreamIdentity: UserRef?
    public var relayUser: UserRef?
}

public enum VideoCodec: Int, Sendable, Hashable {
    case h264 = 0
    case h265 = 1
}

public enum AudioCodec: Int, Sendable, Hashable {
    case lcAAC = 0
    case heAAC = 1
    case heAACv2 = 2

    public var name: String {
        switch self {
        case .lcAAC: "LC-AAC"
        case .heAAC: "HE-AAC"
        case .heAACv2: "HE-AACv2"
        }
    }
}

/// A custom SEI message (SPEC §3).
public struct SeiParams: Sendable, Equatable {
    public var payloadContent: String
    public var payloadType: Int
    /// 16 bytes, present for payload type 5.
    public var payloadUuid: [UInt8]?
    public var intervalMs: Int
    public var followIdr: Bool
}

public struct EncoderParam: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fps: Int
    public var gopSeconds: Int
    /// 0 = chosen from the resolution (see `effectiveVideoKbps`).
    public var videoKbps: Int
    public var videoCodec: VideoCodec
    public var audioSampleRate: Int
    public var audioChannels: Int
    public var audioKbps: Int
    public var audioCodec: AudioCodec
    public var videoSei: SeiParams?

    /// Both sides 0: the output has no video track.
    public var isAudioOnly: Bool { width == 0 && height == 0 }

    /// The video bitrate in kbps, choosing one from the pixel rate when the task says 0
    /// (about 0.1 bit per pixel at 15 fps, the figure TRTC's presets land near).
    public var effectiveVideoKbps: Int {
        if videoKbps > 0 { return videoKbps }
        let pixelsPerSecond = Double(width * height * fps)
        return min(50_000, max(100, Int((pixelsPerSecond * 0.1 / 1000).rounded())))
    }

    public static let defaults = EncoderParam(
        width: 0, height: 0, fps: 15, gopSeconds: 2, videoKbps: 0, videoCodec: .h264,
        audioSampleRate: 48000, audioChannels: 1, audioKbps: 50, audioCodec: .lcAAC, videoSei: nil)
}

public struct Rect: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

public struct RGBColor: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public init(rgb: UInt32) {
        self.init(red: UInt8((rgb >> 16) & 0xFF), green: UInt8((rgb >> 8) & 0xFF), blue: UInt8(rgb & 0xFF))
    }

    public static let black = RGBColor(rgb: 0)
}

public enum FillMode: Int, Sendable, Hashable {
    /// Scale to cover the cell, cropping the centre.
    case fill = 0
    /// Scale to fit inside the cell; the cell background shows in the bars.
    case fit = 1
    /// Scale to the cell's size, ignoring the aspect ratio.
    case stretch = 2
}

public struct VideoCell: Sendable, Equatable {
    public var rect: Rect
    public var zOrder: Int
    public var fillMode: FillMode
    public var backgroundColor: RGBColor
    public var placeHolderImage: String?
    public var fixedVideoUser: UserRef?
    public var fixedVideoStreamType: StreamType

    public init(rect: Rect, zOrder: Int, fillMode: FillMode, backgroundColor: RGBColor, placeHolderImage: String?,
                fixedVideoUser: UserRef?, fixedVideoStreamType: StreamType) {
        self.rect = rect
        self.zOrder = zOrder
        self.fillMode = fillMode
        self.backgroundColor = backgroundColor
        self.placeHolderImage = placeHolderImage
        self.fixedVideoUser = fixedVideoUser
        self.fixedVideoStreamType = fixedVideoStreamType
    }
}

public struct AudioMixUser: Sendable, Equatable {
    public var user: UserRef
    public var soundLevel: Int
}

public struct Watermark: Sendable, Equatable {
    public var url: String
    public var rect: Rect
    public var zOrder: Int
}

public struct LayoutVolumeSei: Sendable, Equatable {
    public var appData: String
    public var payloadType: Int
    public var payloadUuid: [UInt8]?
    public var intervalMs: Int
    public var followIdr: Bool
}

public struct MixingConfig: Sendable, Equatable {
    public var backgroundColor: RGBColor
    public var backgroundImage: String?
    public var videoLayoutList: [VideoCell]
    public var audioMixUserList: [AudioMixUser]
    public var watermarkList: [Watermark]
    public var layoutVolumeSei: LayoutVolumeSei?
    public var enableStreamSei: Bool
    public var layoutTemplate: String?

    public static let empty = MixingConfig(
        backgroundColor: .black, backgroundImage: nil, videoLayoutList: [], audioMixUserList: [],
        watermarkList: [], layoutVolumeSei: nil, enableStreamSei: true, layoutTemplate: nil)
}

/// Where one input's media comes from.
public struct StreamSource: Sendable, Equatable {
    public var key: InputKey
    public var url: String
}
