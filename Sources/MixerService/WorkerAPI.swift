import Foundation
import Hummingbird
import NIOCore
import MixerTask

/// The routes of SPEC §4.2 over the worker's Unix socket.
enum WorkerAPI {
    /// Bodies larger than this are refused before they are read whole.
    static let maximumBody = 1 << 20

    static func router(registry: TaskRegistry, events: EventBus, metrics: WorkerMetrics) -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/v1/tasks") { request, _ -> Response in
            let taskId = try await registry.start(try await body(of: request))
            return try json(.created, Reply(taskId: taskId, code: .ok, message: "started"))
        }
        router.put("/v1/tasks/:taskId") { request, context -> Response in
            let taskId = try context.parameters.require("taskId")
            let message = try await registry.update(taskId, body: try await body(of: request))
            return try json(.ok, Reply(taskId: taskId, code: .ok, message: message))
        }
        router.delete("/v1/tasks/:taskId") { _, context -> Response in
            let taskId = try context.parameters.require("taskId")
            try await registry.stop(taskId)
            return try json(.ok, Reply(taskId: taskId, code: .ok, message: "stopped"))
        }
        router.delete("/v1/tasks") { _, _ -> Response in
            let stopped = await registry.stopAll()
            return try json(.ok, StopAllReply(code: .ok, message: "stopped \(stopped.count) task(s)", taskIds: stopped))
        }
        router.get("/v1/tasks") { _, _ -> Response in
            try json(.ok, TaskList(tasks: await registry.views()))
        }
        router.get("/v1/tasks/:taskId") { _, context -> Response in
            try json(.ok, try await registry.view(try context.parameters.require("taskId")))
        }
        router.get("/v1/events") { _, _ -> Response in
            let stream = events.subscribe()
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-cache"],
                            body: ResponseBody { writer in
                                // A first line, so that a client knows it is subscribed.
                                let hello = try JSONEncoder().encode(WorkerEvent(event: "onSubscribed", taskId: "")) + Data("\n".utf8)
                                try await writer.write(ByteBuffer(bytes: hello))
                                for await line in stream { try await writer.write(ByteBuffer(bytes: line)) }
                                try await writer.finish(nil)
                            })
        }
        router.get("/healthz") { _, _ -> Response in
            try json(.ok, Health(status: "ok", tasks: await registry.count))
        }
        router.get("/metrics") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.render())))
        }
        return router
    }

    private struct Reply: Encodable {
        let taskId: String
        let code: ResultCode
        let message: String
    }

    private struct StopAllReply: Encodable {
        let code: ResultCode
        let message: String
        let taskIds: [String]
    }

    private struct TaskList: Encodable {
        let tasks: [TaskView]
    }

    private struct Health: Encodable {
        let status: String
        let tasks: Int
    }

    private static func body(of request: Request) async throws -> Data {
        do {
            let buffer = try await request.body.collect(upTo: maximumBody)
            return Data(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw APIError(status: .contentTooLarge, code: "InvalidParameter.BodyTooLarge",
                           message: "the request body is larger than \(maximumBody) bytes")
        }
    }

    private static func json(_ status: HTTPResponse.Status, _ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(UInt8(ascii: "\n"))
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
