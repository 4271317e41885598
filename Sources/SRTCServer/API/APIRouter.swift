import Foundation
import RTCNet
import SRTCProtocol

/// What a route handler sees: the request, and for signed routes the app that signed it.
public struct RouteContext: Sendable {
    public let request: HTTPRequest
    /// The authenticated app (signed routes only).
    public let app: App?
    /// Server time, Unix seconds, read once per request.
    public let now: Int64
    /// The values of a pattern route's `{name}` segments (`/whip/v1/{channel}`), by name.
    public var pathParameters: [String: String] = [:]
}

/// Maps `(method, path)` to handlers; signs-checks every path under the signed prefixes before
/// routing, so unauthenticated callers learn nothing about which routes exist.
public final class APIRouter: Sendable {
    public typealias Handler = @Sendable (RouteContext) async -> HTTPResponse
    public typealias ImmediateHandler = @Sendable (RouteContext) -> HTTPResponse

    /// A route's handler: answered on the I/O thread (cheap, non-blocking work such as grants) or
    /// on the concurrency pool (work that awaits, such as channel operations).
    public enum RouteHandler: Sendable {
        case immediate(ImmediateHandler)
        case async(Handler)
    }

    /// Path prefixes whose every route needs the four-header signature.
    public static let signedPrefixes = ["/server/v1/", "/stm/srvapi/v1/"]

    /// For a route that acts on one live channel: which channel (from the request), so a cluster
    /// node that does not run it forwards the call to the node that does.
    public typealias ChannelOfRequest = @Sendable (RouteContext) -> ChannelKey?

    fileprivate struct Route: Sendable {
        let method: String
        let path: String
        let handler: RouteHandler
        var channel: ChannelOfRequest?
        /// Set when `path` has `{name}` segments.
        var pattern: RoutePattern?
    }

    /// Files served under a path prefix (no signature: outside the signed prefixes).
    fileprivate struct FileRoute: Sendable {
        let prefix: String
        let directory: String
        /// The path as the docs name it (`/live/{app_id}/{channel}/{file}`).
        let documentedPath: String
    }

    private let routes: [Route]
    private let fileRoutes: [FileRoute]
    private let authenticator: RequestAuthenticator
    private let metrics: Metrics
    private let clock: @Sendable () -> Int64
    private let maxBodyBytes: Int
    /// Sends calls on channels run by other nodes to them (`--redis-url`).
    private let forwarder: ClusterForwarder?

    /// Collects routes before the router is built (routes never change while serving).
    public struct Builder {
        fileprivate var routes: [Route] = []
        fileprivate var fileRoutes: [FileRoute] = []
        public init() {}

        /// Serves the files under `directory` read-only at `prefix` (`GET` / `HEAD`, e.g. `/live/` for
        /// HLS), with the static files' path checks: no dot segments, no hidden files, nothing outside.
        /// `documentedPath` is the route as docs/openapi.yaml names it (it starts with `prefix`).
        public mutating func addFiles(prefix: String, directory: String, documentedPath: String) {
            precondition(prefix.hasPrefix("/") && prefix.hasSuffix("/"), "a file prefix is /name/")
            precondition(documentedPath.hasPrefix(prefix), "the documented path is under the prefix")
            precondition(!APIRouter.signedPrefixes.contains { prefix.hasPrefix($0) }, "files are never under a signed prefix")
            fileRoutes.append(FileRoute(prefix: prefix, directory: directory, documentedPath: documentedPath))
        }
        /// Adds a route answered on the concurrency pool.
        public mutating func add(_ method: String, _ path: String, _ handler: @escaping Handler) {
            routes.append(Route(method: method, path: path, handler: .async(handler)))
        }

        /// Adds a route that acts on the live channel `channel` names: on a cluster node that does
        /// not run it, the call is forwarded to the channel's node (docs/deploy.md, "Server API
        /// on any node"); otherwise, or when `channel` is `nil`, `handler` answers here.
        public mutating func add(_ method: String, _ path: String, channel: @escaping ChannelOfRequest, _ handler: @escaping Handler) {
            routes.append(Route(method: method, path: path, handler: .async(handler), channel: channel))
        }

        /// Adds a route whose path has `{name}` segments (`/whip/v1/{channel}`), each matching one
        /// non-empty segment of the request's path, handed to the handler in `pathParameters`.
        /// A route without parameters that matches the same path is preferred.
        public mutating func add(_ method: String, pattern: String, _ handler: @escaping Handler) {
            routes.append(Route(method: method, path: pattern, handler: .async(handler), pattern: RoutePattern(pattern)))
        }

