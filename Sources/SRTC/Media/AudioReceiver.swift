import Foundation
import RTCMedia
import RTCWire
import Synchronization

/// Playout counters (packets played, ticks concealed) and the lost packets brought back in time:
/// by a NACK (`recovered`) and from the next packet's RED block (`recoveredByRED`), each of which
/// would have been concealed without it; and the packets that came as RED (RFC 2198). Of the ticks
/// concealed, `recoveredByFEC` were rebuilt from the next packet's Opus in-band FEC (LBRR, RFC 6716
/// §2.1.7) rather than by packet-loss concealment.
package typealias AudioPlayoutCounters = (statistics: AudioPlayoutBuffer.Statistics, recovered: Int, recoveredByRED: Int,
                                          receivedAsRED: Int, recoveredByFEC: Int)

/// Receives one subscribed audio stream: reorders Opus packets (playout buffer), decodes them
/// (FEC and concealment for losses), applies the engine's `audioRenderProcessor` and hands 20 ms
/// of PCM to the track's renderers. Playout is driven by arrivals: a frame is played once
/// `targetDepth` packets are buffered behind it. The RTP time the sender skipped (a mute, a
/// pause) goes with the next buffer to the speaker's mixer, which must not take it for jitter.
// @unchecked Sendable: `ssrc` is assigned only in init (never after); everything else is a `let` of a Sendable type or the Mutex `state`.
final class AudioReceiver: @unchecked Sendable {
    typealias PlayoutCounters = AudioPlayoutCounters

    private struct State {
        var playout = AudioPlayoutBuffer()
        /// Packets missing, to NACK while they can still be played (the sender negotiated it).
        /// Without a reordering allowance: it is polled only as packets arrive, 20 ms apart, so any
        /// wait would be a whole packet; audio that far apart rarely reorders, and without RTX a
        /// resend on a short round trip looks like reordering (docs/network.md, "NACK waits for
        /// reordering").
        var nack = NackGenerator(maxEntries: 32, maxRetries: 3, maxReorderingDelay: 0)
        /// Packets that arrived after a NACK asked for them: each would have been concealed.
        var recovered = 0
        /// Lost packets put in the playout buffer from a later packet's redundant block (RFC 2198).
        var recoveredByRED = 0
        /// Packets that came as RED (RFC 2198).
        var receivedAsRED = 0
        /// Concealed ticks decoded from the next packet's in-band FEC (it carried LBRR data).
        var recoveredByFEC = 0
        var decoder: OpusDecoder?
        var statistics = RTPReceiveStatistics(clockRate: 48_000)
        var processorInitialized: ObjectIdentifier?
        /// The newest packet so far: sequence number, RTP timestamp, duration in 48 kHz samples.
        var newest: (sequence: UInt16, timestamp: UInt32, duration: Int)?
        /// Media time the sender skipped since the last buffer was handed on (48 kHz samples).
        var senderPause = 0

        /// Notes the RTP time a new newest packet skipped beyond what the packets before it
        /// last (RFC 3550 §5.1: the timestamp follows the sampling clock whether or not packets
        /// are sent, so a mute, a paused subscription or DTX shows as a jump; a late packet does not).
        mutating func noteArrival(sequence: UInt16, timestamp: UInt32, payload: [UInt8]) {
            let duration = payload.withUnsafeBytes { (try? OpusPacketInfo(packet: $0))?.samplesAt48kHz } ?? 960
            if let last = newest {
                let packets = SequenceNumber.distance(from: last.sequence, to: sequence)
                guard packets > 0 else { return }   // late or repeated: not the newest
                let skipped = RTPTimestamp.distance(from: last.timestamp, to: timestamp) - Int64(packets * last.duration)
                // Beyond a few seconds it is a new timeline (a restarted sender), not a pause.
                if skipped > 0, skipped <= Self.longestPause { senderPause += Int(skipped) }
            }
            newest = (sequence, timestamp, duration)
        }

        static let longestPause: Int64 = 10 * 48_000

