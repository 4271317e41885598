import Foundation
import RTCMedia
import RTCWire
import SFU

/// A publisher sending real media through a `LoopbackClient`: Opus audio (20 ms frames of a sine
/// tone, with RFC 6464 levels chosen by the test) and VP8 simulcast (one libvpx encoder per layer,
/// test-pattern frames, rid and mid header extensions, transport-wide sequence numbers). Key
/// frames are produced when the client has received a PLI or FIR for the layer's SSRC.
final class LoopbackPublisher {
    struct Layer {
        let rid: String
        let ssrc: UInt32
        let encoder: VP8Encoder
        let pattern: TestPatternGenerator
        var packetizer = VP8Packetizer()
        var seq: UInt16
    }

    // Header extension ids of the publisher's offer.
    static let audioLevelID: UInt8 = 1, twccID: UInt8 = 3, midID: UInt8 = 4, ridID: UInt8 = 10
    static let extensions = [
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.audioLevel, id: audioLevelID),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.transportWideCC, id: twccID),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.mid, id: midID),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.rid, id: ridID),
    ]

    let client: LoopbackClient
    let audioSSRC: UInt32
    private let opus: OpusEncoder
    private var tone = SineToneGenerator(frequency: 440)
    private var audioSeq: UInt16 = 20_000
    private var audioTimestamp: UInt32 = 4_000_000_000
    private(set) var layers: [Layer] = []
    private var frameNumber = 0
    private var twcc: UInt16 = 0
    private var handledRequests = 0
    /// The RFC 6464 level (-dBov) put on the next audio packets.
    var audioLevel: UInt8 = 30
    /// Audio payloads sent, in order.
    private(set) var audioPayloads: [[UInt8]] = []
    /// Key frames produced per SSRC.
    private(set) var keyFrames: [UInt32: Int] = [:]

    init(client: LoopbackClient, audioSSRC: UInt32 = 0x1111, video: [(rid: String, ssrc: UInt32, width: Int, height: Int)] = []) throws {
        self.client = client
        self.audioSSRC = audioSSRC
        opus = try OpusEncoder()
        for (index, spec) in video.enumerated() {
            var configuration = VP8Encoder.Configuration(width: spec.width, height: spec.height)
            configuration.bitrate = spec.width * spec.height * 4
            configuration.cpuUsed = -12
            layers.append(Layer(rid: spec.rid, ssrc: spec.ssrc, encoder: try VP8Encoder(configuration: configuration),
                                pattern: try TestPatternGenerator(width: spec.width, height: spec.height),
                                seq: UInt16(1000 + index * 30_000)))
        }
    }

    /// The producer parameters matching what this publisher sends (encodings best first).
    func audioParameters() -> RTPParameters {
        RTPParameters(mid: "0", codecs: [.opus(payloadType: 111)], headerExtensions: Self.extensions,
                      encodings: [RTPEncodingParameters(ssrc: audioSSRC)])
    }

    func videoParameters(descriptions: [String]) -> RTPParameters {
        RTPParameters(mid: "1", codecs: [.vp8(payloadType: 96)], headerExtensions: Self.extensions,
                      encodings: zip(layers, descriptions).map { RTPEncodingParameters(rid: $0.rid, layer: $1) })
    }

    private func nextTWCC() -> [UInt8] {
        twcc &+= 1
        return [UInt8(twcc >> 8), UInt8(twcc & 0xFF)]
    }

    /// Encodes and sends 20 ms of audio.
    func sendAudio() throws {
        let payload = try opus.encode(tone.next(frameCount: 960))
        audioPayloads.append(payload)
        let packet = RTPPacket(payloadType: 111, sequenceNumber: audioSeq, timestamp: audioTimestamp, ssrc: audioSSRC,
                               extensions: [RTPHeaderExtensionElement(id: Self.audioLevelID, value: [0x80 | audioLevel]),
                                            RTPHeaderExtensionElement(id: Self.midID, value: Array("0".utf8)),
                                            RTPHeaderExtensionElement(id: Self.twccID, value: nextTWCC())],
                               payload: payload)
        audioSeq &+= 1
        audioTimestamp &+= 960
        client.send([packet.serialize()])
    }

    /// Encodes and sends one frame on every layer (key frames where the SFU asked for them).
    func sendVideo() throws {
        let requested = keyFrameRequests()
        var out: [[UInt8]] = []
        for index in layers.indices {
            let frame = layers[index].pattern.videoFrame(number: frameNumber)
            let force = frameNumber == 0 || requested.contains(layers[index].ssrc)
            guard let encoded = try layers[index].encoder.encode(frame, forceKeyFrame: force) else { continue }
            if encoded.isKeyFrame { keyFrames[layers[index].ssrc, default: 0] += 1 }
            // Each layer counts timestamps from its own base, as separate RTP streams do.
            let payloads = layers[index].packetizer.packetize(encoded)
            for (position, payload) in payloads.enumerated() {
                let packet = RTPPacket(
                    marker: position == payloads.count - 1, payloadType: 96, sequenceNumber: layers[index].seq,
                    timestamp: encoded.rtpTimestamp &+ UInt32(index) * 1_000_000, ssrc: layers[index].ssrc,
                    extensions: [RTPHeaderExtensionElement(id: Self.midID, value: Array("1".utf8)),
                                 RTPHeaderExtensionElement(id: Self.ridID, value: Array(layers[index].rid.utf8)),
                                 RTPHeaderExtensionElement(id: Self.twccID, value: nextTWCC())],
                    payload: payload)
                layers[index].seq &+= 1
                out.append(packet.serialize())
            }
        }
        frameNumber += 1
        client.send(out)
    }

    /// SSRCs named by PLI/FIR since the last call.
    private func keyFrameRequests() -> Set<UInt32> {
        client.log.withLock { log in
            let fresh = log.rtcp.dropFirst(handledRequests)
            handledRequests = log.rtcp.count
            var ssrcs = Set<UInt32>()
            for packet in fresh {
                switch packet {
                case .pictureLossIndication(let pli): ssrcs.insert(pli.mediaSSRC)
                case .fullIntraRequest(let fir): for entry in fir.entries { ssrcs.insert(entry.ssrc) }
                default: continue
                }
            }
            return ssrcs
        }
    }

    /// Runs `seconds` of real-time media: audio every 20 ms, video every ~33 ms.
    func run(seconds: Double, audio: Bool = true, video: Bool = true, every tick: (() -> Void)? = nil) async throws {
        let start = Date()
        var audioDue = 0.0, videoDue = 0.0
        while true {
            let elapsed = Date().timeIntervalSince(start)
            if elapsed >= seconds { break }
            // Catch up after a late wake-up: the packet count depends on the duration only.
            while audio, elapsed >= audioDue { try sendAudio(); audioDue += 0.020 }
            while video, !layers.isEmpty, elapsed >= videoDue { try sendVideo(); videoDue += 1.0 / 30 }
            tick?()
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
