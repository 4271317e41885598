import Foundation

/// A route path with `{name}` segments (`/whip/v1/{channel}`): each matches exactly one
/// non-empty segment of a request's path, whose percent-decoded value is the parameter.
struct RoutePattern: Sendable {
    private enum Segment: Sendable {
        case literal(String)
        case parameter(String)
    }

    private let segments: [Segment]

    /// Segments that must match literally (a more literal pattern wins over a looser one).
    var literalCount: Int { segments.count { if case .literal = $0 { true } else { false } } }

    init(_ pattern: String) {
        segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
    }

    /// The parameters when `path` matches; `nil` otherwise (also when a parameter's segment is
    /// empty or does not percent-decode).
    func match(_ path: String) -> [String: String]? {
        guard path.hasPrefix("/") else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard parts.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text):
                guard part == text else { return nil }
            case .parameter(let name):
                guard !part.isEmpty, let value = String(part).removingPercentEncoding, !value.isEmpty else { return nil }
                parameters[name] = value
            }
        }
        return parameters
    }
}
