import Foundation
import RTCMedia
import RTCWire

/// Where a `MediaTestPublisher`'s packets go and where the feedback it reacts to comes from: a
/// `TransportEndpoint` (the end-to-end tests, through the server) or the SFU tests' loopback client.
public protocol MediaTestPath: AnyObject {
    /// Sends serialized RTP packets (protected on the way out).
    func send(rtp packets: [[UInt8]])
    /// Every RTCP packet received so far, oldest first.
    var receivedRTCP: [RTCPPacket] { get }
}

extension TransportEndpoint: MediaTestPath {
    public var receivedRTCP: [RTCPPacket] { log.withLock { $0.rtcp } }
}

/// Sends real media on a test client's publish path: Opus audio (20 ms frames of a tone, with
/// the RFC 6464 level the test sets) and VP8 simulcast video (one libvpx encoder per layer,
/// test-pattern frames numbered in their pixels, rid and mid header extensions, transport-wide
/// sequence numbers). Key frames follow the PLI/FIR received. The one test publisher of the SFU,
/// server and end-to-end tests.
///
/// With a `MediaClip` nothing is encoded while sending: the clip's frames are sent in a loop, and
/// a key-frame request restarts a layer at the clip's first frame (its key frame), so many
/// publishers cost little CPU (the soak).
// @unchecked Sendable: the encoders, sequence numbers and counters are used by one caller at a time (the test's task, or the soak's pacing task); RTCP arrives through `path`'s locked log.
public final class MediaTestPublisher: @unchecked Sendable {
    struct Layer {
        let spec: MediaTestClient.VideoLayer
        let encoder: VP8Encoder?
        let pattern: TestPatternGenerator?
        let clip: [EncodedVideoFrame]
        var clipPosition = 0
        var packetizer = VP8Packetizer()
        var seq: UInt16
        let timestampBase: UInt32
        var clipTimestamp: UInt32 = 0
    }

    let path: MediaTestPath
    public let audioSSRC: UInt32?
    private let opus: OpusEncoder
    private let clip: MediaClip?
    private var clipAudioPosition = 0
    private var tone: SineToneGenerator
    private var audioSeq: UInt16 = 65_500   // wraps soon: rewriting must survive it
    private var audioTimestamp: UInt32 = 4_294_000_000
    private var layers: [Layer] = []
    public private(set) var frameNumber = 0
    private var twcc: UInt16 = 0
    private var handledRTCP = 0
    /// The RFC 6464 level (0 = loudest … 127 = silence, -dBov) put on the next audio packets.
    public var audioLevel: UInt8 = 30
    /// RTP packets sent, audio and video.
    public private(set) var packetsSent = 0
    /// Opus payloads sent, in order.
    public private(set) var audioPayloads: [[UInt8]] = []
    /// Key frames produced per SSRC.
    public private(set) var keyFrames: [UInt32: Int] = [:]
    /// Key-frame requests (PLI/FIR) received per SSRC.
    public private(set) var keyFrameRequests: [UInt32: Int] = [:]

    /// The video layers, best first.
    public var videoLayers: [MediaTestClient.VideoLayer] { layers.map(\.spec) }

    /// - Parameter clip: send these pre-encoded frames instead of encoding (its layers match `video` by size).
    public init(path: MediaTestPath, audioSSRC: UInt32? = 0xA0D1_0001, video: [MediaTestClient.VideoLayer] = [], toneHz: Double = 440,
                clip: MediaClip? = nil) throws {
        self.path = path
        self.audioSSRC = audioSSRC
        self.clip = clip
        opus = try OpusEncoder()
        tone = SineToneGenerator(frequency: toneHz)
        for (i, spec) in video.enumerated() {
            let seq = UInt16(1000 + i * 20_000), timestampBase = UInt32(i) * 7_777_777
            if let frames = clip?.video(width: spec.width, height: spec.height) {
                layers.append(Layer(spec: spec, encoder: nil, pattern: nil, clip: frames, seq: seq, timestampBase: timestampBase))
                continue
            }
            layers.append(Layer(spec: spec, encoder: try MediaClip.encoder(width: spec.width, height: spec.height),
                                pattern: try TestPatternGenerator(width: spec.width, height: spec.height), clip: [],
                                seq: seq, timestampBase: timestampBase))
        }
    }

    /// A publisher on the publish transport of `client` (publish first).
    public convenience init(client: MediaTestClient, audioSSRC: UInt32? = 0xA0D1_0001, video: [MediaTestClient.VideoLayer] = [],
                            toneHz: Double = 440, clip: MediaClip? = nil) throws {
        guard let endpoint = client.publishEndpoint else { throw TestSignalClient.Failure(description: "publish first") }
        try self.init(path: endpoint, audioSSRC: audioSSRC, video: video, toneHz: toneHz, clip: clip)
    }

    private func nextTWCC() -> [UInt8] {
        twcc &+= 1
        return [UInt8(twcc >> 8), UInt8(twcc & 0xff)]
    }

