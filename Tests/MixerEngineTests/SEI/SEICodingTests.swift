@testable import MixerEngine
import XCTest

/// The byte-level rules of SPEC §3: payload type/size coding, emulation prevention, NAL
/// framing, and where SEI goes in an access unit.
final class SEICodingTests: XCTestCase {
    func test_payloadSizes_useFFRuns_from255() {
        for (size, expected) in [(0, [0x00]), (254, [0xFE]), (255, [0xFF, 0x00]), (256, [0xFF, 0x01]), (510, [0xFF, 0xFF, 0x00]), (600, [0xFF, 0xFF, 0x5A])] {
            var bytes: [UInt8] = []
            SEICoding.appendFFCoded(size, to: &bytes)
            XCTAssertEqual(bytes, expected.map(UInt8.init), "size \(size)")
            var position = 0
            XCTAssertEqual(SEICoding.readFFCoded(bytes, &position), size)
        }
    }

    func test_nal_h264_layout_headerTypeSizePayloadStopBit() {
        let nal = SEICoding.nal([SEIMessage(payloadType: 242, content: Array("hi".utf8))], syntax: .h264)
        XCTAssertEqual(nal, [0x06, 242, 2, UInt8(ascii: "h"), UInt8(ascii: "i"), 0x80])
        let h265 = SEICoding.nal([SEIMessage(payloadType: 100, content: [1])], syntax: .h265)
        XCTAssertEqual(h265, [0x4E, 0x01, 100, 1, 1, 0x80], "prefix SEI: type 39, layer 0, tid 1")
    }

    func test_emulationPrevention_breaksEveryStartCodeInThePayload_andReadsBack() {
        let uuid: [UInt8] = [0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 0, 0, 0, 0]
        let content: [UInt8] = [0, 0, 1, 0, 0, 0, 0, 0, 3, 0xFF, 0, 0]
        let message = SEIMessage(payloadType: 5, uuid: uuid, content: content)
        let nal = SEICoding.nal([message], syntax: .h264)
        // No 00 00 00, 00 00 01 or 00 00 02 remains: every such run got its 03.
        for i in 1..<(nal.count - 2) where nal[i] == 0 && nal[i + 1] == 0 {
            XCTAssertGreaterThanOrEqual(nal[i + 2], 3, "unescaped at \(i): \(nal)")
        }
        XCTAssertEqual(nal.count, 1 + 3 + uuid.count + content.count + 1 + 8, "eight escapes")
        let read = nal.withUnsafeBufferPointer { SEICoding.messages(inNAL: $0, syntax: .h264) }
        XCTAssertEqual(read, [message])
        XCTAssertEqual(read.first?.uuid, uuid)
        XCTAssertEqual(read.first?.content, content)
    }

    func test_severalMessagesInOneUnit_readInOrder_andLongPayloadsRoundTrip() {
        let long = (0..<700).map { UInt8($0 % 251) }
        let messages = [SEIMessage(payloadType: 100, content: Array("a".utf8)), SEIMessage(payloadType: 254, content: long),
                        SEIMessage(payloadType: 300, content: [])]
        for syntax in [NALSyntax.h264, .h265] {
            let nal = SEICoding.nal(messages, syntax: syntax)
            XCTAssertEqual(nal.withUnsafeBufferPointer { SEICoding.messages(inNAL: $0, syntax: syntax) }, messages)
        }
    }

    func test_truncatedUnit_yieldsTheMessagesBeforeTheDamage() {
        let nal = SEICoding.nal([SEIMessage(payloadType: 100, content: [1, 2]), SEIMessage(payloadType: 101, content: [7, 7, 7, 7])], syntax: .h264)
        let cut = Array(nal.dropLast(3))
        XCTAssertEqual(cut.withUnsafeBufferPointer { SEICoding.messages(inNAL: $0, syntax: .h264) },
                       [SEIMessage(payloadType: 100, content: [1, 2])])
    }

