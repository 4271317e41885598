import RTCWire
import Testing

/// A packet reordered across a feedback's boundary does not take the next feedback back over the
/// last one's packets (which it would report lost a second time).
struct TransportCCWindowTests {
    static func arrivals(_ numbers: [UInt16]) -> [TransportCCArrival] {
        numbers.enumerated().map { TransportCCArrival(sequenceNumber: $1, arrivalTime: Int64($0) * 1000) }
    }

    static func lost(_ arrivals: [TransportCCArrival]) throws -> Int {
        try TransportLayerCC(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, arrivals: arrivals)
            .packetResults.filter { $0.arrivalTime == nil }.count
    }

    @Test func aLateArrivalIsLeftOutNotReportedWithTheLastFeedbacksPackets() throws {
        var window = TransportCCWindow()
        var first = Self.arrivals([10, 11, 13, 14, 15])  // 12 comes late
        window.dropCovered(&first)
        #expect(first.count == 5)
        var second = Self.arrivals([12, 16, 17, 18])
        // Without the window: 12…18, of which 13, 14 and 15 (received before) reported lost.
        #expect(try Self.lost(second) == 3)
        window.dropCovered(&second)
        #expect(second.map(\.sequenceNumber) == [16, 17, 18])
        #expect(try Self.lost(second) == 0)
    }

    @Test func theWindowFollowsWrapsAndANewNumbering() {
        var window = TransportCCWindow()
        var first = Self.arrivals([65_534, 65_535, 0, 1])
        window.dropCovered(&first)
        var second = Self.arrivals([65_535, 2, 3])
        window.dropCovered(&second)
        #expect(second.map(\.sequenceNumber) == [2, 3])
        // Far ahead (a sender that restarted its numbering): taken as it comes, and the window follows.
        var restarted = Self.arrivals([30_000, 30_001])
        window.dropCovered(&restarted)
        #expect(restarted.count == 2)
        var next = Self.arrivals([29_999, 30_002])
        window.dropCovered(&next)
        #expect(next.map(\.sequenceNumber) == [30_002])
    }
}
