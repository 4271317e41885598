import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import RTCNet
import RTCWire
import SRTCProtocol
@testable import SRTCServer
import SRTCTestSupport
import TestWait

/// The subscribe transport's offers as a standards-following client reads them (issue 14's
/// findings from aiortc): the response to `subscribe` comes before the offer it caused, every
/// revision keeps the `o=` session id and increments its version (RFC 3264 §8), and
/// `a=msid-semantic: WMS *` makes the `a=msid` lines count (RFC 8830).
@Suite(.serialized) struct SubscriberOfferTests {
    private struct Envelope: Decodable {
        struct Data: Decodable { var revision: Int?; var sdp: String? }
        var id: Int?
        var type: String
        var data: Data?
    }

    @Test func responsesPrecedeTheirOffersAndRevisionsKeepTheSessionID() async throws {
        let server = try TestServer()
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "offers")
        let tracks = try await alice.publish(video: [MediaTestClient.VideoLayer(rid: "h", desc: TrackDescName.cameraBig, ssrc: 0x51, width: 320, height: 180)])
        let bob = try await TestSignalClient(url: server.wsURL)
        _ = try await bob.join(token: server.token(uid: "bob", channel: "offers"))

        // Subscribe and unsubscribe in turn; each causes one offer (the race showed in 3 of 17 runs).
        var ids: [Int] = []
        for round in 0..<8 {
            let track = tracks[round % tracks.count]
            let subscribe = try await bob.request(.subscribe(SubscribeRequest(trackId: track.id)))
            #expect(subscribe.isSuccess)
            ids.append(bob.lastRequestId)
            _ = try await bob.event { if case .subscriberOffer(let o) = $0, o.revision == 2 * round + 1 { return o }; return nil }
            #expect(try await bob.request(.unsubscribe(TrackRef(trackId: track.id))).isSuccess)
            _ = try await bob.event { if case .subscriberOffer(let o) = $0, o.revision == 2 * round + 2 { return o }; return nil }
        }
        let messages = try bob.rawMessages.map { try JSONDecoder().decode(Envelope.self, from: Data($0.utf8)) }
        let offers = messages.enumerated().filter { $0.element.type == "subscriber_offer" }
        #expect(offers.count == 16)
        for (round, id) in ids.enumerated() {
            let response = try #require(messages.firstIndex { $0.id == id && $0.type == "subscribe" })
            let offer = try #require(offers.first { $0.element.data?.revision == 2 * round + 1 }?.offset)
            #expect(response < offer, "round \(round): offer \(offer) came before the subscribe response \(response)")
        }
        let origins = try offers.map { try SessionDescription(parsing: #require($0.element.data?.sdp)) }
        #expect(Set(origins.map(\.origin.sessionID)).count == 1)
        let versions = origins.map(\.origin.sessionVersion)
        #expect(zip(versions, versions.dropFirst()).allSatisfy { $1 == $0 + 1 }, "versions \(versions)")
        #expect(origins.allSatisfy { $0.msidSemantic == MSIDSemantic(semantic: "WMS", identifiers: ["*"]) })
        alice.close()
        bob.close()
        await server.stop()
    }

    /// Regression: checks that arrived before `subscriber_answer` were dropped, so a client that
    /// checks at once (aiortc) waited ~500 ms for its retransmission (RFC 8445 §7.3 says answer).
    @Test func aCheckBeforeTheAnswerIsAnswered() async throws {
        let server = try TestServer()
        let alice = try await MediaTestClient(server: server, uid: "alice", channel: "early")
        let tracks = try await alice.publish()
        let bob = try await TestSignalClient(url: server.wsURL)
        _ = try await bob.join(token: server.token(uid: "bob", channel: "early"))
        #expect(try await bob.request(.subscribe(SubscribeRequest(trackId: tracks[0].id))).isSuccess)
        let offerMessage = try await bob.event { if case .subscriberOffer(let o) = $0 { return o }; return nil }
        let offer = try SessionDescription(parsing: offerMessage.sdp)
        let section = try #require(offer.media.first)
        let ufrag = try #require(section.iceUfrag), pwd = try #require(section.icePwd)
        let candidate = try #require(section.candidates.first)
        let target = try #require(SocketAddress(ip: candidate.address, port: candidate.port))

        // No answer sent: a check with the offer's credentials gets a signed success response.
        let socket = try UDPSocket(bind: SocketAddress(ip: "127.0.0.1", port: 0)!)
        let check = STUNMessage.iceBindingRequest(transactionID: .random(), username: "\(ufrag):bobufrag",
                                                  priority: 1, controlling: true, tieBreaker: 7, useCandidate: false)
        let receiver = UDPBatchReceiver(batchSize: 4, slotSize: 2048)
        var raw: [UInt8] = []
        var polls = 0
        let answered = try await waitFor("a response to the check") { () -> STUNMessage? in
            // The check again every 500 ms, as a client retransmits it.
            if polls % 50 == 0 { _ = socket.send(check.encoded(integrityKey: Array(pwd.utf8)), to: target) }
            polls += 1
            // Never block the cooperative pool: read only when a datagram is waiting.
            var fds = [pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 0) > 0 else { return nil }
            var response: STUNMessage?
            _ = receiver.receive(from: socket) { bytes, _ in
                raw = Array(bytes)
                response = try? STUNMessage(parsing: UnsafeRawBufferPointer(bytes))
            }
            return response
        }
        #expect(answered.type == .bindingSuccess)
        #expect(try answered.xorMappedAddress() == STUNAddress(ip: [127, 0, 0, 1], port: socket.localAddress.port))
        #expect(throws: Never.self) { try raw.withUnsafeBytes { try answered.verifyIntegrity(in: $0, key: Array(pwd.utf8)) } }
        alice.close()
        bob.close()
        await server.stop()
    }
}
