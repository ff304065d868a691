import CFFmpeg
import CFFmpegShims

/// A stop flag (and optional deadline) that FFmpeg polls during blocking I/O, so that a
/// dead peer never hangs a thread. Its state is C11 atomics, which is why it may be shared.
public final class InterruptFlag: @unchecked Sendable {
    let pointer: OpaquePointer

    public init() {
        guard let interrupt = mx_interrupt_new() else { fatalError("mx_interrupt_new: out of memory") }
        pointer = interrupt
    }

    deinit { mx_interrupt_free(pointer) }

    /// Makes every blocking FFmpeg call using this flag return with AVERROR_EXIT.
    public func requestStop() { mx_interrupt_request_stop(pointer) }

    public var isStopRequested: Bool { mx_interrupt_stop_requested(pointer) != 0 }

    /// Interrupts calls that are still blocked `seconds` from now; 0 disarms.
    public func arm(timeout seconds: Double) { mx_interrupt_arm(pointer, Int64(seconds * 1_000_000)) }

    var callback: AVIOInterruptCB { mx_interrupt_callback(pointer) }
}
