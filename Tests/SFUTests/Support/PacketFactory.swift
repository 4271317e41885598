import RTCWire

/// Builds RTP packets as a publisher would send them.
enum PacketFactory {
    static func rtp(pt: UInt8, seq: UInt16, ts: UInt32, ssrc: UInt32, marker: Bool = false,
                    extensions: [(UInt8, [UInt8])] = [], payload: [UInt8], padding: UInt8 = 0) -> [UInt8] {
        RTPPacket(marker: marker, payloadType: pt, sequenceNumber: seq, timestamp: ts, ssrc: ssrc,
                  extensionProfile: extensions.isEmpty ? nil : .oneByte,
                  extensions: extensions.map { RTPHeaderExtensionElement(id: $0.0, value: $0.1) },
                  payload: payload, paddingLength: padding).serialize()
    }

    /// A VP8 payload (RFC 7741 §4.2) with X, I and a 15-bit PictureID, S=1/PID=0 when `start`,
    /// then a frame tag: P=0 with the key-frame start code for a key frame, P=1 otherwise.
    static func vp8(pictureID: UInt16, start: Bool = true, keyFrame: Bool = false, tl0: UInt8? = nil, size: Int = 40) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | (start ? 0x10 : 0), tl0 == nil ? 0x80 : 0xC0,
                              0x80 | UInt8(pictureID >> 8 & 0x7F), UInt8(pictureID & 0xFF)]
        if let tl0 { bytes.append(tl0) }
        if start && keyFrame {
            bytes += [0x00, 0x00, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xB4, 0x00]
        } else {
            bytes += [0x01, 0x00, 0x00]
        }
        while bytes.count < size { bytes.append(UInt8(truncatingIfNeeded: bytes.count)) }
        return bytes
    }

    /// The PictureID in a payload made by `vp8`.
    static func pictureID(_ payload: [UInt8]) -> UInt16 {
        UInt16(payload[2] & 0x7F) << 8 | UInt16(payload[3])
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func be24(_ value: UInt32) -> [UInt8] { [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
}
