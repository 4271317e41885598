// The VP8 payload descriptor that starts every VP8 RTP payload (RFC 7741 §4.2):
//
//        0 1 2 3 4 5 6 7
//       +-+-+-+-+-+-+-+-+
//       |X|R|N|S|R| PID | (REQUIRED)
//       +-+-+-+-+-+-+-+-+
//  X:   |I|L|T|K| RSV   | (OPTIONAL)
//       +-+-+-+-+-+-+-+-+
//  I:   |M| PictureID   | (OPTIONAL, 7 bits, or 15 bits with the next byte when M = 1)
//       +-+-+-+-+-+-+-+-+
//  L:   |   TL0PICIDX   | (OPTIONAL)
//       +-+-+-+-+-+-+-+-+
//  T/K: |TID|Y| KEYIDX  | (OPTIONAL)
//       +-+-+-+-+-+-+-+-+
//
// Reserved bits are written as 0 and ignored on input, as §4.2 requires.

// MARK: - Types

/// A parsed or to-be-written VP8 payload descriptor.
public struct VP8PayloadDescriptor: Sendable, Equatable {
    /// N: the frame is not used as a reference and may be dropped by a forwarder.
    public var nonReference: Bool = false
    /// S: this packet starts a VP8 partition.
    public var startOfPartition: Bool = false
    /// PID: index (0…7) of the partition this packet belongs to.
    public var partitionIndex: UInt8 = 0
    /// PictureID, incremented per frame: 7 bits, or 15 bits when `longPictureID`.
    public var pictureID: UInt16?
    /// M: whether `pictureID` is written with 15 bits (two bytes) rather than 7.
    public var longPictureID: Bool = true
    /// TL0PICIDX: running index of base-layer (temporal layer 0) frames.
    public var tl0PicIndex: UInt8?
    /// TID: temporal layer index (0…3).
    public var temporalLayerID: UInt8?
    /// Y: layer sync; the frame depends only on base-layer frames. Written when `temporalLayerID` or `keyIndex` is.
    public var layerSync: Bool = false
    /// KEYIDX: running index of key frames (0…31), for decoders that skip frames.
    public var keyIndex: UInt8?

    // MARK: - Public API

    /// Creates a descriptor; every field defaults to absent or zero.
    public init(nonReference: Bool = false, startOfPartition: Bool = false, partitionIndex: UInt8 = 0,
                pictureID: UInt16? = nil, longPictureID: Bool = true, tl0PicIndex: UInt8? = nil,
                temporalLayerID: UInt8? = nil, layerSync: Bool = false, keyIndex: UInt8? = nil) {
        self.nonReference = nonReference
        self.startOfPartition = startOfPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
        self.longPictureID = longPictureID
        self.tl0PicIndex = tl0PicIndex
        self.temporalLayerID = temporalLayerID
        self.layerSync = layerSync
        self.keyIndex = keyIndex
    }

    /// Whether this packet starts a frame: the start of partition 0 (RFC 7741 §4.1).
    public var isFrameStart: Bool { startOfPartition && partitionIndex == 0 }

    /// Parses the descriptor at the start of a VP8 RTP payload without allocating (typed throws: no boxing).
    /// - Returns: the descriptor and its length in bytes (the VP8 data starts there).
    /// - Throws: `RTPPayloadError.emptyPayload`, `.truncatedDescriptor` or `.missingVP8Data`.
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(RTPPayloadError) -> (descriptor: VP8PayloadDescriptor, length: Int) {
        guard let first = payload.first else { throw RTPPayloadError.emptyPayload }
        var descriptor = VP8PayloadDescriptor()
        descriptor.nonReference = first & 0x20 != 0
        descriptor.startOfPartition = first & 0x10 != 0
        descriptor.partitionIndex = first & 0x07
        var reader = PayloadDescriptorReader(payload)
        if first & 0x80 != 0 {
            let extensions = try reader.next()
            if extensions & 0x80 != 0 {
                let (pictureID, long) = try reader.pictureID()
                descriptor.pictureID = pictureID
                descriptor.longPictureID = long
            }
            if extensions & 0x40 != 0 { descriptor.tl0PicIndex = try reader.next() }
            let hasTID = extensions & 0x20 != 0, hasKeyIndex = extensions & 0x10 != 0
            if hasTID || hasKeyIndex {
                let byte = try reader.next()
                if hasTID { descriptor.temporalLayerID = byte >> 6 }
                descriptor.layerSync = byte & 0x20 != 0
                if hasKeyIndex { descriptor.keyIndex = byte & 0x1F }
            }
        }
        guard reader.offset < payload.count else { throw RTPPayloadError.missingVP8Data }
        return (descriptor, reader.offset)
    }

    /// Parses the descriptor at the start of a payload held in an array.
    public static func parse(_ payload: [UInt8]) throws(RTPPayloadError) -> (descriptor: VP8PayloadDescriptor, length: Int) {
        // `withUnsafeBytes` is not typed-throws; carry the typed error out through a `Result`.
        try payload.withUnsafeBytes { bytes in Result { () throws(RTPPayloadError) in try parse(bytes) } }.get()
    }

    /// Bytes `write(to:)` produces.
    public var encodedLength: Int {
        let hasTK = temporalLayerID != nil || keyIndex != nil
        let hasExtension = pictureID != nil || tl0PicIndex != nil || hasTK
        guard hasExtension else { return 1 }
        return 2 + (pictureID == nil ? 0 : (longPictureID ? 2 : 1)) + (tl0PicIndex == nil ? 0 : 1) + (hasTK ? 1 : 0)
    }

    /// Writes the descriptor at the start of `buffer`, without allocating.
    /// - Precondition: `buffer.count >= encodedLength`.
    /// - Returns: bytes written.
    @discardableResult
    public func write(to buffer: UnsafeMutableRawBufferPointer) -> Int {
        let length = encodedLength
        precondition(buffer.count >= length, "buffer too small for VP8 payload descriptor")
        let hasTK = temporalLayerID != nil || keyIndex != nil
        var first = (nonReference ? 0x20 : 0) | (startOfPartition ? 0x10 : 0) | (partitionIndex & 0x07)
        guard length > 1 else { buffer[0] = first; return 1 }
        first |= 0x80
        buffer[0] = first
        buffer[1] = (pictureID != nil ? 0x80 : 0) | (tl0PicIndex != nil ? 0x40 : 0)
            | (temporalLayerID != nil ? 0x20 : 0) | (keyIndex != nil ? 0x10 : 0)
        var offset = 2
        if let pictureID {
            if longPictureID {
                buffer[offset] = 0x80 | UInt8(pictureID >> 8 & 0x7F)
                buffer[offset + 1] = UInt8(pictureID & 0xFF)
                offset += 2
            } else {
                buffer[offset] = UInt8(pictureID & 0x7F)
                offset += 1
            }
        }
        if let tl0PicIndex { buffer[offset] = tl0PicIndex; offset += 1 }
        if hasTK {
            buffer[offset] = (temporalLayerID ?? 0) << 6 & 0xC0 | (layerSync ? 0x20 : 0) | (keyIndex ?? 0) & 0x1F
            offset += 1
        }
        return offset
    }

    /// The descriptor's bytes.
    public var bytes: [UInt8] {
        var output = [UInt8](repeating: 0, count: encodedLength)
        output.withUnsafeMutableBytes { _ = write(to: $0) }
        return output
    }
}
