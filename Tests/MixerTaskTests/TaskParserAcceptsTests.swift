import Foundation
import MixerTask
import XCTest

final class TaskParserAcceptsTests: XCTestCase {
    func test_minimalTask_takesTheDefaultsOfTheSpec() throws {
        let task = try TaskParser.parse(TaskJSON.task())
        let param = try XCTUnwrap(task.encoderParam)
        XCTAssertEqual(task.maxIdleTime, 30)
        XCTAssertEqual(param.fps, 15)
        XCTAssertEqual(param.gopSeconds, 2)
        XCTAssertEqual(param.audioSampleRate, 48000)
        XCTAssertEqual(param.audioChannels, 1)
        XCTAssertEqual(param.audioKbps, 50)
        XCTAssertEqual(param.audioCodec, .lcAAC)
        XCTAssertEqual(task.mixingConfig.backgroundColor, .black)
        XCTAssertTrue(task.mixingConfig.enableStreamSei)
        XCTAssertEqual(task.target.cdnUrls.first?.kind, .file(container: "mp4"))
        XCTAssertEqual(task.target.cdnUrls.first?.isInternalLine, true)
        XCTAssertEqual(task.mixingConfig.videoLayoutList.first?.fillMode, .fill)
    }

    func test_everyExampleTaskInLayouts_isValid() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../layouts/examples").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        XCTAssertFalse(files.isEmpty, "no examples in \(folder.path)")
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            XCTAssertNoThrow(try TaskParser.parse(text), file)
        }
    }

    func test_theSpecExample_parsesWithEveryField() throws {
        let text = #"""
        {
          "taskId": "pk-42", "sequenceNumber": 1, "maxIdleTime": 30,
          "target": {
            "mode": "mixStreamToCdn",
            "cdnUrlList": [{ "rtmpUrl": "rtmp://127.0.0.1:1935/live/pk42", "isInternalLine": true }],
            "mixStreamIdentity": { "strRoomId": "room42", "userId": "room42_robot" },
            "relayUser": { "strRoomId": "room42", "userId": "anchorA" }
          },
          "encoderParam": {
            "videoEncodedWidth": 540, "videoEncodedHeight": 960, "videoEncodedFPS": 15,
            "videoEncodedGOP": 2, "videoEncodedKbps": 1300, "videoEncodedCodecType": 0,
            "audioEncodedSampleRate": 48000, "audioEncodedChannelNum": 1,
            "audioEncodedKbps": 50, "audioEncodedCodecType": 0,
            "videoSeiParams": { "payloadContent": "hello", "payloadType": 242, "interval": 1000, "followIdr": false }
          },
          "mixingConfig": {
            "backgroundColor": "0x000000", "backgroundImage": null,
            "videoLayoutList": [
              { "rect": { "x": 0, "y": 0, "width": 540, "height": 960 }, "zOrder": 0, "fillMode": 0,
                "backgroundColor": "0x000000", "placeHolderImage": null,
                "fixedVideoUser": { "strRoomId": "room42", "userId": "anchorA" }, "fixedVideoStreamType": 0 }
            ],
            "audioMixUserList": [{ "strRoomId": "room42", "userId": "anchorA", "soundLevel": 100 }],
            "watermarkList": [{ "watermarkUrl": "layouts/assets/logo.png", "rect": { "x": 10, "y": 10, "width": 80, "height": 40 }, "zOrder": 15 }],
            "layoutVolumeSei": { "appData": "", "payloadType": 100, "interval": 1000, "followIdr": false },
            "enableStreamSei": true
          },
          "streams": [
            { "strRoomId": "room42", "userId": "anchorA", "streamType": 0, "url": "rtmp://127.0.0.1:1935/live/room42_anchorA_main" }
          ]
        }
        """#
        let task = try TaskParser.parse(text)
        XCTAssertEqual(task.taskId, "pk-42")
        XCTAssertEqual(task.sequenceNumber, 1)
        XCTAssertEqual(task.target.cdnUrls.first?.kind, .rtmp)
        XCTAssertEqual(task.encoderParam?.videoSei?.payloadType, 242)
        XCTAssertEqual(task.mixingConfig.watermarkList.first?.zOrder, 15)
        XCTAssertEqual(task.mixingConfig.layoutVolumeSei?.payloadType, 100)
    }

    func test_modeAndStreamType_acceptNamesAndTRTCIntegers() throws {
        let byNumber = try TaskParser.parse(TaskJSON.task(target: #"{"mode": 3, "cdnUrlList": [{"rtmpUrl": "a.flv"}]}"#))
        XCTAssertEqual(byNumber.target.mode, .mixStreamToCdn)
        let streams = #"[{"roomId": "r1", "userId": "a", "streamType": "sub", "url": "testsrc:"}]"#
        let sub = try TaskParser.parse(TaskJSON.task(streams: streams))
        XCTAssertEqual(sub.streams.first?.key.streamType, .sub)
        XCTAssertEqual(sub.streams.first?.key.user, UserRef(roomId: "r1", userId: "a"))
    }

    func test_colours_acceptIntegerHexStringAndHash() throws {
        for (form, expected) in [("6404593", RGBColor(rgb: 0x61B9F1)), ("\"0x61B9F1\"", RGBColor(rgb: 0x61B9F1)),
                                 ("\"#61b9f1\"", RGBColor(rgb: 0x61B9F1))] {
            let task = try TaskParser.parse(TaskJSON.task(mixing: "{\"backgroundColor\": \(form)}"))
            XCTAssertEqual(task.mixingConfig.backgroundColor, expected, form)
        }
    }

    func test_nullMeansTheSameAsLeavingAFieldOut() throws {
        let task = try TaskParser.parse(TaskJSON.task(extra: #""maxIdleTime": null, "sequenceNumber": null"#))
        XCTAssertEqual(task.maxIdleTime, 30)
        XCTAssertNil(task.sequenceNumber)
    }

    func test_videoSeiParams_mayBeAJSONStringAsTRTCPassesIt() throws {
        let encoder = #"{"videoEncodedWidth": 64, "videoEncodedHeight": 64, "videoSeiParams": "{\"payLoadContent\":\"x\",\"payloadType\":5,\"payloadUuid\":\"1234567890abcdef1234567890abcdef\"}"}"#
        let sei = try XCTUnwrap(TaskParser.parse(TaskJSON.task(encoder: encoder)).encoderParam?.videoSei)
        XCTAssertEqual(sei.payloadType, 5)
        XCTAssertEqual(sei.payloadUuid?.count, 16)
        XCTAssertEqual(sei.intervalMs, 1000)
    }

    func test_zeroVideoBitrate_isChosenFromTheResolution() throws {
        let param = try XCTUnwrap(TaskParser.parse(TaskJSON.task()).encoderParam)
        XCTAssertEqual(param.videoKbps, 0)
        XCTAssertEqual(param.effectiveVideoKbps, 346)  // 640×360×15 px/s × 0.1 bit
    }

    func test_testsrcURL_readsEveryParameter() throws {
        let spec = try TestSourceSpec(url: "testsrc:?size=320x240&fps=25&tone=0&amp=0.25&rate=44100&label=Hi%20there&duration=2.5&video=0")
        XCTAssertEqual(spec.width, 320)
        XCTAssertEqual(spec.height, 240)
        XCTAssertEqual(spec.fps, 25)
        XCTAssertEqual(spec.toneHz, 0)
        XCTAssertEqual(spec.amplitude, 0.25)
        XCTAssertEqual(spec.sampleRate, 44100)
        XCTAssertEqual(spec.label, "Hi there")
        XCTAssertEqual(spec.duration, 2.5)
        XCTAssertFalse(spec.hasVideo)
    }
}
