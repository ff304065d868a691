import ArgumentParser
import Foundation
import MixerService
import NIOHTTP1

/// Where the worker listens, for the client commands.
struct SocketOption: ParsableArguments {
    @Option(help: "The worker's Unix socket (default $MIXER_SOCKET or /tmp/mixer.sock).")
    var socket: String = WorkerSocket.defaultPath

    var client: WorkerClient { WorkerClient(socketPath: socket) }

    /// Prints the reply; a refusal (4xx) exits 2, another failure 1.
    func finish(_ reply: WorkerClient.Reply) throws {
        FileHandle.standardOutput.write(reply.body)
        switch reply.status {
        case 200..<300: return
        case 400..<500: throw ExitCode(ExitStatus.invalidTask)
        default: throw ExitCode(ExitStatus.runtimeFailure)
        }
    }
}

func readBody(_ path: String) throws -> Data {
    if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
    guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
    return data
}

struct StartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Start a task on the worker (POST /v1/tasks).")
    @Argument(help: "The task JSON file ('-' for standard input).") var task: String
    @OptionGroup var socket: SocketOption

    func run() async throws {
        try socket.finish(try await socket.client.send(.POST, "/v1/tasks", body: try readBody(task)))
    }
}

struct UpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "update", abstract: "Update a running task (PUT /v1/tasks/ID).")
    @Argument(help: "The task's id.") var taskId: String
    @Argument(help: "The update JSON file ('-' for standard input).") var update: String
    @OptionGroup var socket: SocketOption

    func run() async throws {
        try socket.finish(try await socket.client.send(.PUT, "/v1/tasks/\(taskId)", body: try readBody(update)))
    }
}

struct StopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop a task, or every task with --all (DELETE).")
    @Argument(help: "The task's id.") var taskId: String?
    @Flag(help: "Stop every task.") var all = false
    @OptionGroup var socket: SocketOption

    func validate() throws {
        if (taskId == nil) == !all { throw ValidationError("give a task id or --all") }
    }

    func run() async throws {
        try socket.finish(try await socket.client.send(.DELETE, taskId.map { "/v1/tasks/\($0)" } ?? "/v1/tasks"))
    }
}

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the worker's tasks (GET /v1/tasks).")
    @OptionGroup var socket: SocketOption

    func run() async throws { try socket.finish(try await socket.client.send(.GET, "/v1/tasks")) }
}

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "One task's state (GET /v1/tasks/ID).")
    @Argument(help: "The task's id.") var taskId: String
    @OptionGroup var socket: SocketOption

    func run() async throws { try socket.finish(try await socket.client.send(.GET, "/v1/tasks/\(taskId)")) }
}

struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "events", abstract: "Follow the worker's events as JSON lines (GET /v1/events).")
    @OptionGroup var socket: SocketOption

    func run() async throws {
        let status = try await socket.client.exchange(.GET, "/v1/events") { FileHandle.standardOutput.write($0) }
        if status != 200 { throw ExitCode(ExitStatus.runtimeFailure) }
    }
}
