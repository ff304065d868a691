import Foundation
import XCTest

/// FATE-style references: a text file per scenario, one line per tick. Compared exactly;
/// re-recorded only when MIXER_GOLDEN_RECORD is set (1/all: every file; missing: new ones).
enum GoldenFile {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("__Golden__")

    static var artifacts: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment["MIXER_GOLDEN_ARTIFACTS"] ?? "/tmp/mixer-golden-artifacts")
    }

    static func check(_ name: String, _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let reference = folder.appendingPathComponent("\(name).framecrc")
        let mode = ProcessInfo.processInfo.environment["MIXER_GOLDEN_RECORD"] ?? "never"
        let existing = try? String(contentsOf: reference, encoding: .utf8)
        if mode == "1" || mode == "all" || (mode == "missing" && existing == nil) {
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            XCTAssertNoThrow(try text.write(to: reference, atomically: true, encoding: .utf8), file: file, line: line)
            return
        }
        guard let existing else {
            return XCTFail("no golden reference \(reference.path); record it with MIXER_GOLDEN_RECORD=missing", file: file, line: line)
        }
        guard existing != text else { return }
        try? FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let actual = artifacts.appendingPathComponent("\(name).framecrc")
        try? text.write(to: actual, atomically: true, encoding: .utf8)
        let expectedLines = existing.split(separator: "\n"), actualLines = text.split(separator: "\n")
        let first = Array(zip(expectedLines, actualLines)).firstIndex { $0 != $1 } ?? min(expectedLines.count, actualLines.count)
        let expectedLine = first < expectedLines.count ? String(expectedLines[first]) : "<end>"
        let actualLine = first < actualLines.count ? String(actualLines[first]) : "<end>"
        XCTFail("""
            golden \(name) differs at line \(first + 1): expected "\(expectedLine)", got "\(actualLine)".
            The actual output is in \(actual.path); re-record on purpose with MIXER_GOLDEN_RECORD=1.
            """, file: file, line: line)
    }
}
