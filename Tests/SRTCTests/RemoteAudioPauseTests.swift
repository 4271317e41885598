import Foundation
import RTCMedia
import RTCWire
@testable import SRTCCore
import Testing

/// A remote mute or pause is no jitter: real Opus packets through a subscribed track's real
/// receive path (`AudioReceiver`: playout buffer, decoder) into the engine's speaker mixer, which
/// the test pulls in virtual time as a sound card would. While the sender pauses its RTP time runs
/// on (RFC 3550 §5.1) and no packet comes; the playout delay afterwards is what it was before. A
/// network stall of the same packets (their RTP time contiguous, their arrival late) still grows it.
struct RemoteAudioPauseTests {
    /// The speaker is the test itself: it pulls the mixer in virtual time.
    struct PulledSpeaker: DeviceBackend {
        func devices(_ kind: MediaDeviceKind) -> [MediaDevice] { [] }
        func watch(_ changed: @escaping @Sendable () -> Void) -> DeviceWatch { DeviceThread(name: "pulled.watch") { _ in } }
        func openAudioOutput(deviceId: String?, mixer: RemoteAudioMixer) throws(SRTCError) -> DeviceWatch {
            DeviceThread(name: "pulled.output") { _ in }
        }
    }

    /// A sender of 20 ms Opus packets of a tone and a receiver pulled every 10 ms of virtual time.
    final class Call {
        let context = EngineContext(configuration: .init(delegateQueue: DispatchQueue(label: "pause"), logLevel: .off),
                                    deviceBackend: PulledSpeaker())
        let track: RemoteAudioTrack
        let receiver: AudioReceiver
        let encoder: OpusEncoder
        var tone = SineToneGenerator(frequency: 440)
        /// Packets the sender's clock has reached (sent or skipped), and the sequence number of the next one sent.
        var packet = 0
        var sequence: UInt16 = 40_000
        let timestampBase: UInt32 = 0xFFFF_0000   // wraps during the call
        /// Virtual time, ms; packets in flight with their arrival time.
        var now = 0
        var inFlight: [(arrival: Int, bytes: [UInt8])] = []
        var heard = 0

        init() throws {
            track = RemoteAudioTrack(info: TrackInfo(id: "a", uid: "u", kind: .audio, desc: "mic"), context: context)
            receiver = AudioReceiver(mid: "1", ssrc: 7, audioLevelID: nil, track: track, context: context)
            encoder = try OpusEncoder()
            try context.devices.startPlayback(deviceId: nil)
        }

        deinit { context.devices.stopPlayback() }

        var mixer: RemoteAudioMixer { context.devices.mixer }
        var playout: (targetSamples: Int, underruns: Int)? { mixer.playout(ObjectIdentifier(track)) }

        /// Runs `milliseconds`: every 20 ms the sender's clock takes a packet, sent with `delay`
        /// ms of network delay (in order) unless `paused`; every 10 ms arrivals are received and
        /// the speaker pulls 10 ms.
        func run(_ milliseconds: Int, paused: Bool = false, delay: (Int) -> Int = { _ in 0 }) throws {
            let end = now + milliseconds
            while now < end {
                if now % 20 == 0 {
                    let pcm = tone.next(frameCount: 960)
                    if !paused {
                        let payload = try encoder.encode(pcm)
                        let rtp = RTPPacket(marker: false, payloadType: 111, sequenceNumber: sequence,
                                            timestamp: timestampBase &+ UInt32(packet * 960), ssrc: 7, payload: payload)
                        sequence &+= 1
                        let arrival = max(inFlight.last?.arrival ?? 0, now + delay(packet))
                        inFlight.append((arrival, rtp.serialize()))
                    }
                    packet += 1
                }
                while let first = inFlight.first, first.arrival <= now {
                    inFlight.removeFirst()
                    first.bytes.withUnsafeBytes { raw in
                        if let view = try? RTPPacketView(raw) { receiver.receive(view, nowUs: Int64(now) * 1_000) }
                    }
                }
                var out = [Float](repeating: 0, count: 480)
                out.withUnsafeMutableBufferPointer { mixer.pull(into: $0) }
                heard += out.filter { $0 != 0 }.count
                now += 10
            }
        }
    }

    @Test func aSendersPauseLeavesThePlayoutDelayAsItWasAndAStallStillGrowsIt() throws {
        let call = try Call()
        // Three seconds of a steady link (0–4 ms of jitter).
        try call.run(3_000) { $0 % 5 }
        let before = try #require(call.playout)
        let heardBefore = call.heard
        #expect(heardBefore > 2 * 48_000, "the tone plays (\(heardBefore) samples)")

        // The sender pauses for 1.5 s (a remote mute: its clock runs on, nothing is sent), then
        // talks again for three seconds.
        try call.run(1_500, paused: true)
        try call.run(3_000) { $0 % 5 }
        let after = try #require(call.playout)
        #expect(after.targetSamples == before.targetSamples && after.underruns == before.underruns,
                "playout target \(before.targetSamples) → \(after.targetSamples) samples, underruns \(before.underruns) → \(after.underruns)")
        #expect(call.mixer.bufferedSamples(ObjectIdentifier(call.track)) <= after.targetSamples + 1_920)
        #expect(call.heard - heardBefore > 2 * 48_000, "the tone plays again after the pause")

        // The same length of silence from a stalled network: the packets of 200 ms arrive late,
        // together, their RTP time contiguous. That is jitter: the target grows to cover it.
        let stalled = call.packet
        try call.run(2_000) { $0 < stalled + 10 ? (stalled + 10 - $0) * 20 : 0 }
        let grown = try #require(call.playout)
        #expect(grown.underruns == before.underruns + 1 && grown.targetSamples >= before.targetSamples + 150 * 48,
                "after a 200 ms stall: target \(grown.targetSamples), underruns \(grown.underruns)")
    }
}
