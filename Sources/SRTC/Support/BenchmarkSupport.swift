import Foundation
import RTCMedia
import RTCNet
import RTCWire

/// Entry points for `srtc-bench` into the receive path, which has no public API of its own
/// (remote media arrives only from a server). `@_spi(Benchmark) import SRTC` to use them.
@_spi(Benchmark)
public enum SDKBenchmarkSupport {
    /// RTP packets of `frameCount` VP8 frames of the test pattern at `width`×`height`, as the
    /// SDK's sender writes them (for `receiveAndDecode`).
    public static func recordedVideoPackets(width: Int, height: Int, frameCount: Int, bitrate: Int) throws -> [[UInt8]] {
        let pattern = try TestPatternGenerator(width: width, height: height)
        var configuration = VP8Encoder.Configuration(width: width, height: height)
        configuration.bitrate = bitrate
        let encoder = try VP8Encoder(configuration: configuration)
        let sender = RTPStreamSender(kind: .video, parameters: .init(ssrc: 1234, payloadType: 96, clockRate: 90_000, mid: "0",
                                                                    rid: nil, midID: 4, ridID: nil, audioLevelID: nil))
        var packets: [[UInt8]] = []
        for n in 0..<frameCount {
            guard let encoded = try encoder.encode(pattern.videoFrame(number: n)) else { continue }
            let (first, count) = sender.packetize(video: encoded)
            for i in 0..<count { if let p = sender.cachedPacket(first &+ UInt16(i)) { packets.append(p) } }
        }
        return packets
    }

    /// Feeds `packets` through a subscriber's video receiver (jitter buffer, NACK/PLI bookkeeping,
    /// VP8 decode, renderer delivery) and returns the frames decoded and the wall time taken.
    public static func receiveAndDecode(_ packets: [[UInt8]]) async -> (frames: Int, seconds: Double) {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "bench"), logLevel: .off))
        let track = RemoteVideoTrack(info: TrackInfo(id: "TR_bench", uid: "bench", kind: .video, desc: "canvas"),
                                     context: engine.context, receiveTimeout: 3)
        let receiver = VideoReceiver(mid: "0", ssrc: 1234, track: track, logger: engine.context.logger)
        let start = DispatchTime.now().uptimeNanoseconds
        for packet in packets {
            packet.withUnsafeBytes { raw in
                guard let view = try? RTPPacketView(raw) else { return }
                _ = receiver.receive(view, nowUs: Int64(DispatchTime.now().uptimeNanoseconds / 1_000))
            }
        }
        let expected = Set(packets.compactMap { try? RTPPacket(parsing: $0).timestamp }).count
        while track.framesDecoded < expected, DispatchTime.now().uptimeNanoseconds - start < 60_000_000_000 {
            try? await TimerQueue.shared.sleep(for: .milliseconds(1))
        }
        return (track.framesDecoded, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// Bytes a local video track's encoders produced so far, all layers (its uplink before
    /// packetization), and the layers paused now because nobody receives them (dynacast).
    public static func encodedBytes(of track: LocalVideoTrack) -> (bytes: Int, pausedLayers: Set<Int>) {
        let stats = track.sendPipeline.stats
        return (stats.bytesEncoded, stats.pausedLayers)
    }

    /// Layer frames a scalable encoder of `track` wrote per spatial layer (lowest first).
    public static func spatialFramesEncoded(of track: LocalVideoTrack) -> [Int] {
        track.sendPipeline.stats.spatialFramesEncoded
    }
}
