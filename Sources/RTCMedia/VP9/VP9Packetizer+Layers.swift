// The layer frames of a scalable VP9 picture as RTP payloads (RFC 9628 §4), in non-flexible mode
// as browsers send `L2T3_KEY`: every layer frame is its own payload sequence (B on its first
// payload, E on its last) and each payload's descriptor has
//   I = 1, the picture's 15-bit picture ID (the same for all its layer frames, +1 per picture);
//   P = 0 in a key picture (nothing from earlier pictures), else 1;
//   L = 1: TID (the picture's temporal layer), U (switching up point: every frame above T0 is
//   one, no frame refers to a frame of its own temporal layer), SID, and D (inter-layer
//   dependency: the upper layers of a key picture); TL0PICIDX, +1 at each T0 picture;
//   Z = 1 when no upper layer of the picture refers to this frame (all but the lower layers of a
//   key picture);
//   V = 1 on the first payload of a key picture, followed by the scalability structure (§4.2.1):
//   the spatial layers with their sizes (each half the one above) and the picture group of the
//   temporal pattern (T0 T2 T1 T2: references 4, 1, 2, 1 pictures back).
// The RTP marker goes on the picture's last payload.
import RTCWire

extension VP9Packetizer {
    /// Largest descriptor without SS: I|P|L|F|B|E|V|Z, picture ID (2), layers, TL0PICIDX.
    static let layeredDescriptorLength = 5

    /// Packetizes the layer frames of one picture from a scalable encoder, from a reused buffer.
    /// - Parameters:
    ///   - data: the picture's bytes; `layers` ranges of it, lowest spatial layer first.
    ///   - mode: the stream's scalability mode (its spatial layer count and temporal pattern).
    ///   - width, height: the size of the top spatial layer (for the SS).
    ///   - emit: called with each payload and whether it is the picture's last (RTP marker).
    public mutating func packetize(_ data: UnsafeRawBufferPointer, layers: [EncodedLayerFrame], mode: ScalabilityMode,
                                   width: Int, height: Int, isKeyFrame: Bool,
                                   emit: (UnsafeRawBufferPointer, _ isLast: Bool) throws -> Void) rethrows {
        guard let first = layers.first else { return }
        let id = pictureID
        let temporal = first.temporalID
        if temporal == 0 { tl0PicIndex &+= 1 }
        let index = tl0PicIndex
        let top = layers.last!.spatialID
        let structure = isKeyFrame ? Self.structure(mode: mode, width: width, height: height) : []
        let maxPayloadSize = self.maxPayloadSize
        try scratch.withUnsafeMutableBytes { buffer in
            for (number, layer) in layers.enumerated() {
                let withStructure = number == 0 && !structure.isEmpty
                let header = Self.layeredDescriptorLength + (withStructure ? structure.count : 0)
                precondition(maxPayloadSize > header, "maxPayloadSize too small for a layered VP9 payload")
                let lastLayer = number == layers.count - 1
                let notReference = !(isKeyFrame && layer.spatialID < top)
                try EqualSlices.forEach(length: layer.range.count, capacity: maxPayloadSize - header) { slice, range, isLast in
                    buffer[0] = 0x80 | (isKeyFrame ? 0 : 0x40) | 0x20 | (slice == 0 ? 0x08 : 0) | (isLast ? 0x04 : 0)
                        | (withStructure && slice == 0 ? 0x02 : 0) | (notReference ? 0x01 : 0)
                    buffer[1] = 0x80 | UInt8(id >> 8 & 0x7F)
                    buffer[2] = UInt8(id & 0xFF)
                    buffer[3] = UInt8(layer.temporalID & 0x07) << 5 | (layer.temporalID > 0 ? 0x10 : 0)
                        | UInt8(layer.spatialID & 0x07) << 1 | (isKeyFrame && layer.spatialID > 0 ? 0x01 : 0)
                    buffer[4] = index
                    var length = Self.layeredDescriptorLength
                    if withStructure && slice == 0 {
                        for byte in structure { buffer[length] = byte; length += 1 }
                    }
                    let source = UnsafeRawBufferPointer(rebasing: data[(layer.range.lowerBound + range.lowerBound) ..< (layer.range.lowerBound + range.upperBound)])
                    UnsafeMutableRawBufferPointer(rebasing: buffer[length ..< length + source.count]).copyMemory(from: source)
                    try emit(UnsafeRawBufferPointer(rebasing: buffer[0 ..< length + source.count]), isLast && lastLayer)
                }
            }
        }
        pictureID = (pictureID &+ 1) & 0x7FFF
    }

    /// The SS of a key picture (RFC 9628 §4.2.1): spatial layers, their sizes, the picture group.
    static func structure(mode: ScalabilityMode, width: Int, height: Int) -> [UInt8] {
        typealias Picture = VP9ScalabilityStructure.Picture
        var group: [Picture] = [Picture(temporalID: 0, switchingUpPoint: false, references: [1])]
        if mode.temporalLayers > 1 {
            group = (0 ..< 4).map { (position: Int) -> Picture in
                let temporal = UInt8(mode.temporalID(position: position))
                return Picture(temporalID: temporal, switchingUpPoint: temporal > 0, references: [[4, 1, 2, 1][position]])
            }
        }
        let resolutions = (0 ..< mode.spatialLayers).map { s in
            let shift = mode.spatialLayers - 1 - s
            return (width: UInt16(clamping: width >> shift), height: UInt16(clamping: height >> shift))
        }
        return VP9ScalabilityStructure(spatialLayers: mode.spatialLayers, resolutions: resolutions, pictureGroup: group).bytes
    }
}
