// The Dependency Descriptor of a single-layer AV1 stream (L1T1), as a sender writes it
// (av1-rtp-spec Appendix A): one decode target, one chain protecting it, and two templates, a key
// frame that refers to nothing and a delta frame that refers to the frame before it. The
// structure travels in the first packet of every key frame (§A.8.2: it starts a coded video
// sequence); every other packet is the three mandatory bytes. An SFU that reads descriptors
// (ours, mediasoup, LiveKit) then forwards the stream as it does a browser's.
//
//   template 0 (id 0): S0 T0, DTI switch, no frame diffs, chain diff 0   (key frame)
//   template 1 (id 1): S0 T0, DTI switch, frame diff 1,   chain diff 1   (delta frame)

/// Writes one stream's L1T1 Dependency Descriptors, numbering its frames. Not thread-safe: one
/// per RTP stream, under the stream's lock.
public struct SingleLayerDescriptorWriter: Sendable {
    /// The L1T1 template structure (no resolutions: a receiver learns the size from the bitstream).
    public static let structure = DependencyStructure(
        templateIDOffset: 0, decodeTargetCount: 1, chainCount: 1, protectedBy: [0],
        templates: [
            DependencyTemplate(spatialID: 0, temporalID: 0, indications: [.switch], chainDiffs: [0]),
            DependencyTemplate(spatialID: 0, temporalID: 0, indications: [.switch], frameDiffs: [1], chainDiffs: [1]),
        ])
    /// The longest value written (a key frame's first packet: 65 bits).
    public static let maxLength = 9

    /// frame_number of the frame being packetized (wraps at 16 bits, §A.8.3).
    public private(set) var frameNumber: UInt16
    private var isKeyFrame = false

    /// - Parameter firstFrameNumber: the first frame's number (random for a new stream is fine).
    public init(firstFrameNumber: UInt16 = 0) {
        frameNumber = firstFrameNumber &- 1
    }

    /// Starts the next frame: its packets take the next frame number.
    public mutating func beginFrame(isKeyFrame: Bool) {
        frameNumber &+= 1
        self.isKeyFrame = isKeyFrame
    }

    /// Writes the value of one packet of the current frame into `buffer`.
    /// - Parameters:
    ///   - first: the packet starts the frame (start_of_frame; a key frame's carries the structure).
    ///   - last: the packet ends the frame (end_of_frame).
    /// - Returns: bytes written, nil when `buffer` is shorter than `maxLength`.
    public func write(into buffer: UnsafeMutableRawBufferPointer, first: Bool, last: Bool) -> Int? {
        var descriptor = DependencyDescriptor()
        descriptor.startOfFrame = first
        descriptor.endOfFrame = last
        descriptor.templateID = isKeyFrame ? 0 : 1
        descriptor.frameNumber = frameNumber
        descriptor.carriesStructure = isKeyFrame && first
        return descriptor.write(into: buffer, structure: Self.structure)
    }
}
