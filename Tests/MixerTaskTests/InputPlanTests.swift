import MixerTask
import XCTest

final class InputPlanTests: XCTestCase {
    private func plan(_ mixing: String, streams: String? = nil) throws -> InputPlan {
        let task = try TaskParser.parse(TaskJSON.task(mixing: mixing, streams: streams))
        return InputPlan(task: task, roomURLTemplate: WorkerCapabilities.defaultRoomURLTemplate)
    }

    func test_inputs_areDistinctUsersInOrderOfFirstAppearance() throws {
        let mixing = #"""
        {"videoLayoutList": [{"fixedVideoUser": \#(TaskJSON.user("b"))}, {"fixedVideoUser": \#(TaskJSON.user("a"))},
                             {"fixedVideoUser": \#(TaskJSON.user("a")), "fixedVideoStreamType": 2}],
         "audioMixUserList": [\#(TaskJSON.user("c")), \#(TaskJSON.user("a"))]}
        """#
        let plan = try plan(mixing, streams: "[]")
        XCTAssertEqual(plan.inputs.map(\.key.description), ["r1/b#main", "r1/a#main", "r1/a#aux", "r1/c#main"])
        XCTAssertEqual(plan.cellInputs, [0, 1, 2])
        XCTAssertEqual(plan.audio, [AudioSource(input: 3, gain: 1), AudioSource(input: 1, gain: 1)])
    }

    func test_inputsWithoutAStreamsEntry_comeFromTheRoomDirectory() throws {
        let plan = try plan(#"{"audioMixUserList": [{"strRoomId": "room42", "userId": "anchorA"}]}"#, streams: "[]")
        XCTAssertEqual(plan.inputs.map(\.url), ["rtmp://127.0.0.1:1935/live/room42_anchorA_main"])
        let custom = InputPlan.roomURL(for: plan.inputs[0].key, template: "srt://media:9000?streamid={roomId}/{userId}/{streamType}")
        XCTAssertEqual(custom, "srt://media:9000?streamid=room42/anchorA/main")
    }

    func test_cellsWithoutAFixedUser_takeTheOtherKnownUsersInOrder() throws {
        let mixing = #"""
        {"videoLayoutList": [{"rect": {"width": 10, "height": 10}}, {"fixedVideoUser": \#(TaskJSON.user("b"))},
                             {"rect": {"width": 10, "height": 10}}, {"rect": {"width": 10, "height": 10}}]}
        """#
        let streams = #"[{"strRoomId": "r1", "userId": "a", "url": "testsrc:"}, {"strRoomId": "r1", "userId": "c", "url": "testsrc:"}]"#
        let plan = try plan(mixing, streams: streams)
        XCTAssertEqual(plan.inputs.map(\.key.user.userId), ["b", "a", "c"])
        XCTAssertEqual(plan.cellInputs, [1, 0, 2, nil])
    }

    func test_emptyAudioMixUserList_mixesEveryKnownUserAtFullLevel() throws {
        let plan = try plan(TaskJSON.mixing)
        XCTAssertEqual(plan.audio, [AudioSource(input: 0, gain: 1)])
    }

    func test_soundLevel_becomesAGain() throws {
        let plan = try plan(#"{"audioMixUserList": [{"strRoomId": "r1", "userId": "a", "soundLevel": 25}]}"#)
        XCTAssertEqual(plan.audio, [AudioSource(input: 0, gain: 0.25)])
    }
}
