import RTCMedia
import RTCTransport
import Synchronization

/// Where a publication's packets go: the publish session's current transport.
protocol PacketRoute: AnyObject, Sendable {
    /// The connected transport, if any.
    var currentTransport: ClientTransport? { get }
}

/// Feeds one published video track's encoded layers into its RTP senders (one per layer) and
/// sends each frame's packets with one hop to the transport's I/O thread.
final class VideoPublicationSink: EncodedVideoSink, @unchecked Sendable {
    let senders: [RTPStreamSender]
    private weak var route: (any PacketRoute)?
    private let codec: Mutex<VideoCodec>

    init(senders: [RTPStreamSender], route: any PacketRoute, codec: VideoCodec = .vp8) {
        self.senders = senders
        self.route = route
        self.codec = Mutex(codec)
    }

    /// The codec the answer negotiated (set before the sink is attached).
    var videoCodec: VideoCodec {
        get { codec.withLock { $0 } }
        set { codec.withLock { $0 = newValue } }
    }

    func send(_ frame: EncodedVideoFrame, layer: Int) {
        guard layer < senders.count else { return }
        let sender = senders[layer]
        let (first, count) = sender.packetize(video: frame)
        guard count > 0, let transport = route?.currentTransport else { return }
        transport.execute { peer in sender.send(first: first, count: count, on: peer) }
    }
}

/// Feeds one published audio track's Opus packets into its RTP sender.
final class AudioPublicationSink: EncodedAudioSink, @unchecked Sendable {
    let sender: RTPStreamSender
    private weak var route: (any PacketRoute)?

    init(sender: RTPStreamSender, route: any PacketRoute) {
        self.sender = sender
        self.route = route
    }

    func send(opus packet: [UInt8], samplePosition: UInt32, level: UInt8, voiceActivity: Bool) {
        let (first, count) = sender.packetize(opus: packet, samplePosition: samplePosition, level: level, voiceActivity: voiceActivity)
        guard let transport = route?.currentTransport else { return }
        let sender = self.sender
        transport.execute { peer in sender.send(first: first, count: count, on: peer) }
    }
}
