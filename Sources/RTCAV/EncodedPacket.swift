// One compressed frame out of a libavcodec encoder, with its times in microseconds.

/// A compressed frame: an H.264 access unit or an AAC frame.
public struct EncodedPacket: Sendable, Equatable {
    public var data: [UInt8]
    /// Presentation time, microseconds.
    public var ptsUs: Int64
    /// Decode time, microseconds.
    public var dtsUs: Int64
    public var durationUs: Int64
    public var isKeyFrame: Bool

    public init(data: [UInt8], ptsUs: Int64, dtsUs: Int64, durationUs: Int64 = 0, isKeyFrame: Bool) {
        self.data = data
        self.ptsUs = ptsUs
        self.dtsUs = dtsUs
        self.durationUs = durationUs
        self.isKeyFrame = isKeyFrame
    }
}
