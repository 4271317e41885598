import Foundation
import RTCNet
import RTCTransport
import RTCWire
import Synchronization

/// Publishes local tracks to a WHIP endpoint (RFC 9725): any server that takes WHIP, ours
/// included (docs/ingress.md). It uses the same publish transport, encoders and packetizers as a
/// channel (`publishLocalTrack`), with an HTTP `POST` of the offer instead of the signaling
/// WebSocket, and `DELETE` of the session's resource to stop. Candidates it learns after the
/// offer (its transport's host candidate, known once the answer made the transport) and ICE
/// restarts go to the resource as `PATCH`es of `application/trickle-ice-sdpfrag` (RFC 9725 §4.3).
///
/// ```swift
/// let whip = try WHIPPublisher(engine: engine)
/// try await whip.publish([camera, mic], endpoint: "https://host:7880/whip/v1/show", token: token)
/// …
/// try await whip.restartICE()   // after a network change
/// …
/// await whip.stop()
/// ```
public final class WHIPPublisher: Sendable {
    let media: ChannelMedia
    private let context: EngineContext
    private let http: HTTPClient
    private struct State {
        var resource: String?
        var token: String?
        var published = false
        /// The ICE session's entity tag (RFC 9725 §4.3.1), new after each restart.
        var etag: String?
        /// The answer in force (with the server's credentials of the latest restart).
        var answer: String?
        /// The offer's first `m=` line and mid: a fragment's section (RFC 8840 §9).
        var firstSection: (mediaLine: String, mid: String?)?
        /// The resource refused trickle (405 or 501): no more candidate `PATCH`es (RFC 9725 §4.3.1).
        var trickleRefused = false
    }
    private let state = Mutex(State())

    /// The session's resource (`Location` of the `201`, made absolute), once publishing.
    public var resourceURL: String? { state.withLock { $0.resource } }

