import Testing
@testable import SRTCServer

/// Route paths with `{name}` segments: what matches, what the parameters are, and what does not.
struct RoutePatternTests {
    static let cases: [(String, String, [String: String]?)] = [
        ("/whip/v1/{channel}", "/whip/v1/show", ["channel": "show"]),
        ("/whip/v1/{channel}", "/whip/v1/a%20b", ["channel": "a b"]),
        ("/whip/v1/{channel}", "/whip/v1/", nil),  // an empty segment is no parameter
        ("/whip/v1/{channel}", "/whip/v1/show/extra", nil),
        ("/whip/v1/{channel}", "/whip/v2/show", nil),
        ("/whip/v1/{channel}", "whip/v1/show", nil),
        ("/whip/v1/{channel}", "/whip/v1/%zz", nil),  // does not percent-decode
        ("/whep/v1/{channel}/{uid}/{session}", "/whep/v1/c/u/WHEP_1", ["channel": "c", "uid": "u", "session": "WHEP_1"]),
        ("/healthz", "/healthz", [:]),
    ]

    @Test(arguments: cases)
    func matches(pattern: String, path: String, expected: [String: String]?) {
        #expect(RoutePattern(pattern).match(path) == expected)
    }

    @Test func literalSegmentsAreCounted() {
        #expect(RoutePattern("/whep/v1/{channel}/composite/{id}").literalCount == 3)
        #expect(RoutePattern("/whep/v1/{channel}/{uid}/{session}").literalCount == 2)
    }
}
