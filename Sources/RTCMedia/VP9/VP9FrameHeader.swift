// The first fields of a VP9 frame's uncompressed header (VP9 bitstream spec §6.2, §7.2): enough to
// tell which reference slots a frame reads and refreshes, and where its show_frame bit is. A
// recorder that keeps only what the top spatial layer needs (`VP9TopLayerFilter`) reads no more.
//
//   frame_marker f(2) = 2, profile_low_bit f(1), profile_high_bit f(1), [reserved_zero f(1) in profile 3]
//   show_existing_frame f(1) [frame_to_show_map_idx f(3): nothing else follows]
//   frame_type f(1) (0 = key frame), show_frame f(1), error_resilient_mode f(1)
//   key frame: refresh_frame_flags = 0xFF, no references
//   otherwise: [intra_only f(1) when not shown], [reset_frame_context f(2) unless error resilient]
//     intra only: frame_sync_code f(24), [color_config in profiles > 0], refresh_frame_flags f(8)
//     inter:      refresh_frame_flags f(8), 3 × (ref_frame_idx f(3), ref_frame_sign_bias f(1))
import RTCWire

/// What a VP9 frame reads from and writes to the decoder's eight reference slots.
public struct VP9FrameHeader: Sendable, Equatable {
    public var profile: Int
    /// A frame that only shows a slot (`show_existing_frame`): it reads and refreshes nothing.
    public var showsExistingFrame: Bool
    public var isKeyFrame: Bool
    public var isIntraOnly: Bool
    public var showFrame: Bool
    /// The slots the frame refreshes (bit i: slot i); 0xFF for a key frame.
    public var refreshedSlots: UInt8
    /// The slots an inter frame predicts from (its three `ref_frame_idx`); 0 for intra frames.
    public var referencedSlots: UInt8
    /// Bit position of show_frame in the frame's first byte (high bit first): 6, or 7 in profile 3.
    public var showFrameBit: Int

    /// Reads the header at the start of `frame`; nil when it is not a VP9 frame (wrong marker,
    /// too short, a profile 3 reserved bit set, a wrong sync code).
    public static func parse(_ frame: UnsafeRawBufferPointer) -> VP9FrameHeader? {
        var r = BitReader(frame)
        return try? read(&r)
    }

    private static func read(_ r: inout BitReader) throws(DependencyDescriptorError) -> VP9FrameHeader? {
        guard try r.read(2) == 2 else { return nil }
        let low = try r.read(1), high = try r.read(1)
        let profile = Int(high << 1 | low)
        if profile == 3, try r.read(1) != 0 { return nil }
        var header = VP9FrameHeader(profile: profile, showsExistingFrame: false, isKeyFrame: false, isIntraOnly: false, showFrame: true,
                                    refreshedSlots: 0, referencedSlots: 0, showFrameBit: 0)
        if try r.flag() {
            header.showsExistingFrame = true
            _ = try r.read(3)
            return header
        }
        header.isKeyFrame = try r.read(1) == 0
        header.showFrameBit = r.position
        header.showFrame = try r.flag()
        let errorResilient = try r.flag()
        if header.isKeyFrame {
            header.refreshedSlots = 0xFF
            return header
        }
        if !header.showFrame { header.isIntraOnly = try r.flag() }
        if !errorResilient { _ = try r.read(2) }
        if header.isIntraOnly {
            guard try r.read(24) == 0x49_83_42 else { return nil }
            if profile > 0 { try skipColorConfig(&r, profile: profile) }
            header.refreshedSlots = try UInt8(r.read(8))
            return header
        }
        header.refreshedSlots = try UInt8(r.read(8))
        for _ in 0 ..< 3 {
            let slot = try r.read(3)
            header.referencedSlots |= 1 << UInt8(slot)
            _ = try r.read(1)
        }
        return header
    }

    /// color_config (§6.2.2): bit depth (profiles 2 and 3), color space, and unless sRGB the
    /// range and, in profiles 1 and 3, the subsampling; a reserved bit in profiles 1 and 3.
    private static func skipColorConfig(_ r: inout BitReader, profile: Int) throws(DependencyDescriptorError) {
        if profile >= 2 { _ = try r.read(1) }
        let colorSpace = try r.read(3)
        if colorSpace != 7 {  // CS_RGB
            _ = try r.read(1)
            if profile == 1 || profile == 3 { _ = try r.read(3) }
        } else if profile == 1 || profile == 3 {
            _ = try r.read(1)
        }
    }
}
