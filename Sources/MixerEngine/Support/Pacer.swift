/// Releases media no faster than its own timestamps say (ffmpeg's `-re`), so that a file
/// or a synthetic source behaves like a live stream in a real-time task.
struct Pacer {
    private var origin: (wall: Double, media: Double)?
    private let stop: StopFlag

    init(stop: StopFlag) { self.stop = stop }

    /// Sleeps until media time `time` is due; returns false if the thread should stop.
    mutating func wait(until time: Double) -> Bool {
        let now = MonotonicClock.now()
        if origin == nil { origin = (now, time) }
        let due = origin!.wall + (time - origin!.media)
        // A jump of over 2 s (a loop, a cut) restarts the pacing instead of stalling.
        if due - now > 2 || now - due > 2 { origin = (now, time) }
        while !stop.isSet {
            let remaining = origin!.wall + (time - origin!.media) - MonotonicClock.now()
            if remaining <= 0 { return true }
            MonotonicClock.sleep(until: MonotonicClock.now() + min(remaining, 0.05))
        }
        return false
    }
}
