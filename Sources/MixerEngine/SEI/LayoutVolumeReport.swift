import Foundation
import MixerTask

/// The layout/volume SEI of SPEC §3: the canvas, each user's region and zOrder, and how loud
/// each user was in the mix over the last interval.
struct LayoutVolumeReport {
    /// One user in the report. Users mixed only for audio (a voice room's speakers) are
    /// listed with an empty region, so that listeners can still see who is talking.
    struct Region: Equatable {
        var key: InputKey
        var zOrder: Int
        var rect: Rect
    }

    /// The energy each input added to the mix since the last report, and the samples
    /// (per channel, times channels) that covers.
    private var energy: [InputKey: Float] = [:]
    private var samples = 0

    mutating func add(_ key: InputKey, energy value: Float) {
        energy[key, default: 0] += value
    }

    mutating func addSamples(_ count: Int) { samples += count }

    /// 0–100 from the RMS level over the interval, scaled so that a full-scale sine reads 100
    /// (a sine of amplitude a reads 100·a); silence and absent audio read 0.
    func volume(of key: InputKey) -> Int {
        guard samples > 0, let value = energy[key] else { return 0 }
        let rms = (Double(value) / Double(samples)).squareRoot()
        return min(100, Int((rms * 2.0.squareRoot() * 100).rounded()))
    }

    /// The JSON payload, and a fresh interval.
    mutating func take(appData: String, canvasWidth: Int, canvasHeight: Int, regions: [Region], unixTime: Int) -> String {
        let quote = JSONValue.quote
        let entries = regions.map { region in
            "{\"uid\":\(quote(region.key.user.userId)),\"zorder\":\(region.zOrder),\"volume\":\(volume(of: region.key)),"
                + "\"x\":\(region.rect.x),\"y\":\(region.rect.y),\"w\":\(region.rect.width),\"h\":\(region.rect.height)}"
        }
        energy.removeAll(keepingCapacity: true)
        samples = 0
        return "{\"app_data\":\(quote(appData)),\"canvas\":{\"w\":\(canvasWidth),\"h\":\(canvasHeight)},"
            + "\"regions\":[\(entries.joined(separator: ","))],\"ver\":\"1.0\",\"ts\":\(unixTime)}"
    }
}
