// Splits encoded VP9 frames (one spatial and one temporal layer) into RTP payloads (RFC 9628 §4):
// each payload is a 3-byte descriptor in non-flexible mode — I = 1 with a 15-bit picture ID that
// increments per picture, P = 0 on key frames, B on the first payload, E on the last — plus a slice
// of the frame (`EqualSlices`); the RTP marker goes on the last (the end of the picture). Without
// L, receivers read the stream as spatial and temporal layer 0, as the SFU's layer selector does.
// A scalable encoder's pictures go out per layer frame with layer indices (`VP9Packetizer+Layers`).

/// Turns encoded VP9 frames into RTP payloads no larger than `maxPayloadSize`.
public struct VP9Packetizer: Sendable {
    /// Largest payload produced, descriptor included (the RTP header and SRTP tag come on top).
    public let maxPayloadSize: Int
    /// The picture ID the next frame will carry (15 bits).
    public internal(set) var pictureID: UInt16
    /// TL0PICIDX of the last temporal-layer-0 picture of a scalable stream (`VP9Packetizer+Layers`).
    public internal(set) var tl0PicIndex: UInt8 = .random(in: 0...255)
    /// Reused output buffer so the emitting path does not allocate per packet.
    var scratch: [UInt8]

    /// I|P|L|F|B|E|V|Z, then M = 1 and the 15-bit picture ID.
    static let descriptorLength = 3

    /// Creates a packetizer.
    /// - Parameters:
    ///   - maxPayloadSize: 1 200 by default, as for VP8.
    ///   - initialPictureID: first picture ID (its low 15 bits); random by default (RFC 9628 §4.2).
    /// - Precondition: `maxPayloadSize` leaves at least one byte of frame data after the descriptor.
    public init(maxPayloadSize: Int = 1_200, initialPictureID: UInt16 = .random(in: 0...0x7FFF)) {
        precondition(maxPayloadSize > Self.descriptorLength, "maxPayloadSize too small for a VP9 payload")
        self.maxPayloadSize = maxPayloadSize
        self.pictureID = initialPictureID & 0x7FFF
        self.scratch = [UInt8](repeating: 0, count: maxPayloadSize)
    }

    /// Number of payloads a frame of `frameLength` bytes splits into.
    public func payloadCount(frameLength: Int) -> Int {
        EqualSlices.count(length: frameLength, capacity: maxPayloadSize - Self.descriptorLength)
    }

    /// Packetizes one frame, handing each payload to `emit` in order from a reused buffer (no allocation).
    /// - Parameters:
    ///   - frame: the VP9 bitstream of one frame; an empty frame produces nothing.
    ///   - isKeyFrame: the frame is a key frame (P = 0; otherwise P = 1, predicted from earlier pictures).
    ///   - emit: called with each payload (valid only during the call) and whether it is the last (RTP marker).
    public mutating func packetize(_ frame: UnsafeRawBufferPointer, isKeyFrame: Bool,
                                   emit: (UnsafeRawBufferPointer, _ isLast: Bool) throws -> Void) rethrows {
        guard !frame.isEmpty else { return }
        let id = pictureID
        try scratch.withUnsafeMutableBytes { buffer in
            try EqualSlices.forEach(length: frame.count, capacity: maxPayloadSize - Self.descriptorLength) { index, slice, isLast in
                // RFC 9628 §4.2: I = 0x80, P = 0x40, B = 0x08, E = 0x04.
                buffer[0] = 0x80 | (isKeyFrame ? 0 : 0x40) | (index == 0 ? 0x08 : 0) | (isLast ? 0x04 : 0)
                buffer[1] = 0x80 | UInt8(id >> 8 & 0x7F)
                buffer[2] = UInt8(id & 0xFF)
                let header = Self.descriptorLength
                UnsafeMutableRawBufferPointer(rebasing: buffer[header ..< header + slice.count])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: frame[slice]))
                try emit(UnsafeRawBufferPointer(rebasing: buffer[0 ..< header + slice.count]), isLast)
            }
        }
        pictureID = (pictureID &+ 1) & 0x7FFF
    }

    /// Packetizes an encoder's output frame into owned payloads; the last one takes the RTP marker.
    /// A scalable encoder's picture (`layerFrames`) goes out layer frame by layer frame.
    public mutating func packetize(_ frame: EncodedVideoFrame) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(payloadCount(frameLength: frame.data.count))
        frame.data.withUnsafeBytes { bytes in
            if let mode = frame.scalabilityMode, !frame.layerFrames.isEmpty {
                packetize(bytes, layers: frame.layerFrames, mode: mode, width: frame.width, height: frame.height,
                          isKeyFrame: frame.isKeyFrame) { payload, _ in payloads.append(Array(payload)) }
            } else {
                packetize(bytes, isKeyFrame: frame.isKeyFrame) { payload, _ in payloads.append(Array(payload)) }
            }
        }
        return payloads
    }
}
