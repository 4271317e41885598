import Foundation
import RTCNet

/// The figures of one measured window of a load test, as `srtc load-test` prints them in JSON
/// (snake_case keys). Counts cover the window only; delays are in milliseconds.
package struct LoadReport: Codable, Sendable {
    /// Percentiles of a delay distribution, ms.
    package struct Delays: Codable, Sendable, Equatable {
        package var samples: Int
        package var p50: Double
        package var p90: Double
        package var p99: Double
        package var max: Double
        package var mean: Double

        package init(_ histogram: LogHistogram) {
            func ms(_ micros: Int64) -> Double { (Double(micros) / 10).rounded() / 100 }
            samples = histogram.count
            p50 = ms(histogram.percentile(0.5))
            p90 = ms(histogram.percentile(0.9))
            p99 = ms(histogram.percentile(0.99))
            max = ms(histogram.maximum)
            mean = (histogram.mean / 10).rounded() / 100
        }
    }

    package var target: String
    package var scenario: LoadScenario
    /// Joining, publishing, subscribing and waiting for every stream's first packet.
    package var setupSeconds: Double
    /// Length of the measured window.
    package var seconds: Double
    /// Participants that publish / that subscribe (publishers subscribe to each other).
    package var publishers: Int
    package var subscribers: Int
    /// Streams received (one per subscription per audio or video track).
    package var streams: Int
    /// Packets the publishers sent (first sends).
    package var packetsSent: Int
    /// Packets subscribers should have got: what the publishers sent on every subscribed stream.
    package var packetsExpected: Int
    package var packetsReceived: Int
    package var bytesReceived: Int
    /// Packets received per second, over all subscribers (what the server forwarded and delivered).
    package var receiveRate: Double
    package var receiveBitrate: Double
    /// Sequence-number gaps not filled by the end of the window.
    package var packetsLost: Int
    /// `packets_received / packets_expected`.
    package var delivery: Double
    /// The lowest delivery of any one subscribing participant.
    package var worstSubscriberDelivery: Double
    package var lossRate: Double
    /// Subscribers' NACK packets, the packets they asked for, those that then arrived, and PLIs.
    package var nacksSent: Int
    package var nackedPackets: Int
    package var recoveredPackets: Int
    package var plisSent: Int
    /// What publishers received: NACKs, key-frame requests, and the retransmissions they sent.
    package var publisherNacks: Int
    package var publisherKeyFrameRequests: Int
    package var retransmissions: Int
    /// Publisher send time to subscriber arrival, every packet.
    package var latency: Delays
    /// Subscription request to a stream's first packet (streams that started in the window or before).
    package var firstPacket: Delays
    /// What went wrong in setup or during the window (empty on a clean run).
    package var failures: [String]

    /// The JSON document (`--json`), sorted keys, snake_case.
    package func json() -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
