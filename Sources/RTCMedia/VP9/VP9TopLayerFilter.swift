// A scalable VP9 stream as a file shows it: the top spatial layer, one picture per block.
//
// A picture of a VP9 SVC stream is several layer frames (RFC 9628 §4), lowest spatial layer first,
// and every one of them is a shown frame (browsers' and libvpx's SVC encoders set show_frame on
// each): libvpx decodes a superframe (VP9 Annex B) whole and outputs its last frame, but FFmpeg
// splits a superframe into its frames and outputs every shown one, so a file of whole pictures
// plays each layer in turn. What a file needs is what the top layer needs:
//
// - the picture's last frame (the highest layer received), shown;
// - the lower layer frames it predicts from, found through the reference slots (`VP9FrameHeader`:
//   a lower frame is needed when it refreshes a slot that a needed later frame of the picture
//   reads before anything else refreshes it). With inter-layer prediction in key pictures only
//   (the `_KEY` modes: the Swift SDK's L2T3_KEY, browsers' L3T3_KEY) that is the lower layers' key
//   frames of a key picture; they are kept with show_frame cleared (a key frame's header has
//   nothing that depends on show_frame, §6.2), so the block is a superframe whose last frame
//   alone is shown;
// - nothing else: the lower layers' frames of other pictures are left out.
//
// A needed lower frame that is an inter frame (a stream predicting across layers in every picture,
// L3T3 without _KEY) stays shown: hiding it would add the intra_only bit to its header (§6.2),
// which means rewriting the whole uncompressed header. A frame left out makes the slots it
// refreshes stale; should a kept frame read a stale slot (the top layer stopped arriving and a
// lower layer's frames go on from references that were left out), the pictures are left out until
// the next key frame, instead of writing frames no decoder can read correctly.

/// Rewrites the pictures of a VP9 stream, one at a time and in order, into what a file stores.
public struct VP9TopLayerFilter: Sendable {
    /// Slots whose content in a decoder of the output differs from the sender's.
    private var staleSlots: UInt8 = 0
    /// A kept frame read a stale slot: nothing is decodable before a key frame.
    private var waitingForKeyFrame = false

    public init() {}

    /// What to store of `picture` (one frame, or a superframe of the picture's layer frames with
    /// its index, lowest layer first): the picture itself when it is one frame; else its top frame
    /// with the lower frames it needs, as a superframe whose last frame alone is shown. Nil when
    /// nothing of it is decodable (a kept frame reads a slot whose frame was left out) until the
    /// next key frame. A picture whose frames are not VP9 (encrypted without a key) goes through
    /// unchanged.
    public mutating func filter(_ picture: [UInt8]) -> [UInt8]? {
        var ranges: [Range<Int>] = []
        var headers: [VP9FrameHeader] = []
        var parsed = true
        picture.withUnsafeBytes { data in
            _ = VP9Superframe.forEachFrame(in: data) { range in
                ranges.append(range)
                if let header = VP9FrameHeader.parse(UnsafeRawBufferPointer(rebasing: data[range])) {
                    headers.append(header)
                } else {
                    parsed = false
                }
            }
        }
        guard parsed, let top = headers.last else { return picture }
        // Backwards from the top frame: the frames whose slots a needed frame reads.
        var kept = [Bool](repeating: false, count: headers.count)
        kept[headers.count - 1] = true
        var needed = top.referencedSlots
        for index in headers.indices.dropLast().reversed() where headers[index].refreshedSlots & needed != 0 {
            kept[index] = true
            needed = needed & ~headers[index].refreshedSlots | headers[index].referencedSlots
        }
        // Forwards: what a decoder of the output holds in its slots.
        for (header, isKept) in zip(headers, kept) {
            guard isKept else {
                staleSlots |= header.refreshedSlots
                continue
            }
            if header.isKeyFrame {
                staleSlots = 0
                waitingForKeyFrame = false
            } else if header.referencedSlots & staleSlots != 0 {
                waitingForKeyFrame = true
            }
            staleSlots &= ~header.refreshedSlots
        }
        if waitingForKeyFrame { return nil }
        if headers.count == 1 { return picture }
        var out: [UInt8] = []
        out.reserveCapacity(picture.count)
        var sizes: [Int] = []
        for index in headers.indices where kept[index] {
            let start = out.count
            out.append(contentsOf: picture[ranges[index]])
            let header = headers[index]
            if index < headers.count - 1, header.isKeyFrame, header.showFrame {
                out[start] &= ~(0x80 >> UInt8(header.showFrameBit))
            }
            sizes.append(ranges[index].count)
        }
        if sizes.count > 1 { VP9Superframe.appendIndex(frameSizes: sizes, to: &out) }
        return out
    }
}
