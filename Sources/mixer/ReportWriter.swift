import Foundation
import MixerTask
import Synchronization

/// Writes whole JSON lines to standard output from any thread; a lock keeps lines from
/// interleaving (pipes only promise that for writes under 4 KiB).
final class ReportWriter: Sendable {
    static let shared = ReportWriter()
    private let lock = Mutex(())
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func write(_ report: TaskReport) {
        guard var line = try? encoder.encode(report) else { return }
        line.append(UInt8(ascii: "\n"))
        lock.withLock { _ in FileHandle.standardOutput.write(line) }
    }
}
