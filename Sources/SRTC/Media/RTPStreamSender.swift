import Foundation
import RTCMedia
import RTCNet
import RTCTransport
import RTCWire
import Synchronization

/// One RTP stream this client sends (one SSRC: an audio track, a video track, or one simulcast
/// layer): packetizes into a packet cache, sends from it, answers NACKs from it, and keeps what
/// sender reports need.
final class RTPStreamSender: Sendable {
    // MARK: - Types

    /// What the stream's packets carry.
    struct Parameters: Sendable, Equatable {
        var ssrc: UInt32
        var payloadType: UInt8
        var clockRate: UInt32
        var mid: String
        /// Simulcast layer id (RFC 8852), sent in every packet when set.
        var rid: String?
        /// Negotiated header extension ids (nil: not negotiated, not sent).
        var midID: UInt8?
        var ridID: UInt8?
        var audioLevelID: UInt8?
        /// The AV1 Dependency Descriptor's id: an AV1 stream without rid then describes itself:
        /// one layer (L1T1), or the layers of a scalable encoder's frames (`DependencyDescriptorWriter`).
        var dependencyDescriptorID: UInt8? = nil
        /// How video frames are packetized (the negotiated codec).
        var videoCodec: VideoCodec = .vp8
        /// Audio: the RED payload type (RFC 2198) when the answer negotiated it; each Opus packet
        /// then goes in RED with the previous one as a redundant block.
        var redPayloadType: UInt8?
    }

    fileprivate struct State {
        var parameters: Parameters
        var sequence = UInt16.random(in: 0...UInt16.max)
        var cache: RTPPacketCache
        var vp8 = VP8Packetizer()
        var h264 = H264Packetizer()
        var vp9 = VP9Packetizer()
        var av1 = AV1Packetizer()
        var descriptors = DependencyDescriptorWriter(firstFrameNumber: UInt16.random(in: 0...UInt16.max))
        var elements: [RTPHeaderWriter.Element] = []
        /// Where in `elements` the Dependency Descriptor goes (rewritten per packet), nil without one.
        var descriptorIndex: Int?
        var packetsSent: UInt32 = 0
        var octetsSent: UInt32 = 0
        var lastTimestamp: UInt32 = 0
        var lastSendTime: Double = 0
        var retransmitted = 0
        /// Audio with RED: the previous Opus packet and its sample position, the next packet's
        /// redundant block.
        var previousOpus: (packet: [UInt8], samplePosition: UInt32)?
    }

    // MARK: - Properties

    /// Largest packet kept (the send path stays under the path MTU).
    static let slotSize = 1_400

    /// Random per stream (RFC 3550 §5.1): timestamps start at an unpredictable value.
    let timestampOffset = UInt32.random(in: 0...UInt32.max)
    let ssrc: UInt32
    let kind: TrackKind
    private let state: Mutex<State>
    /// Fault injection for tests: first sends of the sequence numbers it accepts are dropped
    /// (as if lost on the network); retransmissions are not filtered.
    let lossFilter = CallbackSlot<@Sendable (UInt16) -> Bool>()

    init(kind: TrackKind, parameters: Parameters) {
        self.kind = kind
        self.ssrc = parameters.ssrc
        state = Mutex(State(parameters: parameters, cache: RTPPacketCache(capacity: kind == .video ? 512 : 16, slotSize: Self.slotSize)))
        state.withLock { $0.setElements(for: parameters) }
    }

    var parameters: Parameters { state.withLock { $0.parameters } }

    /// Applies the ids and payload type the answer negotiated.
    func update(_ parameters: Parameters) {
        state.withLock {
            $0.parameters = parameters
            $0.setElements(for: parameters)
        }
    }

    // MARK: - Packetizing

