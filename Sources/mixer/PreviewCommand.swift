import ArgumentParser
import Foundation
import MixerEngine
import MixerTask

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Render a task's layout to a PNG without any inputs: cells outlined and labelled, images drawn.")

    @Argument(help: "The task JSON file ('-' for standard input).")
    var task: String

    @Option(name: .shortAndLong, help: "The PNG to write.")
    var output: String = "layout.png"

    @OptionGroup var global: GlobalOptions

    func run() throws {
        _ = global.makeLogger()
        // Inputs are not needed for a preview, so only the task and its images are checked.
        guard let text = readTaskText(path: task) else { throw ExitCode(ExitStatus.invalidTask) }
        let images = ImageLibrary()
        let document: TaskDocument
        do {
            document = try TaskParser.parse(text, capabilities: Preflight.capabilities(roomURLTemplate: global.roomURLTemplate))
            try images.load(for: document)
        } catch {
            printRefusal(error)
            throw ExitCode(ExitStatus.invalidTask)
        }
        do {
            let png = try LayoutPreview.png(of: document, images: images, roomURLTemplate: global.roomURLTemplate)
            guard FileManager.default.createFile(atPath: output, contents: Data(png)) else {
                writeStderr("error: cannot write \(output)\n")
                throw ExitCode(ExitStatus.runtimeFailure)
            }
        } catch let error as TaskError {
            printRefusal(error)
            throw ExitCode(ExitStatus.invalidTask)
        }
        let cells = document.mixingConfig.videoLayoutList.count, marks = document.mixingConfig.watermarkList.count
        print("wrote \(output): \(document.encoderParam!.width)x\(document.encoderParam!.height), \(cells) cell(s), \(marks) watermark(s)")
    }
}
