import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `mixer serve`: the worker daemon. HTTP/1.1 with JSON bodies on a Unix domain socket
/// (mode 0660); each task in its own `mixer run` process. SIGTERM (or SIGINT) shuts down
/// gracefully: no new tasks, every task stopped cleanly (encoders flushed, trailers written),
/// then the server; a bounded time later the group is cancelled.
public struct WorkerDaemon: Sendable {
    public let socketPath: String
    public let settings: WorkerSettings
    public let logger: Logger

    public init(socketPath: String, settings: WorkerSettings, logger: Logger) {
        self.socketPath = socketPath
        self.settings = settings
        self.logger = logger
    }

    public func run() async throws {
        let events = EventBus()
        let metrics = WorkerMetrics()
        let registry = TaskRegistry(settings: settings, events: events, metrics: metrics, logger: logger)
        unlink(socketPath)
        let socketPath = self.socketPath, logger = self.logger
        let app = Application(
            router: WorkerAPI.router(registry: registry, events: events, metrics: metrics),
            configuration: .init(address: .unixDomainSocket(path: socketPath), serverName: "mixer"),
            onServerRunning: { _ in
                chmod(socketPath, 0o660)
                logger.notice("mixer worker listening on \(socketPath)")
            },
            logger: logger)
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: app), .init(service: RegistryShutdown(registry: registry))],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // Tasks get their stop grace, the server a little more; then everything is cancelled.
        configuration.maximumGracefulShutdownDuration = .seconds(settings.stopGrace + 10)
        try await ServiceGroup(configuration: configuration).run()
        unlink(socketPath)
    }
}

/// Stops every task when the worker shuts down. Listed after the server, so that it shuts
/// down first (ServiceGroup goes in reverse): tasks are stopped and the event streams ended
/// while the server still answers, then the server stops.
struct RegistryShutdown: Service {
    let registry: TaskRegistry

    func run() async throws {
        try? await gracefulShutdown()
        await registry.shutdown()
    }
}
