import MediaCore
import MixerEngine
import MixerTask
import XCTest

/// The mix before encoding (exact) and after AAC (decoded, within codec tolerance).
final class AudioMixTests: XCTestCase {
    private func task(_ streams: [(user: String, query: String)], levels: [String: Int]? = nil, canvas: String = "64x64") -> String {
        let size = canvas.split(separator: "x")
        let audio = levels.map { levels in
            ", \"audioMixUserList\": [" + levels.sorted { $0.key < $1.key }.map {
                #"{"strRoomId": "r", "userId": "\#($0.key)", "soundLevel": \#($0.value)}"#
            }.joined(separator: ",") + "]"
        } ?? ""
        let inputs = streams.map { #"{"strRoomId": "r", "userId": "\#($0.user)", "url": "testsrc:?\#($0.query)"}"# }
        return """
        {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": "{OUT}"}]},
         "encoderParam": {"videoEncodedWidth": \(size[0]), "videoEncodedHeight": \(size[1]), "audioEncodedKbps": 128},
         "mixingConfig": {"videoLayoutList": []\(audio)},
         "streams": [\(inputs.joined(separator: ","))]}
        """
    }

    private func mixed(_ run: EngineRun) -> [Float] { run.audio.flatMap(\.audio.samples) }

    func test_eachInputsTone_isInTheMixAtItsSoundLevel() throws {
        let run = try EngineRun.run(task([("a", "video=0&tone=440&amp=0.4&duration=1"),
                                          ("b", "video=0&tone=1000&amp=0.4&duration=1"),
                                          ("c", "video=0&tone=2500&amp=0.4&duration=1")],
                                         levels: ["a": 100, "b": 50, "c": 25]))
        let samples = mixed(run)[0..<48000]
        XCTAssertEqual(Spectrum.amplitude(of: 440, in: samples, sampleRate: 48000), 0.4, accuracy: 0.01)
        XCTAssertEqual(Spectrum.amplitude(of: 1000, in: samples, sampleRate: 48000), 0.2, accuracy: 0.01)
        XCTAssertEqual(Spectrum.amplitude(of: 2500, in: samples, sampleRate: 48000), 0.1, accuracy: 0.01)
        GoldenFile.check("audio_sound_levels", run.framecrc)

        // After AAC: the same proportions, within the codec's error.
        let decoded = try Tools.decodedAudio(run.output)
        let window = decoded[4800..<43200]
        let a = Spectrum.amplitude(of: 440, in: window, sampleRate: 48000)
        let b = Spectrum.amplitude(of: 1000, in: window, sampleRate: 48000)
        let c = Spectrum.amplitude(of: 2500, in: window, sampleRate: 48000)
        XCTAssertEqual(a, 0.4, accuracy: 0.04)
        XCTAssertEqual(b / a, 0.5, accuracy: 0.05)
        XCTAssertEqual(c / a, 0.25, accuracy: 0.05)
    }

    func test_soundLevelZero_mutesThatInput() throws {
        let run = try EngineRun.run(task([("a", "video=0&tone=440&amp=0.4&duration=1"), ("b", "video=0&tone=1000&amp=0.4&duration=1")],
                                         levels: ["a": 100, "b": 0]))
        let samples = mixed(run)[0..<48000]
        XCTAssertEqual(Spectrum.amplitude(of: 440, in: samples, sampleRate: 48000), 0.4, accuracy: 0.01)
        XCTAssertLessThan(Spectrum.amplitude(of: 1000, in: samples, sampleRate: 48000), 1e-4)
    }

    func test_usersLeftOutOfAudioMixUserList_areNotHeard() throws {
        let run = try EngineRun.run(task([("a", "video=0&tone=440&amp=0.4&duration=1"), ("b", "video=0&tone=1000&amp=0.4&duration=1")],
                                         levels: ["a": 100]))
        XCTAssertLessThan(Spectrum.amplitude(of: 1000, in: mixed(run)[0..<48000], sampleRate: 48000), 1e-4)
    }

    func test_sixteenLoudInputs_saturateInsteadOfWrapping() throws {
        let streams = (0..<16).map { (user: "u\($0)", query: "video=0&tone=440&amp=1&duration=1") }
        let run = try EngineRun.run(task(streams))
        let samples = mixed(run)
        XCTAssertEqual(samples.count, 47 * 1024)
        var clipped = 0
        for (index, sample) in samples.prefix(48000).enumerated() {
            let expected = 16 * sin(2 * Double.pi * 440 * Double(index) / 48000)
            XCTAssertLessThanOrEqual(abs(sample), 1)
            if abs(expected) > 0.05 {
                XCTAssertEqual(sample.sign, Float(expected).sign, "sample \(index) wrapped around")
            }
            if abs(expected) >= 1 { clipped += 1; XCTAssertEqual(abs(sample), 1) }
        }
        XCTAssertGreaterThan(clipped, 30000, "most of a 16x sum is beyond full scale")
        // A saturated sine is nearly a square wave, whose fundamental is close to 4/π of full
        // scale; wrapped samples would scatter that energy into noise.
        let fundamental = Spectrum.amplitude(of: 440, in: samples[4800..<43200], sampleRate: 48000)
        XCTAssertEqual(fundamental, 4 / Double.pi, accuracy: 0.02)
        let decoded = try Tools.decodedAudio(run.output)
        XCTAssertEqual(Spectrum.amplitude(of: 440, in: decoded[4800..<43200], sampleRate: 48000), fundamental, accuracy: 0.15)
    }

    func test_inputWithoutAudio_addsSilence() throws {
        let run = try EngineRun.run(task([("a", "video=0&tone=440&amp=0.4&duration=1"), ("b", "size=64x64&tone=0&duration=1")]))
        let samples = mixed(run)[0..<48000]
        XCTAssertEqual(Spectrum.amplitude(of: 440, in: samples, sampleRate: 48000), 0.4, accuracy: 0.01)
        XCTAssertEqual(run.reason, .inputsEnded)
    }

    func test_stereoOutput_carriesTheMonoToneOnBothChannels() throws {
        let text = task([("a", "video=0&tone=440&amp=0.4&duration=1")])
            .replacingOccurrences(of: #""audioEncodedKbps": 128"#, with: #""audioEncodedKbps": 128, "audioEncodedChannelNum": 2, "audioEncodedSampleRate": 44100"#)
        let run = try EngineRun.run(text)
        let block = try XCTUnwrap(run.audio.first)
        XCTAssertEqual(block.audio.channels, 2)
        XCTAssertEqual(Array(block.audio.samples[0..<1024]), Array(block.audio.samples[1024..<2048]))
        let stream = try Tools.stream(run.output, "a:0")
        XCTAssertEqual(stream["sample_rate"], "44100")
        XCTAssertEqual(stream["channels"], "2")
    }

    func test_audioOnlyTask_hasNoVideoTrack() throws {
        let run = try EngineRun.run(task([("a", "video=0&tone=440&duration=1")], canvas: "0x0"))
        XCTAssertTrue(run.ticks.isEmpty)
        XCTAssertEqual(try Tools.stream(run.output, "v").count, 0)
        XCTAssertEqual(try Tools.stream(run.output, "a:0")["codec_name"], "aac")
    }
}
