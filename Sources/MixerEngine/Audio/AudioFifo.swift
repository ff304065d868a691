import MediaCore

/// One input's audio on the mixing thread: contiguous samples from `start`, with gaps
/// filled by silence and overlaps dropped, so that samples land where their timestamps say.
struct AudioFifo {
    let channels: Int
    private(set) var start: Int64 = 0
    private var planes: [[Float]]
    private var offset = 0  // samples of each plane already consumed

    init(channels: Int) {
        self.channels = channels
        planes = Array(repeating: [], count: channels)
    }

    /// The sample index just past the last buffered sample.
    var end: Int64 { start + Int64(planes[0].count - offset) }
    var isEmpty: Bool { planes[0].count == offset }

    mutating func append(_ chunk: TimedAudio) {
        var skip = 0
        if isEmpty {
            start = chunk.start
        } else if chunk.start > end {
            let gap = Int(chunk.start - end)
            for c in 0..<channels { planes[c].append(contentsOf: repeatElement(0, count: gap)) }
        } else if chunk.start < end {
            skip = Int(min(Int64(chunk.audio.count), end - chunk.start))
        }
        let count = chunk.audio.count
        guard skip < count else { return }
        chunk.audio.samples.withUnsafeBufferPointer { source in
            for c in 0..<channels {
                let channel = min(c, chunk.audio.channels - 1)
                planes[c].append(contentsOf: source[(channel * count + skip)..<(channel * count + count)])
            }
        }
    }

    /// Adds `gain` times the samples of [from, from + count) into `mix` (planar,
    /// `count` per channel); missing samples count as silence. Consumes them. Returns the
    /// sum of squares of what was added (the input's loudness in the mix).
    @discardableResult
    mutating func mix(from: Int64, count: Int, gain: Float, into mix: UnsafeMutablePointer<Float>) -> Float {
        var energy: Float = 0
        let lower = max(from, start)
        let upper = min(from + Int64(count), end)
        if upper > lower {
            let target = Int(lower - from)
            let source = offset + Int(lower - start)
            let length = Int(upper - lower)
            for c in 0..<channels {
                planes[c].withUnsafeBufferPointer { plane in
                    let out = mix + c * count + target
                    let input = plane.baseAddress! + source
                    for i in 0..<length {
                        let sample = gain * input[i]
                        out[i] += sample
                        energy += sample * sample
                    }
                }
            }
        }
        discard(upTo: from + Int64(count))
        return energy
    }

    /// Forgets samples before `index`.
    mutating func discard(upTo index: Int64) {
        guard index > start else { return }
        let drop = Int(min(index, end) - start)
        offset += drop
        start = index > end ? index : start + Int64(drop)
        if offset == planes[0].count {
            for c in 0..<channels { planes[c].removeAll(keepingCapacity: true) }
            offset = 0
        } else if offset > 8192 {
            for c in 0..<channels { planes[c].removeFirst(offset) }
            offset = 0
        }
    }
}
