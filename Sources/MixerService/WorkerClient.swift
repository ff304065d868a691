import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A client of the worker's Unix-socket API (the `mixer start|update|stop|…` commands),
/// built on SwiftNIO's HTTP/1.1 codec.
public struct WorkerClient: Sendable {
    public let socketPath: String

    public init(socketPath: String) { self.socketPath = socketPath }

    public struct Reply: Sendable {
        public let status: Int
        public let body: Data
    }

    /// One request; the whole response.
    public func send(_ method: HTTPMethod, _ path: String, body: Data? = nil) async throws -> Reply {
        var collected = Data()
        let status = try await exchange(method, path, body: body) { collected.append($0) }
        return Reply(status: status, body: collected)
    }

    /// One request whose response body is handed over piece by piece as it arrives (the
    /// event stream); returns the status when the server ends the response.
    @discardableResult
    public func exchange(_ method: HTTPMethod, _ path: String, body: Data? = nil, received: (Data) -> Void) async throws -> Int {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: socketPath) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
            head.headers.add(name: "Host", value: "mixer")
            head.headers.add(name: "Connection", value: "close")
            head.headers.add(name: "Content-Length", value: "\(body?.count ?? 0)")
            if body != nil { head.headers.add(name: "Content-Type", value: "application/json") }
            try await outbound.write(.head(head))
            if let body { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await outbound.write(.end(nil))
            var status = 0
            for try await part in inbound {
                switch part {
                case .head(let response): status = Int(response.status.code)
                case .body(let buffer): received(Data(buffer.readableBytesView))
                case .end: return status
                }
            }
            return status
        }
    }
}
