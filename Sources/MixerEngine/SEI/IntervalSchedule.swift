/// When a periodic SEI message is due: on the first frame at or after each multiple of its
/// interval (so within one frame of it), on every IDR frame when it follows IDRs, and on
/// the first frame after its settings change.
struct IntervalSchedule {
    private var lastSlot: Int64?

    mutating func isDue(frame: Int64, fps: Int, intervalMs: Int, followIdr: Bool, isIDR: Bool, changed: Bool) -> Bool {
        let slot = frame * 1000 / (Int64(fps) * Int64(max(1, intervalMs)))
        defer { lastSlot = slot }
        return slot != lastSlot || changed || (followIdr && isIDR)
    }
}
