// The Dependency Descriptors of one stream, as a sender writes them (av1-rtp-spec Appendix A):
// every packet names its frame's template and frame number; the structure of the stream's
// `ScalabilityMode` travels in the first packet of every key frame (§A.8.2: it starts a coded
// video sequence). Every other packet is the three mandatory bytes, unless spatial layers are
// off (dynacast): then every packet carries active_decode_targets_bitmask with the decode
// targets of the layers still encoded, and the first temporal unit with all of them back carries
// the full mask (§A.4: the last mask holds until another one or a new structure comes, and a
// layer need not come back at a key frame that carries one). An SFU that reads descriptors (ours, mediasoup,
// LiveKit) then forwards the stream as it does a browser's, and stops waiting for frames of a
// layer that does not come.

/// Writes one stream's Dependency Descriptors, numbering its frames. Not thread-safe: one per RTP
/// stream, under the stream's lock.
public struct DependencyDescriptorWriter: Sendable {
    /// The longest value written (the L2T3_KEY structure with a key frame's first packet is 41 bytes,
    /// 42 with an active decode targets mask).
    public static let maxLength = 64

    /// frame_number of the frame being packetized (wraps at 16 bits, §A.8.3).
    public private(set) var frameNumber: UInt16
    private var templateID: UInt8 = 0
    private var startsSequence = false
    private var mode = ScalabilityMode.l1t1
    /// The active_decode_targets_bitmask every packet of the current temporal unit carries (nil: none).
    public private(set) var activeDecodeTargets: UInt32?
    /// Some decode target was off in the last temporal unit.
    private var targetsWereOff = false

    /// - Parameter firstFrameNumber: the first frame's number (random for a new stream is fine).
    public init(firstFrameNumber: UInt16 = 0) {
        frameNumber = firstFrameNumber &- 1
    }

    /// Starts the next single-layer (L1T1) frame: its packets take the next frame number.
    public mutating func beginFrame(isKeyFrame: Bool) {
        activeDecodeTargets = nil
        targetsWereOff = false
        beginFrame(mode: .l1t1, templateID: isKeyFrame ? 0 : 1, startsSequence: isKeyFrame)
    }

    /// Starts a temporal unit of a stream in `mode` whose encoder writes spatial layers
    /// `0 ..< activeSpatialLayers` (the others paused by dynacast): sets the mask its packets carry.
    public mutating func beginTemporalUnit(mode: ScalabilityMode, activeSpatialLayers: Int) {
        let all = mode.decodeTargets(spatialLayers: mode.spatialLayers)
        let active = mode.decodeTargets(spatialLayers: activeSpatialLayers)
        activeDecodeTargets = active != all || targetsWereOff ? active : nil
        targetsWereOff = active != all
    }

    /// Starts the next frame of a stream in `mode`.
    /// - Parameters:
    ///   - templateID: the frame's template (`ScalabilityMode.templateID`).
    ///   - startsSequence: a key frame: its first packet carries the structure.
    public mutating func beginFrame(mode: ScalabilityMode, templateID: UInt8, startsSequence: Bool) {
        frameNumber &+= 1
        self.mode = mode
        self.templateID = templateID
        self.startsSequence = startsSequence
    }

    /// Leaves `count` frame numbers unused: the frames of spatial layers a scalable encoder did not
    /// encode this temporal unit (dynacast). The templates' frame and chain differences count every
    /// layer's frames, so the frames that are sent keep pointing at the right ones; a chain through
    /// the skipped frames is broken for receivers, which is so.
    public mutating func skipFrames(_ count: Int) {
        frameNumber &+= UInt16(truncatingIfNeeded: max(0, count))
    }

    /// Writes the value of one packet of the current frame into `buffer`.
    /// - Parameters:
    ///   - first: the packet starts the frame (start_of_frame; a key frame's carries the structure).
    ///   - last: the packet ends the frame (end_of_frame).
    /// - Returns: bytes written, nil when `buffer` is too short.
    public func write(into buffer: UnsafeMutableRawBufferPointer, first: Bool, last: Bool) -> Int? {
        var descriptor = DependencyDescriptor()
        descriptor.startOfFrame = first
        descriptor.endOfFrame = last
        descriptor.templateID = templateID
        descriptor.frameNumber = frameNumber
        descriptor.carriesStructure = startsSequence && first
        descriptor.activeDecodeTargets = activeDecodeTargets
        descriptor.decodeTargetCount = mode.decodeTargetCount   // the mask's width
        return descriptor.write(into: buffer, structure: mode.structure)
    }
}
