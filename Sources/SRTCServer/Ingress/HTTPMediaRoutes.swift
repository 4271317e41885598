import Foundation
import RTCNet
import RTCWire
import SRTCProtocol

/// The HTTP side of WHIP (RFC 9725) and WHEP (draft-ietf-wish-whep): content types, sizes,
/// bearer tokens, CORS, `Location`, `ETag` and `Link` headers (docs/ingress.md). What a session
/// does in its channel is `HTTPMediaSessions`'.
enum HTTPMediaRoutes {
    static let sdpType = "application/sdp"
    static let fragmentType = "application/trickle-ice-sdpfrag"

    /// WHIP's and WHEP's routes: each an endpoint (`POST`, `OPTIONS`) and its sessions'
    /// resources (`PATCH`, `DELETE`, `OPTIONS`).
    static func register(in builder: inout APIRouter.Builder, sessions: HTTPMediaSessions) {
        for (kind, endpoint) in [(HTTPMediaSession.Kind.whip, "/whip/v1/{channel}"), (.whep, "/whep/v1/{channel}/{uid}"),
                                 (.whep, "/whep/v1/{channel}/composite/{id}")] {
            let resource = endpoint + "/{session}"
            builder.add("POST", pattern: endpoint) { context in await createSession(context, sessions: sessions, kind: kind) }
            builder.add("OPTIONS", pattern: endpoint) { _ in preflight(methods: "POST, OPTIONS", accept: ("Accept-Post", sdpType)) }
            builder.add("PATCH", pattern: resource) { context in await patch(context, sessions: sessions) }
            builder.add("DELETE", pattern: resource) { context in await delete(context, sessions: sessions) }
            builder.add("OPTIONS", pattern: resource) { _ in preflight(methods: "PATCH, DELETE, OPTIONS", accept: ("Accept-Patch", fragmentType)) }
        }
    }

    // MARK: - Handlers

    /// `POST`: an offer → `201 Created` with the answer (RFC 9725 §4.2).
    private static func createSession(_ context: RouteContext, sessions: HTTPMediaSessions, kind: HTTPMediaSession.Kind) async -> HTTPResponse {
        let request = context.request
        let now = context.now
        guard let channel = context.pathParameters["channel"], Identifier.isValid(channel) else {
            return error(SignalError(.invalidParameter, "the channel in the path is not a valid channel name"), now: now)
        }
        if let refusal = checkBody(request, type: sdpType, limit: sessions.limits.maxSignalMessageBytes, now: now) { return refusal }
        let claims: TokenClaims
        switch sessions.authorize(bearer: bearerToken(request), channel: channel, now: now) {
        case .success(let c): claims = c
        case .failure(let e): return error(e, now: now)
        }
        let key = ChannelKey(appId: claims.iss, name: channel)
        switch await sessions.ownerURL(of: key) {
        case .success(let url?):
            // RFC 9725 §4.5: a redirect sends the client to the node that runs the channel.
            var response = HTTPResponse(status: 307)
            response.headers.add(name: "Location", value: url + request.target)
            return cors(response)
        case .success(nil): break
        case .failure(let e): return error(e, now: now)
        }
        guard let offer = String(validating: request.body, as: UTF8.self) else {
            return error(SignalError(.malformedBody, "the offer is not UTF-8"), now: now)
        }
        let result: Result<(HTTPMediaSession, String), SignalError>
        switch kind {
        case .whip:
            result = await sessions.publish(key, claims: claims, offer: offer, from: request.remoteAddress)
        case .whep:
            // `/whep/v1/{channel}/composite/{id}` plays a composite (the server's hidden
            // participant under that uid), `/whep/v1/{channel}/{uid}` a user.
            let composite = context.pathParameters["id"]
            guard let uid = composite ?? context.pathParameters["uid"], Identifier.isValid(uid) else {
                return error(SignalError(.invalidParameter, "the uid in the path is not a valid uid"), now: now)
            }
            result = await sessions.play(key, target: uid, composite: composite != nil, claims: claims, offer: offer,
                                         from: request.remoteAddress, endpointPath: String(request.path))
        }
        switch result {
        case .success(let (session, answer)):
            var response = HTTPResponse(status: 201, headers: ["Content-Type": sdpType], body: Array(answer.utf8))
            response.headers.add(name: "Location", value: session.location)
            response.headers.add(name: "ETag", value: session.state.withLock(\.etag))
            response.headers.add(name: "Accept-Patch", value: fragmentType)
            for link in iceServerLinks(sessions.turn?.iceServers(uid: claims.sub, now: now) ?? []) { response.headers.add(name: "Link", value: link) }
            return cors(response)
        case .failure(let e):
            return error(e, now: now)
        }
    }

