// The VP9 payload descriptor that starts every VP9 RTP payload (RFC 9628 §4.2):
//
//        0 1 2 3 4 5 6 7
//       +-+-+-+-+-+-+-+-+
//       |I|P|L|F|B|E|V|Z| (REQUIRED)
//       +-+-+-+-+-+-+-+-+
//  I:   |M| PICTURE ID  | (7 bits, or 15 bits with the next byte when M = 1)
//       +-+-+-+-+-+-+-+-+
//  L:   |  TID  |U| SID |D| (layer indices)
//       +-+-+-+-+-+-+-+-+
//  L&!F:|   TL0PICIDX   | (non-flexible mode only)
//       +-+-+-+-+-+-+-+-+
//  P&F: | P_DIFF      |N| (flexible mode: up to 3 reference indices, N = another follows)
//       +-+-+-+-+-+-+-+-+
//  V:   | SS .......... | (scalability structure, `VP9ScalabilityStructure`)
//       +-+-+-+-+-+-+-+-+
//
// Parsing never allocates: the scalability structure is only walked for its length here (its
// offset is kept) and read into values by `VP9ScalabilityStructure.parse` when someone needs it.

// MARK: - Types

/// A parsed VP9 payload descriptor.
public struct VP9PayloadDescriptor: Sendable, Equatable {
    /// P: the frame refers to earlier pictures (inter-picture predicted). A layer frame with P = 0
    /// needs nothing from earlier pictures: a forwarder may start or raise a spatial layer there.
    public var interPicturePredicted = false
    /// F: flexible mode (references listed per frame) rather than a picture group in the SS.
    public var flexibleMode = false
    /// B: this packet starts a layer frame.
    public var beginningOfFrame = false
    /// E: this packet ends a layer frame.
    public var endOfFrame = false
    /// Z: the frame is not a reference for frames of higher spatial layers of the same picture.
    public var notReferenceForUpperLayers = false
    /// PICTURE ID: 7 bits, or 15 bits when `longPictureID`.
    public var pictureID: UInt16?
    /// M: whether `pictureID` is written with 15 bits.
    public var longPictureID = true
    /// TID: temporal layer (0…7), when L = 1.
    public var temporalID: UInt8?
    /// U: switching up point: from here on the frame's temporal layer may be added.
    public var switchingUpPoint = false
    /// SID: spatial layer (0…7), when L = 1.
    public var spatialID: UInt8?
    /// D: inter-layer dependency: the frame uses the lower spatial layer of the same picture.
    public var interLayerDependency = false
    /// TL0PICIDX: running index of temporal base layer pictures (non-flexible mode with L = 1).
    public var tl0PicIndex: UInt8?
    /// P_DIFFs of flexible mode (1…127 each), in order; `referenceCount` of them are meaningful.
    public var referenceDiffs: (UInt8, UInt8, UInt8) = (0, 0, 0)
    public var referenceCount = 0
    /// Where the scalability structure lies in the payload (V = 1), for `VP9ScalabilityStructure.parse`.
    public var scalabilityStructureRange: Range<Int>?

    // MARK: - Public API

    public init() {}

    public static func == (a: VP9PayloadDescriptor, b: VP9PayloadDescriptor) -> Bool {
        a.interPicturePredicted == b.interPicturePredicted && a.flexibleMode == b.flexibleMode
            && a.beginningOfFrame == b.beginningOfFrame && a.endOfFrame == b.endOfFrame
            && a.notReferenceForUpperLayers == b.notReferenceForUpperLayers && a.pictureID == b.pictureID
            && (a.pictureID == nil || a.longPictureID == b.longPictureID) && a.temporalID == b.temporalID
            && a.switchingUpPoint == b.switchingUpPoint && a.spatialID == b.spatialID
            && a.interLayerDependency == b.interLayerDependency && a.tl0PicIndex == b.tl0PicIndex
            && a.references == b.references && a.scalabilityStructureRange == b.scalabilityStructureRange
    }

    /// The flexible-mode reference indices as an array (tests and tools; the packet path reads the tuple).
    public var references: [UInt8] {
        Array([referenceDiffs.0, referenceDiffs.1, referenceDiffs.2].prefix(referenceCount))
    }

    /// Spatial layer of the packet: SID, or 0 when the layer indices are absent (a single-layer stream).
    public var spatialLayer: UInt8 { spatialID ?? 0 }
    /// Temporal layer of the packet: TID, or 0 when absent.
    public var temporalLayer: UInt8 { temporalID ?? 0 }

    /// Whether the packet starts a key picture: the first packet of the base spatial layer's frame,
    /// not inter-picture predicted (RFC 9628 §4.2, P).
    public var isKeyFrameStart: Bool { beginningOfFrame && !interPicturePredicted && spatialLayer == 0 }

