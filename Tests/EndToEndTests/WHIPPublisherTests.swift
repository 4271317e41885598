import Foundation
import RTCNet
@testable import SRTCCore
import SRTCLab
import SRTCTestSupport
import TestWait
import Testing

/// `WHIPPublisher` against our own WHIP resource (RFC 9725 §4.3, docs/ingress.md): the trickle
/// `PATCH` of the candidate learnt after the offer, and an ICE restart by `PATCH` that keeps the
/// transport (DTLS and SRTP) while the camera's frames keep arriving at a subscriber in order.
@Suite(.serialized) struct WHIPPublisherTests {
    @Test func trickleAndAnICERestartByPATCHKeepTheCameraFlowing() async throws {
        let server = try SDKTestServer()
        let viewer = SDKPeer()
        let subscriber = SDKAutoSubscriber()
        viewer.channel.delegates.add(delegate: subscriber)
        try await viewer.channel.join(url: server.url, token: server.token(uid: "viewer", channel: "whipice"))

        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "whip.events"), logLevel: .off))
        let whip = try WHIPPublisher(engine: engine)
        let camera = engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 400_000))
        try await whip.publish([camera], endpoint: server.url + "/whip/v1/whipice", token: server.token(uid: "obs", channel: "whipice"))
        let pusher = try SDKMediaPusher(video: camera, audio: nil, width: 320, height: 180, firstNumber: 100)
        defer { pusher.stop() }
        try await eventually("frames of the WHIP camera") { subscriber.collector.frameCount > 10 }

        // Trickle: the transport's host candidate (its port, a routable address), answered 204.
        let transport = try #require(whip.media.publish.currentTransport)
        let fragment = try whip.fragment(ice: transport.localICE)
        let candidate = try #require(fragment.sections.first?.candidates.first)
        #expect(fragment.sections.count == 1 && fragment.sections[0].endOfCandidates && fragment.credentials?.ufrag == transport.localICE.ufrag)
        #expect(candidate.kind == .host && candidate.port == transport.localAddress.port && candidate.address != "0.0.0.0", "\(candidate)")
        try await whip.trickleCandidates()

        // ICE restart: new credentials both ways, a new ETag, the same transport, media on.
        let (localBefore, remoteBefore, etagBefore) = (transport.localICE, transport.remote.iceUfrag, whip.entityTag)
        try await whip.restartICE()
        #expect(whip.media.publish.currentTransport === transport)
        #expect(transport.localICE != localBefore && transport.remote.iceUfrag != remoteBefore)
        #expect(whip.entityTag != nil && whip.entityTag != etagBefore)
        // The resource knows the new ICE session: a trickle with the new ETag is taken (204) …
        try await whip.trickleCandidates()
        // … and the old one is stale (412, RFC 9725 §4.3.1).
        let http = HTTPClient()
        let stale = try await http.execute(method: "PATCH", url: try #require(whip.resourceURL),
                                           headers: ["Content-Type": "application/trickle-ice-sdpfrag", "If-Match": try #require(etagBefore)],
                                           body: Array("a=end-of-candidates\r\n".utf8))
        #expect(stale.status == 412)
        let before = subscriber.collector.numbers.last ?? 0
        try await eventually("frames after the ICE restart") { (subscriber.collector.numbers.last ?? 0) > before + 30 }
        let numbers = subscriber.collector.numbers
        #expect(frameGaps(numbers).ordered, "\(numbers)")
        print("WHIP ICE restart: \(numbers.count) frames decoded, \(frameGaps(numbers).missing) missing between \(numbers.first ?? 0) and \(numbers.last ?? 0)")

        await whip.stop()
        try await eventually("the WHIP publisher gone") { viewer.channel.remoteTracks(uid: "obs").isEmpty }
        await engine.destroy()
        await viewer.channel.leave()
        await server.stop()
    }
}
