import Foundation
@testable import MixerService
import MixerTask
import XCTest

/// The pieces of the worker's protocol that need no process or socket.
final class WorkerProtocolTests: XCTestCase {
    func test_refusalCodes_mapToHTTPStatuses() {
        XCTAssertEqual(APIError.status(for: "InvalidParameter.ZOrder").code, 400)
        XCTAssertEqual(APIError.status(for: "UnsupportedOperation.EncoderParamChange").code, 400)
        XCTAssertEqual(APIError.status(for: "FailedOperation.TaskNotExist").code, 404)
        XCTAssertEqual(APIError.status(for: "FailedOperation.TaskExist").code, 409)
        XCTAssertEqual(APIError.status(for: "FailedOperation.OutdateRequest").code, 409)
        XCTAssertEqual(APIError.status(for: "FailedOperation.RestrictedConcurrency").code, 503)
        XCTAssertEqual(APIError.status(for: "InternalError").code, 500)
    }

    func test_resultCodes_encodeAsZeroOrTheirString() throws {
        let ok = try JSONEncoder().encode(TaskReport(type: .reply, code: .ok, message: "m"))
        XCTAssertTrue(String(decoding: ok, as: UTF8.self).contains(#""code":0"#))
        let refused = TaskReport(type: .reply, code: .refused("InvalidParameter.Json"))
        let decoded = try JSONDecoder().decode(TaskReport.self, from: try JSONEncoder().encode(refused))
        XCTAssertEqual(decoded, refused)
    }

    func test_taskJSON_writtenForTheChild_readsBackTheSame() throws {
        let text = #"{"taskId":"a\"b","n":-3,"x":1.5,"ok":true,"list":[null,{"k":"v"}],"s":"line\nbreak"}"#
        let value = try JSONValue.parse(text)
        XCTAssertEqual(try JSONValue.parse(value.text), value)
    }

    func test_events_reachEverySubscriber_asJSONLines() async throws {
        let bus = EventBus()
        let first = bus.subscribe(), second = bus.subscribe()
        bus.publish(WorkerEvent(event: "onStartPublishMediaStream", taskId: "t", code: .ok, message: "started"))
        bus.finish()
        for stream in [first, second] {
            var lines: [Data] = []
            for await line in stream { lines.append(line) }
            XCTAssertEqual(lines.count, 1)
            let event = try JSONDecoder().decode(WorkerEvent.self, from: lines[0])
            XCTAssertEqual(event.event, "onStartPublishMediaStream")
            XCTAssertEqual(lines[0].last, UInt8(ascii: "\n"))
        }
    }
}
