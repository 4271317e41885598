// Splits encoded VP8 frames into RTP payloads (RFC 7741 §4): each payload is a descriptor plus a slice
// of the frame. Every payload carries a 15-bit PictureID that increments per frame (so receivers and SFUs can
// tell which frames were lost); the first payload of a frame has S = 1, PID = 0; the RTP marker goes on
// the last. Slices are equal-sized within one byte (`EqualSlices`).

// MARK: - Types

/// Turns encoded VP8 frames into RTP payloads no larger than `maxPayloadSize`.
public struct VP8Packetizer: Sendable {
    /// Largest payload produced, descriptor included (the RTP header and SRTP tag come on top).
    public let maxPayloadSize: Int
    /// The PictureID the next frame will carry (15 bits).
    public private(set) var pictureID: UInt16
    /// Reused output buffer so the emitting path does not allocate per packet.
    private var scratch: [UInt8]

    /// Descriptor length with X, I and a 15-bit PictureID: 4 bytes.
    static let descriptorLength = 4

    // MARK: - Public API

    /// Creates a packetizer.
    /// - Parameters:
    ///   - maxPayloadSize: 1 200 by default, which leaves room for RTP, extensions and SRTP under a 1 280-byte path MTU.
    ///   - initialPictureID: first PictureID (only its low 15 bits are used); random by default as RFC 7741 §4.2 suggests.
    /// - Precondition: `maxPayloadSize` leaves at least one byte of frame data after the 4-byte descriptor.
    public init(maxPayloadSize: Int = 1_200, initialPictureID: UInt16 = .random(in: 0...0x7FFF)) {
        precondition(maxPayloadSize > Self.descriptorLength, "maxPayloadSize too small for a VP8 payload")
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
    ///   - frame: the VP8 bitstream of one frame; an empty frame produces nothing.
    ///   - nonReference: set N on every payload (the frame is not a reference for later ones).
    ///   - emit: called with each payload (valid only during the call) and whether it is the last (RTP marker).
    public mutating func packetize(_ frame: UnsafeRawBufferPointer, nonReference: Bool = false,
                                   emit: (UnsafeRawBufferPointer, _ isLast: Bool) throws -> Void) rethrows {
        guard !frame.isEmpty else { return }
        var descriptor = VP8PayloadDescriptor(nonReference: nonReference, startOfPartition: true, partitionIndex: 0,
                                              pictureID: pictureID, longPictureID: true)
        try scratch.withUnsafeMutableBytes { buffer in
            try EqualSlices.forEach(length: frame.count, capacity: maxPayloadSize - Self.descriptorLength) { _, slice, isLast in
                let header = descriptor.write(to: buffer)
                UnsafeMutableRawBufferPointer(rebasing: buffer[header ..< header + slice.count])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: frame[slice]))
                try emit(UnsafeRawBufferPointer(rebasing: buffer[0 ..< header + slice.count]), isLast)
                descriptor.startOfPartition = false
            }
        }
        pictureID = (pictureID &+ 1) & 0x7FFF
    }

    /// Packetizes one frame into owned payloads; the last one takes the RTP marker.
    public mutating func packetize(_ frame: [UInt8], nonReference: Bool = false) -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        payloads.reserveCapacity(payloadCount(frameLength: frame.count))
        frame.withUnsafeBytes { bytes in
            packetize(bytes, nonReference: nonReference) { payload, _ in payloads.append(Array(payload)) }
        }
        return payloads
    }

    /// Packetizes an encoder's output frame into owned payloads; the last one takes the RTP marker.
    public mutating func packetize(_ frame: EncodedVideoFrame) -> [[UInt8]] {
        packetize(frame.data)
    }
}
