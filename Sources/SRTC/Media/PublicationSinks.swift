import RTCMedia
import RTCTransport
import RTCWire
import Synchronization

/// Where a publication's packets go: the publish session's current transport.
protocol PacketRoute: AnyObject, Sendable {
    /// The connected transport, if any.
    var currentTransport: ClientTransport? { get }
}

/// Feeds one published video track's encoded layers into its RTP senders (one per simulcast layer,
/// or one for a scalable stream whose spatial layers are its track's layers) and sends each
/// frame's packets with one hop to the transport's I/O thread.
// @unchecked Sendable: `route` (weak, Sendable) is set in init and never reassigned; the rest is `let`s of Sendable types and Mutexes.
final class VideoPublicationSink: EncodedVideoSink, @unchecked Sendable {
    let senders: [RTPStreamSender]
    private weak var route: (any PacketRoute)?
    private let codec: Mutex<VideoCodec>
    private let e2ee: E2EEChannelCrypto?
    /// The layers the server says someone receives (`layers_needed`); nil until it says.
    private let needed = Mutex<Set<Int>?>(nil)
    /// Spatial layers the one sender carries (2: AV1 or VP9 L2T3_KEY, the track's two layers), else 1.
    let spatialLayers: Int

    init(senders: [RTPStreamSender], route: any PacketRoute, codec: VideoCodec = .vp8, e2ee: E2EEChannelCrypto? = nil,
         spatialLayers: Int = 1) {
        self.senders = senders
        self.spatialLayers = spatialLayers
        self.route = route
        self.codec = Mutex(codec)
        self.e2ee = e2ee
    }

    /// The codec the answer negotiated (set before the sink is attached).
    var videoCodec: VideoCodec {
        get { codec.withLock { $0 } }
        set { codec.withLock { $0 = newValue } }
    }

    func needs(layer: Int) -> Bool {
        guard layer < senders.count else { return false }
        // A scalable stream is encoded whole while any of its layers is received.
        let layers = spatialLayers > 1 ? 0 ..< spatialLayers : layer ..< layer + 1
        return needed.withLock { needed in needed.map { !$0.isDisjoint(with: layers) } ?? true }
    }

    /// The sink takes a scalable AV1 or VP9 stream: the encoder writes its spatial and temporal layers.
    var scalabilityMode: ScalabilityMode? {
        spatialLayers > 1 && videoCodec.isScalableHere ? .l2t3Key : nil
    }

    /// Dynacast inside SVC: how many spatial layers of its scalable stream anyone receives, lowest
    /// first (the track's layers are best first: needing layer 0, the big one, needs both). Every
    /// layer until the server has said.
    var neededSpatialLayers: Int {
        guard spatialLayers > 1 else { return 1 }
        return needed.withLock { needed in
            guard let needed else { return spatialLayers }
            guard let best = needed.filter({ $0 < spatialLayers }).min() else { return 0 }
            return spatialLayers - best
        }
    }

    /// Dynacast: only `layers` (sender indices) are needed from now on.
    func setNeededLayers(_ layers: Set<Int>) {
        needed.withLock { $0 = layers }
    }

    func send(_ frame: EncodedVideoFrame, layer: Int) {
        guard layer < senders.count else { return }
        let sender = senders[layer]
        var frame = frame
        if let e2ee {
            // Encrypted before packetizing (docs/e2ee.md); a frame that cannot be is not sent.
            guard let encrypted = e2ee.encrypt(frame, codec: E2EEFrame.Codec(sender.parameters.videoCodec)) else { return }
            frame = encrypted
        }
        let (first, count) = sender.packetize(video: frame)
        guard count > 0, let transport = route?.currentTransport else { return }
        transport.execute { peer in sender.send(first: first, count: count, on: peer) }
    }
}

/// Feeds one published audio track's Opus packets into its RTP sender.
// @unchecked Sendable: `route` (weak, Sendable) is set in init and never reassigned; the rest is `let`s of Sendable types.
final class AudioPublicationSink: EncodedAudioSink, @unchecked Sendable {
    let sender: RTPStreamSender
    private weak var route: (any PacketRoute)?
    private let e2ee: E2EEChannelCrypto?

    init(sender: RTPStreamSender, route: any PacketRoute, e2ee: E2EEChannelCrypto? = nil) {
        self.sender = sender
        self.route = route
        self.e2ee = e2ee
    }

    func send(opus packet: [UInt8], samplePosition: UInt32, level: UInt8, voiceActivity: Bool) {
        var packet = packet
        if let e2ee {
            guard let encrypted = e2ee.encrypt(packet, codec: .opus) else { return }
            packet = encrypted
        }
        let (first, count) = sender.packetize(opus: packet, samplePosition: samplePosition, level: level, voiceActivity: voiceActivity)
        guard let transport = route?.currentTransport else { return }
        let sender = self.sender
        transport.execute { peer in sender.send(first: first, count: count, on: peer) }
    }
}
