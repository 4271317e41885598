import Foundation
import RTCMedia
import Synchronization

/// Takes the Opus packets of a local audio track (an RTP sender of one publication).
protocol EncodedAudioSink: AnyObject, Sendable {
    /// One 20 ms Opus packet; `samplePosition` counts 48 kHz samples since the track started
    /// (the RTP timestamp before the sender's random offset); `level` is RFC 6464 -dBov.
    func send(opus packet: [UInt8], samplePosition: UInt32, level: UInt8, voiceActivity: Bool)
}

/// The encoder of one local audio track: PCM at any rate → 48 kHz → 20 ms frames →
/// `audioCaptureProcessor` → level (RFC 6464) → Opus → sinks. Runs on the pushing thread.
final class AudioSendPipeline: Sendable {
    // MARK: - Types

    private struct State {
        var resampler: AudioResampler
        var pending: [Float] = []
        var encoder: OpusEncoder?
        var samplePosition: UInt32 = 0
        var sinks: [ObjectIdentifier: any EncodedAudioSink] = [:]
        var processorInitialized: (id: ObjectIdentifier, rate: Int, channels: Int)?
        var packetsEncoded = 0
        /// Opus DTX negotiated (`setDTX`): the encoder runs with DTX and its silence packets are
        /// not sent.
        var dtx = false
        /// Packets DTX kept back (silence).
        var packetsSkippedByDTX = 0
    }

    /// Opus in-band FEC: whether the answer asked for it, and the loss to plan it for per sink
    /// (one per channel the track is published in), from that channel's receiver reports. Apart
    /// from `State` so that a report (on the network thread) never waits for an encode.
    private struct FECState {
        var inbandFEC = false
        var estimates: [ObjectIdentifier: OpusLossEstimate] = [:]
        /// The largest of the estimates' percent: the encoder serves every channel at once.
        var percent = 0
        var lastReported: Double?

        mutating func update() {
            percent = estimates.values.reduce(0) { max($0, $1.percent) }
            lastReported = estimates.values.compactMap(\.lastReported).max()
        }
    }

    static let sampleRate = 48_000
    static let frameSize = 960

    let preset: AudioPreset
    private let context: EngineContext
    private let state: Mutex<State>
    private let fec = Mutex(FECState())

    init(preset: AudioPreset, context: EngineContext) {
        self.preset = preset
        self.context = context
        state = Mutex(State(resampler: AudioResampler(outputChannels: preset.channels)))
    }

    // MARK: - Sinks

    func attach(_ sink: any EncodedAudioSink) {
        state.withLock { $0.sinks[ObjectIdentifier(sink)] = sink }
    }

    func detach(_ sink: any EncodedAudioSink) {
        state.withLock { $0.sinks[ObjectIdentifier(sink)] = nil }
        fec.withLock { f in
            f.estimates[ObjectIdentifier(sink)] = nil
            f.update()
        }
    }

    var packetsEncoded: Int { state.withLock { $0.packetsEncoded } }
    var packetsSkippedByDTX: Int { state.withLock { $0.packetsSkippedByDTX } }

    /// Packets, DTX and the FEC planned (`LocalAudioTrack.sendStatistics`).
    var statistics: AudioSendStatistics {
        let (encoded, skipped) = state.withLock { ($0.packetsEncoded, $0.packetsSkippedByDTX) }
        return fec.withLock { f in
            AudioSendStatistics(packetsEncoded: encoded, packetsSkippedByDTX: skipped, inbandFEC: f.inbandFEC,
                                expectedPacketLossPercent: f.percent, reportedFractionLost: f.lastReported)
        }
    }

    /// Opus in-band FEC (RFC 6716 §2.1.7) on or off, as the publish answer's `useinbandfec`
    /// says (RFC 7587 §6.1: the receiver's wish); the encoder follows at the next frame.
    func setInbandFEC(_ on: Bool) {
        fec.withLock { $0.inbandFEC = on }
    }

    /// A receiver report's fraction lost (in 256ths) about this track's stream in the channel of
    /// `sink`: the loss the encoder plans FEC for follows it (`OpusLossEstimate`), from the next frame.
    func receivedReport(fractionLost: UInt8, from sink: any EncodedAudioSink) {
        fec.withLock { f in
            f.estimates[ObjectIdentifier(sink), default: OpusLossEstimate()].add(fractionLost: fractionLost)
            f.update()
        }
    }

