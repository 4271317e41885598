import Testing
@testable import RTCMedia
import TestRandom

/// Fixtures follow the layout of RFC 7741 §4.2; the VP8 payload header bytes follow §4.3.
@Suite struct VP8PayloadDescriptorTests {
    @Test func noExtensionStartOfKeyFrame() throws {
        let payload: [UInt8] = [
            0x10,               // X=0 R=0 N=0 S=1 R=0 PID=0
            0x50, 0x01, 0x00,   // VP8 payload header: Size0=2 H=1 VER=0 P=0 (key frame), Size1, Size2
        ]
        let (descriptor, length) = try VP8PayloadDescriptor.parse(payload)
        #expect(length == 1)
        #expect(descriptor == VP8PayloadDescriptor(startOfPartition: true, partitionIndex: 0))
        #expect(descriptor.isFrameStart)
        #expect(descriptor.bytes == [0x10])
        #expect(VP8.isKeyFrame(payload: payload))
        // Same packet with P=1 is a delta frame.
        #expect(!VP8.isKeyFrame(payload: [0x10, 0x51, 0x01, 0x00]))
    }

    @Test func sevenBitPictureID() throws {
        let payload: [UInt8] = [
            0x90,   // X=1 R=0 N=0 S=1 R=0 PID=0
            0x80,   // I=1 L=0 T=0 K=0 RSV=0
            0x11,   // M=0 PictureID=17
            0x01,   // VP8 data (P=1: delta frame)
        ]
        let (descriptor, length) = try VP8PayloadDescriptor.parse(payload)
        #expect(length == 3)
        #expect(descriptor.pictureID == 17 && !descriptor.longPictureID)
        #expect(descriptor.bytes == Array(payload[0..<3]))
        #expect(!VP8.isKeyFrame(payload: payload))
    }

