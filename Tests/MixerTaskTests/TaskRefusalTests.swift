import MixerTask
import XCTest

/// Every refusal carries a stable code and a message naming the field and its rule.
final class TaskRefusalTests: XCTestCase {
    private func assertRefused(_ text: String, _ code: String, naming fragment: String,
                               capabilities: WorkerCapabilities = .init(), line: UInt = #line) {
        guard let error = TaskJSON.refusal(text, capabilities: capabilities) else {
            return XCTFail("accepted a task that should be refused with \(code)", line: line)
        }
        XCTAssertEqual(error.code, code, error.message, line: line)
        XCTAssertTrue(error.message.contains(fragment), "message \"\(error.message)\" does not name \(fragment)", line: line)
    }

    private func encoder(_ fields: String) -> String {
        #"{"videoEncodedWidth": 640, "videoEncodedHeight": 360, \#(fields)}"#
    }

    func test_malformedJSON_isRefused() {
        assertRefused("{\"taskId\": ", "InvalidParameter.Json", naming: "not valid JSON")
        assertRefused("[1, 2]", "InvalidParameter.Json", naming: "must be an object")
    }

    func test_unknownField_isRefusedWithTheNearestKnownName() {
        assertRefused(TaskJSON.task(encoder: encoder(#""videoEncodedFps": 15"#)), "InvalidParameter.UnknownField",
                      naming: "encoderParam.videoEncodedFps is not a known field (did you mean \"videoEncodedFPS\"?)")
        assertRefused(TaskJSON.task(extra: #""bogus": 1"#), "InvalidParameter.UnknownField", naming: "bogus")
    }

    func test_wrongTypes_nameTheFieldAndTheTypeGiven() {
        assertRefused(TaskJSON.task(encoder: encoder(#""videoEncodedFPS": "15""#)), "InvalidParameter.VideoFps",
                      naming: "encoderParam.videoEncodedFPS must be an integer, got a string")
        assertRefused(TaskJSON.task(mixing: #"{"enableStreamSei": 1}"#), "InvalidParameter.EnableStreamSei",
                      naming: "mixingConfig.enableStreamSei must be true or false, got an integer")
        assertRefused(TaskJSON.task(mixing: #"{"videoLayoutList": {}}"#), "InvalidParameter.VideoLayoutList",
                      naming: "mixingConfig.videoLayoutList must be an array, got an object")
        assertRefused(TaskJSON.task(extra: #""sequenceNumber": true"#), "InvalidParameter.SequenceNumber",
                      naming: "sequenceNumber must be an integer, got a boolean")
    }

    func test_outOfRangeNumbers_nameTheRule() {
        let cases: [(String, String, String)] = [
            (#""videoEncodedFPS": 61"#, "InvalidParameter.VideoFps", "encoderParam.videoEncodedFPS 61 is outside 1–60"),
            (#""videoEncodedGOP": 11"#, "InvalidParameter.VideoGop", "encoderParam.videoEncodedGOP 11 is outside 1–10"),
            (#""videoEncodedKbps": 5"#, "InvalidParameter.VideoBitrate", "encoderParam.videoEncodedKbps 5 is outside 10–50000"),
            (#""videoEncodedCodecType": 2"#, "InvalidParameter.VideoCodec", "0 (H.264) or 1 (H.265)"),
            (#""audioEncodedSampleRate": 22050"#, "InvalidParameter.AudioSampleRate", "encoderParam.audioEncodedSampleRate 22050 must be one of"),
            (#""audioEncodedChannelNum": 3"#, "InvalidParameter.AudioChannel", "encoderParam.audioEncodedChannelNum 3 is outside 1 or 2"),
            (#""audioEncodedKbps": 501"#, "InvalidParameter.AudioBitrate", "encoderParam.audioEncodedKbps 501 is outside 8–500"),
            (#""audioEncodedCodecType": 3"#, "InvalidParameter.AudioCodec", "encoderParam.audioEncodedCodecType 3"),
        ]
        for (fields, code, fragment) in cases {
            assertRefused(TaskJSON.task(encoder: encoder(fields)), code, naming: fragment)
        }
        assertRefused(TaskJSON.task(extra: #""maxIdleTime": 4"#), "InvalidParameter.MaxIdleTime", naming: "maxIdleTime 4 is outside 5–86400")
    }

    func test_resolution_mustBeEvenOrBothZero() {
        let odd = #"{"videoEncodedWidth": 641, "videoEncodedHeight": 360}"#
        assertRefused(TaskJSON.task(encoder: odd), "InvalidParameter.VideoResolution", naming: "641x360 must be even")
        let half = #"{"videoEncodedWidth": 0, "videoEncodedHeight": 360}"#
        assertRefused(TaskJSON.task(encoder: half), "InvalidParameter.VideoResolution", naming: "set both to 0 for an audio-only task")
        let huge = #"{"videoEncodedWidth": 4098, "videoEncodedHeight": 360}"#
        assertRefused(TaskJSON.task(encoder: huge), "InvalidParameter.VideoResolution", naming: "is outside 0–4096")
    }

    func test_layoutFields_nameTheirCell() {
        let zOrder = #"{"videoLayoutList": [{}, {}, {"zOrder": 17}]}"#
        assertRefused(TaskJSON.task(mixing: zOrder), "InvalidParameter.ZOrder",
                      naming: "mixingConfig.videoLayoutList[2].zOrder 17 is outside 0–15")
        assertRefused(TaskJSON.task(mixing: #"{"videoLayoutList": [{"fillMode": 3}]}"#), "InvalidParameter.FillMode",
                      naming: "mixingConfig.videoLayoutList[0].fillMode 3 is outside 0 (fill), 1 (fit) or 2 (stretch)")
        assertRefused(TaskJSON.task(mixing: #"{"videoLayoutList": [{"rect": {"x": 0, "w": 4}}]}"#), "InvalidParameter.UnknownField",
                      naming: "mixingConfig.videoLayoutList[0].rect.w")
        assertRefused(TaskJSON.task(mixing: #"{"videoLayoutList": [{"rect": {"width": -4}}]}"#), "InvalidParameter.Rect",
                      naming: "mixingConfig.videoLayoutList[0].rect.width -4 is outside 0–8192")
        assertRefused(TaskJSON.task(mixing: #"{"videoLayoutList": [{"backgroundColor": "red"}]}"#), "InvalidParameter.BackgroundColor",
                      naming: "mixingConfig.videoLayoutList[0].backgroundColor \"red\" must be 0xRRGGBB")
        assertRefused(TaskJSON.task(mixing: #"{"videoLayoutList": [{"fixedVideoStreamType": 5}]}"#), "InvalidParameter.StreamType",
                      naming: "fixedVideoStreamType 5")
        assertRefused(TaskJSON.task(mixing: #"{"audioMixUserList": [{"strRoomId": "r1", "userId": "a", "soundLevel": 101}]}"#),
                      "InvalidParameter.SoundLevel", naming: "mixingConfig.audioMixUserList[0].soundLevel 101 is outside 0–100")
        assertRefused(TaskJSON.task(mixing: #"{"layoutTemplate": "../etc"}"#), "InvalidParameter.LayoutTemplate", naming: "layoutTemplate")
        assertRefused(TaskJSON.task(mixing: #"{"backgroundImage": "ftp://x/y.png"}"#), "InvalidParameter.Image",
                      naming: "mixingConfig.backgroundImage \"ftp://x/y.png\" must be a file path or an http(s) URL")
    }

    func test_missingRequiredFields_areNamed() {
        assertRefused(#"{"taskId": "x"}"#, "MissingParameter.Target", naming: "target is required")
        assertRefused(TaskJSON.task(target: #"{"cdnUrlList": []}"#), "MissingParameter.Mode", naming: "target.mode is required")
        assertRefused(TaskJSON.task(encoder: nil), "MissingParameter.EncoderParam", naming: "encoderParam is required for mode mixStreamToCdn")
        assertRefused(TaskJSON.task(target: #"{"mode": "mixStreamToCdn"}"#), "MissingParameter.CdnUrlList", naming: "target.cdnUrlList")
        assertRefused(TaskJSON.task(target: #"{"mode": "mixStreamToRoom"}"#), "MissingParameter.MixStreamIdentity",
                      naming: "target.mixStreamIdentity is required")
        assertRefused(TaskJSON.task(target: #"{"mode": 1, "cdnUrlList": [{"rtmpUrl": "a.flv"}]}"#), "MissingParameter.RelayUser",
                      naming: "target.relayUser is required for mode bigStreamToCdn")
        assertRefused(TaskJSON.task(target: #"{"mode": 3, "cdnUrlList": [{"isInternalLine": true}]}"#), "MissingParameter.RtmpUrl",
                      naming: "target.cdnUrlList[0].rtmpUrl is required")
        assertRefused(TaskJSON.task(mixing: #"{"videoLayoutList": [{"fixedVideoUser": {"strRoomId": "r1"}}]}"#),
                      "MissingParameter.UserId", naming: "mixingConfig.videoLayoutList[0].fixedVideoUser.userId is required")
        assertRefused(TaskJSON.task(streams: #"[{"userId": "a", "url": "testsrc:"}]"#), "MissingParameter.RoomId",
                      naming: "streams[0] needs strRoomId")
        assertRefused(TaskJSON.task(streams: #"[{"strRoomId": "r", "userId": "a"}]"#), "MissingParameter.StreamUrl",
                      naming: "streams[0].url is required")
        assertRefused(TaskJSON.task(encoder: encoder(#""videoSeiParams": {"payloadType": 100}"#)), "MissingParameter.SeiPayloadContent",
                      naming: "encoderParam.videoSeiParams.payloadContent is required")
        assertRefused(TaskJSON.task(encoder: encoder(#""videoSeiParams": {"payloadContent": "x", "payloadType": 5}"#)),
                      "MissingParameter.SeiPayloadUuid", naming: "payloadUuid is required when payloadType is 5")
    }

    func test_urls_areCheckedBeforeAnythingStarts() {
        assertRefused(TaskJSON.task(target: #"{"mode": 3, "cdnUrlList": [{"rtmpUrl": "http://cdn/x"}]}"#), "InvalidParameter.CdnUrl",
                      naming: "target.cdnUrlList[0].rtmpUrl \"http://cdn/x\" must be an rtmp://")
        assertRefused(TaskJSON.task(target: #"{"mode": 3, "cdnUrlList": [{"rtmpUrl": "out.avi"}]}"#), "InvalidParameter.CdnUrl",
                      naming: "a file path ending in .flv, .mp4, .mkv or .ts")
        assertRefused(TaskJSON.task(target: #"{"mode": 3, "cdnUrlList": [{"rtmpUrl": "a.flv"}, {"rtmpUrl": "a.flv"}]}"#),
                      "InvalidParameter.CdnUrl", naming: "appears twice")
        let eleven = (0...10).map { #"{"rtmpUrl": "o\#($0).flv"}"# }.joined(separator: ",")
        assertRefused(TaskJSON.task(target: #"{"mode": 3, "cdnUrlList": [\#(eleven)]}"#), "InvalidParameter.CdnUrlList",
                      naming: "has 11 entries; at most 10")
        assertRefused(TaskJSON.task(streams: #"[{"strRoomId": "r1", "userId": "a", "url": "gopher://x"}]"#), "InvalidParameter.StreamUrl",
                      naming: "streams[0].url \"gopher://x\" uses gopher://")
        assertRefused(TaskJSON.task(streams: #"[{"strRoomId": "r1", "userId": "a", "url": "testsrc:?size=641x360"}]"#),
                      "InvalidParameter.StreamUrl", naming: "size=641x360")
        assertRefused(TaskJSON.task(streams: #"[{"strRoomId": "r1", "userId": "a", "url": "testsrc:?colour=1"}]"#),
                      "InvalidParameter.StreamUrl", naming: "unknown testsrc parameter \"colour\"")
    }

    func test_seventeenInputs_areRefused() {
        let streams = (0..<17).map { #"{"strRoomId": "r1", "userId": "u\#($0)", "url": "testsrc:"}"# }.joined(separator: ",")
        assertRefused(TaskJSON.task(mixing: "{}", streams: "[\(streams)]"), "InvalidParameter.InputCount",
                      naming: "mixes 17 inputs")
        let sixteen = (0..<16).map { #"{"strRoomId": "r1", "userId": "u\#($0)", "url": "testsrc:"}"# }.joined(separator: ",")
        XCTAssertNil(TaskJSON.refusal(TaskJSON.task(mixing: "{}", streams: "[\(sixteen)]")))
    }

    func test_seiPayloadTypes_followTheSpec() {
        for type in [4, 99, 244, 255] {
            assertRefused(TaskJSON.task(encoder: encoder(#""videoSeiParams": {"payloadContent": "x", "payloadType": \#(type)}"#)),
                          "InvalidParameter.SeiPayloadType", naming: "payloadType \(type)")
        }
        assertRefused(TaskJSON.task(encoder: encoder(#""videoSeiParams": {"payloadContent": "x", "payloadType": 5, "payloadUuid": "xyz"}"#)),
                      "InvalidParameter.SeiPayloadUuid", naming: "32 hexadecimal characters")
        for type in [5, 100, 242, 254] {
            let uuid = type == 5 ? #", "payloadUuid": "00112233445566778899aabbccddeeff""# : ""
            XCTAssertNil(TaskJSON.refusal(TaskJSON.task(encoder: encoder(#""videoSeiParams": {"payloadContent": "x", "payloadType": \#(type)\#(uuid)}"#))))
        }
    }

    func test_unsupportedCombinations_sayWhatToDoInstead() {
        let h265 = #"{"videoEncodedWidth": 640, "videoEncodedHeight": 360, "videoEncodedCodecType": 1}"#
        assertRefused(TaskJSON.task(target: #"{"mode": 3, "cdnUrlList": [{"rtmpUrl": "rtmp://h/live/x"}]}"#, encoder: h265),
                      "UnsupportedOperation.VideoCodec", naming: "cannot be sent over RTMP/FLV")
        XCTAssertNil(TaskJSON.refusal(TaskJSON.task(target: #"{"mode": 3, "cdnUrlList": [{"rtmpUrl": "x.mkv"}]}"#, encoder: h265)))
        let heAAC = #"{"videoEncodedWidth": 640, "videoEncodedHeight": 360, "audioEncodedCodecType": 1}"#
        assertRefused(TaskJSON.task(encoder: heAAC), "UnsupportedOperation.AudioCodec", naming: "needs an HE-AAC encoder such as libfdk_aac")
        XCTAssertNil(TaskJSON.refusal(TaskJSON.task(encoder: heAAC), capabilities: WorkerCapabilities(heAACEncoder: "libfdk_aac")))
        let v2Mono = #"{"videoEncodedWidth": 640, "videoEncodedHeight": 360, "audioEncodedCodecType": 2}"#
        assertRefused(TaskJSON.task(encoder: v2Mono), "InvalidParameter.AudioCodec", naming: "stereo only")
        let audioOnlySei = #"{"videoEncodedWidth": 0, "videoEncodedHeight": 0, "videoSeiParams": {"payloadContent": "x", "payloadType": 242}}"#
        assertRefused(TaskJSON.task(encoder: audioOnlySei), "UnsupportedOperation.SeiOnAudioOnly", naming: "set a small canvas")
        let audioOnly = #"{"videoEncodedWidth": 0, "videoEncodedHeight": 0}"#
        assertRefused(TaskJSON.task(encoder: audioOnly, mixing: #"{"layoutVolumeSei": {}}"#), "UnsupportedOperation.SeiOnAudioOnly",
                      naming: "mixingConfig.layoutVolumeSei")
    }

    func test_robotIdentity_mustNotBeAMixedUser() {
        let target = #"{"mode": "mixStreamToRoom", "mixStreamIdentity": {"strRoomId": "r1", "userId": "a"}}"#
        assertRefused(TaskJSON.task(target: target), "InvalidParameter.MixStreamIdentity", naming: "is also one of the mixed users")
        let robot = #"{"mode": "mixStreamToRoom", "mixStreamIdentity": {"strRoomId": "r1", "userId": "robot"}}"#
        XCTAssertNil(TaskJSON.refusal(TaskJSON.task(target: robot)))
    }

    func test_identities_areChecked() {
        let badId = TaskJSON.task().replacingOccurrences(of: #""taskId": "t1""#, with: #""taskId": "a b""#)
        assertRefused(badId, "InvalidParameter.TaskId", naming: "taskId \"a b\" must be 1–128 characters")
        assertRefused(TaskJSON.task(streams: #"[{"strRoomId": "r1", "userId": "", "url": "testsrc:"}]"#), "InvalidParameter.UserId",
                      naming: "streams[0].userId must not be empty")
        assertRefused(TaskJSON.task(streams: #"[{"intRoomId": 0, "userId": "a", "url": "testsrc:"}]"#), "InvalidParameter.RoomId",
                      naming: "streams[0].intRoomId 0 is outside 1–4294967294")
        let twice = #"[{"strRoomId": "r1", "userId": "a", "url": "testsrc:"}, {"strRoomId": "r1", "userId": "a", "url": "x.mp4"}]"#
        assertRefused(TaskJSON.task(streams: twice), "InvalidParameter.Streams", naming: "streams[1] repeats r1/a#main")
    }

    func test_refusal_rendersAsJSONWithCodeAndMessage() {
        let error = TaskError.invalid("ZOrder", "a \"quoted\" field")
        XCTAssertEqual(error.json, #"{"code":"InvalidParameter.ZOrder","message":"a \"quoted\" field"}"#)
    }
}
