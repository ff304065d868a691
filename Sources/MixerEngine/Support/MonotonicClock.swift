#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic time in seconds and absolute sleeps on it (OBS's `os_sleepto_ns`), so a
/// paced loop stays on its grid `start + n × interval` instead of drifting.
enum MonotonicClock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func sleep(until deadline: Double) {
        var target = timespec(tv_sec: Int(deadline), tv_nsec: Int((deadline - deadline.rounded(.down)) * 1e9))
        #if canImport(Glibc)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
        #else
        let remaining = deadline - now()
        if remaining > 0 { usleep(useconds_t(remaining * 1e6)) }
        _ = target
        #endif
    }
}
