import Foundation
import Testing
import RTCNet
import RTCTransport
import RTCWire
import SFU
import SRTCProtocol
@testable import SRTCServer

/// WHIP's tracks from an offer and WHEP's bridge between a player's offer and the server's
/// subscriber offer, by descriptions in and out, with no transport behind them.
struct HTTPMediaNegotiationTests {
    // MARK: - WHIP

    @Test func aWHIPOfferNamesItsTracksMicAndCameraWithSimulcastLayers() throws {
        let offer = try SessionDescription(parsing: ClientSDP.offer([.audio(mid: "0"), .simulcast(mid: "1", rids: ["h", "l"]),
                                                                     .video(mid: "2"), .audio(mid: "3", direction: "recvonly")]))
        let tracks = try HTTPMediaNegotiation.publishTracks(offer: offer)
        #expect(tracks == [
            PublishTrack(mid: "0", kind: .audio, desc: "mic"),
            PublishTrack(mid: "1", kind: .video, desc: "camera_big",
                         layers: [SimulcastLayer(rid: "h", desc: "camera_big"), SimulcastLayer(rid: "l", desc: "camera_small")]),
            PublishTrack(mid: "2", kind: .video, desc: "camera_2"),
        ])
    }

    @Test func aWHIPOfferThatSendsNothingIsRefused() throws {
        let offer = try SessionDescription(parsing: ClientSDP.offer([.audio(mid: "0", direction: "recvonly")]))
        #expect(throws: SignalError(.invalidParameter, "offer sends no audio or video (no sendonly or sendrecv m-section)")) {
            try HTTPMediaNegotiation.publishTracks(offer: offer)
        }
    }

    @Test func anICERestartOfferCarriesTheNewCredentialsAndTheAnswerBecomesAFragment() throws {
        let offer = try SessionDescription(parsing: ClientSDP.offer([.audio(mid: "0")]))
        let restarted = try SessionDescription(parsing: HTTPMediaNegotiation.offer(offer, withICE: "rstrt", "restartrestartrestart0123"))
        #expect(restarted.iceUfrag(of: restarted.media[0]) == "rstrt" && restarted.icePwd(of: restarted.media[0]) == "restartrestartrestart0123")
        var negotiation = ServerNegotiationTests.negotiation()
        let answer = try negotiation.answerPublish(offer: ClientSDP.offer([.audio(mid: "0")]), tracks: [PublishTrack(mid: "0", kind: .audio, desc: "mic")],
                                                   trackIds: ["0": "TR_a"], transportExists: false)
        let fragment = try HTTPMediaNegotiation.restartFragment(answer: answer.sdp)
        #expect(fragment == ICEFragment(iceLite: true, iceUfrag: "srv1", icePwd: "serverpassword0123456789"))
    }

    // MARK: - WHEP

    /// A player that numbers its payload types its own way (aiortc: Opus 109, VP8 100) gets its
    /// numbers in the answer, and the consumers the server's subscribe negotiation plans send with them.
    @Test func aWHEPPlayersOfferIsBridgedOntoTheSubscriberOffer() throws {
        var negotiation = ServerNegotiationTests.negotiation()
        _ = negotiation.subscribe(trackId: "TR_mic", publisherUid: "alice", kind: .audio, layer: nil, ssrc: 1234, codec: "opus")
        let offer = negotiation.subscribe(trackId: "TR_cam", publisherUid: "alice", kind: .video, layer: nil, ssrc: 5678, codec: "VP8")
        let server = try SessionDescription(parsing: offer.sdp)
        let playerText = ClientSDP.offer([.audio(mid: "a", direction: "recvonly"), .video(mid: "v", direction: "recvonly")])
            .replacingOccurrences(of: "111", with: "109").replacingOccurrences(of: " 96", with: " 100").replacingOccurrences(of: ":96", with: ":100")
            .replacingOccurrences(of: "apt=96", with: "apt=100")
        let player = try SessionDescription(parsing: playerText)
        #expect(HTTPMediaNegotiation.receivingMids(player, kind: .audio) == ["a"])
        #expect(HTTPMediaNegotiation.offers(player, mid: "v", codec: ServerMedia.vp8))
        #expect(!HTTPMediaNegotiation.offers(player, mid: "v", codec: ServerMedia.h264))

        let pairs = [HTTPMediaNegotiation.Pair(playerMid: "a", serverMid: "0"), HTTPMediaNegotiation.Pair(playerMid: "v", serverMid: "1")]
        let answer = try HTTPMediaNegotiation.playerAnswer(playerOffer: player, serverOffer: server, pairs: pairs, sessionID: "424242")
        #expect(answer.media.map(\.mid) == ["a", "v"])
        #expect(answer.media.map(\.direction) == [.sendonly, .sendonly])
        #expect(answer.media.map { $0.codecs.map(\.payloadType) } == [[109], [100]])
        #expect(answer.media.map(\.ssrcList) == [[1234], [5678]])
        #expect(answer.media.map { $0.msid.first?.trackID } == ["TR_mic", "TR_cam"])
        #expect(answer.iceLite && answer.setup(of: answer.media[0]) == .passive)
        #expect(answer.iceUfrag(of: answer.media[0]) == "srv2")

        let subscriberAnswer = try HTTPMediaNegotiation.subscriberAnswer(playerOffer: player, playerAnswer: answer, serverOffer: server,
                                                                         pairs: pairs, sessionID: "424242")
        let plan = try negotiation.applySubscriberAnswer(subscriberAnswer, revision: offer.revision, transportExists: true)
        #expect(plan.complete == ServerNegotiation.RemoteTransport(ice: ServerNegotiationTests.clientICE,
                                                                  fingerprint: try DTLSFingerprint(sdpValue: ClientSDP.fingerprint), dtlsRole: .server))
        #expect(plan.consumers.map(\.trackId) == ["TR_mic", "TR_cam"])
        #expect(plan.consumers.map { $0.parameters.codecs.map(\.payloadType) } == [[109], [100]])
        #expect(plan.consumers.map { $0.parameters.encodings.map(\.ssrc) } == [[1234], [5678]])
    }

    /// docs/ingress.md, "Tracks published later": a kind the user does not publish yet is
    /// answered sendonly with no SSRC, and the camera published afterwards is answered on the
    /// player's behalf with the payload type of the player's offer, without the mid extension.
    @Test func aWHEPSectionWaitsForALaterTrackAndPlaysItWithThePlayersPayloadType() throws {
        var negotiation = ServerNegotiationTests.negotiation()
        let first = negotiation.subscribe(trackId: "TR_mic", publisherUid: "alice", kind: .audio, layer: nil, ssrc: 1234, codec: "opus")
        let player = try SessionDescription(parsing: ClientSDP.offer([.audio(mid: "a", direction: "recvonly"), .video(mid: "v", direction: "recvonly")])
            .replacingOccurrences(of: " 96", with: " 100").replacingOccurrences(of: ":96", with: ":100").replacingOccurrences(of: "apt=96", with: "apt=100"))
        let pairs = [HTTPMediaNegotiation.Pair(playerMid: "a", serverMid: "0")]
        let server1 = try SessionDescription(parsing: first.sdp)
        let answer = try HTTPMediaNegotiation.playerAnswer(playerOffer: player, serverOffer: server1, pairs: pairs, waiting: ["v"],
                                                           streamID: "alice", sessionID: "424242")
        #expect(answer.media.map(\.direction) == [.sendonly, .sendonly])
        #expect(answer.media.map(\.ssrcList) == [[1234], []])
        #expect(answer.media[1].msid == [MediaStreamID(streamID: "alice", trackID: "alice-v")])
        #expect(answer.media[1].codecs.contains { $0.payloadType == 100 } && !answer.media[1].codecs.contains(where: \.isRTX))
        #expect(answer.media.allSatisfy { !$0.extensions.contains { $0.uri == RTPHeaderExtensionURI.mid } })
        _ = try negotiation.applySubscriberAnswer(HTTPMediaNegotiation.subscriberAnswer(playerOffer: player, playerAnswer: answer, serverOffer: server1,
                                                                                         pairs: pairs, sessionID: "424242"),
                                                  revision: first.revision, transportExists: true)
        negotiation.consumerStarted(trackId: "TR_mic")
        #expect(HTTPMediaNegotiation.waitingMid(["v"], in: player, kind: .video, codec: ServerMedia.vp8) == "v")
        #expect(HTTPMediaNegotiation.waitingMid(["v"], in: player, kind: .audio, codec: ServerMedia.opus) == nil)

        let later = negotiation.subscribe(trackId: "TR_cam", publisherUid: "alice", kind: .video, layer: nil, ssrc: 5678, codec: "VP8")
        let server2 = try SessionDescription(parsing: later.sdp)
        let both = pairs + [HTTPMediaNegotiation.Pair(playerMid: "v", serverMid: "1")]
        let subscriberAnswer = try HTTPMediaNegotiation.subscriberAnswer(playerOffer: player, playerAnswer: answer, serverOffer: server2,
                                                                         pairs: both, sessionID: "424242")
        let plan = try negotiation.applySubscriberAnswer(subscriberAnswer, revision: later.revision, transportExists: true)
        #expect(plan.consumers.map(\.trackId) == ["TR_cam"])
        #expect(plan.consumers.map { $0.parameters.codecs.map(\.payloadType) } == [[100]])
        #expect(plan.consumers.map { $0.parameters.encodings.map(\.ssrc) } == [[5678]])
        #expect(plan.consumers[0].parameters.headerExtensions.allSatisfy { $0.uri != RTPHeaderExtensionURI.mid })
    }
}

/// The HTTP side's pure pieces: ICE servers as `Link` headers (RFC 9725 §4.6) and bearer tokens.
struct HTTPMediaRoutesTests {
    @Test func iceServersBecomeLinkHeadersWithCredentialsOnTURNOnly() {
        let links = HTTPMediaRoutes.iceServerLinks([ICEServer(urls: ["stun:stun.example.net", "turn:turn.example.net?transport=udp"],
                                                              username: "1767229200:obs", credential: "c3Vw")])
        #expect(links == [
            "<stun:stun.example.net>; rel=\"ice-server\"",
            "<turn:turn.example.net?transport=udp>; rel=\"ice-server\"; username=\"1767229200:obs\"; credential=\"c3Vw\"; credential-type=\"password\"",
        ])
    }

    @Test(arguments: [("Bearer abc", "abc"), ("bearer  abc ", "abc"), ("Basic abc", nil), ("Bearer", nil), ("", nil)] as [(String, String?)])
    func bearerTokens(header: String, token: String?) {
        #expect(HTTPMediaRoutes.bearerToken(HTTPRequest(method: "POST", target: "/whip/v1/c", headers: ["Authorization": header])) == token)
    }
}
