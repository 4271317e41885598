import Testing
@testable import RTCWire

/// Inputs found by the libFuzzer targets under fuzz/, kept so they stay handled.
@Suite struct FuzzRegressionTests {
    /// fuzz/rtp: a two-byte-form element with id 255 (the harness overflowed renumbering it to
    /// 256). The id must be renumberable in place and the packet must still parse.
    @Test func twoByteElementWithId255RenumbersInPlace() throws {
        var bytes: [UInt8] = [
            0xB2, 0x6F, 0xFF, 0xFF,  // V=2 P=1 X=1 CC=2 | PT=111 | seq=65535
            0x00, 0x00, 0x09, 0x60,  // timestamp
            0xCA, 0x00, 0x00, 0x00,  // SSRC
            0x00, 0x00, 0x00, 0x00,  // CSRC[0]
            0x19, 0x06, 0xFF, 0x08,  // CSRC[1]
            0x10, 0x03, 0x00, 0x02,  // two-byte form (appbits=3) | length=2
            0xFF, 0x00, 0x00, 0x00,  // id=255 len=0 | padding
            0x00, 0x00, 0x00, 0x00,  // padding
            0x26, 0x02,              // payload
            0x00, 0x00, 0x00, 0x04,  // RTP padding, count=4
        ]
        try bytes.withUnsafeMutableBytes { raw in
            let packet = try RTPMutablePacketView(raw)
            #expect(packet.view.extensionElements.map(\.id) == [255])
            #expect(packet.rewriteExtensionID(from: 255, to: 4))
            #expect(try RTPPacketView(UnsafeRawBufferPointer(raw)).extensionValue(id: 4)?.count == 0)
        }
        let packet = try RTPPacket(parsing: bytes)
        #expect(try RTPPacket(parsing: packet.serialize()) == packet)
    }
}
