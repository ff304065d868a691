import Foundation
import MediaCore
import MixerTask
import Synchronization

/// The task's images (background, placeholders, watermarks), each fetched and decoded once
/// and then shared by every layout that uses it. Loading happens before a start or an
/// update is accepted (SPEC §5: unreachable images are refused up front), never on the
/// mixing thread's clock.
public final class ImageLibrary: Sendable {
    /// SPEC §1.4: at most 2 MB.
    public static let sizeLimit = 2 * 1024 * 1024
    /// Each download attempt gives up after this long; a few attempts are made.
    public static let downloadTimeout = 5.0
    public static let downloadAttempts = 3

    private let images = Mutex<[String: StillImage]>([:])

    public init() {}

    /// The decoded image at `location`, fetching and decoding it the first time.
    public func image(_ location: String) throws(StillImageError) -> StillImage {
        if let cached = images.withLock({ $0[location] }) { return cached }
        let bytes = try ImageLibrary.fetchWithRetries(location)
        let image = try StillImageLoader.decode(bytes)
        images.withLock { $0[location] = image }
        return image
    }

    /// Decoded already (the mixing thread only draws what is here).
    func loaded(_ location: String) -> StillImage? { images.withLock { $0[location] } }

    private static func fetchWithRetries(_ location: String) throws(StillImageError) -> [UInt8] {
        let isNetwork = location.lowercased().hasPrefix("http://") || location.lowercased().hasPrefix("https://")
        var attempt = 1
        while true {
            do {
                return try StillImageLoader.fetch(location, limit: sizeLimit, timeout: downloadTimeout)
            } catch {
                // A missing file, an HTTP 4xx ("Server returned 404 Not Found") or an oversized
                // image will not get better by asking again; timeouts and refused connections may.
                guard isNetwork, case .unreadable(let reason) = error, !reason.contains("Server returned 4"),
                      attempt < downloadAttempts else { throw error }
                Thread.sleep(forTimeInterval: 0.5 * Double(attempt))
                attempt += 1
            }
        }
    }

    /// Loads every image `task` uses, refusing with `ResourceNotFound.Image` and the field
    /// of the first one that cannot be used.
    public func load(for task: TaskDocument) throws(TaskError) {
        for (field, location) in ImageLibrary.references(task) {
            do {
                _ = try image(location)
            } catch {
                throw TaskError.notFound("Image", "\(field) \"\(location)\" \(error)")
            }
        }
    }

    /// Every image a task refers to, with the field that names it.
    static func references(_ task: TaskDocument) -> [(field: String, location: String)] {
        let config = task.mixingConfig
        var references: [(String, String)] = []
        if let background = config.backgroundImage { references.append(("mixingConfig.backgroundImage", background)) }
        for (index, cell) in config.videoLayoutList.enumerated() {
            if let placeholder = cell.placeHolderImage {
                references.append(("mixingConfig.videoLayoutList[\(index)].placeHolderImage", placeholder))
            }
        }
        for (index, watermark) in config.watermarkList.enumerated() {
            references.append(("mixingConfig.watermarkList[\(index)].watermarkUrl", watermark.url))
        }
        return references
    }
}
