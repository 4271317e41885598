import Foundation
import RTCMedia
import SRTCCore
import SRTCProtocol
import Synchronization
import TestWait

/// What one participant of a lab call decodes and is told, each with its time (s since made).
// @unchecked Sendable: every record is a Mutex; `start` and `readsFrameNumbers` are set in init.
public final class LabObserver: ChannelDelegate, VideoRenderer, EncodedFrameRenderer, @unchecked Sendable {
    public struct Switch: Sendable, CustomStringConvertible {
        public var time: Double
        public var layer: String
        public var previous: String?
        public var cause: String
        public var description: String { "\(String(format: "%.1f", time)) \(layer) (\(cause))" }
    }

    public let start = DispatchTime.now().uptimeNanoseconds
    /// Whether each frame's test-pattern number is read (`numbers`).
    private let readsFrameNumbers: Bool
    private let framesStore = Mutex<[(time: Double, width: Int, height: Int)]>([])
    private let numbersStore = Mutex<[(time: Double, number: Int)]>([])
    private let switchesStore = Mutex<[Switch]>([])
    private let audioStore = Mutex<[(time: Double, packets: Int, lost: Int, bytes: Int)]>([])
    private let playoutStore = Mutex<[(time: Double, played: Int, concealed: Int, recovered: Int, recoveredByRED: Int,
                                       recoveredByFEC: Int)]>([])
    /// Opus packets played, and of those the ones that carried LBRR (in-band FEC for the packet
    /// before, RFC 6716 §2.1.7), as the audio track's encoded renderer saw them.
    private let opusStore = Mutex((packets: 0, withLBRR: 0))
    /// Each Opus packet the playout decoded (one that arrived, or one a NACK or RED brought back;
    /// not a tick concealed), with when (s) and its RTP timestamp, unwrapped (48 kHz).
    private let audioFramesStore = Mutex<[(time: Double, timestamp: Int64)]>([])
    private let membershipStore = Mutex<[(time: Double, event: String)]>([])
    private let audioTrack = Mutex<RemoteAudioTrack?>(nil)

    public var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
    public var frames: [(time: Double, width: Int, height: Int)] { framesStore.withLock { $0 } }
    /// The test-pattern number of each frame decoded (when made with `readsFrameNumbers`).
    public var numbers: [(time: Double, number: Int)] { numbersStore.withLock { $0 } }
    public var switches: [Switch] { switchesStore.withLock { $0 } }
    /// `left <uid>` / `joined <uid>` as the channel told them, with when.
    public var membership: [(time: Double, event: String)] { membershipStore.withLock { $0 } }

    public init(readsFrameNumbers: Bool = false) {
        self.readsFrameNumbers = readsFrameNumbers
    }

    public func render(frame: VideoFrame) {
        let now = elapsed
        framesStore.withLock { $0.append((now, frame.width, frame.height)) }
        if readsFrameNumbers, let number = TestPatternReader.frameNumber(in: frame) {
            numbersStore.withLock { $0.append((now, number)) }
        }
    }

    public func render(encodedFrame: EncodedMediaFrame) {
        guard encodedFrame.kind == .audio else { return }
        let lbrr = encodedFrame.data.withUnsafeBytes { OpusPacketInfo.hasLBRR($0) }
        opusStore.withLock { $0.packets += 1; if lbrr { $0.withLBRR += 1 } }
        let now = elapsed
        audioFramesStore.withLock { frames in
            // Unwrapped: the step from the frame before, read as a signed 32-bit difference.
            let timestamp = frames.last.map { $0.timestamp + Int64(Int32(bitPattern: encodedFrame.rtpTimestamp &- UInt32(truncatingIfNeeded: $0.timestamp))) }
                ?? Int64(encodedFrame.rtpTimestamp)
            frames.append((now, timestamp))
        }
    }

    public func channel(_ channel: Channel, didSwitchLayer info: LayerSwitchedInfo) {
        let now = elapsed
        switchesStore.withLock { $0.append(Switch(time: now, layer: info.layer, previous: info.previous, cause: info.cause)) }
    }

    public func channel(_ channel: Channel, userDidJoin user: UserInfo) {
        let now = elapsed
        membershipStore.withLock { $0.append((now, "joined \(user.uid)")) }
    }

