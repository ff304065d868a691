import ArgumentParser
import Foundation
import MixerEngine
import MixerTask

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a task without running it (exit 0 valid, 2 refused).")

    @Argument(help: "The task JSON file ('-' for standard input).")
    var task: String

    @OptionGroup var global: GlobalOptions

    func run() throws {
        _ = global.makeLogger()
        guard let loaded = loadTask(path: task, options: global) else { throw ExitCode(ExitStatus.invalidTask) }
        let document = loaded.document, warnings = loaded.warnings
        let plan = InputPlan(task: document, roomURLTemplate: global.roomURLTemplate)
        for warning in warnings { writeStderr("warning: \(warning)\n") }
        let canvas = document.encoderParam.map { $0.isAudioOnly ? "audio only" : "\($0.width)x\($0.height)@\($0.fps)" } ?? "packet copy"
        print("ok: \(document.target.mode.name), \(canvas), \(plan.inputs.count) input(s), \(document.target.cdnUrls.count) output(s)")
        for (index, input) in plan.inputs.enumerated() { print("  input \(index): \(input.key) <- \(input.url)") }
    }
}