        /// Puts the redundant blocks of packet `sequence` in the playout buffer where their packet
        /// is missing and can still be played (RFC 2198 §3: a block `offset` timestamp units older
        /// is the packet `offset / duration` numbers before, with one frame per packet). Not for
        /// the first packet of the stream: what came before it was never this receiver's to play.
        mutating func recover(_ blocks: [(offset: Int, payload: [UInt8])], sequence: UInt16, duration: Int, nowUs: Int64,
                              nacks: Bool) {
            guard newest != nil, duration > 0 else { return }
            for block in blocks where !block.payload.isEmpty && block.offset > 0 && block.offset % duration == 0 {
                let distance = block.offset / duration
                guard distance <= Self.longestRecovery else { continue }
                let missing = sequence &- UInt16(distance)
                guard let last = newest, SequenceNumber.distance(from: last.sequence, to: missing) > -Self.longestRecovery * 4,
                      playout.accepts(missing) else { continue }
                let timestamp = UInt32(truncatingIfNeeded: Int(newestTimestamp(for: missing)))
                guard playout.insert(payload: block.payload, sequenceNumber: missing, timestamp: timestamp) else { continue }
                recoveredByRED += 1
                if nacks { _ = nack.recovered(missing, now: nowUs) }  // rebuilt, not reordered
            }
        }

        /// The RTP timestamp of packet `sequence` reckoned from the newest (one frame per packet).
        private func newestTimestamp(for sequence: UInt16) -> Int64 {
            guard let last = newest else { return 0 }
            return Int64(last.timestamp) + Int64(SequenceNumber.distance(from: last.sequence, to: sequence)) * Int64(last.duration)
        }

        /// Redundant blocks further back than this many packets are not used.
        static let longestRecovery = 2
    }

    let mid: String
    let track: RemoteAudioTrack
    private(set) var ssrc: UInt32
    let audioLevelID: UInt8?
    private let context: EngineContext
    private let state: Mutex<State>
    private let e2ee: E2EEChannelCrypto?

    /// Whether the sender answers NACKs for this stream (negotiated, RFC 4585 §4.2).
    let nacks: Bool
    /// The payload type of RED (RFC 2198) when negotiated: such packets carry the Opus packet as
    /// their primary block and the one before it as a redundant block.
    let redPayloadType: UInt8?

    init(mid: String, ssrc: UInt32, audioLevelID: UInt8?, track: RemoteAudioTrack, context: EngineContext, e2ee: E2EEChannelCrypto? = nil,
         nacks: Bool = false, redPayloadType: UInt8? = nil) {
        self.redPayloadType = redPayloadType
        self.e2ee = e2ee
        self.nacks = nacks
        self.mid = mid
        self.ssrc = ssrc
        self.audioLevelID = audioLevelID
        self.track = track
        self.context = context
        state = Mutex(State(decoder: try? OpusDecoder(sampleRate: 48_000, channels: 1)))
    }