    /// Cuts an encoded frame into packets in the cache (VP8: RFC 7741; VP9: RFC 9628, a scalable
    /// encoder's picture layer frame by layer frame; H.264: RFC 6184
    /// packetization-mode 1; AV1: av1-rtp-spec §4 with its Dependency Descriptor, by the negotiated
    /// `videoCodec`); returns their sequence range. The layer frames of a scalable AV1 unit are
    /// packetized one after the other, each with its own descriptor (start and end of frame,
    /// template, frame number; av1-rtp-spec §A.1), all with the unit's timestamp and the marker on
    /// the unit's last packet. Without the descriptor they go as one unit.
    func packetize(video frame: EncodedVideoFrame) -> (first: UInt16, count: Int) {
        state.withLock { s in
            let timestamp = frame.rtpTimestamp &+ timestampOffset
            let first = s.sequence
            var count = 0
            let parameters = s.parameters
            let descriptorIndex = parameters.videoCodec == .av1 ? s.descriptorIndex : nil
            let descriptorID = parameters.dependencyDescriptorID ?? 0
            frame.data.withUnsafeBytes { data in
                var frameStart = count
                var lastLayer = true
                func store(_ payload: UnsafeRawBufferPointer, _ isLast: Bool) {
                    let sequence = s.sequence
                    // Rewritten in place (the array stays unique: no copy per packet).
                    // (Only these fields of `s` are touched here: the packetizer holds its own.)
                    if let descriptorIndex,
                       let element = Self.descriptorElement(id: descriptorID, s.descriptors, first: count == frameStart, last: isLast) {
                        s.elements[descriptorIndex] = element
                    }
                    let elements = s.elements
                    let marker = isLast && lastLayer
                    s.cache.store(sequenceNumber: sequence) { slot in
                        let header = RTPHeaderWriter.write(into: slot, marker: marker, payloadType: parameters.payloadType,
                                                           sequenceNumber: sequence, timestamp: timestamp, ssrc: parameters.ssrc,
                                                           elements: elements)
                        guard header + payload.count <= slot.count else { return nil }
                        UnsafeMutableRawBufferPointer(rebasing: slot[header ..< header + payload.count]).copyMemory(from: payload)
                        return header + payload.count
                    }
                    s.sequence &+= 1
                    count += 1
                }
                switch parameters.videoCodec {
                case .vp8: s.vp8.packetize(data, emit: store)
                case .h264: s.h264.packetize(data, emit: store)
                case .vp9:
                    if let mode = frame.scalabilityMode, !frame.layerFrames.isEmpty {
                        s.vp9.packetize(data, layers: frame.layerFrames, mode: mode, width: frame.width, height: frame.height,
                                        isKeyFrame: frame.isKeyFrame, emit: store)
                    } else {
                        s.vp9.packetize(data, isKeyFrame: frame.isKeyFrame, emit: store)
                    }
                case .av1:
                    // libaom's temporal units always parse; a unit that does not is not sent whole.
                    if descriptorIndex != nil, let mode = frame.scalabilityMode, !frame.layerFrames.isEmpty {
                        // Decode targets of paused spatial layers are said to be off (§A.4).
                        s.descriptors.beginTemporalUnit(mode: mode, activeSpatialLayers: frame.activeSpatialLayers ?? mode.spatialLayers)
                        for (index, layer) in frame.layerFrames.enumerated() {
                            s.descriptors.beginFrame(mode: mode, templateID: layer.templateID, startsSequence: layer.isKeyFrame)
                            frameStart = count
                            lastLayer = index == frame.layerFrames.count - 1
                            let bytes = UnsafeRawBufferPointer(rebasing: data[layer.range])
                            do { try s.av1.packetize(bytes, isKeyFrame: layer.isKeyFrame, emit: store) } catch {}
                        }
                        // Spatial layers paused by dynacast keep their frame numbers (unsent).
                        s.descriptors.skipFrames(mode.spatialLayers - frame.layerFrames.count)
                    } else {
                        if descriptorIndex != nil { s.descriptors.beginFrame(isKeyFrame: frame.isKeyFrame) }
                        do { try s.av1.packetize(data, isKeyFrame: frame.isKeyFrame, emit: store) } catch {}
                    }
                }
            }
            s.lastTimestamp = timestamp
            s.lastSendTime = Self.wallClock()
            return (first, count)
        }
    }