    @Test func fifteenBitPictureIDWithAllExtensions() throws {
        let payload: [UInt8] = [
            0xA2,         // X=1 R=0 N=1 S=0 R=0 PID=2
            0xF0,         // I=1 L=1 T=1 K=1 RSV=0
            0x92, 0x67,   // M=1 PictureID=0x1267 (4711)
            0x05,         // TL0PICIDX=5
            0xA3,         // TID=2 Y=1 KEYIDX=3
            0xAB,         // VP8 data
        ]
        let (descriptor, length) = try VP8PayloadDescriptor.parse(payload)
        #expect(length == 6)
        #expect(descriptor == VP8PayloadDescriptor(nonReference: true, startOfPartition: false, partitionIndex: 2,
                                                   pictureID: 4711, longPictureID: true, tl0PicIndex: 5,
                                                   temporalLayerID: 2, layerSync: true, keyIndex: 3))
        #expect(descriptor.encodedLength == 6)
        #expect(descriptor.bytes == Array(payload[0..<6]))
        #expect(!descriptor.isFrameStart)
        #expect(!VP8.isKeyFrame(payload: payload))
    }

    @Test func keyIndexWithoutTemporalLayer() throws {
        let payload: [UInt8] = [
            0x80,   // X=1 S=0 PID=0
            0x10,   // I=0 L=0 T=0 K=1
            0x1F,   // TID=0 (ignored: T=0) Y=0 KEYIDX=31
            0x00,
        ]
        let (descriptor, length) = try VP8PayloadDescriptor.parse(payload)
        #expect(length == 3 && descriptor.keyIndex == 31 && descriptor.temporalLayerID == nil)
        #expect(descriptor.bytes == [0x80, 0x10, 0x1F])
    }

    @Test func reservedBitsAreIgnored() throws {
        // R bits set in both the first byte (0x40, 0x08) and the extension byte's RSV (0x0F).
        let (descriptor, length) = try VP8PayloadDescriptor.parse([0xD8, 0x0F, 0x00])
        #expect(length == 2 && descriptor == VP8PayloadDescriptor(startOfPartition: true))
    }

    @Test(arguments: [
        ([], RTPPayloadError.emptyPayload),
        ([0x80], .truncatedDescriptor(needed: 2, available: 1)),                 // X=1, no extension byte
        ([0x80, 0x80], .truncatedDescriptor(needed: 3, available: 2)),           // I=1, no PictureID
        ([0x80, 0x80, 0x80], .truncatedDescriptor(needed: 4, available: 3)),     // M=1, second PictureID byte missing
        ([0x80, 0x40], .truncatedDescriptor(needed: 3, available: 2)),           // L=1, no TL0PICIDX
        ([0x80, 0x20], .truncatedDescriptor(needed: 3, available: 2)),           // T=1, no TID byte
        ([0x80, 0xF0, 0x80, 0x01, 0x02], .truncatedDescriptor(needed: 6, available: 5)),
        ([0x10], .missingVP8Data),                                               // descriptor only
        ([0x90, 0x80, 0x11], .missingVP8Data),
    ] as [([UInt8], RTPPayloadError)])
    func malformedDescriptorsThrow(payload: [UInt8], error: RTPPayloadError) {
        #expect(throws: error) { try VP8PayloadDescriptor.parse(payload) }
        #expect(!VP8.isKeyFrame(payload: payload))
    }

    @Test func seededRandomPayloadsThrowOrRoundTrip() throws {
        var random = SeededRandom(seed: 0x7741)
        var parsedCount = 0
        for _ in 0..<20_000 {
            let payload = random.bytes(Int.random(in: 0...12, using: &random))
            guard let (descriptor, length) = try? VP8PayloadDescriptor.parse(payload) else { continue }
            parsedCount += 1
            #expect(length >= 1 && length < payload.count)
            // X=1 with no I/L/T/K parses as 2 bytes but is rewritten as 1.
            #expect(descriptor.encodedLength <= length)
            // Re-serialised bytes parse back to the same descriptor (reserved bits dropped).
            let rewritten = descriptor.bytes + [0]
            #expect(try VP8PayloadDescriptor.parse(rewritten).descriptor == descriptor)
            _ = VP8.isKeyFrame(payload: payload)
        }
        #expect(parsedCount > 5_000)
    }

    @Test func everyTruncationOfAValidPayloadThrows() {
        let payload: [UInt8] = [0xA2, 0xF0, 0x92, 0x67, 0x05, 0xA3, 0xAB]
        for length in 0..<6 {
            #expect(throws: RTPPayloadError.self) { try VP8PayloadDescriptor.parse(Array(payload[0..<length])) }
        }
    }

    @Test func keyFrameSizeReadsTheBitstreamHeader() {
        // Frame tag (P=0), start code 9D 01 2A, width 640 | scale 0, height 480 | scale 1<<14.
        let bitstream: [UInt8] = [0x50, 0x01, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x41]
        #expect(VP8.keyFrameSize(bitstream: bitstream).map { [$0.width, $0.height] } == [640, 480])
        #expect(VP8.keyFrameSize(bitstream: Array(bitstream[0..<9])) == nil)
        #expect(VP8.keyFrameSize(bitstream: [0x51] + bitstream[1...]) == nil)
    }
}

@Suite struct VP8PayloadRewriteTests {
    @Test func rewritesPictureIDAndTL0PicIndexInPlace() throws {
        var payload: [UInt8] = [0x90, 0xC0, 0x92, 0x67, 0x05, 0xAB]   // X S, I L, M=1 PictureID 4711, TL0PICIDX 5, data
        try payload.withUnsafeMutableBytes { try VP8PayloadDescriptor.rewrite($0, pictureID: 0x7ABC, tl0PicIndex: 9) }
        #expect(payload == [0x90, 0xC0, 0xFA, 0xBC, 0x09, 0xAB])
        var short: [UInt8] = [0x90, 0x80, 0x11, 0xAB]                   // 7-bit PictureID 17
        try short.withUnsafeMutableBytes { try VP8PayloadDescriptor.rewrite($0, pictureID: 0x1FF, tl0PicIndex: 1) }
        #expect(short == [0x90, 0x80, 0x7F, 0xAB])                     // truncated to 7 bits; no TL0 to write
        var broken: [UInt8] = [0x80, 0x80]
        #expect(throws: RTPPayloadError.self) {
            try broken.withUnsafeMutableBytes { try VP8PayloadDescriptor.rewrite($0, pictureID: 1, tl0PicIndex: nil) }
        }
        #expect(broken == [0x80, 0x80])
    }
}
