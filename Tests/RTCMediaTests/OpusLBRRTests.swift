import Testing
@testable import RTCMedia

/// `OpusPacketInfo.hasLBRR`: whether a packet carries in-band FEC for the frame before it, read
/// from the first SILK frame's header bits (RFC 6716 §4.2.3), checked against what libopus was
/// told to encode.
struct OpusLBRRTests {
    /// 250 packets of a 440 Hz tone (20 ms, 32 kbit/s) from an encoder configured as given.
    static func packets(fec: Bool, loss: Int, application: OpusEncoder.Application = .voip) throws -> [[UInt8]] {
        var configuration = OpusEncoder.Configuration()
        configuration.inbandFEC = fec
        configuration.expectedPacketLossPercent = loss
        configuration.application = application
        let encoder = try OpusEncoder(configuration: configuration)
        var tone = SineToneGenerator(frequency: 440)
        return try (0 ..< 250).map { _ in try encoder.encode(tone.next(frameCount: 960)) }
    }

    static func countLBRR(_ packets: [[UInt8]]) -> Int {
        packets.filter { packet in packet.withUnsafeBytes { OpusPacketInfo.hasLBRR($0) } }.count
    }

    @Test func packetsCarryLBRROnlyWhenTheEncoderPlansFECForLoss() throws {
        let planned = Self.countLBRR(try Self.packets(fec: true, loss: 10))
        let noLoss = Self.countLBRR(try Self.packets(fec: true, loss: 0))
        let off = Self.countLBRR(try Self.packets(fec: false, loss: 10))
        let celt = Self.countLBRR(try Self.packets(fec: true, loss: 10, application: .restrictedLowDelay))
        // SILK codes LBRR only for frames its VAD calls active: on a pure tone a share of them.
        print("Opus LBRR, 250 packets of a 440 Hz tone: FEC at 10 % \(planned), at 0 % \(noLoss), FEC off \(off), CELT only \(celt)")
        #expect(planned > 0)
        #expect(noLoss == 0 && off == 0 && celt == 0)
    }

    @Test func theFlagIsTheBitAfterTheVADFlags() {
        // TOC config 9 (SILK wideband, 20 ms, mono, one frame): one VAD bit, then LBRR.
        let toc: UInt8 = 9 << 3
        for (first, expected) in [(UInt8(0b0100_0000), true), (0b1000_0000, false), (0b1100_0000, true), (0b0011_1111, false)] {
            #expect([toc, first, 0x55].withUnsafeBytes { OpusPacketInfo.hasLBRR($0) } == expected, "first byte \(first)")
        }
        // 60 ms (config 11): three VAD bits, then LBRR.
        #expect([UInt8(11 << 3), 0b0001_0000, 0x55].withUnsafeBytes { OpusPacketInfo.hasLBRR($0) })
        // Stereo (s bit): the side channel's flag after its own VAD bit.
        #expect([toc | 0x04, 0b0001_0000, 0x55].withUnsafeBytes { OpusPacketInfo.hasLBRR($0) })
    }

    @Test func packetsThatDoNotParseOrAreCELTCarryNone() {
        let cases: [[UInt8]] = [[], [9 << 3], [UInt8(9 << 3) | 3], [UInt8(9 << 3) | 2, 252], [UInt8(31 << 3), 0xff, 0xff]]
        for packet in cases {
            #expect(!packet.withUnsafeBytes { OpusPacketInfo.hasLBRR($0) }, "\(packet)")
        }
    }
}
