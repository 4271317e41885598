import RTCWire
import Testing
@testable import SFU

/// The padding-only packets a probe sends (RFC 3550 §5.1), as a receiver parses them.
struct PaddingPacketTests {
    @Test func aPaddingOnlyPacketHasNoPayloadAndCountsItsPadding() throws {
        var ids = HeaderExtensionIDs()
        ids.transportWideCC = 3
        ids.absSendTime = 2
        let mid = [UInt8]("1".utf8)
        let slot = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 8)
        defer { slot.deallocate() }
        let length = try mid.withUnsafeBytes { midBytes in
            let extensions = OutgoingExtensions(ids: ids, mid: midBytes, audioLevel: nil, absSendTime: 0x123456, transportSequence: 0xBEEF)
            return try #require(RTPForwardWriter.writePadding(into: slot, ssrc: 0x1122_3344, sequenceNumber: 65535, timestamp: 90_000,
                                                              payloadType: 96, extensions: extensions, paddingLength: 255))
        }
        // 12 header + 12 extension block (0xBEDE, 3-byte abs-send-time, 2-byte transport-cc, padded) + 255.
        #expect(length == 12 + 12 + 255)
        let view = try RTPPacketView(UnsafeRawBufferPointer(rebasing: slot[0 ..< length]))
        #expect(slot[0] == 0xB0)  // V=2, P=1, X=1, CC=0
        #expect(!view.marker && view.payloadType == 96)
        #expect(view.sequenceNumber == 65535 && view.timestamp == 90_000 && view.ssrc == 0x1122_3344)
        #expect(view.payload.isEmpty && view.paddingLength == 255)
        #expect(view.extensionValue(id: 3).map(Array.init) == [0xBE, 0xEF])
        #expect(slot[length - 1] == 255)
    }
}