    /// One RTP packet of the stream (transport I/O thread).
    /// - Returns: the sequence numbers to NACK now (none when NACK was not negotiated).
    @discardableResult
    func receive(_ packet: RTPPacketView, nowUs: Int64) -> [UInt16] {
        if let id = audioLevelID, let value = packet.extensionValue(id: id),
           let level = try? AudioLevelExtension(parsing: value) {
            track.setLevel(level.level)
        }
        var payload: [UInt8]
        var redundant: [(offset: Int, payload: [UInt8])] = []
        if let red = redPayloadType, packet.payloadType == red {
            // RFC 2198 §3: the primary block is this packet's Opus; a RED payload that does not
            // parse is dropped (concealed as a loss).
            guard let view = try? REDPayloadView(packet.payload) else { return [] }
            payload = Array(view.data(view.primary))
            for index in 0 ..< view.redundantCount {
                let block = view.redundant(index)
                redundant.append((offset: Int(block.timestampOffset), payload: Array(view.data(block))))
            }
        } else {
            payload = Array(packet.payload)
        }
        if let e2ee, !payload.isEmpty {
            // One Opus packet is one frame (docs/e2ee.md); one that does not decrypt is dropped
            // before the playout buffer, which conceals it as a loss. Each RED block is one.
            guard let plain = e2ee.decrypt(payload, codec: .opus, from: track.uid) else { return [] }
            payload = plain
            redundant = redundant.compactMap { block in e2ee.decrypt(block.payload, codec: .opus, from: track.uid).map { (offset: block.offset, payload: $0) } }
        }
        let encoded = track.hasEncodedRenderers
        let decodes = track.needsDecoding
        let nacks = self.nacks
        let (buffers, packets, senderPause, lost) = state.withLock { s -> ([AudioPCMBuffer], [EncodedMediaFrame], Int, [UInt16]) in
            _ = s.statistics.update(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, arrivalMicros: nowUs,
                                    size: packet.bytes.count)
            if let red = redPayloadType, packet.payloadType == red { s.receivedAsRED += 1 }
            if !redundant.isEmpty {
                // Before the packet itself: its NACK state then sees no gap for what was rebuilt.
                let duration = payload.withUnsafeBytes { (try? OpusPacketInfo(packet: $0))?.samplesAt48kHz } ?? 960
                s.recover(redundant, sequence: packet.sequenceNumber, duration: duration, nowUs: nowUs, nacks: nacks)
            }
            s.noteArrival(sequence: packet.sequenceNumber, timestamp: packet.timestamp, payload: payload)
            var lost: [UInt16] = []
            if nacks {
                if s.nack.wasRequested(packet.sequenceNumber) { s.recovered += 1 }
                _ = s.nack.received(packet.sequenceNumber, now: nowUs)
                // Asked again after 20 ms at the earliest: the playout buffer holds 60 ms.
                _ = s.nack.poll(now: nowUs, rtt: 0, into: &lost)
            }
            guard s.playout.insert(payload: payload, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp),
                  let decoder = s.decoder else { return ([], [], 0, lost) }
            var out: [AudioPCMBuffer] = []
            var packets: [EncodedMediaFrame] = []
            while s.playout.count >= s.playout.configuration.targetDepth {
                let slot = s.playout.next()
                // A missing packet RED and NACK did not bring back: the decoder rebuilds it from
                // the next packet's FEC when that one carries some (`AudioPlayoutBuffer.decode`).
                if case .lost(let next?) = slot, next.withUnsafeBytes({ OpusPacketInfo.hasLBRR($0) }) { s.recoveredByFEC += 1 }
                if encoded, case .packet(let data) = slot, let timestamp = s.playout.lastPlayedTimestamp {
                    packets.append(EncodedMediaFrame(kind: .audio, data: data, isKeyFrame: true, rtpTimestamp: timestamp,
                                                     clockRate: 48_000, receivedAtUs: nowUs))
                }
                guard decodes else { continue }
                guard let pcm = try? AudioPlayoutBuffer.decode(slot, decoder: decoder) else { break }
                out.append(process(pcm, in: &s))
            }
            // The pause goes with the first buffer handed on after it (the speaker's mixer).
            let pause = out.isEmpty ? 0 : s.senderPause
            if !out.isEmpty { s.senderPause = 0 }
            return (out, packets, pause, lost)
        }
        for frame in packets { track.deliverEncoded(frame) }
        for (index, buffer) in buffers.enumerated() { track.deliver(buffer, senderPause: index == 0 ? senderPause : 0) }
        return lost
    }

    private func process(_ pcm: AudioPCMBuffer, in s: inout State) -> AudioPCMBuffer {
        guard let processor = context.audioRenderProcessor else { return pcm }
        let id = ObjectIdentifier(processor)
        if s.processorInitialized != id {
            processor.audioProcessingInitialize(sampleRate: pcm.sampleRate, channels: pcm.channels)
            s.processorInitialized = id
        }
        let buffer = AudioBuffer(channels: pcm.channels, frames: pcm.frameCount, sampleRate: pcm.sampleRate)
        buffer.load(pcm)
        processor.audioProcessingProcess(audioBuffer: buffer)
        return buffer.interleaved(timestampUs: pcm.timestampUs)
    }

    func senderReportArrived(_ ntp: NTPTime, at seconds: Double) {
        state.withLock { $0.statistics.senderReportArrived(ntp: ntp, arrivalMicros: Int64(seconds * 1e6)) }
    }

    func receptionReport(now: Double) -> ReceptionReport? {
        state.withLock { s in s.statistics.started ? s.statistics.makeReportBlock(ssrc: ssrc, nowMicros: Int64(now * 1e6)) : nil }
    }

    var statistics: RTPReceiveStatistics { state.withLock { $0.statistics } }

    /// Playout counters (packets played, ticks concealed) and the packets a NACK, RED and FEC recovered.
    var playout: PlayoutCounters {
        state.withLock { ($0.playout.statistics, $0.recovered, $0.recoveredByRED, $0.receivedAsRED, $0.recoveredByFEC) }
    }
}
