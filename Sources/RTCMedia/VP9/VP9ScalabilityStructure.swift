// The scalability structure (SS) a VP9 payload descriptor carries when V = 1 (RFC 9628 §4.2.1),
// normally on key pictures:
//
//       +-+-+-+-+-+-+-+-+
//  V:   | N_S |Y|G|-|-|-|   N_S + 1 spatial layers; Y: resolutions follow; G: a picture group follows
//       +-+-+-+-+-+-+-+-+             -|
//  Y:   |     WIDTH     | (16 bits)    . N_S + 1 times
//       |     HEIGHT    | (16 bits)    .
//       +-+-+-+-+-+-+-+-+             -|
//  G:   |      N_G      |   pictures in the group
//       +-+-+-+-+-+-+-+-+                          -|
//  N_G: |  TID  |U| R |-|-|  R references           . N_G times
//       |    P_DIFF     | (R times)                 .
//       +-+-+-+-+-+-+-+-+                          -|

// MARK: - Types

/// A VP9 scalability structure: spatial layers with their resolutions, and the picture group of
/// non-flexible mode.
public struct VP9ScalabilityStructure: Sendable, Equatable {
    /// One picture of the group: its temporal layer, switching-up flag and reference P_DIFFs.
    public struct Picture: Sendable, Equatable {
        public var temporalID: UInt8
        public var switchingUpPoint: Bool
        public var references: [UInt8]

        public init(temporalID: UInt8, switchingUpPoint: Bool, references: [UInt8]) {
            self.temporalID = temporalID
            self.switchingUpPoint = switchingUpPoint
            self.references = references
        }
    }

    /// Number of spatial layers (1…8).
    public var spatialLayers: Int
    /// Width and height of each spatial layer, lowest first; empty when Y = 0.
    public var resolutions: [(width: UInt16, height: UInt16)]
    /// The picture group; nil when G = 0 (the previous group stays in force).
    public var pictureGroup: [Picture]?

    public init(spatialLayers: Int, resolutions: [(width: UInt16, height: UInt16)] = [], pictureGroup: [Picture]? = nil) {
        self.spatialLayers = spatialLayers
        self.resolutions = resolutions
        self.pictureGroup = pictureGroup
    }

    public static func == (a: VP9ScalabilityStructure, b: VP9ScalabilityStructure) -> Bool {
        a.spatialLayers == b.spatialLayers && a.pictureGroup == b.pictureGroup
            && a.resolutions.count == b.resolutions.count
            && zip(a.resolutions, b.resolutions).allSatisfy { $0.width == $1.width && $0.height == $1.height }
    }

    // MARK: - Public API

    /// Reads the SS a descriptor located (`VP9PayloadDescriptor.scalabilityStructureRange`).
    /// Allocates: for key pictures and tools, not for every packet.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(RTPPayloadError) -> VP9ScalabilityStructure {
        _ = try measure(bytes, at: 0)  // validates every length before reading
        let first = bytes[0]
        var structure = VP9ScalabilityStructure(spatialLayers: Int(first >> 5) + 1)
        var offset = 1
        if first & 0x10 != 0 {
            for _ in 0 ..< structure.spatialLayers {
                let width = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
                let height = UInt16(bytes[offset + 2]) << 8 | UInt16(bytes[offset + 3])
                structure.resolutions.append((width, height))
                offset += 4
            }
        }
        if first & 0x08 != 0 {
            let count = Int(bytes[offset])
            offset += 1
            var group: [Picture] = []
            group.reserveCapacity(count)
            for _ in 0 ..< count {
                let byte = bytes[offset]
                let referenceCount = Int(byte >> 2 & 0x03)
                group.append(Picture(temporalID: byte >> 5, switchingUpPoint: byte & 0x10 != 0,
                                     references: Array(bytes[(offset + 1) ..< (offset + 1 + referenceCount)])))
                offset += 1 + referenceCount
            }
            structure.pictureGroup = group
        }
        return structure
    }

    /// Reads an SS held in an array.
    public static func parse(_ bytes: [UInt8]) throws(RTPPayloadError) -> VP9ScalabilityStructure {
        try bytes.withUnsafeBytes { raw in Result { () throws(RTPPayloadError) in try parse(raw) } }.get()
    }

    /// The SS's bytes.
    public var bytes: [UInt8] {
        var out: [UInt8] = [UInt8((spatialLayers - 1) & 0x07) << 5 | (resolutions.isEmpty ? 0 : 0x10) | (pictureGroup == nil ? 0 : 0x08)]
        for (width, height) in resolutions {
            out += [UInt8(width >> 8), UInt8(width & 0xFF), UInt8(height >> 8), UInt8(height & 0xFF)]
        }
        if let pictureGroup {
            out.append(UInt8(pictureGroup.count & 0xFF))
            for picture in pictureGroup {
                let references = picture.references.prefix(3)
                out.append(picture.temporalID << 5 | (picture.switchingUpPoint ? 0x10 : 0) | UInt8(references.count) << 2)
                out += references
            }
        }
        return out
    }

    // MARK: - Internals

    /// The length of the SS starting at `start` and its number of spatial layers, without allocating.
    static func measure(_ payload: UnsafeRawBufferPointer, at start: Int) throws(RTPPayloadError) -> (length: Int, spatialLayers: Int) {
        guard start < payload.count else { throw RTPPayloadError.vp9TruncatedScalabilityStructure }
        let first = payload[start]
        let spatialLayers = Int(first >> 5) + 1
        var offset = start + 1
        if first & 0x10 != 0 { offset += 4 * spatialLayers }
        if first & 0x08 != 0 {
            guard offset < payload.count else { throw RTPPayloadError.vp9TruncatedScalabilityStructure }
            let count = Int(payload[offset])
            offset += 1
            for _ in 0 ..< count {
                guard offset < payload.count else { throw RTPPayloadError.vp9TruncatedScalabilityStructure }
                offset += 1 + Int(payload[offset] >> 2 & 0x03)
            }
        }
        guard offset <= payload.count else { throw RTPPayloadError.vp9TruncatedScalabilityStructure }
        return (offset - start, spatialLayers)
    }
}
