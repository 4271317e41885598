import RTCWire
@testable import SFU

/// One router with a publisher transport and a subscriber transport on recording sinks, driven
/// synchronously with explicit times (no threads, no sockets).
final class SFUHarness {
    let core: SFUCore
    let log = EventLog()
    let publisherSink = RecordingSink()
    let subscriberSink = RecordingSink()
    let publisher: MediaTransport
    let subscriber: MediaTransport
    var now: Int64 = 1_000_000_000

    // Publisher-side header extension ids (as a browser's offer numbers them).
    static let pubAudioLevel: UInt8 = 1, pubAbsSendTime: UInt8 = 2, pubTWCC: UInt8 = 3, pubMid: UInt8 = 4
    static let pubRid: UInt8 = 10, pubRepairedRid: UInt8 = 11
    // Subscriber-side ids (the server's offer numbers them differently).
    static let subMid: UInt8 = 1, subAbsSendTime: UInt8 = 2, subTWCC: UInt8 = 5, subAudioLevel: UInt8 = 9

    static let publisherExtensions = [
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.audioLevel, id: pubAudioLevel),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.absSendTime, id: pubAbsSendTime),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.transportWideCC, id: pubTWCC),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.mid, id: pubMid),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.rid, id: pubRid),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.repairedRid, id: pubRepairedRid),
    ]
    static let subscriberExtensions = [
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.mid, id: subMid),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.absSendTime, id: subAbsSendTime),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.transportWideCC, id: subTWCC),
        RTPHeaderExtensionParameters(uri: RTPHeaderExtensionURI.audioLevel, id: subAudioLevel),
    ]

    init(configuration: SFUConfiguration = SFUConfiguration()) throws {
        core = SFUCore(configuration: configuration)
        let log = self.log
        core.emit = { log.events.append($0) }
        try core.createRouter("room", now: now)
        publisher = try core.createTransport("alice/pub", router: "room", participant: "alice", sink: publisherSink, now: now)
        subscriber = try core.createTransport("bob/sub", router: "room", participant: "bob", sink: subscriberSink, now: now)
        publisher.state = .connected
        subscriber.state = .connected
    }

    // MARK: - Parameters

    static func audioProducer(ssrc: UInt32? = 0x1111) -> RTPParameters {
        RTPParameters(mid: "0", codecs: [.opus(payloadType: 111)], headerExtensions: publisherExtensions,
                      encodings: [RTPEncodingParameters(ssrc: ssrc)])
    }

    static func simulcastProducer() -> RTPParameters {
        RTPParameters(mid: "1", codecs: [.vp8(payloadType: 96)], headerExtensions: publisherExtensions,
                      encodings: [RTPEncodingParameters(rid: "h", layer: "camera_big"),
                                  RTPEncodingParameters(rid: "l", layer: "camera_small")])
    }

    static func subscriberParameters(kind: MediaKind, mid: String = "s3", ssrc: UInt32 = 0xAAAA) -> RTPParameters {
        RTPParameters(mid: mid, codecs: [kind == .audio ? .opus(payloadType: 109) : .vp8(payloadType: 98)],
                      headerExtensions: subscriberExtensions, encodings: [RTPEncodingParameters(ssrc: ssrc)])
    }

    // MARK: - Driving

    func advance(ms: Int64) { now += ms * 1000 }

    /// Delivers one packet to the publisher transport at the current time.
    func publish(_ packet: [UInt8]) {
        packet.withUnsafeBytes { publisher.receiveRTP($0, now: now) }
    }

    /// Delivers an RTCP compound from the subscriber.
    func subscriberRTCP(_ packets: [RTCPPacket]) {
        RTCPCompound.serialize(packets).withUnsafeBytes { subscriber.receiveRTCP($0, now: now) }
    }

    /// Delivers an RTCP compound from the publisher.
    func publisherRTCP(_ packets: [RTCPPacket]) {
        RTCPCompound.serialize(packets).withUnsafeBytes { publisher.receiveRTCP($0, now: now) }
    }

    /// The worker's tick: the pacers drain, then the timers run.
    func tick() {
        core.drainPacers(now: now)
        core.tick(now: now)
    }
}
