import Testing
@testable import SFU

struct VP8PictureIDRewriterTests {
    @Test func locatesFieldsOfEachDescriptorForm() {
        func fields(_ bytes: [UInt8]) -> VP8PictureIDRewriter.Fields { bytes.withUnsafeBytes { VP8PictureIDRewriter.locate($0) } }
        // X=0: no extension byte, nothing to rewrite.
        #expect(fields([0x10, 0x00]) == .init())
        // X=1, I=1, M=1: 15-bit PictureID at 2.
        #expect(fields([0x90, 0x80, 0x81, 0x23, 0x00]) == .init(pictureIDOffset: 2, longPictureID: true))
        // X=1, I=1 (7-bit), L=1: TL0PICIDX at 3.
        #expect(fields([0x90, 0xC0, 0x12, 0x07, 0x00]) == .init(pictureIDOffset: 2, longPictureID: false, tl0Offset: 3))
        // Truncated: nothing.
        #expect(fields([0x90, 0x80, 0x81]) == .init())
    }

    @Test func resyncContinuesAfterTheLastValuesAcrossTheWrap() {
        var rewriter = VP8PictureIDRewriter()
        func send(_ picture: UInt16, _ tl0: UInt8) -> (UInt16, UInt8) {
            var payload = PacketFactory.vp8(pictureID: picture, tl0: tl0)
            payload.withUnsafeMutableBytes { _ = rewriter.rewrite($0) }
            return (PacketFactory.pictureID(payload), payload[4])
        }
        #expect(send(32_766, 254) == (32_766, 254))
        #expect(send(32_767, 255) == (32_767, 255))
        rewriter.resync()
        // The new stream's 500/17 become 0/0, then keep their spacing (a gap stays a gap).
        #expect(send(500, 17) == (0, 0))
        #expect(send(502, 18) == (2, 1))
    }
}
