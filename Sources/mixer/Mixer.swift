import ArgumentParser

@main
struct Mixer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mixer",
        abstract: "Mix up to 16 media streams into one and push it to CDN URLs or files.",
        version: "0.1.0",
        subcommands: [RunCommand.self, ValidateCommand.self, PreviewCommand.self, ServeCommand.self,
                      StartCommand.self, UpdateCommand.self, StopCommand.self, ListCommand.self, StatusCommand.self, EventsCommand.self])
}

/// Options every subcommand shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "warning"

    @Option(name: .customLong("ffmpeg-log-level"), help: "FFmpeg's log level: quiet, error, warning, info, debug.")
    var ffmpegLogLevel: String = "error"

    @Option(name: .customLong("room-url"),
            help: "Room directory URL template ({roomId}, {userId}, {streamType}); default $MIXER_ROOM_URL or rtmp://127.0.0.1:1935/live/{roomId}_{userId}_{streamType}.")
    var roomURL: String?

    @Option(name: .long, help: "Folder of layout templates (NAME.json); default $MIXER_LAYOUTS, ./layouts, or the one installed with mixer.")
    var layouts: String?
}
