/// Updates of a running task (SPEC §2): the update document has the task's shape; each
/// top-level section it gives replaces the running one, a section left out (or null) stays.
/// The merged task is validated in full, then checked against what may not change.
public enum TaskUpdate {
    /// The running task's JSON with the update's top-level sections laid over it.
    public static func merge(_ update: JSONValue, over current: JSONValue) throws(TaskError) -> JSONValue {
        guard case .object(var merged) = current else { return update }
        guard case .object(let sections) = update else {
            throw TaskError.invalid("Json", "an update must be an object, got \(update.typeName)")
        }
        for (key, value) in sections where value != .null { merged[key] = value }
        return .object(merged)
    }

    /// Refuses changes an update may not make; the running task then goes on unchanged.
    public static func checkAllowed(from old: TaskDocument, to new: TaskDocument) throws(TaskError) {
        if let id = new.taskId, let running = old.taskId, id != running {
            throw TaskError.invalid("TaskId", "taskId \"\(id)\" does not match the running task \"\(running)\"")
        }
        switch (old.encoderParam, new.encoderParam) {
        case (nil, nil):
            guard old.target.mode == new.target.mode && old.target.relayUser == new.target.relayUser else {
                throw TaskError.unsupported("ModeChange", "a relay that copies packets can change only its target.cdnUrlList; start a new task to relay another user or to mix")
            }
        case (nil, .some), (.some, nil):
            throw TaskError.unsupported("ModeChange", "encoderParam cannot be added to or removed from a running task: a relay that copies packets and a transcoding task are different streams; start a new task")
        case (.some(let before), .some(let after)):
            if before.isAudioOnly != after.isAudioOnly {
                let kinds = (before.isAudioOnly ? "audio-only" : "audio+video", after.isAudioOnly ? "audio-only" : "audio+video")
                throw TaskError.unsupported("MediaKindChange", "encoderParam.videoEncodedWidth/Height would turn the \(kinds.0) output into \(kinds.1); the kind of output cannot change while the task runs")
            }
            let fixed: [(String, Int, Int)] = [
                ("videoEncodedWidth", before.width, after.width), ("videoEncodedHeight", before.height, after.height),
                ("videoEncodedFPS", before.fps, after.fps), ("videoEncodedGOP", before.gopSeconds, after.gopSeconds),
                ("videoEncodedCodecType", before.videoCodec.rawValue, after.videoCodec.rawValue),
                ("audioEncodedSampleRate", before.audioSampleRate, after.audioSampleRate),
                ("audioEncodedChannelNum", before.audioChannels, after.audioChannels),
                ("audioEncodedKbps", before.audioKbps, after.audioKbps),
                ("audioEncodedCodecType", before.audioCodec.rawValue, after.audioCodec.rawValue),
            ]
            for (field, was, now) in fixed where was != now {
                throw TaskError.unsupported("EncoderParamChange", "encoderParam.\(field) cannot change while the task runs (\(was) → \(now)); only videoEncodedKbps and videoSeiParams may")
            }
            if before.effectiveVideoKbps != after.effectiveVideoKbps && after.videoCodec != .h264 && !after.isAudioOnly {
                throw TaskError.unsupported("EncoderParamChange", "encoderParam.videoEncodedKbps can change while running only with H.264 (videoEncodedCodecType 0)")
            }
        }
    }
}
