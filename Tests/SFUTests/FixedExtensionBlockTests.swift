import RTCWire
import Testing
@testable import SFU

/// A consumer's extension block written once and patched per packet (`FixedExtensionBlock`) must
/// give the very bytes the element-by-element writer gives (RFC 8285 §4.2 one-byte and §4.3
/// two-byte forms), and must not be used when the packet carries more than it holds.
struct FixedExtensionBlockTests {
    /// Writes one forwarded packet from `source` with `extensions`, with and without the fixed block.
    private func bothWays(_ source: [UInt8], ids: HeaderExtensionIDs, mid: String, audioLevel: UInt8? = nil,
                          absSendTime: UInt32, transportSequence: UInt16) throws -> (plain: [UInt8], fixed: [UInt8], usedFixed: Bool) {
        let midBytes = [UInt8](mid.utf8)
        return try midBytes.withUnsafeBytes { midPointer in
            try source.withUnsafeBytes { sourceBytes in
                let view = try RTPPacketView(sourceBytes)
                let block = FixedExtensionBlock.make(ids: ids, mid: midPointer)
                defer { block?.deallocate() }
                func write(_ fixed: FixedExtensionBlock?) throws -> ([UInt8], Bool) {
                    let slot = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 8)
                    defer { slot.deallocate() }
                    let extensions = OutgoingExtensions(ids: ids, mid: midPointer, audioLevel: audioLevel, absSendTime: absSendTime,
                                                        transportSequence: transportSequence, fixed: fixed)
                    let length = try #require(RTPForwardWriter.write(view, into: slot, ssrc: 0xABCD_0001, sequenceNumber: 7,
                                                                     timestamp: 1234, payloadType: 98, extensions: extensions))
                    return (Array(slot[0 ..< length]), extensions.usesFixedBlock)
                }
                let (plain, _) = try write(nil)
                let (fixed, used) = try write(block)
                return (plain, fixed, used)
            }
        }
    }

    private func source() -> [UInt8] {
        RTPPacket(payloadType: 96, sequenceNumber: 100, timestamp: 9000, ssrc: 0x5EED,
                  extensions: [RTPHeaderExtensionElement(id: 4, value: Array("p".utf8)), RTPHeaderExtensionElement(id: 3, value: [0, 9])],
                  payload: [UInt8](repeating: 0x5A, count: 300)).serialize()
    }

    @Test(arguments: [
        (1 as UInt8, 2 as UInt8, 5 as UInt8, "0"),   // one-byte form: mid, abs-send-time, transport-cc
        (0, 2, 5, "0"),                               // no mid
        (1, 0, 5, "video-main"),                      // no abs-send-time
        (1, 2, 0, "0"),                               // no transport-cc
        (1, 2, 0, ""),                                // an empty mid is not written
        (1, 15, 5, "0"),                              // id 15: two-byte form (RFC 8285 §4.3)
        (3, 2, 5, "a-mid-longer-than-16-bytes"),      // a long mid: two-byte form
    ])
    func theFixedBlockWritesTheSameBytes(mid: UInt8, absSendTime: UInt8, transportWideCC: UInt8, midValue: String) throws {
        var ids = HeaderExtensionIDs()
        ids.mid = mid
        ids.absSendTime = absSendTime
        ids.transportWideCC = transportWideCC
        for (time, sequence) in [(0x12_3456 as UInt32, 0xBEEF as UInt16), (0xFF_FFFF, 0), (1, 0xFFFF)] {
            let result = try bothWays(source(), ids: ids, mid: midValue, absSendTime: time, transportSequence: sequence)
            #expect(result.usedFixed)
            #expect(result.fixed == result.plain)
            let view = try result.fixed.withUnsafeBytes { try RTPPacketView($0) }
            if transportWideCC != 0 { #expect(view.extensionValue(id: transportWideCC).map(Array.init) == [UInt8(sequence >> 8), UInt8(sequence & 0xFF)]) }
            if absSendTime != 0 { #expect(view.extensionValue(id: absSendTime).map(Array.init) == [UInt8(time >> 16), UInt8((time >> 8) & 0xFF), UInt8(time & 0xFF)]) }
        }
    }

    @Test func aPacketWithAnAudioLevelIsWrittenElementByElement() throws {
        var ids = HeaderExtensionIDs()
        ids.mid = 1
        ids.audioLevel = 2
        ids.transportWideCC = 5
        let result = try bothWays(source(), ids: ids, mid: "0", audioLevel: 0x85, absSendTime: 0, transportSequence: 77)
        #expect(!result.usedFixed)
        #expect(result.fixed == result.plain)
        let view = try result.fixed.withUnsafeBytes { try RTPPacketView($0) }
        #expect(view.extensionValue(id: 2).map(Array.init) == [0x85])
    }

    @Test func noBlockWhenNothingIsNegotiated() {
        #expect([UInt8]().withUnsafeBytes { FixedExtensionBlock.make(ids: HeaderExtensionIDs(), mid: $0) } == nil)
    }
}