    /// The ICE session's entity tag (`ETag` of the `201`, then of the latest restart).
    public var entityTag: String? { state.withLock { $0.etag } }

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
        let answer = String(decoding: response.body, as: UTF8.self)
        let first = (try? SessionDescription(parsing: offer))?.media.first.map { m in
            (mediaLine: "\(m.kind.rawValue) 9 \(m.proto) \(m.formats.joined(separator: " "))", mid: m.mid)
        }
        // RFC 9725 §4.2: Location may be relative to the endpoint.
        let resource = response.headers["Location"].flatMap { URL(string: $0, relativeTo: base)?.absoluteString }
        state.withLock {
            $0.resource = resource
            $0.token = token
            $0.etag = response.headers["ETag"]
            $0.answer = answer
            $0.firstSection = first
        }
        try media.publish.applyAnswer(answer)
        for section in sections { media.publish.attach(mid: section.mid) }
        context.logger.info("WHIP: publishing \(tracks.count) track(s) at \(resourceURL ?? endpoint)")
        do { try await trickleCandidates() } catch { context.logger.info("WHIP: trickle not sent: \(error)") }
    }

    /// Sends the candidates gathered after the offer (RFC 9725 §4.3.1): the publish transport's
    /// host candidate and `a=end-of-candidates`, with the current ICE credentials and `If-Match`
    /// of the session's `ETag`. `publish` does it once the answer made the transport; call it
    /// again after the machine's address changed. Nothing is sent when the resource refused
    /// trickle before (405 or 501).
    /// - Throws: `SRTCError.wrongState` before `publish` (or after `stop`); `.connectionFailed`
    ///   when the resource cannot be reached; `.server(code:message:)` when it answers other than
    ///   `204` (a 405 or 501 also ends trickling).
    public func trickleCandidates() async throws(SRTCError) {
        let ice = media.publish.localICE
        guard !state.withLock(\.trickleRefused) else { return }
        let response = try await patch(fragment(ice: ice), ifMatch: nil)
        if response.status == 405 || response.status == 501 { state.withLock { $0.trickleRefused = true } }
        guard response.status == 204 || response.status == 200 else {
            throw .server(code: response.status, message: String(decoding: response.body.prefix(1000), as: UTF8.self))
        }
    }

    /// Restarts ICE (RFC 9725 §4.3.2, RFC 8445 §9): new local credentials and the host candidate
    /// in a `PATCH` with `If-Match: *`; the resource's `200` fragment carries the server's new
    /// credentials, and the transport restarts toward them with its DTLS association and SRTP
    /// keys kept (the new `ETag` is kept for later `PATCH`es). Call it when the path failed or
    /// the machine's address changed.
    /// - Throws: `SRTCError.wrongState` before `publish`; `.connectionFailed`; `.server(code:message:)`
    ///   when the resource answers other than `200` (the old credentials stay in force);
    ///   `.mediaFailed` when its fragment names no credentials.
    public func restartICE() async throws(SRTCError) {
        guard let answer = state.withLock(\.answer) else { throw .wrongState("not publishing") }
        let previous = media.publish.restartICE()
        let response: HTTPResponse
        do throws(SRTCError) {
            response = try await patch(fragment(ice: media.publish.localICE), ifMatch: "*")
        } catch {
            media.publish.restoreICE(previous)
            throw error
        }
        guard response.status == 200 else {
            media.publish.restoreICE(previous)
            throw .server(code: response.status, message: String(decoding: response.body.prefix(1000), as: UTF8.self))
        }
        let restarted: String
        do {
            let server = try ICEFragment(parsing: String(decoding: response.body, as: UTF8.self))
            guard let (ufrag, pwd) = server.credentials else { throw SDPError.missingLine("a=ice-ufrag, a=ice-pwd") }
            var description = try SessionDescription(parsing: answer).replacingICE(ufrag: ufrag, pwd: pwd)
            // New candidates of the server, if it sent any (ours keeps its own: RFC 9725 §4.3.2).
            let candidates = server.allCandidates
            if !candidates.isEmpty { for i in description.media.indices { description.media[i].candidates = candidates } }
            restarted = description.serialize()
        } catch {
            media.publish.restoreICE(previous)
            throw .mediaFailed("the ICE restart's answer is no usable fragment: \(error)")
        }
        state.withLock {
            $0.answer = restarted
            if let etag = response.headers["ETag"] { $0.etag = etag }
        }
        try media.publish.applyAnswer(restarted)
        context.logger.info("WHIP: ICE restarted at \(resourceURL ?? "")")
    }

    /// The trickle fragment of `ice`: credentials, the host candidate (when the transport has
    /// one) and `a=end-of-candidates`, in the offer's first section (RFC 8840 §9).
    func fragment(ice: ICECredentials) throws(SRTCError) -> ICEFragment {
        guard let first = state.withLock(\.firstSection) else { throw .wrongState("not publishing") }
        var candidates: [Candidate] = []
        if let host = media.publish.hostCandidateAddress {
            // Host type preference 126, local preference 65535, component 1 (RFC 8445 §5.1.2.1).
            candidates.append(Candidate(foundation: "1", priority: 2_130_706_431, address: host.ipString, port: host.port, kind: .host))
        }
        return ICEFragment(iceUfrag: ice.ufrag, icePwd: ice.pwd, sections: [
            ICEFragment.Section(mediaLine: first.mediaLine, mid: first.mid, candidates: candidates, endOfCandidates: true),
        ])
    }

    /// A `PATCH` of `fragment` to the session's resource; `If-Match` is `ifMatch`, else the `ETag`.
    private func patch(_ fragment: ICEFragment, ifMatch: String?) async throws(SRTCError) -> HTTPResponse {
        let (resource, token, etag) = state.withLock { ($0.resource, $0.token, $0.etag) }
        guard let resource else { throw .wrongState("no WHIP session resource") }
        var headers: HTTPHeaders = ["Content-Type": "application/trickle-ice-sdpfrag"]
        if let match = ifMatch ?? etag { headers.add(name: "If-Match", value: match) }
        if let token { headers.add(name: "Authorization", value: "Bearer " + token) }
        do {
            return try await http.execute(method: "PATCH", url: resource, headers: headers, body: Array(fragment.serialize().utf8))
        } catch {
            throw .connectionFailed("WHIP PATCH to \(resource) failed: \(error)")
        }
    }

    /// Ends the session (`DELETE` of its resource) and closes the transport.
    public func stop() async {
        let (resource, token) = state.withLock { ($0.resource, $0.token) }
        if let resource {
            var headers = HTTPHeaders()
            if let token { headers.add(name: "Authorization", value: "Bearer " + token) }
            _ = try? await http.execute(method: "DELETE", url: resource, headers: headers)
        }
        state.withLock {
            $0.resource = nil
            $0.answer = nil
        }
        media.close()
    }
}
