import Foundation
import SRTCLab
import SRTCProtocol
import SRTCTestSupport
import TestWait
import Testing

/// The issue's lab scenarios on a real kernel bottleneck (issue 26; docs/network.md). The
/// scenarios themselves are `LabScenario`'s (SRTCLab, which `srtc-bench lab` runs too); bounds
/// are the issue's; each test prints the figures it measured.
extension NetworkLabLayerTests {
    /// Audio is Opus in 20 ms packets: 50 a second.
    static let minimumAudioRate = LabScenario.minimumAudioRate
    /// The issue's time back to the big layer after the link's return, s.
    static let issueUpSeconds = 8.0
    /// The issue's step down: the small layer within 2 s of the drop, no freeze over 500 ms after.
    static let issueDownSeconds = 2.0
    static let issueFreezeSeconds = 0.5

    @Test func below150kbitVideoPausesWithAnEventAudioContinuesAndVideoResumes() async throws {
        try await withLabCall { call in
            // Waited for by the scenario (it throws otherwise): the pause's event, the track
            // saying so, the resume's event and 30 frames after it.
            let figures = try await LabScenario.pause(call)
            print(figures)
            // Frames sent before the pause may still complete by retransmission (2–4 seen, 7 once
            // on a loaded machine): what must not arrive is a frame made after the pause.
            #expect(figures.madeAfterPause.isEmpty, "frames made after the pause decoded while paused: \(figures.madeAfterPause)")
            // A video still flowing would give about 6 s × 15 frames/s (a backstop for frames whose number is unreadable).
            #expect(figures.framesWhilePaused < 30, "\(figures.framesWhilePaused) frames decoded in 6 s while paused; switches: \(figures.switches)")
            #expect(figures.audioRateWhilePaused >= Self.minimumAudioRate * 0.9,
                    "\(figures.audioWhilePaused) audio packets in \(fmt(figures.quietSeconds)) s while paused")
            #expect(!figures.trackStillPausedAfter)
        }
    }

    @Test func from2MbitTo300kbitAndBackTheLayerFollowsAndAudioKeepsItsRate() async throws {
        try await withLabCall { call in
            let figures = try await LabScenario.stepDown(call)
            print(figures)
            #expect(figures.wideSwitches.isEmpty, "switched for bandwidth at 2 Mbit/s: \(figures.wideSwitches)")
            #expect(figures.delayNarrowEndLowest < Self.drainedDelayMs, "video at least \(fmt(figures.delayNarrowEndLowest)) ms late at 300 kbit/s's end")
            #expect(figures.down > 0 && figures.up > 0, "camera_small after the drop, camera_big after the return")
            // Seen 0.38–0.57 s down and 0.13–0.20 s of freeze on the small layer since the ramp
            // rule (docs/network.md, "Figures"); 1.0–1.2 s and up to 1.6 s before it.
            #expect(figures.down <= Self.issueDownSeconds, "camera_small \(fmt(figures.down)) s after the drop")
            #expect(figures.gapOnSmallLayer <= Self.issueFreezeSeconds, "a \(fmt(figures.gapOnSmallLayer)) s freeze on the small layer")
            // The issue's 8 s back up: a probe at most 3.5 s after the link's return (the longest
            // backoff plus a round), then two steps without a pause (seen 3.4–3.8 s).
            #expect(figures.up <= Self.issueUpSeconds, "camera_big \(fmt(figures.up)) s after the link's return")
            // The issue's 48 audio packets/s throughout, as the listener gets them: frames decoded
            // from a packet (arrived, or rebuilt from RED or resent after a NACK in time) per second
            // of sent audio. The packets are not lost at the step: they wait in the tbf's queue
            // (up to 420 ms at 300 kbit/s: its 200 ms latency plus its 8 kB burst) until the switch
            // down drains it, and a failed probe delays them 80–160 ms. Their arrival rate per 1 s
            // window falls with that delay (printed; asserted: audio never stops, half the rate).
            #expect((figures.audioFramesDecoded.min() ?? 0) >= Self.minimumAudioRate,
                    "\(figures.audioFramesDecoded.filter { $0 < Self.minimumAudioRate }.count) seconds of audio with under 48 frames decoded: lowest \(fmt(figures.audioFramesDecoded.min() ?? 0))")
            #expect((figures.audioRates.min() ?? 0) >= Self.minimumAudioRate / 2, "audio arrivals fell to \(fmt(figures.audioRates.min() ?? 0)) packets/s")
        }
    }

    @Test func aLinkDownFor10sThenUpResumesTheCallWithoutANewJoin() async throws {
        try await withLabCall { call in
            let observer = call.observer
            try await call.waitForBigFrames()
            try await Task.sleep(for: .seconds(4))
            let framesBefore = observer.frames.count

            let downAt = observer.elapsed
            try call.lab.setLink(call.link, up: false)
            try await Task.sleep(for: .seconds(10))
            let framesWhileDown = observer.frameCount(from: downAt + 0.5, to: observer.elapsed)
            let upAt = observer.elapsed
            try call.lab.setLink(call.link, up: true)

            try await eventually(timeout: 20, "frames after the link's return") { observer.frameCount(from: upAt, to: .infinity) >= 30 }
            let firstFrame = try #require(observer.frames.first { $0.time >= upAt })
            try await eventually(timeout: 10, "audio after the link's return") { observer.audioPackets(from: upAt, to: .infinity) >= 50 }
            try await Task.sleep(for: .seconds(3))
            let end = observer.elapsed
            let rates = observer.audioRates(from: firstFrame.time + 1, to: end)
            // Both observers count from their making, a moment apart: the publisher's clock is
            // read at the same instant as the subscriber's to compare.
            let offset = call.publisherEvents.elapsed - observer.elapsed
            let membership = observer.membership.filter { $0.time >= downAt }.map(\.event)
                + call.publisherEvents.membership.filter { $0.time - offset >= downAt }.map { "publisher: \($0.event)" }
            print("""
                network lab, link down 10 s: \(framesBefore) frames before, \(framesWhileDown) while down
                  link up: first frame \(fmt(firstFrame.time - upAt)) s after, audio \(fmt(rates.min() ?? 0))–\(fmt(rates.max() ?? 0)) packets/s after
                  membership events: \(membership.isEmpty ? "none" : membership.joined(separator: ", "))
                  switches: \(observer.switches.map(\.description).joined(separator: ", "))
                """)
            #expect(framesWhileDown == 0)
            #expect(!membership.contains { $0.contains("left") || $0.contains("joined") }, "\(membership)")
            #expect(call.subscriber.users.contains { $0.uid == "a" })
        }
    }
}
