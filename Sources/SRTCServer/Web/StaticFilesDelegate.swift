import Foundation
import RTCNet

/// Puts the static files (web SDK, demo page) in front of another HTTP delegate: requests in the
/// static URL space (`/` and `/sdk/…`, see `StaticFiles`) are answered from the
/// directory; everything else, and every WebSocket upgrade, goes to `next` unchanged.
struct StaticFilesDelegate<Next: HTTPServerDelegate>: HTTPServerDelegate {
    /// `nil` when no web directory is configured or found: every request goes to `next`.
    let files: StaticFiles?
    let next: Next

    func respondImmediately(to request: HTTPRequest) -> HTTPResponse? {
        // Reading a file is blocking I/O: static requests take the pool path, never the I/O thread.
        if files != nil, StaticFiles.isStatic(request.path) { return nil }
        return next.respondImmediately(to: request)
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if let files, let response = files.response(for: request, now: Int64(Date().timeIntervalSince1970)) {
            return response
        }
        return await next.respond(to: request)
    }

    func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision {
        await next.upgrade(request)
    }

    func refusal(_ error: HTTPParserError) -> HTTPResponse? {
        next.refusal(error)
    }
}
