import Foundation
import RTCMedia
import RTCTransport
import RTCWire
import TestWait
import Testing
@testable import SRTCCore

/// The audio sender's Opus in-band FEC (docs/sdk-srtc.md and docs/network.md, "Opus in-band FEC
/// tuned to the loss subscribers see"): on only where the publish answer has `useinbandfec=1`,
/// planned for the smoothed fraction lost of the receiver reports on the stream.
@Suite(.serialized) struct OpusFECSenderTests {
    let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "fec-test"), logLevel: .off,
                                                 mediaBindAddress: "127.0.0.1"))

    /// The smoothing: half way up to a report above, an eighth of the way down to one below,
    /// whole percent, at most 25.
    @Test func theEstimateRisesFastFallsSlowlyAndIsClamped() {
        var estimate = OpusLossEstimate()
        #expect(estimate.percent == 0 && estimate.lastReported == nil)
        var percents: [Int] = []
        for fractionLost: UInt8 in [26, 26, 26, 0, 0, 0, 0] {   // 10.2 % three times, then none
            estimate.add(fractionLost: fractionLost)
            percents.append(estimate.percent)
        }
        // 5.08, 7.62, 8.89; then × 7/8 each: 7.78, 6.81, 5.96, 5.21.
        #expect(percents == [5, 8, 9, 8, 7, 6, 5])
        #expect(estimate.lastReported == 0)
        // One lost packet in a report (2 %) plans for 1 %; a report of half the packets lost, 25 %.
        var one = OpusLossEstimate()
        one.add(fractionLost: 5)
        #expect(one.percent == 1)
        for _ in 0 ..< 10 { one.add(fractionLost: 128) }
        #expect(one.percent == OpusLossEstimate.maximumPercent)
    }

    /// A real encoder behind a real publish session and transport (a fake server over loopback):
    /// no LBRR before a report shows loss, LBRR in nearly every packet after reports of 20 %;
    /// offered without `useinbandfec=1`, never any, whatever the reports.
    @Test(arguments: [true, false])
    func theEncoderFollowsTheAnswerAndTheReports(offerFEC: Bool) async throws {
        let server = try FakeMediaServer()
        defer { server.stop() }
        let session = PublishSession(certificate: try DTLSCertificate(), bindAddress: "127.0.0.1", redundantAudio: false,
                                     opusInbandFEC: offerFEC, logger: engine.context.logger)
        defer { session.close() }
        let audio = engine.createLocalCustomAudioTrack(desc: "mic")
        let section = session.add(audio)
        try session.applyAnswer(try server.answer(session.makeOffer()))
        session.attach(mid: section.mid)
        #expect(await holds { session.transportState == .connected && server.isConnected })

        var tone = SineToneGenerator(frequency: 440)
        /// Pushes 1 s of tone; returns how many of the Opus packets that arrived carry LBRR, of how many.
        func secondOfTone() async throws -> (lbrr: Int, packets: Int) {
            let before = server.rtp.count
            // One frame at a time, each once the one before arrived: 50 pushed at once were a
            // burst that lost datagrams when the suite ran beside others.
            for index in 0 ..< 50 {
                audio.pushAudioBuffer(tone.next(frameCount: 960))
                _ = await holds(within: 2) { server.rtp.count >= before + index + 1 }
            }
            let packets = try server.rtp[before...].map { try RTPPacket(parsing: $0) }.filter { $0.payloadType == 111 }
            return (packets.filter { $0.payload.withUnsafeBytes { OpusPacketInfo.hasLBRR($0) } }.count, packets.count)
        }
        func report(fractionLost: UInt8) {
            let rr = RTCPCompound.serialize([.receiverReport(ReceiverReport(ssrc: 1, reports: [
                ReceptionReport(ssrc: section.ssrcs[0], fractionLost: fractionLost),
                ReceptionReport(ssrc: 0xDEAD, fractionLost: 255),   // not ours: ignored
            ]))])
            _ = rr.withUnsafeBytes { session.handleFeedback($0) }
        }

        let quiet = try await secondOfTone()
        #expect(audio.sendStatistics.inbandFEC == offerFEC)
        #expect(audio.sendStatistics.expectedPacketLossPercent == 0 && audio.sendStatistics.reportedFractionLost == nil)
        #expect(quiet.packets >= 45 && quiet.lbrr == 0, "\(quiet)")

        report(fractionLost: 51)   // 20 %
        report(fractionLost: 51)
        let stats = audio.sendStatistics
        #expect(stats.expectedPacketLossPercent == 15, "\(stats)")   // 9.96 %, then 14.9 %
        #expect(abs((stats.reportedFractionLost ?? 0) - 51.0 / 256) < 1e-9)
        let lossy = try await secondOfTone()
        print("Opus FEC \(offerFEC ? "offered" : "not offered"): \(quiet.lbrr) of \(quiet.packets) packets with LBRR at 0 %, "
            + "\(lossy.lbrr) of \(lossy.packets) at \(stats.expectedPacketLossPercent) %")
        if offerFEC {
            // The first packet after the change may be coded before it (the encoder's lookahead).
            #expect(lossy.packets >= 45 && lossy.lbrr >= lossy.packets - 5, "\(lossy)")
        } else {
            #expect(lossy.packets >= 45 && lossy.lbrr == 0, "\(lossy)")
        }
    }
}
