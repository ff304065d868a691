import Foundation
import MediaCore
import XCTest

/// The C shims re-export FFmpeg macros Swift cannot import; each must equal the macro.
final class ShimTests: XCTestCase {
    func test_AVERROR_ofAPosixCode_isItsNegation() {
        XCTAssertEqual(AVCode.again, -EAGAIN)
        XCTAssertEqual(AVCode.posix(EINVAL), -EINVAL)
    }

    func test_AVERROR_EOF_isTheNegatedFourCC() {
        let tag = Int32(UInt8(ascii: "E")) | Int32(UInt8(ascii: "O")) << 8 | Int32(UInt8(ascii: "F")) << 16 | Int32(UInt8(ascii: " ")) << 24
        XCTAssertEqual(AVCode.endOfFile, -tag)
    }

    func test_AV_NOPTS_VALUE_isInt64Min() {
        XCTAssertEqual(AVCode.noTimestamp, Int64.min)
    }

    func test_errorMessages_comeFromFFmpegWithoutFormatting() {
        XCTAssertEqual(FFmpegError(code: AVCode.endOfFile, operation: "read").message, "End of file")
        XCTAssertEqual(FFmpegError(code: AVCode.again, operation: "x").description, "x: Resource temporarily unavailable")
    }

    func test_rationalRescale_roundsToNearest() {
        XCTAssertEqual(Rational(1, 15).rescale(1, to: Rational(1, 1000)), 67)
        XCTAssertEqual(Rational(1, 48000).rescale(1024, to: Rational(1, 1000)), 21)
    }

    func test_interruptFlag_startsClearAndLatches() {
        let flag = InterruptFlag()
        XCTAssertFalse(flag.isStopRequested)
        flag.requestStop()
        XCTAssertTrue(flag.isStopRequested)
    }

    func test_openingAMissingFile_throwsWithTheOperationNamed() {
        XCTAssertThrowsError(try InputFile(url: "/nonexistent/input.mp4")) { error in
            let ffmpeg = error as? FFmpegError
            XCTAssertEqual(ffmpeg?.code, AVCode.posix(ENOENT))
            XCTAssertTrue(ffmpeg?.operation.contains("avformat_open_input(/nonexistent/input.mp4)") ?? false)
        }
    }
}
