import RTCMedia
import RTCWire

/// A published track on a participant's transport: one stream, or one per simulcast layer.
///
/// It receives the transport's demultiplexed packets, keeps per-stream state (`ProducerStream`),
/// reads RFC 6464 audio levels for active speakers, and hands each packet to its consumers.
/// Muted producers forward nothing. I/O thread only.
final class Producer {
    let id: ProducerID
    let participant: ParticipantID
    let kind: MediaKind
    /// `kind == .video` / `.audio`, decided once: `MediaKind` wraps a string, and comparing it
    /// for every forwarded copy cost a string comparison and a retain and release of its storage.
    let isVideo: Bool
    let isAudio: Bool
    /// Unchecked (read for every packet): SFUCore closes a transport's producers before the
    /// transport (the invariant is written where `Consumer` declares its back references).
    unowned(unsafe) let transport: MediaTransport
    let parameters: RTPParameters
    let codec: RTPCodecParameters
    let extensionIDs: HeaderExtensionIDs
    let feedback: FeedbackSupport
    /// The payload type of the publisher's RED packets (RFC 2198) when it negotiated RED, else
    /// -1: each packet is RED or plain `codec`, by its payload type (`isRED(_:)`).
    let redPayloadType: Int16
    /// Streams by spatial index, lowest first (the parameters list them best first).
    private(set) var streams: [ProducerStream] = []
    var muted: Bool
    // Read for every packet on the I/O thread only, never while it is being changed: no dynamic
    // exclusivity check (a runtime call each).
    @exclusivity(unchecked) private(set) var consumers: ContiguousArray<Consumer> = []
    var audioLevels = AudioLevelAccumulator()
    private(set) var closed = false
    let isVP8: Bool
    /// VP9 (RFC 9628): a single stream is scalable (SVC) and goes to `SVCConsumer`s.
    let isVP9: Bool
    /// AV1 (av1-rtp-spec): a single stream with the Dependency Descriptor is scalable and goes to
    /// `SVCConsumer`s; without it, to a `SimpleConsumer`.
    let isAV1: Bool
    /// Key frames are told from payload headers: VP8 (RFC 7741 §4.3), VP9 (RFC 9628 §4.2), AV1
    /// (av1-rtp-spec §4.4, N) and H.264 (NAL types, RFC 6184).
    let detectsKeyFrames: Bool
    private let isH264: Bool
    /// The payload descriptor of the VP9 packet being forwarded now (parsed once for every consumer).
    private(set) var vp9Descriptor: VP9PayloadDescriptor?
    /// The Dependency Descriptor of the AV1 packet being forwarded now, resolved against its
    /// stream's structure (parsed once for every consumer); nil when it has none or it did not parse.
    private(set) var dependencyDescriptor: DependencyDescriptor?
    /// The decode targets the AV1 publisher says are active (av1-rtp-spec §A.4), as of the packet
    /// being forwarded now.
    private(set) var activeDecodeTargets: UInt32 = 0
    /// A scalable producer's spatial layers: their count and measured rates.
    var spatialLayers = SpatialLayerMeter()
    /// The layers last reported as needed (`SFUEvent.layersNeeded`); nil before the first report.
    var reportedNeededLayers: [Int]?
    /// For a scalable single stream: the descriptions of its spatial layers, best first (the
    /// publish request's `layers`), as `RTPParameters.spatialLayers`.
    var spatialLayerNames: [String] { parameters.spatialLayers }

    /// Packets received that had no payload (padding only, used by senders to probe bandwidth).
    private(set) var paddingPackets = 0

