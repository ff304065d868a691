/// Finds the SEI messages in one stream's packets. Lives on its input's thread.
struct SEIReader {
    let syntax: NALSyntax
    let framing: NALFraming

    /// nil for a codec that carries no SEI the mixer understands (anything but H.264/H.265).
    init?(codecName: String, extradata: [UInt8]) {
        guard let syntax = NALSyntax(codecName: codecName) else { return nil }
        self.syntax = syntax
        framing = NALFraming(syntax: syntax, extradata: extradata)
    }

    init(syntax: NALSyntax, framing: NALFraming) {
        self.syntax = syntax
        self.framing = framing
    }

    /// Every SEI message in one packet (access unit), in bitstream order.
    func messages(in packet: UnsafeBufferPointer<UInt8>) -> [SEIMessage] {
        var messages: [SEIMessage] = []
        for unit in framing.units(in: packet) where syntax.isSEI(syntax.type(ofHeader: packet[unit.lowerBound])) {
            messages += SEICoding.messages(inNAL: UnsafeBufferPointer(rebasing: packet[unit]), syntax: syntax)
        }
        return messages
    }

    func messages(in packet: [UInt8]) -> [SEIMessage] {
        packet.withUnsafeBufferPointer { messages(in: $0) }
    }
}

/// Puts SEI into the encoder's Annex-B access units.
enum SEIWriter {
    /// `packet` with one SEI NAL unit per message inserted before its first picture NAL
    /// unit (after any delimiter, parameter sets and the encoder's own SEI), each on a
    /// 4-byte start code. One message per NAL unit keeps simple player-side parsers, which
    /// read only the first message of a unit, working.
    static func insert(_ messages: [SEIMessage], into packet: [UInt8], syntax: NALSyntax) -> [UInt8] {
        guard !messages.isEmpty else { return packet }
        let position = packet.withUnsafeBufferPointer { data -> Int in
            for unit in NALFraming.annexB.units(in: data) where syntax.isPicture(syntax.type(ofHeader: data[unit.lowerBound])) {
                // Back over the start code (3 bytes, or 4 with its leading zero).
                var start = unit.lowerBound - 3
                if start > 0 && data[start - 1] == 0 { start -= 1 }
                return start
            }
            return data.count
        }
        var inserted: [UInt8] = []
        for message in messages { inserted += [0, 0, 0, 1] + SEICoding.nal([message], syntax: syntax) }
        var result = packet
        result.insert(contentsOf: inserted, at: position)
        return result
    }
}
