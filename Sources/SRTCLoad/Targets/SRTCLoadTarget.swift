import Foundation
import SRTC
import SRTCProtocol

/// Our server as a load target: each participant joins over the signaling WebSocket
/// (docs/protocol.md) with a token this process signs with the app's key, publishes with
/// `publish`, and subscribes with `subscribe`, answering every `subscriber_offer`.
package struct SRTCLoadTarget: LoadTarget {
    package let name = "srtc"
    /// `http://127.0.0.1:7880` (the signaling URL is derived from it).
    package let baseURL: String
    package let appId: String
    package let appKey: String
    package let bindAddress: String

    package init(baseURL: String, appId: String, appKey: String, bindAddress: String = "127.0.0.1") {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.appId = appId
        self.appKey = appKey
        self.bindAddress = bindAddress
    }

    package func prepare(rooms: [String], publishersPerRoom: Int) async throws {
        try LocalOnly.checkURL(baseURL)
    }

    package func finish() async {}

    package func join(room: String, uid: String) async throws -> any LoadSession {
        let now = Int64(Date().timeIntervalSince1970)
        let token = AccessToken.sign(TokenClaims(iss: appId, sub: uid, iat: now, nbf: now - 5, exp: now + 3600,
                                                 jti: UUID().uuidString, grant: ChannelGrant(channel: room)), key: appKey)
        let url = baseURL.replacingOccurrences(of: "http://", with: "ws://").replacingOccurrences(of: "https://", with: "wss://")
            + "/rtc/v1/ws"
        // The server limits joins per channel per second (`rate_limited`): wait and try again.
        for attempt in 0... {
            let session = try await SRTCLoadSession.connect(url: url)
            let refusal = await session.join(token: token)
            guard let refusal else { return session }
            await session.leave()
            guard refusal.serverCode == .rateLimited, attempt < 60 else { throw refusal }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw LoadError.setup("unreachable")
    }
}

/// One participant's signaling connection to our server.
final class SRTCLoadSession: LoadSession {
    private let signal: SignalClient
    private let offers: AsyncStream<SessionDescriptionMessage>
    private let offerSink: AsyncStream<SessionDescriptionMessage>.Continuation

    private init(signal: SignalClient) {
        self.signal = signal
        // Only the newest unanswered offer matters: it describes every subscription so far.
        (offers, offerSink) = AsyncStream.makeStream(of: SessionDescriptionMessage.self, bufferingPolicy: .bufferingNewest(1))
    }

    static func connect(url: String) async throws -> SRTCLoadSession {
        let signal = try await SignalClient.connect(url: url)
        let session = SRTCLoadSession(signal: signal)
        let sink = session.offerSink
        signal.start(onEvent: { event in
            if case .subscriberOffer(let offer) = event { sink.yield(offer) }
        }, onClose: { _ in sink.finish() })
        return session
    }

    /// Joins; returns the server's refusal, if any.
    func join(token: String) async -> SRTCError? {
        do {
            try await signal.request(.join(JoinRequest(token: token, sdk: "srtc-load")))
            return nil
        } catch {
            return error
        }
    }

    func publish(_ offer: LoadPublisher.Offer) async throws -> (answer: String, publication: LoadPublication) {
        let data = try await signal.request(.publish(PublishRequest(sdp: offer.sdp, tracks: offer.tracks)))
        guard case .answer(let answer) = data else { throw LoadError.target("publish was answered without an SDP answer") }
        let tracks = zip(offer.tracks, answer.tracks).map { announced, info in
            LoadPublication.Track(key: info.id, kind: info.kind, mid: announced.mid)
        }
        return (answer.sdp, LoadPublication(owner: answer.tracks.first?.uid ?? "", tracks: tracks, feed: nil))
    }

    func subscribe(to publications: [LoadPublication], layer: String?, subscriber: LoadSubscriber,
                   resolve: @escaping @Sendable (LoadPublication.Track) -> LoadStreamSender?) async throws {
        let signal = self.signal
        let offers = self.offers
        // Offers are answered one at a time, in order; the transport starts after the first answer.
        Task {
            for await offer in offers {
                do {
                    let tracks = try SDPNegotiation.describe(offer.sdp).sections
                    let answer = try subscriber.answer(offer: offer.sdp) { mid, _ in
                        guard let id = tracks.first(where: { $0.mid == mid })?.trackID else { return nil }
                        for publication in publications { if let track = publication.track(key: id) { return resolve(track) } }
                        return nil
                    }
                    try await signal.request(.subscriberAnswer(SessionDescriptionMessage(sdp: answer, revision: offer.revision)))
                    try subscriber.connect()
                } catch {
                    // A stale revision (`wrong_state`): a newer offer is on its way.
                    continue
                }
            }
        }
        subscriber.markRequested()
        for publication in publications {
            for track in publication.tracks {
                try await signal.request(.subscribe(SubscribeRequest(trackId: track.key, layer: track.kind == .video ? layer : nil)))
            }
        }
    }

    func leave() async {
        _ = try? await signal.request(.leave, timeout: .seconds(2))
        signal.close()
        offerSink.finish()
    }
}
