import Foundation
import MixerEngine
import MixerTask

/// Updates for a running task, one JSON document per line (SPEC §4.1 `--control`); each
/// gets one JSON line back: `{"type":"reply","code":0,…}` or the refusal's code and message.
struct ControlChannel {
    let engine: MixEngine
    let capabilities: WorkerCapabilities

    func serve(_ input: FileHandle) {
        var pending = Data()
        while true {
            let chunk = input.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[pending.startIndex..<newline]
                pending = Data(pending[pending.index(after: newline)...])
                if !line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { reply(to: Data(line)) }
            }
        }
    }

    private func reply(to line: Data) {
        do {
            try engine.update(try JSONValue.parse(line), capabilities: capabilities)
            ReportWriter.shared.write(TaskReport(type: .reply, code: .ok, message: "updated; applied from the next frame"))
        } catch {
            ReportWriter.shared.write(TaskReport(type: .reply, code: .refused(error.code), message: error.message))
        }
    }
}
