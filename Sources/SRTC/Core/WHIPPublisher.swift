import Foundation
import RTCNet
import Synchronization

/// Publishes local tracks to a WHIP endpoint (RFC 9725): any server that takes WHIP, ours
/// included (docs/ingress.md). It uses the same publish transport, encoders and packetizers as a
/// channel (`publishLocalTrack`), with an HTTP `POST` of the offer instead of the signaling
/// WebSocket, and `DELETE` of the session's resource to stop.
///
/// ```swift
/// let whip = try WHIPPublisher(engine: engine)
/// try await whip.publish([camera, mic], endpoint: "https://host:7880/whip/v1/show", token: token)
/// …
/// await whip.stop()
/// ```
public final class WHIPPublisher: Sendable {
    private let media: ChannelMedia
    private let context: EngineContext
    private let http: HTTPClient
    private struct State {
        var resource: String?
        var token: String?
        var published = false
    }
    private let state = Mutex(State())

    /// The session's resource (`Location` of the `201`, made absolute), once publishing.
    public var resourceURL: String? { state.withLock { $0.resource } }

    /// - Throws: `SRTCError.mediaFailed` when no DTLS certificate can be made.
    public init(engine: SRTCEngine) throws(SRTCError) {
        context = engine.context
        media = try ChannelMedia(context: engine.context, e2ee: engine.context.configuration.e2ee)
        http = HTTPClient(configuration: .init(tls: engine.context.configuration.tls))
    }

    /// Offers `tracks` (one `sendonly` section each) to `endpoint` with `token` as the bearer
    /// token, applies the answer and starts sending once connected. Once per publisher.
    /// - Throws: `SRTCError.invalidURL`; `.connectionFailed` when the endpoint cannot be reached;
    ///   `.server(code:message:)` with the HTTP status and body when it does not answer `201`;
    ///   `.mediaFailed` for an answer that is not usable SDP.
    public func publish(_ tracks: [LocalTrack], endpoint: String, token: String?) async throws(SRTCError) {
        guard let base = URL(string: endpoint), base.scheme == "http" || base.scheme == "https" else { throw .invalidURL(endpoint) }
        guard state.withLock({ s in defer { s.published = true }; return !s.published }) else { throw .wrongState("already published") }
        let sections = tracks.map { media.publish.add($0) }
        let offer = media.publish.makeOffer()
        var headers: HTTPHeaders = ["Content-Type": "application/sdp"]
        if let token { headers.add(name: "Authorization", value: "Bearer " + token) }
        let response: HTTPResponse
        do {
            response = try await http.post(endpoint, headers: headers, body: Array(offer.utf8))
        } catch {
            throw .connectionFailed("WHIP POST to \(endpoint) failed: \(error)")
        }
        guard response.status == 201 else {
            throw .server(code: response.status, message: String(decoding: response.body.prefix(1000), as: UTF8.self))
        }
        // RFC 9725 §4.2: Location may be relative to the endpoint.
        if let location = response.headers["Location"], let url = URL(string: location, relativeTo: base) {
            state.withLock {
                $0.resource = url.absoluteString
                $0.token = token
            }
        }
        try media.publish.applyAnswer(String(decoding: response.body, as: UTF8.self))
        for section in sections { media.publish.attach(mid: section.mid) }
        context.logger.info("WHIP: publishing \(tracks.count) track(s) at \(resourceURL ?? endpoint)")
    }

    /// Ends the session (`DELETE` of its resource) and closes the transport.
    public func stop() async {
        let (resource, token) = state.withLock { ($0.resource, $0.token) }
        if let resource {
            var headers = HTTPHeaders()
            if let token { headers.add(name: "Authorization", value: "Bearer " + token) }
            _ = try? await http.execute(method: "DELETE", url: resource, headers: headers)
        }
        state.withLock { $0.resource = nil }
        media.close()
    }
}
