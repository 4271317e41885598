/// Answers the requests an `HTTPServer` receives and decides WebSocket upgrades.
///
/// `respondImmediately(to:)` runs on the connection's I/O thread and answers without creating a
/// Task: use it for cheap, non-blocking work (the signed API's common path). Return `nil` there to
/// have `respond(to:)` called on the Swift concurrency pool instead.
public protocol HTTPServerDelegate: Sendable {
    /// Fast path on the I/O thread: a response, or `nil` to fall through to `respond(to:)`.
    /// Must not block; everything on the same loop waits while it runs.
    func respondImmediately(to request: HTTPRequest) -> HTTPResponse?

    /// The general path: may suspend (database, other actors).
    func respond(to request: HTTPRequest) async -> HTTPResponse

    /// A valid RFC 6455 opening handshake arrived: accept it (and receive the `WebSocket`) or
    /// answer it with a normal response, for example 401 or 404.
    func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision

    /// The answer to a request the parser refused (400, 408, 411, 413, 414, 431, 501, 505), so an
    /// API can keep its error format; `nil` answers plain text. Runs on the I/O thread; the
    /// connection closes after it. The status should stay `error.status`.
    func refusal(_ error: HTTPParserError) -> HTTPResponse?
}

extension HTTPServerDelegate {
    public func respondImmediately(to request: HTTPRequest) -> HTTPResponse? { nil }

    public func refusal(_ error: HTTPParserError) -> HTTPResponse? { nil }

    public func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision {
        .reject(.text(404, "no WebSocket endpoint here\n"))
    }
}

/// A delegate built from closures.
public struct HTTPClosureDelegate: HTTPServerDelegate {
    private let immediate: (@Sendable (HTTPRequest) -> HTTPResponse?)?
    private let general: @Sendable (HTTPRequest) async -> HTTPResponse
    private let upgrader: (@Sendable (HTTPRequest) async -> WebSocketUpgradeDecision)?

    /// - Parameters:
    ///   - immediate: optional fast path on the I/O thread (`nil` result falls through).
    ///   - upgrade: optional WebSocket gate; without it every upgrade gets 404.
    ///   - respond: the general handler.
    public init(
        immediate: (@Sendable (HTTPRequest) -> HTTPResponse?)? = nil,
        upgrade: (@Sendable (HTTPRequest) async -> WebSocketUpgradeDecision)? = nil,
        respond: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
    ) {
        self.immediate = immediate
        self.general = respond
        self.upgrader = upgrade
    }

    public func respondImmediately(to request: HTTPRequest) -> HTTPResponse? { immediate?(request) }

    public func respond(to request: HTTPRequest) async -> HTTPResponse { await general(request) }

    public func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision {
        guard let upgrader else { return .reject(.text(404, "no WebSocket endpoint here\n")) }
        return await upgrader(request)
    }
}
