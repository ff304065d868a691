import Foundation
import MixerService
import MixerTask
import XCTest

/// `mixer serve` started by a test on its own socket.
final class WorkerProcess {
    let socket: String
    let process = Process()
    let client: WorkerClient
    private let log: URL

    init(binary: String, arguments: [String] = []) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-worker-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        socket = folder.appendingPathComponent("mixer.sock").path
        log = folder.appendingPathComponent("worker.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--socket", socket] + arguments
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        client = WorkerClient(socketPath: socket)
        try process.run()
        guard eventually(within: 10, { FileManager.default.fileExists(atPath: socket) }) else {
            throw NSError(domain: "WorkerProcess", code: 1, userInfo: [NSLocalizedDescriptionKey: "mixer serve did not start: \(logText)"])
        }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Sends a request and returns the status and the decoded JSON body (if any).
    func request(_ method: String, _ path: String, _ body: String? = nil) async throws -> (Int, [String: Any]) {
        let reply = try await client.send(.init(rawValue: method), path, body: body.map { Data($0.utf8) })
        let json = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] ?? [:]
        return (reply.status, json)
    }

    func status(of taskId: String) async throws -> TaskView? {
        let reply = try await client.send(.GET, "/v1/tasks/\(taskId)")
        return reply.status == 200 ? try JSONDecoder().decode(TaskView.self, from: reply.body) : nil
    }
}

/// Collects `GET /v1/events` in the background.
final class EventRecorder: @unchecked Sendable {
    // @unchecked: `lines` is guarded by `lock`.
    private let lock = NSLock()
    private var lines: [[String: Any]] = []
    private var task: Task<Void, Never>?

    init(_ client: WorkerClient) {
        task = Task { [weak self] in
            var pending = Data()
            _ = try? await client.exchange(.GET, "/v1/events") { data in
                pending.append(data)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = pending[pending.startIndex..<newline]
                    pending = Data(pending[pending.index(after: newline)...])
                    if let event = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] {
                        self?.lock.withLock { self?.lines.append(event) }
                    }
                }
            }
        }
    }

    deinit { task?.cancel() }

    var events: [[String: Any]] { lock.withLock { lines } }

    func named(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }
}
