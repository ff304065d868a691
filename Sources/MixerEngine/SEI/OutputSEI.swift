import Foundation
import MediaCore
import MixerTask

/// The SEI of a mixing task's output (SPEC §3), gathered per frame as it is composed and
/// written into that frame's access unit when the encoder hands it back: the task's own
/// `videoSeiParams`, the layout/volume report, and the SEI its inputs carry. Confined to the
/// mixing thread.
final class OutputSEI {
    private let syntax: NALSyntax
    private let fps: Int
    private let gopFrames: Int64
    private let canvasWidth: Int
    private let canvasHeight: Int
    /// Unix time of output time 0, for the report's `ts`.
    private let origin: Double
    private var custom = IntervalSchedule()
    private var layout = IntervalSchedule()
    private var lastCustom: SeiParams?
    private var lastLayout: LayoutVolumeSei?
    private var report = LayoutVolumeReport()
    /// Messages of frames the encoder has not returned yet, by frame index (= packet pts).
    private var waiting: [Int64: [SEIMessage]] = [:]

    init(param: EncoderParam) {
        syntax = param.videoCodec == .h265 ? .h265 : .h264
        fps = param.fps
        gopFrames = Int64(param.gopSeconds * param.fps)
        canvasWidth = param.width
        canvasHeight = param.height
        origin = Date().timeIntervalSince1970
    }

    /// Frames the encoder is made to start an IDR at (the GOP grid), known before encoding.
    func isIDR(_ frame: Int64) -> Bool { frame % gopFrames == 0 }

    func addAudio(_ key: InputKey, energy: Float) { report.add(key, energy: energy) }
    func addAudioSamples(_ count: Int) { report.addSamples(count) }

    /// Decides what frame `frame` carries: the task's message and the report when due, then
    /// the forwarded messages in order.
    func plan(frame: Int64, task: TaskDocument, regions: [LayoutVolumeReport.Region], forwarded: [SEIMessage]) {
        var messages: [SEIMessage] = []
        let idr = isIDR(frame)
        if let params = task.encoderParam?.videoSei {
            if custom.isDue(frame: frame, fps: fps, intervalMs: params.intervalMs, followIdr: params.followIdr,
                            isIDR: idr, changed: params != lastCustom) {
                messages.append(SEIMessage(payloadType: params.payloadType, uuid: params.payloadUuid,
                                           content: Array(params.payloadContent.utf8)))
            }
        }
        lastCustom = task.encoderParam?.videoSei
        if let params = task.mixingConfig.layoutVolumeSei {
            if layout.isDue(frame: frame, fps: fps, intervalMs: params.intervalMs, followIdr: params.followIdr,
                            isIDR: idr, changed: params != lastLayout) {
                let unixTime = Int(origin + Double(frame) / Double(fps))
                let json = report.take(appData: params.appData, canvasWidth: canvasWidth, canvasHeight: canvasHeight,
                                       regions: regions, unixTime: unixTime)
                messages.append(SEIMessage(payloadType: params.payloadType, uuid: params.payloadUuid, content: Array(json.utf8)))
            }
        }
        lastLayout = task.mixingConfig.layoutVolumeSei
        messages += forwarded
        if !messages.isEmpty { waiting[frame] = messages }
    }

    /// Writes each video packet's planned messages into it.
    func attach(_ packets: [EncodedPacket]) -> [EncodedPacket] {
        guard !waiting.isEmpty else { return packets }
        return packets.map { packet in
            guard packet.kind == .video, let messages = waiting.removeValue(forKey: packet.pts) else { return packet }
            var packet = packet
            packet.data = SEIWriter.insert(messages, into: packet.data, syntax: syntax)
            return packet
        }
    }
}