    /// `PATCH`: trickle ICE (`204`) or an ICE restart (`200` with the server's fragment and a new `ETag`), RFC 9725 §4.3.
    private static func patch(_ context: RouteContext, sessions: HTTPMediaSessions) async -> HTTPResponse {
        let now = context.now
        let request = context.request
        let session: HTTPMediaSession
        switch find(context, sessions: sessions) {
        case .success(let s): session = s
        case .failure(let e): return error(e, now: now)
        }
        if let refusal = checkBody(request, type: fragmentType, limit: sessions.limits.maxSignalMessageBytes, now: now) { return refusal }
        let etag = session.state.withLock(\.etag)
        if let match = request.headers["If-Match"], match != "*", match != etag {
            return error(SignalError(.preconditionFailed, "If-Match \(match) is not the session's entity tag"), now: now)
        }
        let fragment: ICEFragment
        do {
            fragment = try ICEFragment(parsing: String(decoding: request.body, as: UTF8.self))
        } catch {
            return Self.error(SignalError(.malformedBody, "the body is not a trickle-ice-sdpfrag (RFC 8840): \(error)"), now: now)
        }
        switch await sessions.patch(session, fragment: fragment) {
        case .success(nil):
            return cors(HTTPResponse(status: 204))
        case .success(let answer?):
            let newTag = HTTPMediaSession.newETag()
            session.state.withLock { $0.etag = newTag }
            var response = HTTPResponse(status: 200, headers: ["Content-Type": fragmentType], body: Array(answer.serialize().utf8))
            response.headers.add(name: "ETag", value: newTag)
            return cors(response)
        case .failure(let e):
            return error(e, now: now)
        }
    }

    /// `DELETE`: ends the session; its user leaves the channel (RFC 9725 §4.2).
    private static func delete(_ context: RouteContext, sessions: HTTPMediaSessions) async -> HTTPResponse {
        switch find(context, sessions: sessions) {
        case .success(let session):
            await sessions.end(session)
            return cors(HTTPResponse(status: 200))
        case .failure(let e):
            return error(e, now: context.now)
        }
    }

    // MARK: - Checks

    /// The session the path names. The resource's URL (128 random bits) is its capability; a
    /// bearer token, when the client sends one, must be valid and name the session's uid.
    private static func find(_ context: RouteContext, sessions: HTTPMediaSessions) -> Result<HTTPMediaSession, SignalError> {
        guard let channel = context.pathParameters["channel"], let id = context.pathParameters["session"],
              let session = sessions.session(id: id, channel: channel), session.location == String(context.request.path) else {
            return .failure(SignalError(.notFound, "no such WHIP or WHEP session"))
        }
        if let token = bearerToken(context.request) {
            switch sessions.authorize(bearer: token, channel: channel, now: context.now) {
            case .success(let claims) where claims.sub == session.uid && claims.iss == session.key.appId: break
            case .success: return .failure(SignalError(.permissionDenied, "the token is not the session's"))
            case .failure(let e): return .failure(e)
            }
        }
        return .success(session)
    }

    /// The refusal of a body of the wrong type (`415`), too large (`413`) or empty (`400`); `nil` when fine.
    private static func checkBody(_ request: HTTPRequest, type: String, limit: Int, now: Int64) -> HTTPResponse? {
        let mediaType = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == type else {
            return error(SignalError(.unsupportedMediaType, "Content-Type must be \(type), not \(mediaType ?? "absent")"), now: now)
        }
        guard request.body.count <= limit else { return error(SignalError(.payloadTooLarge, "body exceeds \(limit) bytes"), now: now) }
        guard !request.body.isEmpty else { return error(SignalError(.malformedBody, "the body is empty"), now: now) }
        return nil
    }

    /// The token of `Authorization: Bearer <token>` (RFC 6750 §2.1; the scheme is case-insensitive).
    static func bearerToken(_ request: HTTPRequest) -> String? {
        guard let value = request.headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    // MARK: - Responses

    /// `Link` header values for the ICE servers (RFC 9725 §4.6); credentials only on TURN URLs.
    static func iceServerLinks(_ servers: [ICEServer]) -> [String] {
        servers.flatMap { server in
            server.urls.map { url in
                var link = "<\(url)>; rel=\"ice-server\""
                if url.hasPrefix("turn"), let username = server.username, let credential = server.credential {
                    link += "; username=\"\(username)\"; credential=\"\(credential)\"; credential-type=\"password\""
                }
                return link
            }
        }
    }

    /// The API's JSON error body with the error's status, and CORS headers. A `401` says how to authenticate (RFC 6750 §3).
    private static func error(_ e: SignalError, now: Int64) -> HTTPResponse {
        var response = APIRouter.error(e.errorCode ?? .internalError, e.message, now: now)
        if response.status == 401 { response.headers.add(name: "WWW-Authenticate", value: "Bearer") }
        return cors(response)
    }

    /// A browser page on another origin may call WHIP and WHEP (RFC 9725 §4.4): any origin, and
    /// the headers a client reads exposed.
    private static func cors(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.add(name: "Access-Control-Allow-Origin", value: "*")
        response.headers.add(name: "Access-Control-Expose-Headers", value: "Location, ETag, Link, Accept-Patch, Accept-Post")
        return response
    }

    /// The answer to a CORS preflight (`OPTIONS`, no authentication: RFC 9725 §4.4).
    private static func preflight(methods: String, accept: (String, String)) -> HTTPResponse {
        var response = HTTPResponse(status: 204)
        response.headers.add(name: "Access-Control-Allow-Methods", value: methods)
        response.headers.add(name: "Access-Control-Allow-Headers", value: "Authorization, Content-Type, If-Match")
        response.headers.add(name: "Access-Control-Max-Age", value: "86400")
        response.headers.add(name: accept.0, value: accept.1)
        return cors(response)
    }
}