    public func channel(_ channel: Channel, userDidLeave uid: String, reason: DisconnectReason) {
        let now = elapsed
        membershipStore.withLock { $0.append((now, "left \(uid)")) }
    }

    public func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard let remote = channel.remoteTrack(trackId: track.id) else { return }
        (remote as? RemoteVideoTrack)?.add(videoRenderer: self)
        if let audio = remote as? RemoteAudioTrack {
            audioTrack.withLock { $0 = audio }
            audio.add(encodedFrameRenderer: self)
        }
        Task { try? await channel.subscribe(remote, layer: track.kind == .video ? .cameraBig : nil) }
    }

    /// Records the audio track's packet count now (the call's sampler runs it every 250 ms).
    public func sampleAudio() {
        guard let statistics = audioTrack.withLock({ $0 })?.receiveStatistics else { return }
        let now = elapsed
        audioStore.withLock { $0.append((now, statistics.packetsReceived, statistics.packetsLost, statistics.bytesReceived)) }
        if let playout = audioTrack.withLock({ $0 })?.playoutCounters {
            playoutStore.withLock {
                $0.append((now, playout.statistics.played, playout.statistics.concealed, playout.recovered, playout.recoveredByRED,
                           playout.recoveredByFEC))
            }
        }
    }

    /// What the audio playout did between `from` and `to`: packets played, 20 ms ticks concealed
    /// (a lost packet, FEC or PLC), and lost packets a NACK brought back in time and a RED block
    /// rebuilt (each would have been concealed without it).
    public func audioPlayout(from: Double, to: Double) -> (played: Int, concealed: Int, recovered: Int, recoveredByRED: Int) {
        let playout = audioPlayoutWithFEC(from: from, to: to)
        return (playout.played, playout.concealed, playout.recovered, playout.recoveredByRED)
    }

    /// `audioPlayout`, and of the ticks concealed those rebuilt from the next packet's in-band FEC.
    public func audioPlayoutWithFEC(from: Double, to: Double) -> (played: Int, concealed: Int, recovered: Int, recoveredByRED: Int,
                                                          recoveredByFEC: Int) {
        let samples = playoutStore.withLock { $0 }.filter { $0.time >= from && $0.time <= to }
        guard let first = samples.first, let last = samples.last else { return (0, 0, 0, 0, 0) }
        return (last.played - first.played, last.concealed - first.concealed, last.recovered - first.recovered,
                last.recoveredByRED - first.recoveredByRED, last.recoveredByFEC - first.recoveredByFEC)
    }

    /// Each Opus packet the playout decoded from a packet (arrived, or brought back by NACK or RED):
    /// when (s) and its RTP timestamp, unwrapped (48 kHz).
    public var audioFrames: [(time: Double, timestamp: Int64)] { audioFramesStore.withLock { $0 } }

    /// Opus packets played so far, and how many of them carried LBRR.
    public var opusPackets: (packets: Int, withLBRR: Int) { opusStore.withLock { $0 } }

    /// Audio RTP bytes received (whole packets, headers included) between `from` and `to`.
    public func audioBytes(from: Double, to: Double) -> Int {
        let samples = audioStore.withLock { $0 }.filter { $0.time >= from && $0.time <= to }
        guard let first = samples.first, let last = samples.last else { return 0 }
        return last.bytes - first.bytes
    }

    // MARK: - Figures

    /// The size of the last frame decoded at or after `time`.
    public func lastSize(since time: Double) -> (Int, Int)? {
        frames.last { $0.time >= time }.map { ($0.width, $0.height) }
    }

    /// The first switch at or after `time` that matches.
    public func firstSwitch(since time: Double, layer: String, cause: String = "bandwidth") -> Switch? {
        switches.first { $0.time >= time && $0.layer == layer && $0.cause == cause }
    }

    /// Waits for a switch for bandwidth to `layer` at or after `time`, then for frames of `width`
    /// decoded after it; returns the switch and the first such frame's time.
    public func switched(since time: Double, to layer: String, width: Int, timeout: Double) async throws -> (switch: Switch, firstFrame: Double) {
        let change = try await waitFor(timeout: timeout, "switched to \(layer)") { firstSwitch(since: time, layer: layer) }
        let first = try await waitFor(timeout: 10, "frames \(width) wide after the switch") {
            frames.last { $0.time >= change.time }?.width == width ? frames.first { $0.time >= time && $0.width == width } : nil
        }
        return (change, first.time)
    }

    /// Audio packets a second over each 1 s window between `from` and `to` (windows slide by
    /// the sampler's 250 ms; a window's rate uses the times measured, not the nominal ones).
    public func audioRates(from: Double, to: Double) -> [Double] {
        let samples = audioStore.withLock { $0 }.filter { $0.time >= from && $0.time <= to }
        var rates: [Double] = []
        for (index, first) in samples.enumerated() {
            guard let last = samples[index...].first(where: { $0.time - first.time >= 1.0 }) else { break }
            rates.append(Double(last.packets - first.packets) / (last.time - first.time))
        }
        return rates
    }

    /// Opus frames decoded from a packet (one that arrived, or one a NACK or a RED block brought
    /// back in time; not a tick concealed, by PLC or rebuilt from FEC) per second of the sender's
    /// audio, in 1 s windows sliding by 250 ms between `from` and `to`. A window is a second of
    /// the sender's clock (RTP time) laid onto this clock by the least delayed frame of the call:
    /// a packet held up in a queue still counts in its own second, one lost and not recovered
    /// does not (`audioDelays` tells the delay apart). 50 a second when nothing is lost.
    public func audioFramesDecodedRates(from: Double, to: Double) -> [Double] {
        let frames = audioFrames
        guard let base = Self.mediaBase(frames) else { return [] }
        let times = frames.map { base + Double($0.timestamp) / 48_000 }
        var rates: [Double] = []
        var start = from
        while start + 1 <= to {
            let window = start ..< start + 1
            rates.append(Double(times.lazy.filter { window.contains($0) }.count))
            start += 0.25
        }
        return rates
    }

    /// How late each decoded audio frame whose sender time falls between `from` and `to` came,
    /// beyond the least delayed frame of the call, ms: the queueing a listener's jitter buffer
    /// must absorb.
    public func audioDelays(from: Double, to: Double) -> [Double] {
        let frames = audioFrames
        guard let base = Self.mediaBase(frames) else { return [] }
        return frames.compactMap { frame in
            let sent = base + Double(frame.timestamp) / 48_000
            return sent >= from && sent <= to ? (frame.time - sent) * 1000 : nil
        }
    }

    /// The offset that lays RTP time (s) onto this clock at the least delayed frame.
    private static func mediaBase(_ frames: [(time: Double, timestamp: Int64)]) -> Double? {
        frames.map { $0.time - Double($0.timestamp) / 48_000 }.min()
    }

    /// Audio packets a second in each whole second from `from` (not sliding: one figure a second).
    public func audioRatesPerSecond(from: Double, to: Double) -> [Double] {
        let samples = audioStore.withLock { $0 }
        var rates: [Double] = []
        var start = from
        while start + 1 <= to {
            guard let first = samples.first(where: { $0.time >= start }),
                  let last = samples.first(where: { $0.time >= start + 1 }), last.time > first.time else { break }
            rates.append(Double(last.packets - first.packets) / (last.time - first.time))
            start += 1
        }
        return rates
    }

    /// Audio packets the receiver counted lost (not recovered) between `from` and `to`.
    public func audioLost(from: Double, to: Double) -> Int {
        let samples = audioStore.withLock { $0 }.filter { $0.time >= from && $0.time <= to }
        guard let first = samples.first, let last = samples.last else { return 0 }
        return last.lost - first.lost
    }

    /// Audio packets received between `from` and `to` (the samples nearest inside).
    public func audioPackets(from: Double, to: Double) -> Int {
        let samples = audioStore.withLock { $0 }.filter { $0.time >= from && $0.time <= to }
        guard let first = samples.first, let last = samples.last else { return 0 }
        return last.packets - first.packets
    }

    /// The longest time without a decoded frame between `from` and `to`, s.
    public func worstVideoGap(from: Double, to: Double) -> Double {
        var times = frames.map(\.time).filter { $0 >= from && $0 <= to }
        times.insert(from, at: 0)
        times.append(to)
        return zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? (to - from)
    }

    /// Frames decoded between `from` and `to` of the given width (nil: any).
    public func frameCount(from: Double, to: Double, width: Int? = nil) -> Int {
        frames.filter { $0.time >= from && $0.time <= to && (width == nil || $0.width == width) }.count
    }
}

