import Foundation
import RTCMedia
import SRTC
import Synchronization
import TestWait
import Testing

/// Collects what a subscriber decodes: the pattern numbers and sizes of video frames, PCM.
final class SDKMediaCollector: VideoRenderer, AudioRenderer, @unchecked Sendable {
    private let frames = Mutex<[(number: Int?, width: Int, height: Int)]>([])
    private let pcm = Mutex<[Float]>([])

    func render(frame: VideoFrame) {
        let number = TestPatternReader.frameNumber(in: frame)
        frames.withLock { $0.append((number, frame.width, frame.height)) }
    }

    func render(pcmBuffer: AudioPCMBuffer) {
        pcm.withLock { $0 += pcmBuffer.channel(0) }
    }

    var numbers: [Int] { frames.withLock { $0.compactMap(\.number) } }
    var sizes: [(Int, Int)] { frames.withLock { $0.map { ($0.width, $0.height) } } }
    var frameCount: Int { frames.withLock { $0.count } }
    var samples: [Float] { pcm.withLock { $0 } }

    /// The tone's frequency over the last second of audio.
    var toneFrequency: Double? {
        let tail = Array(samples.suffix(48_000))
        return tail.count < 9_600 ? nil : FrequencyEstimator.zeroCrossingFrequency(tail, sampleRate: 48_000)
    }
}

/// Subscribes to every track it hears about and attaches one collector per kind.
final class SDKAutoSubscriber: ChannelDelegate, @unchecked Sendable {
    let collector = SDKMediaCollector()
    let layer: VideoLayer?

    init(layer: VideoLayer? = nil) {
        self.layer = layer
    }

    func channel(_ channel: Channel, user: UserInfo, didAddTrack track: TrackInfo) {
        guard let remote = channel.remoteTrack(trackId: track.id) else { return }
        if let video = remote as? RemoteVideoTrack { video.add(videoRenderer: collector) }
        if let audio = remote as? RemoteAudioTrack { audio.add(audioRenderer: collector) }
        let layer = track.kind == .video ? self.layer : nil
        Task { try? await channel.subscribe(remote, layer: layer) }
    }
}

/// Whether frame numbers increase, and how many are missing between the first and last.
func frameGaps(_ numbers: [Int]) -> (ordered: Bool, missing: Int) {
    guard let first = numbers.first, let last = numbers.last else { return (true, 0) }
    let ordered = zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }
    return (ordered, (last - first + 1) - Set(numbers).count)
}

/// An SDK engine on loopback with one channel whose events an `SDKEventRecorder` keeps: what
/// every engine-to-engine test starts from.
struct SDKPeer {
    let engine: SRTCEngine
    let channel: Channel
    let events = SDKEventRecorder()

    init(receiveTimeout: Double = 3, useDataChannel: Bool = true, iceTransportPolicy: ICETransportPolicy = .all,
         preferredVideoCodec: VideoCodec = .vp8, trustedCAFile: String? = nil, e2ee: E2EEConfiguration? = nil, dynacast: Bool = true,
         opusDTX: Bool = false, redundantAudio: Bool = true, adaptiveStream: Bool = false, videoScalability: VideoScalability = .svc) {
        var configuration = SRTCEngine.Configuration(delegateQueue: DispatchQueue(label: "sdk-peer-events"), logLevel: .off,
                                                     receiveTimeout: receiveTimeout, mediaBindAddress: "127.0.0.1",
                                                     useDataChannel: useDataChannel, iceTransportPolicy: iceTransportPolicy,
                                                     preferredVideoCodec: preferredVideoCodec, trustedCAFile: trustedCAFile)
        configuration.e2ee = e2ee
        configuration.dynacast = dynacast
        configuration.opusDTX = opusDTX
        configuration.redundantAudio = redundantAudio
        configuration.adaptiveStream = adaptiveStream
        configuration.videoScalability = videoScalability
        engine = SRTCEngine(independent: configuration)
        channel = try! engine.createChannel()  // a live engine: this cannot throw
        channel.delegates.add(delegate: events)
    }
}

/// Waits until `collector` has decoded frame `last` (or later), then checks that its frame
/// numbers rose in order and that more than `atLeast` frames decoded.
func expectDecodedInOrder(_ collector: SDKMediaCollector, through last: Int, moreThan atLeast: Int, _ who: String,
                          timeout: Double = 20) async throws {
    try await eventually(timeout: timeout, "\(who) decodes the frames pushed; last \(collector.numbers.last ?? -1)") {
        (collector.numbers.last ?? -1) >= last
    }
    let numbers = collector.numbers
    #expect(frameGaps(numbers).ordered, "\(who): \(numbers)")
    #expect(numbers.count > atLeast, "\(who) decoded \(numbers.count)")
}
