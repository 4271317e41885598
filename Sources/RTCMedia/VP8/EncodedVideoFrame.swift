// One compressed video frame as it leaves the encoder and enters the packetizer (and, on the receive
// side, as the frame assembler or jitter buffer hands it to the decoder).
import RTCWire

/// A compressed VP8 frame with the facts the RTP layer needs about it.
public struct EncodedVideoFrame: Sendable, Equatable {
    /// The VP8 bitstream of one frame (RFC 6386), without any RTP payload descriptor.
    public var data: [UInt8]
    /// Whether the frame is a key frame (decodable on its own).
    public var isKeyFrame: Bool
    /// Presentation time in microseconds (the source frame's `timestampUs`).
    public var timestampUs: Int64
    /// Coded width in pixels (0 when unknown, e.g. a received delta frame).
    public var width: Int
    /// Coded height in pixels (0 when unknown).
    public var height: Int
    /// A scalable encoder's frames of this temporal unit, in order (empty for one frame): each a
    /// range of `data` with its layers and its Dependency Descriptor template. The RTP sender
    /// packetizes each as a frame of its own (av1-rtp-spec §A.1); decoders take `data` whole.
    public var layerFrames: [EncodedLayerFrame] = []
    /// The mode `layerFrames` follow (nil for one frame).
    public var scalabilityMode: ScalabilityMode?
    /// The spatial layers the encoder writes now (`0 ..< n`; the others paused by dynacast), nil
    /// when all of the mode's. Not the layers of this unit: an encoder may drop a frame of a layer
    /// that stays on. The RTP sender tells receivers which decode targets are off (av1-rtp-spec §A.4).
    public var activeSpatialLayers: Int?

    /// Creates an encoded frame.
    public init(data: [UInt8], isKeyFrame: Bool, timestampUs: Int64, width: Int = 0, height: Int = 0) {
        self.data = data
        self.isKeyFrame = isKeyFrame
        self.timestampUs = timestampUs
        self.width = width
        self.height = height
    }

    /// The presentation time on the 90 kHz RTP clock, wrapped to 32 bits.
    public var rtpTimestamp: UInt32 {
        UInt32(truncatingIfNeeded: timestampUs.multipliedReportingOverflow(by: 9).partialValue / 100)
    }
}

/// One layer frame of a scalable temporal unit (`EncodedVideoFrame.layerFrames`).
public struct EncodedLayerFrame: Sendable, Equatable {
    /// Its bytes in the unit's `data`.
    public var range: Range<Int>
    public var spatialID: Int
    public var temporalID: Int
    /// Its Dependency Descriptor template (`ScalabilityMode.templateID`).
    public var templateID: UInt8
    /// A key frame: it starts a coded video sequence (its first packet carries the structure).
    public var isKeyFrame: Bool

    public init(range: Range<Int>, spatialID: Int, temporalID: Int, templateID: UInt8, isKeyFrame: Bool) {
        self.range = range
        self.spatialID = spatialID
        self.temporalID = temporalID
        self.templateID = templateID
        self.isKeyFrame = isKeyFrame
    }
}