    /// Parses the descriptor at the start of a VP9 RTP payload without allocating.
    /// - Returns: the descriptor and its length in bytes (the VP9 data starts there).
    /// - Throws: `RTPPayloadError.emptyPayload`, `.truncatedDescriptor`, `.vp9TooManyReferences`,
    ///   `.vp9TruncatedScalabilityStructure`, `.vp9SpatialIDOutOfRange` or `.vp9MissingFrameData`.
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(RTPPayloadError) -> (descriptor: VP9PayloadDescriptor, length: Int) {
        guard let first = payload.first else { throw RTPPayloadError.emptyPayload }
        var descriptor = VP9PayloadDescriptor()
        descriptor.interPicturePredicted = first & 0x40 != 0
        let hasLayers = first & 0x20 != 0
        descriptor.flexibleMode = first & 0x10 != 0
        descriptor.beginningOfFrame = first & 0x08 != 0
        descriptor.endOfFrame = first & 0x04 != 0
        let hasStructure = first & 0x02 != 0
        descriptor.notReferenceForUpperLayers = first & 0x01 != 0
        var reader = PayloadDescriptorReader(payload)
        if first & 0x80 != 0 {
            let (pictureID, long) = try reader.pictureID()
            descriptor.pictureID = pictureID
            descriptor.longPictureID = long
        }
        if hasLayers {
            let layers = try reader.next()
            descriptor.temporalID = layers >> 5
            descriptor.switchingUpPoint = layers & 0x10 != 0
            descriptor.spatialID = layers >> 1 & 0x07
            descriptor.interLayerDependency = layers & 0x01 != 0
            if !descriptor.flexibleMode { descriptor.tl0PicIndex = try reader.next() }
        }
        if descriptor.flexibleMode && descriptor.interPicturePredicted {
            // §4.2: at most 3 reference indices; N on the third is an error.
            var more = true
            while more {
                guard descriptor.referenceCount < 3 else { throw RTPPayloadError.vp9TooManyReferences }
                let byte = try reader.next()
                let diff = byte >> 1
                switch descriptor.referenceCount {
                case 0: descriptor.referenceDiffs.0 = diff
                case 1: descriptor.referenceDiffs.1 = diff
                default: descriptor.referenceDiffs.2 = diff
                }
                descriptor.referenceCount += 1
                more = byte & 0x01 != 0
            }
        }
        if hasStructure {
            let start = reader.offset
            let (length, spatialLayers) = try VP9ScalabilityStructure.measure(payload, at: start)
            if let sid = descriptor.spatialID, Int(sid) >= spatialLayers { throw RTPPayloadError.vp9SpatialIDOutOfRange }
            reader.offset = start + length
            descriptor.scalabilityStructureRange = start ..< reader.offset
        }
        guard reader.offset < payload.count else { throw RTPPayloadError.vp9MissingFrameData }
        return (descriptor, reader.offset)
    }

    /// Parses the descriptor at the start of a payload held in an array.
    public static func parse(_ payload: [UInt8]) throws(RTPPayloadError) -> (descriptor: VP9PayloadDescriptor, length: Int) {
        try payload.withUnsafeBytes { bytes in Result { () throws(RTPPayloadError) in try parse(bytes) } }.get()
    }

    /// The descriptor's bytes, with `structure` as its SS when given (V = 1). Tests, tools and the
    /// fuzz target's round trip use it; forwarders rewrite in place.
    public func bytes(structure: VP9ScalabilityStructure? = nil) -> [UInt8] {
        let hasLayers = temporalID != nil || spatialID != nil
        var out: [UInt8] = [
            (pictureID != nil ? 0x80 : 0) | (interPicturePredicted ? 0x40 : 0) | (hasLayers ? 0x20 : 0)
                | (flexibleMode ? 0x10 : 0) | (beginningOfFrame ? 0x08 : 0) | (endOfFrame ? 0x04 : 0)
                | (structure != nil ? 0x02 : 0) | (notReferenceForUpperLayers ? 0x01 : 0),
        ]
        if let pictureID {
            if longPictureID {
                out += [0x80 | UInt8(pictureID >> 8 & 0x7F), UInt8(pictureID & 0xFF)]
            } else {
                out.append(UInt8(pictureID & 0x7F))
            }
        }
        if hasLayers {
            out.append((temporalID ?? 0) << 5 | (switchingUpPoint ? 0x10 : 0) | ((spatialID ?? 0) & 0x07) << 1
                       | (interLayerDependency ? 0x01 : 0))
            if !flexibleMode { out.append(tl0PicIndex ?? 0) }
        }
        if flexibleMode && interPicturePredicted {
            let diffs = references
            for (index, diff) in diffs.enumerated() { out.append(diff << 1 | (index < diffs.count - 1 ? 1 : 0)) }
        }
        if let structure { out += structure.bytes }
        return out
    }
}