    init(id: ProducerID, participant: ParticipantID, kind: MediaKind, transport: MediaTransport,
         parameters: RTPParameters, muted: Bool) throws(SFUError) {
        guard let codec = parameters.codecs.first(where: { !$0.isRED }) else { throw .invalidParameters("codecs is empty") }
        guard !parameters.encodings.isEmpty else { throw .invalidParameters("encodings is empty") }
        if parameters.encodings.count > 1 {
            guard parameters.encodings.allSatisfy({ $0.rid != nil || $0.ssrc != nil }) else {
                throw .invalidParameters("simulcast encodings need a rid or an ssrc")
            }
        }
        self.id = id
        self.participant = participant
        self.kind = kind
        isVideo = kind == .video
        isAudio = kind == .audio
        self.transport = transport
        self.parameters = parameters
        self.codec = codec
        extensionIDs = HeaderExtensionIDs(parameters.headerExtensions)
        feedback = FeedbackSupport(codec)
        redPayloadType = parameters.redPayloadType.map { Int16($0) } ?? -1
        self.muted = muted
        isVP8 = codec.isVP8
        isH264 = codec.isH264
        isVP9 = codec.isVP9
        isAV1 = codec.isAV1
        detectsKeyFrames = kind == .video && (isVP8 || isH264 || isVP9 || isAV1)
        // Video keeps ~2 s of packets at 2.5 Mbit/s for NACKs when its publisher negotiated them;
        // audio always keeps 1.3 s: a subscriber that negotiated NACK for Opus (the Swift SDK) is
        // answered even when the publisher (a browser) did not (docs/network.md).
        let cacheCapacity = kind == .video ? (feedback.nack ? 512 : 0) : 64
        let count = parameters.encodings.count
        streams = parameters.encodings.reversed().enumerated().map { index, encoding in
            ProducerStream(producer: self, index: index, encoding: encoding, clockRate: codec.clockRate,
                           nack: feedback.nack, cacheCapacity: cacheCapacity,
                           readsDependencyDescriptors: kind == .video && extensionIDs.dependencyDescriptor != 0)
        }
        precondition(streams.count == count)
    }

    /// Whether the packet is RED (RFC 2198) rather than plain `codec`.
    @inline(__always)
    func isRED(_ view: RTPPacketView) -> Bool { Int16(view.payloadType) == redPayloadType }

    /// True when the track has more than one stream (simulcast).
    var isSimulcast: Bool { streams.count > 1 }

    /// True for a single VP9 stream, or a single AV1 stream with the Dependency Descriptor: its
    /// spatial and temporal layers are chosen per subscriber (`SVCConsumer`).
    var isScalable: Bool { !isSimulcast && (isVP9 || (isAV1 && extensionIDs.dependencyDescriptor != 0)) }

    /// The spatial index of the layer described by `layer` in a scalable stream (its position in
    /// `spatialLayerNames`, best first).
    func spatialLayerIndex(named layer: String) -> Int? {
        // A scalable stream announced without layers (one layer, e.g. an SDK's L1T1 AV1 with the
        // Dependency Descriptor): any name means its best, as for a simple stream.
        guard !spatialLayerNames.isEmpty else { return SpatialLayerMeter.maxLayers - 1 }
        return spatialLayerNames.firstIndex(of: layer).map { spatialLayerNames.count - 1 - $0 }
    }

    /// The name events use for spatial layer `index`: its description, else its index.
    func spatialLayerName(_ index: Int) -> String {
        let position = spatialLayerNames.count - 1 - index
        return spatialLayerNames.indices.contains(position) ? spatialLayerNames[position] : String(index)
    }

    // MARK: - Packet path

    /// One packet of `stream`, decrypted, on the I/O thread.
    @inline(__always)
    func receive(_ view: RTPPacketView, stream: ProducerStream, now: Int64) {
        let payload = view.payload
        var isKeyFrame: Bool
        if isVP9 {
            vp9Descriptor = try? VP9PayloadDescriptor.parse(payload).descriptor
            isKeyFrame = vp9Descriptor?.isKeyFrameStart ?? false
            if let descriptor = vp9Descriptor {
                // N_S + 1 from a scalability structure (RFC 9628 §4.2.1).
                let declared = descriptor.scalabilityStructureRange.map { Int(payload[$0.lowerBound] >> 5) + 1 }
                spatialLayers.received(layer: Int(descriptor.spatialLayer), temporal: Int(descriptor.temporalLayer), declaredCount: declared, size: view.bytes.count, now: now)
            }
        } else if isAV1 {
            isKeyFrame = AV1.isKeyFrame(payload: payload)
            readDependencyDescriptor(view, stream: stream, now: now)
        } else {
            isKeyFrame = !payload.isEmpty
                && (isVP8 ? VP8.isKeyFrame(payload: payload) : isH264 && H264.isKeyFrame(payload: payload))
        }
        if stream.received(view, now: now, isKeyFrame: isKeyFrame) {
            requestKeyFrame(layer: stream.index, now: now)
        }
        if isAudio, extensionIDs.audioLevel != 0, !muted,
           let value = view.extensionValue(id: extensionIDs.audioLevel), let byte = value.first {
            audioLevels.add(dBov: byte & 0x7F)
        }
        guard !muted, !closed else { return }
        if payload.isEmpty {
            // Padding-only: forwarding it would cost subscribers bandwidth for nothing.
            paddingPackets += 1
            for consumer in consumers { consumer.skip(view.sequenceNumber, from: stream) }
            return
        }
        // Each consumer at +0: `current` (one retain per packet, of the buffer) holds every
        // consumer through the loop, and a consumer removed during it leaves `consumers` for a new
        // buffer, so a retain and release per copy bought nothing.
        let current = consumers
        current.withUnsafeBufferPointer { all in
            for index in all.indices {
                Unmanaged.passUnretained(all[index])._withUnsafeGuaranteedRef {
                    $0.forward(view, from: stream, isKeyFrame: isKeyFrame, now: now)
                }
            }
        }
    }