    /// Opus discontinuous transmission (RFC 7587 §3.1.3) on or off, as the publish answer says:
    /// the encoder is made again with it at the next frame.
    func setDTX(_ on: Bool) {
        state.withLock { s in
            guard s.dtx != on else { return }
            s.dtx = on
            s.encoder = nil
        }
    }

    func reset() {
        state.withLock { s in
            s.pending = []
            s.encoder = nil
        }
    }

    // MARK: - Encoding

    /// Appends PCM; every complete 20 ms frame is processed, encoded and sent. With no sink
    /// attached the audio is dropped (the clock still advances, so timestamps stay real-time).
    func push(_ buffer: AudioPCMBuffer, muted: Bool) {
        state.withLock { s in
            s.pending += s.resampler.process(buffer)
            let channels = preset.channels
            let frameSamples = Self.frameSize * channels
            while s.pending.count >= frameSamples {
                let frame = Array(s.pending[0..<frameSamples])
                s.pending.removeFirst(frameSamples)
                defer { s.samplePosition &+= UInt32(Self.frameSize) }
                guard !s.sinks.isEmpty, !muted else { continue }
                encode(frame, in: &s)
            }
        }
    }

    private func encode(_ samples: [Float], in s: inout State) {
        let channels = preset.channels
        var pcm = AudioPCMBuffer(float32: samples, sampleRate: Self.sampleRate, channels: channels)
        if let processor = context.audioCaptureProcessor {
            let id = ObjectIdentifier(processor)
            if s.processorInitialized.map({ $0.id != id || $0.rate != Self.sampleRate || $0.channels != channels }) ?? true {
                processor.audioProcessingInitialize(sampleRate: Self.sampleRate, channels: channels)
                s.processorInitialized = (id, Self.sampleRate, channels)
            }
            let buffer = AudioBuffer(channels: channels, frames: Self.frameSize, sampleRate: Self.sampleRate)
            buffer.load(pcm)
            processor.audioProcessingProcess(audioBuffer: buffer)
            pcm = buffer.interleaved(timestampUs: nil)
        }
        let (level, voice) = AudioLevel.measure(pcm.floatSamples)
        let (inbandFEC, lossPercent) = fec.withLock { ($0.inbandFEC, $0.percent) }
        do {
            // The expected loss is set whether FEC is on or not: libopus also makes its own
            // prediction more robust with it; LBRR is coded only with FEC on.
            if s.encoder == nil || s.encoder?.configuration.inbandFEC != inbandFEC {
                var configuration = OpusEncoder.Configuration()
                configuration.channels = channels
                configuration.bitrate = preset.bitrate
                configuration.dtx = s.dtx
                configuration.inbandFEC = inbandFEC
                configuration.expectedPacketLossPercent = lossPercent
                s.encoder = try OpusEncoder(configuration: configuration)
            } else if s.encoder?.configuration.expectedPacketLossPercent != lossPercent {
                try s.encoder?.setExpectedPacketLoss(percent: lossPercent)
            }
            guard let packet = try s.encoder?.encode(pcm) else { return }
            s.packetsEncoded += 1
            // RFC 7587 §3.1.3: a DTX packet (1–2 bytes, silence) need not be sent; the sample
            // position still advances, so the next packet sent carries the skipped time in its
            // timestamp with the next sequence number (no gap for the receiver to NACK).
            if s.dtx, OpusEncoder.isDTXPacket(length: packet.count) {
                s.packetsSkippedByDTX += 1
                return
            }
            for sink in s.sinks.values {
                sink.send(opus: packet, samplePosition: s.samplePosition, level: level, voiceActivity: voice)
            }
        } catch {
            context.logger.warning("Opus encode failed: \(error)")
            s.encoder = nil
        }
    }
}

/// RFC 6464 §3 audio level: the RMS of a frame in -dBov (0 = full scale, 127 = silence).
enum AudioLevel {
    /// Below this level (-dBov) the frame counts as silence for the voice-activity bit.
    static let voiceThreshold: UInt8 = 50

    static func measure(_ samples: [Float]) -> (level: UInt8, voiceActivity: Bool) {
        guard !samples.isEmpty else { return (127, false) }
        var sum: Double = 0
        for s in samples { sum += Double(s) * Double(s) }
        let rms = (sum / Double(samples.count)).squareRoot()
        guard rms > 0 else { return (127, false) }
        let dbov = -20 * log10(min(1, rms))
        let level = UInt8(max(0, min(127, dbov.rounded())))
        return (level, level < voiceThreshold)
    }
}
