import Foundation
import SRTCTestSupport
import TestWait

extension LabScenario {
    /// Random loss toward the subscriber (`NetworkLab.setLoss`, in the kernel) and what its audio
    /// playout made of it (docs/network.md, "RED").
    public struct AudioLoss: Sendable, CustomStringConvertible {
        /// Whether the subscriber negotiated RED, and NACK for audio.
        public var red: Bool
        public var nack: Bool
        /// Datagrams the kernel rule dropped.
        public var lost: Int
        /// 20 ms ticks played and concealed; lost packets a NACK and a RED block brought back.
        public var played: Int
        public var concealed: Int
        public var recoveredByNACK: Int
        public var recoveredByRED: Int
        /// Audio packets and RTP bytes received.
        public var packets: Int
        public var bytes: Int

        public var concealment: Double { Double(concealed) / Double(max(1, played + concealed)) }
        public var description: String {
            "\(red ? "RED" : "no RED"), \(nack ? "NACK" : "no NACK"): \(lost) datagrams dropped; audio \(played) played, "
                + "\(concealed) concealed (\(fmt(concealment * 100)) %), \(recoveredByRED) recovered by RED, \(recoveredByNACK) by NACK; "
                + "\(packets) packets, \(fmt(Double(bytes) / Double(max(1, packets)))) bytes each"
        }
    }

    /// Waits for audio, sets `loss` toward the subscriber for `settle` + `seconds`, and measures the
    /// last `seconds`.
    public static func audioLoss(_ call: LabCall, loss: NetworkLab.Loss, seconds: Double, settle: Double = 0,
                                 red: Bool, nack: Bool) async throws -> AudioLoss {
        let observer = call.observer
        try await eventually(timeout: 20, "audio playing") { observer.audioPlayout(from: 0, to: observer.elapsed).played > 100 }
        try call.loseDownlink(loss)
        if settle > 0 { try await Task.sleep(for: .seconds(settle)) }
        let start = observer.elapsed
        try await Task.sleep(for: .seconds(seconds))
        let end = observer.elapsed
        let lost = call.lab.lostDatagrams(call.link)
        try call.loseDownlink(nil)
        let playout = observer.audioPlayout(from: start, to: end)
        return AudioLoss(red: red, nack: nack, lost: lost, played: playout.played, concealed: playout.concealed,
                         recoveredByNACK: playout.recovered, recoveredByRED: playout.recoveredByRED,
                         packets: observer.audioPackets(from: start, to: end), bytes: observer.audioBytes(from: start, to: end))
    }
}
