import Foundation
import RTCMedia
import RTCWire
@testable import SRTCCore
import Testing

/// Redundant audio (RFC 2198) in the SDK: the sender puts the previous Opus packet in each RED
/// packet as a redundant block; the receiver plays the primary block and rebuilds a lost packet
/// from the next packet's redundant block before the playout buffer reaches it, counting it
/// (`recoveredByRED`) beside the packets a NACK brought back.
struct AudioREDTests {
    static let context = EngineContext(configuration: .init(delegateQueue: DispatchQueue(label: "red"), logLevel: .off),
                                       deviceBackend: RemoteAudioPauseTests.PulledSpeaker())

    /// 20 ms Opus packets of a 440 Hz tone through a real sender (`RTPStreamSender`, RED when
    /// `red`) and a real receiver, the packets with an index in `lost` never delivered.
    static func run(red: Bool, packets: Int = 100, lost: Set<Int>, mutedFrom: Int? = nil) throws -> (counters: AudioReceiver.PlayoutCounters, sent: [[UInt8]], opus: [[UInt8]]) {
        let sender = RTPStreamSender(kind: .audio, parameters: .init(ssrc: 7, payloadType: 111, clockRate: 48_000, mid: "1",
                                                                     redPayloadType: red ? 63 : nil))
        let track = RemoteAudioTrack(info: TrackInfo(id: "a", uid: "u", kind: .audio, desc: "mic"), context: context)
        let receiver = AudioReceiver(mid: "1", ssrc: 7, audioLevelID: nil, track: track, context: context, redPayloadType: red ? 63 : nil)
        let encoder = try OpusEncoder()
        var tone = SineToneGenerator(frequency: 440)
        var sent: [[UInt8]] = []
        var opus: [[UInt8]] = []
        for index in 0 ..< packets {
            let payload = try encoder.encode(tone.next(frameCount: 960))
            // A mute skips 5 frames of the sender's clock after `mutedFrom` (no packets, RTP time runs on).
            let position = UInt32((index + (mutedFrom.map { index >= $0 ? 5 : 0 } ?? 0)) * 960)
            let (sequence, _) = sender.packetize(opus: payload, samplePosition: position, level: 30, voiceActivity: true)
            let bytes = try #require(sender.cachedPacket(sequence))
            sent.append(bytes)
            opus.append(payload)
            guard !lost.contains(index) else { continue }
            _ = try bytes.withUnsafeBytes { raw in receiver.receive(try RTPPacketView(raw), nowUs: Int64(index) * 20_000) }
        }
        return (receiver.playout, sent, opus)
    }

    @Test func eachREDPacketCarriesItsOpusAsPrimaryAndThePreviousAsARedundantBlock() throws {
        let (_, sent, opus) = try Self.run(red: true, packets: 12, lost: [], mutedFrom: 8)
        for (index, bytes) in sent.enumerated() {
            try bytes.withUnsafeBytes { raw in
                let packet = try RTPPacketView(raw)
                #expect(packet.payloadType == 63)
                let red = try REDPayloadView(packet.payload)
                #expect(red.primary.payloadType == 111 && Array(red.data(red.primary)) == opus[index])
                // The first packet, and the first after the mute (its previous is 6 frames back), carry none.
                if index == 0 || index == 8 {
                    #expect(red.redundantCount == 0, "packet \(index)")
                } else {
                    try #require(red.redundantCount == 1, "packet \(index)")
                    let block = red.redundant(0)
                    #expect(block.payloadType == 111 && block.timestampOffset == 960)
                    #expect(Array(red.data(block)) == opus[index - 1])
                }
            }
        }
    }

    @Test func aLostPacketIsRebuiltFromTheNextOnesRedundantBlockAndNotConcealed() throws {
        // Single losses, and two in a row: the first of those two has no packet to come back in.
        let lost: Set<Int> = [10, 30, 31, 50, 70]
        let withRED = try Self.run(red: true, lost: lost).counters
        let without = try Self.run(red: false, lost: lost).counters
        print("RED in the SDK, 100 packets, \(lost.count) lost: with RED \(withRED.statistics.played) played, "
            + "\(withRED.statistics.concealed) concealed, \(withRED.recoveredByRED) recovered by RED; "
            + "without \(without.statistics.played) played, \(without.statistics.concealed) concealed")
        #expect(withRED.recoveredByRED == 4)
        #expect(withRED.statistics.concealed == 1)
        #expect(without.recoveredByRED == 0 && without.statistics.concealed == 5)
        #expect(withRED.statistics.played == without.statistics.played + 4)
        #expect(withRED.recovered == 0)   // no NACK here
    }

    @Test func aREDPacketThatDoesNotParseIsDroppedAndRedundancyOfPacketsAlreadyHereIsIgnored() throws {
        let track = RemoteAudioTrack(info: TrackInfo(id: "b", uid: "u", kind: .audio, desc: "mic"), context: Self.context)
        let receiver = AudioReceiver(mid: "1", ssrc: 7, audioLevelID: nil, track: track, context: Self.context, redPayloadType: 63)
        let encoder = try OpusEncoder()
        var tone = SineToneGenerator(frequency: 440)
        var previous: [UInt8]?
        for index in 0 ..< 20 {
            let opus = try encoder.encode(tone.next(frameCount: 960))
            var payload = [UInt8](repeating: 0, count: opus.count + (previous?.count ?? 0) + 5)
            let length = try #require(payload.withUnsafeMutableBytes { out in
                opus.withUnsafeBytes { primary in
                    previous.map { p in p.withUnsafeBytes { REDPayloadWriter.write(primary: primary, payloadType: 111, redundant: $0, timestampOffset: 960, into: out) } }
                        ?? REDPayloadWriter.write(primary: primary, payloadType: 111, redundant: nil, timestampOffset: 0, into: out)
                }
            })
            // Packet 12's payload is cut inside its block header: not RED that reads.
            let body = index == 12 ? [0x80 | 111, 0x0F] : Array(payload[0 ..< length])
            let bytes = RTPPacket(marker: false, payloadType: 63, sequenceNumber: UInt16(100 + index), timestamp: UInt32(index * 960),
                                  ssrc: 7, payload: body).serialize()
            _ = try bytes.withUnsafeBytes { raw in receiver.receive(try RTPPacketView(raw), nowUs: Int64(index) * 20_000) }
            previous = opus
        }
        let counters = receiver.playout
        // 12 is rebuilt from 13's block; nothing else was missing, so nothing else was "recovered".
        #expect(counters.recoveredByRED == 1)
        #expect(counters.statistics.concealed == 0 && counters.statistics.duplicates == 0)
    }
}