    /// Reads the packet's Dependency Descriptor with its stream's kept structure (av1-rtp-spec
    /// Appendix A) and counts it for its spatial layer.
    @inline(__always)
    private func readDependencyDescriptor(_ view: RTPPacketView, stream: ProducerStream, now: Int64) {
        dependencyDescriptor = nil
        guard stream.readsDependencyDescriptors, let value = view.extensionValue(id: extensionIDs.dependencyDescriptor) else { return }
        guard let descriptor = try? stream.dependencyDescriptors!.read(value) else { return }
        dependencyDescriptor = descriptor
        activeDecodeTargets = stream.dependencyDescriptors!.activeDecodeTargets
        let declared = descriptor.carriesStructure ? stream.dependencyDescriptors!.structure?.spatialLayerCount : nil
        spatialLayers.received(layer: Int(descriptor.spatialID), temporal: Int(descriptor.temporalID), declaredCount: declared, size: view.bytes.count, now: now)
    }

    // MARK: - Control

    func addConsumer(_ consumer: Consumer) { consumers.append(consumer) }

    func removeConsumer(_ consumer: Consumer) {
        consumers.removeAll { $0 === consumer }
    }

    /// Asks the publisher for a key frame on the stream at `layer` (throttled per stream).
    func requestKeyFrame(layer: Int, now: Int64) {
        guard isVideo, streams.indices.contains(layer) else { return }
        let stream = streams[layer]
        if stream.keyFrameRequests.request(now: now), !transport.sendKeyFrameRequest(for: stream) {
            stream.keyFrameRequests.postpone()
        }
    }

    /// The spatial index of the stream described by `layer` (its description or its rid).
    func layerIndex(named layer: String) -> Int? {
        streams.firstIndex { $0.layer == layer || $0.rid == layer }
    }

    /// The stream a packet without a known SSRC belongs to, from its rid (RFC 8852) or, for a
    /// single-stream producer, from the mid alone.
    /// `midMatched`: the packet's mid extension names this producer's m-section, so a single
    /// stream that has an SSRC takes the new one (the publisher's new peer connection after an
    /// address change sends the same m-section under a new SSRC, docs/network.md).
    func stream(for view: RTPPacketView, midMatched: Bool = false) -> ProducerStream? {
        if extensionIDs.repairedRid != 0, view.extensionValue(id: extensionIDs.repairedRid) != nil { return nil }
        if extensionIDs.rid != 0, let rid = view.extensionValue(id: extensionIDs.rid) {
            return streams.first { $0.rid.map { StreamIdentifierExtension.matches(rid, $0) } ?? false }
        }
        if streams.count == 1, streams[0].ssrc == nil || (midMatched && streams[0].rid == nil) { return streams[0] }
        return nil
    }

    /// Whether the packet's mid extension names this producer's m-section.
    func matchesMid(_ view: RTPPacketView) -> Bool? {
        guard extensionIDs.mid != 0, let mid = parameters.mid, let value = view.extensionValue(id: extensionIDs.mid) else {
            return nil
        }
        return StreamIdentifierExtension.matches(value, mid)
    }

    /// Ends the producer; the caller closes its consumers.
    func close() -> [Consumer] {
        closed = true
        let ended = Array(consumers)
        consumers.removeAll()
        return ended
    }
}
