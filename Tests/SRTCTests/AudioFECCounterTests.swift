import Foundation
import RTCMedia
@testable import SRTCCore
import Testing

/// The receiver's count of concealed ticks rebuilt from the next packet's Opus in-band FEC
/// (`playoutCounters.recoveredByFEC`): a lost packet whose successor carries LBRR counts, one
/// whose successor carries none is left to packet-loss concealment and does not. Real encoder
/// (FEC on, planned for 10 % loss), sender and receiver (`AudioREDTests.run`, without RED).
struct AudioFECCounterTests {
    @Test func aLostPacketCountsAsRebuiltByFECOnlyWhenTheNextOneCarriesLBRR() throws {
        let packets = 250
        let opus = try AudioREDTests.run(red: false, packets: packets, lost: []).opus
        let carries = opus.map { packet in packet.withUnsafeBytes { OpusPacketInfo.hasLBRR($0) } }
        // Single losses (never two in a row), past the start, whose next packet carries LBRR or not.
        var withFEC: Set<Int> = [], without: Set<Int> = []
        for index in stride(from: 10, to: packets - 10, by: 1) where !withFEC.contains(index - 1) && !without.contains(index - 1) {
            if carries[index + 1], withFEC.count < 4 { withFEC.insert(index) } else if !carries[index + 1], without.count < 4 { without.insert(index) }
        }
        try #require(!withFEC.isEmpty, "no packet of the tone carried LBRR")
        let rebuilt = try AudioREDTests.run(red: false, packets: packets, lost: withFEC).counters
        let concealed = try AudioREDTests.run(red: false, packets: packets, lost: without).counters
        print("Opus FEC in the SDK, \(packets) packets (\(carries.filter { $0 }.count) with LBRR): \(withFEC.count) lost before one with LBRR: "
            + "\(rebuilt.statistics.concealed) concealed, \(rebuilt.recoveredByFEC) rebuilt by FEC; \(without.count) lost before one without: "
            + "\(concealed.statistics.concealed) concealed, \(concealed.recoveredByFEC) rebuilt by FEC")
        #expect(rebuilt.statistics.concealed == withFEC.count && rebuilt.recoveredByFEC == withFEC.count)
        #expect(concealed.statistics.concealed == without.count && concealed.recoveredByFEC == 0)
    }
}
