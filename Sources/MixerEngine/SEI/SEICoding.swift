/// Writes and reads SEI NAL units (H.264 7.3.2.3, H.265 7.3.5): each message's payload type
/// and size as runs of 0xFF plus a last byte, the payload, the RBSP stop bit, and emulation
/// prevention over everything after the NAL header.
enum SEICoding {
    /// One SEI NAL unit (header included, no start code) carrying `messages` in order.
    static func nal(_ messages: [SEIMessage], syntax: NALSyntax) -> [UInt8] {
        var rbsp: [UInt8] = []
        rbsp.reserveCapacity(messages.reduce(8) { $0 + $1.payload.count + 4 })
        for message in messages {
            appendFFCoded(message.payloadType, to: &rbsp)
            appendFFCoded(message.payload.count, to: &rbsp)
            rbsp += message.payload
        }
        rbsp.append(0x80)  // rbsp_stop_one_bit, then alignment zeros
        return syntax.seiHeader + escape(rbsp)
    }

    /// The messages in one SEI NAL unit (header included). A truncated or malformed unit
    /// yields the messages before the damage.
    static func messages(inNAL unit: UnsafeBufferPointer<UInt8>, syntax: NALSyntax) -> [SEIMessage] {
        guard unit.count > syntax.headerSize else { return [] }
        let rbsp = unescape(UnsafeBufferPointer(rebasing: unit[syntax.headerSize...]))
        var messages: [SEIMessage] = []
        var position = 0
        // more_rbsp_data(): stop at the trailing 0x80 (and anything shorter than a header).
        while rbsp.count - position >= 2 {
            guard let type = readFFCoded(rbsp, &position), let size = readFFCoded(rbsp, &position),
                  position + size <= rbsp.count else { break }
            messages.append(SEIMessage(payloadType: type, payload: Array(rbsp[position..<(position + size)])))
            position += size
        }
        return messages
    }

    static func appendFFCoded(_ value: Int, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 255 {
            bytes.append(0xFF)
            rest -= 255
        }
        bytes.append(UInt8(rest))
    }

    static func readFFCoded(_ bytes: [UInt8], _ position: inout Int) -> Int? {
        var value = 0
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            value += Int(byte)
            if byte != 0xFF { return value }
        }
        return nil
    }

    /// Inserts 0x03 after every two zero bytes that precede a byte ≤ 3 (or end the unit),
    /// so that no start code appears inside the NAL unit.
    static func escape(_ rbsp: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rbsp.count + rbsp.count / 64 + 2)
        var zeros = 0
        for byte in rbsp {
            if zeros == 2 && byte <= 3 {
                out.append(0x03)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Removes the emulation-prevention 0x03 of every `00 00 03`.
    static func unescape(_ data: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var zeros = 0
        for byte in data {
            if zeros == 2 && byte == 3 {
                zeros = 0
                continue
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }
}
