/// One SEI message as it travels through the mixer: its payload type and its payload bytes
/// with emulation prevention removed (for type 5, the 16-byte UUID followed by the content).
struct SEIMessage: Sendable, Hashable {
    var payloadType: Int
    var payload: [UInt8]

    /// `user_data_unregistered`: a UUID, then the content.
    static let unregisteredType = 5

    /// A message carrying `content`, prefixed by `uuid` when the type is 5.
    init(payloadType: Int, uuid: [UInt8]? = nil, content: [UInt8]) {
        self.payloadType = payloadType
        payload = (payloadType == SEIMessage.unregisteredType ? uuid ?? [] : []) + content
    }

    init(payloadType: Int, payload: [UInt8]) {
        self.payloadType = payloadType
        self.payload = payload
    }

    /// The UUID of a type-5 message.
    var uuid: [UInt8]? {
        payloadType == SEIMessage.unregisteredType && payload.count >= 16 ? Array(payload.prefix(16)) : nil
    }

    /// The payload after the UUID of a type-5 message; the whole payload otherwise.
    var content: [UInt8] {
        payloadType == SEIMessage.unregisteredType ? Array(payload.dropFirst(16)) : payload
    }

    /// SPEC §3: the payload types users send (5 with a UUID, or 100–254) are forwarded.
    /// Encoders' own type-5 notes (x264 and x265 write their version and settings) are not:
    /// they describe the input's encoder, not the user's content.
    var isForwardable: Bool {
        if payloadType == SEIMessage.unregisteredType {
            guard let uuid else { return false }
            return !SEIMessage.encoderInfoUUIDs.contains(uuid)
        }
        return (100...254).contains(payloadType)
    }

    static let encoderInfoUUIDs: Set<[UInt8]> = [
        // x264: dc45e9bd-e6d9-48b7-962c-d820d923eeef
        [0xdc, 0x45, 0xe9, 0xbd, 0xe6, 0xd9, 0x48, 0xb7, 0x96, 0x2c, 0xd8, 0x20, 0xd9, 0x23, 0xee, 0xef],
        // x265: 2ca2de09-b517-47db-bb55-a4fe7fd7a14a
        [0x2c, 0xa2, 0xde, 0x09, 0xb5, 0x17, 0x47, 0xdb, 0xbb, 0x55, 0xa4, 0xfe, 0x7f, 0xd7, 0xa1, 0x4a],
    ]
}
