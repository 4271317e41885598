// libFuzzer target for what a recorder reads of a VP9 picture it stores: the superframe index
// (VP9 Annex B, `VP9Superframe`), the first fields of each frame's uncompressed header (VP9
// §6.2, `VP9FrameHeader`) and the top-layer rewrite (`VP9TopLayerFilter`). Built by `fuzz/run-all`
// with `swiftc -sanitize=fuzzer,address -parse-as-library`; a crash or failed check here is a bug.
//
// The input is a sequence of pictures, each a 2-byte little-endian length and that many bytes: they
// go through one filter in order (its slot state carries over). What comes out is never longer
// than its picture plus an index, a picture of one frame comes out unchanged, and a rewrite reads
// back as frames.
#if canImport(RTCMedia)
import RTCMedia
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func vp9SuperframeFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var filter = VP9TopLayerFilter()
    var offset = 0
    while offset + 2 <= size {
        let length = min(Int(input[offset]) | Int(input[offset + 1]) << 8, size - offset - 2)
        let picture = Array(input[(offset + 2) ..< (offset + 2 + length)])
        offset += 2 + length
        var frames = 0
        picture.withUnsafeBytes { bytes in
            frames = VP9Superframe.forEachFrame(in: bytes) { range in
                precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count && !range.isEmpty, "frame outside the picture")
                if let header = VP9FrameHeader.parse(UnsafeRawBufferPointer(rebasing: bytes[range])) {
                    precondition(!header.isKeyFrame || header.refreshedSlots == 0xFF, "a key frame refreshes every slot")
                    precondition(header.showsExistingFrame || (6 ... 7).contains(header.showFrameBit), "show_frame outside the first byte")
                }
            }
        }
        guard let out = filter.filter(picture) else { continue }
        precondition(out.count <= picture.count + 2 + 4 * 8, "the rewrite grew the picture")
        if frames <= 1 { precondition(out == picture, "a picture of one frame changed") }
        out.withUnsafeBytes { bytes in
            precondition(out.isEmpty || VP9Superframe.forEachFrame(in: bytes) { _ in } >= 1, "the rewrite holds no frame")
        }
    }
    return 0
}