    /// Puts one Opus packet (RFC 7587) with its RFC 6464 audio level in the cache.
    func packetize(opus packet: [UInt8], samplePosition: UInt32, level: UInt8, voiceActivity: Bool) -> (first: UInt16, count: Int) {
        state.withLock { s in
            let timestamp = samplePosition &+ timestampOffset
            let sequence = s.sequence
            if let id = s.parameters.audioLevelID,
               let index = s.elements.firstIndex(where: { $0.id == id }),
               let element = RTPHeaderWriter.Element(id: id, bytes: [(voiceActivity ? 0x80 : 0) | min(level, 127)]) {
                s.elements[index] = element
            }
            let elements = s.elements, parameters = s.parameters
            // RFC 2198 §3: the previous packet goes along as a redundant block only when it is the
            // one just before (a mute or a pause between them leaves it out: the receiver maps a
            // block to the packet before by its offset, one frame).
            let previous = s.previousOpus.flatMap { prior -> [UInt8]? in
                let offset = samplePosition &- prior.samplePosition
                return offset > 0 && offset <= UInt32(AudioSendPipeline.frameSize) ? prior.packet : nil
            }
            let redundantOffset = samplePosition &- (s.previousOpus?.samplePosition ?? samplePosition)
            s.cache.store(sequenceNumber: sequence) { slot in
                let header = RTPHeaderWriter.write(into: slot, marker: false, payloadType: parameters.redPayloadType ?? parameters.payloadType,
                                                   sequenceNumber: sequence, timestamp: timestamp, ssrc: parameters.ssrc,
                                                   elements: elements)
                let body = UnsafeMutableRawBufferPointer(rebasing: slot[header...])
                if parameters.redPayloadType != nil {
                    let written = packet.withUnsafeBytes { primary -> Int? in
                        if let previous {
                            return previous.withUnsafeBytes { redundant in
                                REDPayloadWriter.write(primary: primary, payloadType: parameters.payloadType, redundant: redundant,
                                                       timestampOffset: redundantOffset, into: body)
                            }
                        }
                        return REDPayloadWriter.write(primary: primary, payloadType: parameters.payloadType, redundant: nil,
                                                      timestampOffset: 0, into: body)
                    }
                    return written.map { header + $0 }
                }
                guard packet.count <= body.count else { return nil }
                packet.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: body[body.startIndex ..< body.startIndex + packet.count]).copyMemory(from: $0) }
                return header + packet.count
            }
            s.previousOpus = (packet, samplePosition)
            s.sequence &+= 1
            s.lastTimestamp = timestamp
            s.lastSendTime = Self.wallClock()
            return (sequence, 1)
        }
    }

    // MARK: - Sending (the transport's I/O thread)

    /// Sends packets `first ..< first + count` from the cache.
    func send(first: UInt16, count: Int, on transport: PeerTransport) {
        let drop = lossFilter.function
        state.withLock { s in
            for i in 0..<count {
                let sequence = first &+ UInt16(truncatingIfNeeded: i)
                if let drop, drop(sequence) { continue }
                if let packet = s.cache.packet(sequenceNumber: sequence), transport.sendRTP(packet) {
                    s.packetsSent &+= 1
                    s.octetsSent &+= UInt32(packet.count)
                }
            }
        }
    }

    /// Resends the packets a NACK lists that are still cached (RFC 4585 §6.2.1); returns how many.
    @discardableResult
    func retransmit(_ sequences: [UInt16], on transport: PeerTransport) -> Int {
        state.withLock { s in
            var sent = 0
            for sequence in sequences {
                if let packet = s.cache.packet(sequenceNumber: sequence), transport.sendRTP(packet) { sent += 1 }
            }
            s.retransmitted += sent
            return sent
        }
    }

    /// An RTCP sender report for this stream now (RFC 3550 §6.4.1).
    func senderReport() -> SenderReport? {
        state.withLock { s in
            guard s.packetsSent > 0 else { return nil }
            let now = Self.wallClock()
            let elapsed = (now - s.lastSendTime) * Double(s.parameters.clockRate)
            let rtpTime = s.lastTimestamp &+ UInt32(truncatingIfNeeded: Int64(elapsed))
            return SenderReport(ssrc: s.parameters.ssrc, ntpTime: NTPTime(unixSeconds: now), rtpTime: rtpTime,
                                packetCount: s.packetsSent, octetCount: s.octetsSent)
        }
    }

    var packetsSent: Int { state.withLock { Int($0.packetsSent) } }

    /// A copy of cached packet `sequence` (tests and diagnostics).
    func cachedPacket(_ sequence: UInt16) -> [UInt8]? {
        state.withLock { s in s.cache.packet(sequenceNumber: sequence).map { Array($0) } }
    }
    var retransmittedPackets: Int { state.withLock { $0.retransmitted } }

    // MARK: - Internals

    fileprivate static func elements(for p: Parameters, level: UInt8?) -> [RTPHeaderWriter.Element] {
        var elements: [RTPHeaderWriter.Element] = []
        if let id = p.midID, let e = RTPHeaderWriter.Element(id: id, bytes: Array(p.mid.utf8)) { elements.append(e) }
        if let id = p.ridID, let rid = p.rid, let e = RTPHeaderWriter.Element(id: id, bytes: Array(rid.utf8)) { elements.append(e) }
        if let id = p.audioLevelID, let e = RTPHeaderWriter.Element(id: id, bytes: [level ?? 127]) { elements.append(e) }
        return elements
    }

    static func wallClock() -> Double { Date().timeIntervalSince1970 }
}

extension RTPStreamSender.State {
    /// The extensions of every packet, with a slot for the Dependency Descriptor of an AV1 stream
    /// sent as one stream (a simulcast layer's would not continue the others', docs/protocol.md).
    mutating func setElements(for p: RTPStreamSender.Parameters) {
        elements = RTPStreamSender.elements(for: p, level: nil)
        descriptorIndex = nil
        guard let id = p.dependencyDescriptorID, p.rid == nil, p.videoCodec == .av1,
              let placeholder = RTPHeaderWriter.Element(id: id, bytes: [0, 0, 0]) else { return }
        descriptorIndex = elements.count
        elements.append(placeholder)
    }
}

extension RTPStreamSender {
    /// The current frame's Dependency Descriptor for one packet (written on the stack).
    static func descriptorElement(id: UInt8, _ descriptors: DependencyDescriptorWriter, first: Bool, last: Bool) -> RTPHeaderWriter.Element? {
        withUnsafeTemporaryAllocation(byteCount: DependencyDescriptorWriter.maxLength, alignment: 1) { buffer in
            guard let length = descriptors.write(into: buffer, first: first, last: last) else { return nil }
            return RTPHeaderWriter.Element(id: id, bytes: UnsafeRawBufferPointer(rebasing: buffer[0 ..< length]))
        }
    }
}