    /// Encodes and sends 20 ms of audio.
    public func sendAudio() throws {
        guard let audioSSRC else { return }
        let payload: [UInt8]
        if let clip {
            payload = clip.audio[clipAudioPosition % clip.audio.count]
            clipAudioPosition += 1
        } else {
            payload = try opus.encode(tone.next(frameCount: 960))
            audioPayloads.append(payload)
        }
        let packet = RTPPacket(payloadType: 111, sequenceNumber: audioSeq, timestamp: audioTimestamp, ssrc: audioSSRC,
                               extensions: [RTPHeaderExtensionElement(id: MediaTestClient.audioLevelID, value: [0x80 | audioLevel]),
                                            RTPHeaderExtensionElement(id: MediaTestClient.midID, value: Array("0".utf8)),
                                            RTPHeaderExtensionElement(id: MediaTestClient.twccID, value: nextTWCC())],
                               payload: payload)
        audioSeq &+= 1
        audioTimestamp &+= 960
        packetsSent += 1
        path.send(rtp: [packet.serialize()])
    }

    /// Encodes and sends one frame on every layer (a key frame where one was requested).
    public func sendVideo() throws {
        let requested = takeKeyFrameRequests()
        var out: [[UInt8]] = []
        for i in layers.indices {
            let force = frameNumber == 0 || requested.contains(layers[i].spec.ssrc)
            guard let (encoded, rtpTimestamp) = try nextFrame(layer: i, forceKeyFrame: force) else { continue }
            if encoded.isKeyFrame { keyFrames[layers[i].spec.ssrc, default: 0] += 1 }
            let payloads = layers[i].packetizer.packetize(encoded)
            for (position, payload) in payloads.enumerated() {
                let packet = RTPPacket(marker: position == payloads.count - 1, payloadType: 96, sequenceNumber: layers[i].seq,
                                       timestamp: rtpTimestamp &+ layers[i].timestampBase, ssrc: layers[i].spec.ssrc,
                                       extensions: [RTPHeaderExtensionElement(id: MediaTestClient.midID, value: Array("1".utf8)),
                                                    RTPHeaderExtensionElement(id: MediaTestClient.ridID, value: Array(layers[i].spec.rid.utf8)),
                                                    RTPHeaderExtensionElement(id: MediaTestClient.twccID, value: nextTWCC())],
                                       payload: payload)
                layers[i].seq &+= 1
                out.append(packet.serialize())
            }
        }
        frameNumber += 1
        packetsSent += out.count
        path.send(rtp: out)
    }

    /// The next frame of layer `i`, encoded now or taken from the clip, with its RTP timestamp.
    private func nextFrame(layer i: Int, forceKeyFrame force: Bool) throws -> (EncodedVideoFrame, UInt32)? {
        if let encoder = layers[i].encoder, let pattern = layers[i].pattern {
            guard let encoded = try encoder.encode(pattern.videoFrame(number: frameNumber), forceKeyFrame: force) else { return nil }
            return (encoded, encoded.rtpTimestamp)
        }
        let frames = layers[i].clip
        // The clip's key frame starts it over: on request, and after its last frame.
        if force || layers[i].clipPosition >= frames.count { layers[i].clipPosition = 0 }
        let encoded = frames[layers[i].clipPosition]
        layers[i].clipPosition += 1
        // Time runs on across restarts of the clip: 90 kHz at the clip's frame rate.
        defer { layers[i].clipTimestamp &+= UInt32(90_000 / MediaClip.frameRate) }
        return (encoded, layers[i].clipTimestamp)
    }

    private func takeKeyFrameRequests() -> Set<UInt32> {
        let received = path.receivedRTCP
        let fresh = received.dropFirst(handledRTCP)
        handledRTCP = received.count
        var ssrcs = Set<UInt32>()
        for packet in fresh {
            switch packet {
            case .pictureLossIndication(let pli): ssrcs.insert(pli.mediaSSRC)
            case .fullIntraRequest(let fir): for entry in fir.entries { ssrcs.insert(entry.ssrc) }
            default: continue
            }
        }
        for s in ssrcs { keyFrameRequests[s, default: 0] += 1 }
        return ssrcs
    }

    /// Sends `seconds` of real-time media: audio every 20 ms, video every 33 ms.
    public func run(seconds: Double, audio: Bool = true, video: Bool = true) async throws {
        let start = Date()
        var audioDue = 0.0, videoDue = 0.0
        while true {
            let elapsed = Date().timeIntervalSince(start)
            if elapsed >= seconds { break }
            // Catch up after a late wake-up (a loaded test machine): the number of packets sent
            // depends on the duration only, never on how often this task got to run.
            while audio, elapsed >= audioDue { try sendAudio(); audioDue += 0.020 }
            while video, !layers.isEmpty, elapsed >= videoDue { try sendVideo(); videoDue += 1.0 / Double(clip == nil ? 30 : MediaClip.frameRate) }
            try await Task.sleep(for: .milliseconds(4))
        }
    }
}