        /// Adds a route answered synchronously on the I/O thread; it must not block.
        public mutating func addImmediate(_ method: String, _ path: String, _ handler: @escaping ImmediateHandler) {
            routes.append(Route(method: method, path: path, handler: .immediate(handler)))
        }
    }

    public init(_ builder: Builder, authenticator: RequestAuthenticator, metrics: Metrics, maxBodyBytes: Int,
                clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }, forwarder: ClusterForwarder? = nil) {
        self.forwarder = forwarder
        routes = builder.routes
        fileRoutes = builder.fileRoutes
        self.authenticator = authenticator
        self.metrics = metrics
        self.clock = clock
        self.maxBodyBytes = maxBodyBytes
    }

    /// Every route as `METHOD path`, in registration order: the docs contract test checks each
    /// against docs/openapi.yaml and docs/server-api.md.
    public var routeNames: [String] { routes.map { "\($0.method) \($0.path)" } + fileRoutes.map { "GET \($0.documentedPath)" } }

    /// Answers one request; records its metrics.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let route: String
        let response: HTTPResponse
        var resolution = resolve(request, onIOThread: false)
        if case .awaitingNonce(let now) = resolution {
            resolution = authenticated(request, await authenticator.authenticate(request, now: now), now: now)
        }
        switch resolution {
        case .answered(let r, let resp): (route, response) = (r, resp)
        case .immediate(let r, let handler, let context): (route, response) = (r, handler(context))
        case .async(let r, let handler, let context, let channel):
            if let forwarder, let key = channel?(context), let forwarded = await forwarder.forward(context, channel: key) {
                (route, response) = (r, forwarded)
            } else {
                (route, response) = (r, await handler(context))
            }
        case .deferred, .awaitingNonce: return Self.error(.internalError, "unroutable", now: clock())
        }
        record(route, response, since: started)
        return response
    }

    /// Answers on the calling (I/O) thread when the request resolves without awaiting — every
    /// error and every immediate route — or returns `nil` so the caller uses `handle(_:)`.
    public func handleImmediately(_ request: HTTPRequest) -> HTTPResponse? {
        let started = DispatchTime.now().uptimeNanoseconds
        let route: String
        let response: HTTPResponse
        switch resolve(request, onIOThread: true) {
        case .answered(let r, let resp): (route, response) = (r, resp)
        case .immediate(let r, let handler, let context): (route, response) = (r, handler(context))
        case .async, .deferred, .awaitingNonce: return nil
        }
        record(route, response, since: started)
        return response
    }

    private enum Resolution {
        case answered(String, HTTPResponse)
        case immediate(String, ImmediateHandler, RouteContext)
        case async(String, Handler, RouteContext, ChannelOfRequest?)
        /// An async route seen on the I/O thread: nothing done yet (the nonce is not consumed),
        /// the pool path resolves it again.
        case deferred
        /// Signed and verified, but the nonce store needs a round trip (Redis): nothing recorded
        /// yet; the pool path awaits `authenticate` and routes on.
        case awaitingNonce(now: Int64)
    }

    private func record(_ route: String, _ response: HTTPResponse, since started: UInt64) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        metrics.recordRequest(route: route, status: response.status, seconds: seconds)
    }

    private func resolve(_ request: HTTPRequest, onIOThread: Bool) -> Resolution {
        let now = clock()
        let path = String(request.path)
        if onIOThread {
            let matching = matches(path)
            if let route = matching.first(where: { $0.route.method == request.method })?.route, case .async = route.handler {
                return .deferred
            }
            // Reading a file blocks: never on the I/O thread.
            if matching.isEmpty, fileRoutes.contains(where: { path.hasPrefix($0.prefix) }) { return .deferred }
        }
        if Self.signedPrefixes.contains(where: { path.hasPrefix($0) }) {
            guard request.body.count <= maxBodyBytes else {
                return .answered(path, Self.error(.payloadTooLarge, "body exceeds \(maxBodyBytes) bytes", now: now))
            }
            guard let result = authenticator.authenticateImmediately(request, now: now) else {
                return onIOThread ? .deferred : .awaitingNonce(now: now)
            }
            return authenticated(request, result, now: now)
        }
        return route(request, app: nil, now: now)
    }

    /// The routes whose path matches `path`, with their parameters: exact paths first, then
    /// patterns with more literal segments first.
    private func matches(_ path: String) -> [(route: Route, parameters: [String: String])] {
        var found: [(route: Route, parameters: [String: String], literals: Int)] = []
        for route in routes {
            if let pattern = route.pattern {
                if let parameters = pattern.match(path) { found.append((route, parameters, pattern.literalCount)) }
            } else if route.path == path {
                found.append((route, [:], .max))
            }
        }
        return found.enumerated().sorted { ($0.element.literals, -$0.offset) > ($1.element.literals, -$1.offset) }
            .map { ($0.element.route, $0.element.parameters) }
    }

    /// Routes a signed request once its signature and nonce are decided.
    private func authenticated(_ request: HTTPRequest, _ result: Result<App, AuthFailure>, now: Int64) -> Resolution {
        switch result {
        case .success(let app): return route(request, app: app, now: now)
        case .failure(let failure):
            metrics.recordAuthFailure(cause: failure.code.name)
            let route = matches(String(request.path)).first?.route.path ?? "unmatched"
            return .answered(route, Self.error(failure.code, failure.message, now: now))
        }
    }

    private func route(_ request: HTTPRequest, app: App?, now: Int64) -> Resolution {
        let path = String(request.path)
        let matching = matches(path)
        if matching.isEmpty, let files = fileRoutes.first(where: { path.hasPrefix($0.prefix) }) {
            return .answered(files.prefix, Self.serveFile(request, path: path, from: files, now: now))
        }
        guard let best = matching.first else { return .answered("unmatched", Self.error(.notFound, "no route \(path)", now: now)) }
        guard let (route, parameters) = matching.first(where: { $0.route.method == request.method }) else {
            var response = Self.error(.methodNotAllowed, "\(request.method) not allowed on \(path)", now: now)
            var methods: [String] = []
            for m in matching.map(\.route.method) where !methods.contains(m) { methods.append(m) }
            response.headers.add(name: "Allow", value: methods.joined(separator: ", "))
            return .answered(best.route.path, response)
        }
        // Metrics label a pattern route by its pattern, so a route's series do not grow with its parameters.
        let label = route.path
        let context = RouteContext(request: request, app: app, now: now, pathParameters: parameters)
        switch route.handler {
        case .immediate(let h): return .immediate(label, h, context)
        case .async(let h): return .async(label, h, context, route.channel)
        }
    }

    private static func serveFile(_ request: HTTPRequest, path: String, from route: FileRoute, now: Int64) -> HTTPResponse {
        guard let files = StaticFiles(directory: route.directory) else { return error(.notFound, "no file \(path)", now: now) }
        return files.response(for: request, target: request.path.dropFirst(route.prefix.count), now: now)
    }

    /// The JSON error body every failure uses.
    public static func error(_ code: APIErrorCode, _ message: String, now: Int64) -> HTTPResponse {
        .json(code.httpStatus, JSONBody.encode(APIErrorBody(code: code, message: message, serverTime: now)))
    }
}

