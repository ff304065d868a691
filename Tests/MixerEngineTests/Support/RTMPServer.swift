import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx with libnginx-mod-rtmp, started by a test on a free loopback port.
final class RTMPServer {
    let port: Int
    private let prefix: URL
    private var process: Process?

    static let module = "/usr/lib/nginx/modules/ngx_rtmp_module.so"

    init() throws {
        port = try RTMPServer.freePort()
        prefix = FileManager.default.temporaryDirectory.appendingPathComponent("mixer-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("logs"), withIntermediateDirectories: true)
        let config = """
        load_module \(RTMPServer.module);
        daemon off;
        master_process off;
        worker_processes 1;
        error_log \(prefix.path)/logs/error.log warn;
        pid \(prefix.path)/nginx.pid;
        events { worker_connections 256; }
        rtmp {
            server {
                listen 127.0.0.1:\(port);
                chunk_size 4096;
                application live { live on; wait_key on; wait_video on; }
            }
        }
        """
        try config.write(to: prefix.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        try start()
    }

    deinit { stop() }

    func url(_ stream: String) -> String { "rtmp://127.0.0.1:\(port)/live/\(stream)" }

    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-p", prefix.path, "-c", prefix.appendingPathComponent("nginx.conf").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(5)
        while !RTMPServer.accepts(port: port) {
            guard Date() < deadline, process.isRunning else {
                throw NSError(domain: "RTMPServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx-rtmp did not start on port \(port)"])
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Stops nginx: SIGTERM, then SIGKILL if it is still up after 2 s (with clients still
    /// connected, nginx-rtmp can take its time).
    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        if !eventually(within: 2, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        self.process = nil
    }

    /// A port nothing listens on right now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw NSError(domain: "RTMPServer", code: 2) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// An ffmpeg CLI process publishing a synthetic stream in real time, like an anchor's app.
final class Publisher {
    private let process = Process()

    /// `video` is a lavfi source such as "color=c=red:size=320x240:rate=15".
    init(to url: String, video: String = "color=c=red:size=320x240:rate=15", tone: Int = 440, sei: Bool = false) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-re", "-f", "lavfi", "-i", video,
                             "-f", "lavfi", "-i", "sine=frequency=\(tone):sample_rate=48000",
                             "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "15", "-bf", "0",
                             "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "1", "-f", "flv", url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// Waits until `condition` holds or `timeout` seconds pass; returns whether it held.
@discardableResult
func eventually(within timeout: Double, every interval: Double = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: interval)
    }
    return try condition()
}