    func test_framing_annexB_and_lengthPrefixed_findTheSameUnits() {
        let units: [[UInt8]] = [[0x09, 0xF0], [0x06, 0x64, 0x01, 0x00, 0x80], [0x65, 0x88, 0x00, 0x00, 0x03, 0x01]]
        let annexB: [UInt8] = [0, 0, 0, 1] + units[0] + [0, 0, 1] + units[1] + [0, 0, 0, 1] + units[2]
        let found = annexB.withUnsafeBufferPointer { buffer in NALFraming.annexB.units(in: buffer).map { Array(buffer[$0]) } }
        XCTAssertEqual(found, units)
        let prefixed: [UInt8] = units.flatMap { [0, 0, 0, UInt8($0.count)] + $0 }
        let foundPrefixed = prefixed.withUnsafeBufferPointer { buffer in
            NALFraming.lengthPrefixed(size: 4).units(in: buffer).map { Array(buffer[$0]) }
        }
        XCTAssertEqual(foundPrefixed, units)
        XCTAssertEqual(NALFraming(syntax: .h264, extradata: [1, 0x64, 0, 0x1F, 0xFF, 0xE1, 0]), .lengthPrefixed(size: 4))
        XCTAssertEqual(NALFraming(syntax: .h264, extradata: [0, 0, 0, 1, 0x67]), .annexB)
    }

    func test_insert_placesSEIAfterParameterSetsAndEncoderSEI_beforeTheFirstSlice() {
        let sps: [UInt8] = [0x67, 1], pps: [UInt8] = [0x68, 2], encoderSEI: [UInt8] = [0x06, 5, 1, 9, 0x80]
        let slice: [UInt8] = [0x65, 0x88, 0x84], slice2: [UInt8] = [0x65, 0x11]
        let packet: [UInt8] = [0, 0, 0, 1] + sps + [0, 0, 0, 1] + pps + [0, 0, 1] + encoderSEI + [0, 0, 0, 1] + slice + [0, 0, 1] + slice2
        let message = SEIMessage(payloadType: 242, content: Array("x".utf8))
        let written = SEIWriter.insert([message], into: packet, syntax: .h264)
        let types = written.withUnsafeBufferPointer { buffer in NALFraming.annexB.units(in: buffer).map { buffer[$0.lowerBound] & 0x1F } }
        XCTAssertEqual(types, [7, 8, 6, 6, 5, 5])
        XCTAssertEqual(SEIReader(syntax: .h264, framing: .annexB).messages(in: written),
                       [SEIMessage(payloadType: 5, payload: [9]), message])
    }

    func test_forwardable_isUserTypesOnly_notEncoderNotes() {
        XCTAssertTrue(SEIMessage(payloadType: 242, content: [1]).isForwardable)
        XCTAssertTrue(SEIMessage(payloadType: 100, content: []).isForwardable)
        XCTAssertTrue(SEIMessage(payloadType: 5, uuid: Array(repeating: 7, count: 16), content: [1]).isForwardable)
        XCTAssertFalse(SEIMessage(payloadType: 5, payload: [1, 2]).isForwardable, "type 5 without a whole UUID")
        XCTAssertFalse(SEIMessage(payloadType: 6, content: [1]).isForwardable, "recovery point")
        XCTAssertFalse(SEIMessage(payloadType: 4, content: [1]).isForwardable, "registered user data (captions)")
        let x264 = SEIMessage.encoderInfoUUIDs.first { $0.first == 0xdc }!
        XCTAssertFalse(SEIMessage(payloadType: 5, uuid: x264, content: Array("x264 - core 164".utf8)).isForwardable)
    }

    func test_intervalSchedule_firstFrameAtOrAfterEachMultiple_plusIDRsWhenFollowing() {
        var schedule = IntervalSchedule()
        // 15 fps, 1000 ms: frames 0, 15, 30, …
        let due = (0..<46).filter { schedule.isDue(frame: Int64($0), fps: 15, intervalMs: 1000, followIdr: false, isIDR: false, changed: false) }
        XCTAssertEqual(due, [0, 15, 30, 45])
        // 15 fps, 300 ms (4.5 frames): the first frame at or after 0, 300, 600, 900 ms.
        schedule = IntervalSchedule()
        let odd = (0..<16).filter { schedule.isDue(frame: Int64($0), fps: 15, intervalMs: 300, followIdr: false, isIDR: false, changed: false) }
        XCTAssertEqual(odd, [0, 5, 9, 14])
        schedule = IntervalSchedule()
        let idr = (0..<31).filter { schedule.isDue(frame: Int64($0), fps: 15, intervalMs: 3000, followIdr: true, isIDR: $0 % 10 == 0, changed: false) }
        XCTAssertEqual(idr, [0, 10, 20, 30])
    }
}
