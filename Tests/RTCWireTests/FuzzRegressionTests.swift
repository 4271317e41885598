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

    /// fuzz/av1dd: a Dependency Descriptor structure whose render size is 65 535 + 1 (the size
    /// was kept in 16 bits and overflowed).
    @Test func dependencyDescriptorResolutionOf65536() throws {
        let value: [UInt8] = [
            0xC1, 0x01, 0x02,   // start, end, template id 1, frame 258
            0x80, 0x22,         // structure present | template_id_offset 1, DtCnt 3, one template (11)
            0xCF, 0xCF,         // DTIs - R R | fdiffs 10, 16 | chain_cnt 1 (ns(4) = 01) | chain fdiff 15
            0xCF, 0xFF, 0xFF,   // | resolutions present, width − 1 = 65 535
            0xFF, 0xFF, 0xFF,   // height − 1 = 65 535
            0xFF, 0xFF, 0xFF, 0xFF, 0x80,   // the rest: ones, then padding
        ]
        var reader = DependencyDescriptorReader()
        let descriptor = try reader.read(value)
        let structure = try #require(reader.structure)
        #expect(structure.resolution(spatialID: 0)?.width == 65_536 && structure.resolution(spatialID: 0)?.height == 65_536)
        var again = DependencyDescriptorReader()
        #expect(try again.read(descriptor.serialize(structure: structure)) == descriptor && again.structure == structure)
    }
}
