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
}

/// Maps `(method, path)` to handlers; signs-checks every path under the signed prefixes before
/// routing, so unauthenticated callers learn nothing about which routes exist.
public final class APIRouter: Sendable {
    public typealias Handler = @Sendable (RouteContext) async -> HTTPResponse

    /// Path prefixes whose every route needs the four-header signature.
    public static let signedPrefixes = ["/server/v1/", "/stm/srvapi/v1/"]

    fileprivate struct Route: Sendable {
        let method: String
        let path: String
        let handler: Handler
    }

    private let routes: [Route]
    private let authenticator: RequestAuthenticator
    private let metrics: Metrics
    private let clock: @Sendable () -> Int64
    private let maxBodyBytes: Int

    /// Collects routes before the router is built (routes never change while serving).
    public struct Builder {
        fileprivate var routes: [Route] = []
        public init() {}
        public mutating func add(_ method: String, _ path: String, _ handler: @escaping Handler) {
            routes.append(Route(method: method, path: path, handler: handler))
        }
    }

    public init(_ builder: Builder, authenticator: RequestAuthenticator, metrics: Metrics, maxBodyBytes: Int,
                clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        routes = builder.routes
        self.authenticator = authenticator
        self.metrics = metrics
        self.clock = clock
        self.maxBodyBytes = maxBodyBytes
    }

    /// Answers one request; records its metrics.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let (route, response) = await dispatch(request)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        metrics.recordRequest(route: route, status: response.status, seconds: seconds)
        return response
    }

    private func dispatch(_ request: HTTPRequest) async -> (String, HTTPResponse) {
        let now = clock()
        let path = String(request.path)
        var app: App?
        if Self.signedPrefixes.contains(where: { path.hasPrefix($0) }) {
            guard request.body.count <= maxBodyBytes else {
                return (path, Self.error(.payloadTooLarge, "body exceeds \(maxBodyBytes) bytes", now: now))
            }
            switch authenticator.authenticate(request, now: now) {
            case .success(let a): app = a
            case .failure(let failure):
                metrics.recordAuthFailure(cause: failure.code.name)
                let route = routes.first { $0.path == path }?.path ?? "unmatched"
                return (route, Self.error(failure.code, failure.message, now: now))
            }
        }
        let matching = routes.filter { $0.path == path }
        guard !matching.isEmpty else { return ("unmatched", Self.error(.notFound, "no route \(path)", now: now)) }
        guard let route = matching.first(where: { $0.method == request.method }) else {
            var response = Self.error(.methodNotAllowed, "\(request.method) not allowed on \(path)", now: now)
            response.headers.add(name: "Allow", value: matching.map(\.method).joined(separator: ", "))
            return (path, response)
        }
        return (path, await route.handler(RouteContext(request: request, app: app, now: now)))
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
