// Whether an Opus packet carries in-band FEC: SILK's low-bitrate redundancy (LBRR) of the frame
// before it (RFC 6716 §2.1.7, §4.2.4). libopus 1.3 has no call for it (1.5's
// `opus_packet_has_lbrr`), so it is read from the first frame's header bits.
import COpus

extension OpusPacketInfo {
    /// Whether `packet` holds LBRR data a decoder can rebuild the previous frame from
    /// (`OpusDecoder.decodeFEC`). CELT-only packets never do; a packet that does not parse does not.
    ///
    /// RFC 6716 §4.2.3: a SILK or hybrid frame starts with its header bits, each coded with
    /// probability 1/2 and so the first bits of the range coder's output: one VAD flag per SILK
    /// frame (one per 20 ms, one for a 10 ms frame), then the LBRR flag, for the mid channel, then
    /// the same for the side channel of a stereo frame.
    public static func hasLBRR(_ packet: UnsafeRawBufferPointer) -> Bool {
        guard let base = packet.baseAddress, packet.count <= Int(Int32.max),
              let info = try? OpusPacketInfo(packet: packet), info.mode != .celt else { return false }
        let first: UInt8? = withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: 48) { frames in
            withUnsafeTemporaryAllocation(of: Int16.self, capacity: 48) { sizes in
                var toc: UInt8 = 0
                var payloadOffset: Int32 = 0
                let count = opus_packet_parse(base.assumingMemoryBound(to: UInt8.self), Int32(packet.count), &toc,
                                              frames.baseAddress!, sizes.baseAddress!, &payloadOffset)
                guard count > 0, sizes[0] > 0, let frame = frames[0] else { return nil }
                return frame.pointee
            }
        }
        guard let first else { return false }
        let silkFrames = max(1, info.frameDurationUs / 20_000)
        let mid = (first >> (7 - silkFrames)) & 1 == 1
        guard info.isStereo else { return mid }
        return mid || (first >> (6 - 2 * silkFrames)) & 1 == 1
    }
}
