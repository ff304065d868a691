import Foundation
import MediaCore
import MixerTask

/// Checks that need the worker's machine, run before anything starts: local input files
/// exist, output folders exist, and features this version lacks are refused clearly.
public enum Preflight {
    /// The capabilities of this worker, from the linked FFmpeg.
    public static func capabilities(roomURLTemplate: String) -> WorkerCapabilities {
        WorkerCapabilities(heAACEncoder: Encoder.isAvailable("libfdk_aac") ? "libfdk_aac" : nil,
                           roomURLTemplate: roomURLTemplate, layouts: LayoutTemplateLibrary(directory: LayoutTemplateLibrary.locate()))
    }

    /// Refusals for a parsed task: unreadable input files, missing output folders, images
    /// that cannot be loaded (which are loaded into `images` on the way). Returns warnings
    /// about fields that have no effect (none in this version).
    public static func check(_ task: TaskDocument, roomURLTemplate: String, images: ImageLibrary = ImageLibrary()) throws(TaskError) -> [String] {
        let plan = InputPlan(task: task, roomURLTemplate: roomURLTemplate)
        for (index, input) in plan.inputs.enumerated() where isLocalPath(input.url) {
            let path = input.url.hasPrefix("file://") ? String(input.url.dropFirst(7)) : input.url
            if !FileManager.default.isReadableFile(atPath: path) {
                let field = task.streams.firstIndex { $0.key == input.key }.map { "streams[\($0)].url" } ?? "input \(index)"
                throw TaskError.notFound("Input", "\(field) \"\(input.url)\" (user \(input.key)) is not a readable file")
            }
        }
        for (index, output) in task.target.cdnUrls.enumerated() {
            guard case .file = output.kind else { continue }
            let path = output.url.hasPrefix("file://") ? String(output.url.dropFirst(7)) : output.url
            let directory = (path as NSString).deletingLastPathComponent
            var isDirectory: ObjCBool = false
            let folder = directory.isEmpty ? "." : directory
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue,
                  FileManager.default.isWritableFile(atPath: folder) else {
                throw TaskError.notFound("OutputDirectory", "target.cdnUrlList[\(index)].rtmpUrl \"\(output.url)\": folder \"\(folder)\" does not exist or is not writable")
            }
        }
        try images.load(for: task)
        return []
    }

    static func isLocalPath(_ url: String) -> Bool {
        url.hasPrefix("file://") || (!url.contains("://") && !TestSourceSpec.isTestSource(url))
    }

    /// True when every input is a file or testsrc: and every output a file: such a task
    /// runs as fast as it can, deterministically.
    public static func isOffline(_ task: TaskDocument, roomURLTemplate: String) -> Bool {
        let plan = InputPlan(task: task, roomURLTemplate: roomURLTemplate)
        let inputsOffline = plan.inputs.allSatisfy { isLocalPath($0.url) || TestSourceSpec.isTestSource($0.url) }
        let outputsOffline = task.target.cdnUrls.allSatisfy { !$0.kind.isLive } && task.target.mode != .mixStreamToRoom
        return inputsOffline && outputsOffline
    }
}