/// JSON helpers shared by handlers.
public enum JSONBody {
    private static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    /// Encodes `value`; encoding our own types cannot fail, so failure yields `{}`.
    public static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        (try? encoder.encode(value)).map { Array($0) } ?? Array("{}".utf8)
    }

    /// Decodes a request body, or answers the `malformed_body` error with the decoder's reason.
    public static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8], now: Int64) -> Result<T, HTTPResponseError> {
        guard !body.isEmpty else { return .failure(HTTPResponseError(APIRouter.error(.malformedBody, "body must be a JSON object", now: now))) }
        do {
            return .success(try JSONDecoder().decode(T.self, from: Data(body)))
        } catch DecodingError.keyNotFound(let key, _) {
            return .failure(HTTPResponseError(APIRouter.error(.malformedBody, "missing field \(key.stringValue)", now: now)))
        } catch DecodingError.typeMismatch(_, let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return .failure(HTTPResponseError(APIRouter.error(.malformedBody, "field \(field) has the wrong type", now: now)))
        } catch {
            return .failure(HTTPResponseError(APIRouter.error(.malformedBody, "body is not valid JSON", now: now)))
        }
    }
}

/// An error response carried through `Result`.
public struct HTTPResponseError: Error, Sendable {
    public let response: HTTPResponse
    public init(_ response: HTTPResponse) { self.response = response }
}
