import EgressProtocol
import TestRandom
import Testing

@Suite struct IngressURLTests {
    @Test(arguments: [
        ("rtmp://cdn.example.com/live/abc", "rtmp", "cdn.example.com", nil, "/live/abc"),
        ("HTTPS://user:pw@[::1]:8443/a.m3u8?x=1", "https", "[::1]", 8443, "/a.m3u8?x=1"),
        ("srt://10.0.0.1:9000?streamid=x", "srt", "10.0.0.1", 9000, "?streamid=x"),
        ("http://h", "http", "h", nil, ""),
    ] as [(String, String, String, Int?, String)])
    func pullURLsSplitIntoTheirParts(_ text: String, _ scheme: String, _ host: String, _ port: Int?, _ rest: String) throws {
        let url = try IngressURL(pull: text)
        #expect(url.scheme == scheme && url.host == host && url.port == port && url.rest == rest)
    }

    @Test(arguments: [
        ("", IngressURL.ParseError.badLength),
        ("file:///etc/passwd", .unsupportedScheme("file")),
        ("concat:a.mp4|b.mp4", .unsupportedScheme("")),
        ("subfile,,start,0,end,1,,:/etc/shadow", .unsupportedScheme("")),
        ("http://a b/", .forbiddenCharacter),
        ("http://h\n/", .forbiddenCharacter),
        ("http://h/é", .forbiddenCharacter),
        ("http:///path", .badAuthority),
        ("http://h:0/", .badAuthority),
        ("http://h:65536/", .badAuthority),
        ("http://h:/", .badAuthority),
        ("http://[::1/", .badAuthority),
        ("http://user@/", .badAuthority),
        ("http://" + String(repeating: "a", count: 2_100), .badLength),
    ])
    func badPullURLsAreRefusedWithTheirReason(_ text: String, _ error: IngressURL.ParseError) {
        #expect(throws: error) { try IngressURL(pull: text) }
    }

    @Test func streamKeysAreTwentyFourCharactersOfTheAlphabet() {
        #expect(IngressURL.isValidStreamKey("abcdefghijkmnopqrstuvwxy"))
        #expect(!IngressURL.isValidStreamKey("abcdefghijkmnopqrstuvwx"))
        #expect(!IngressURL.isValidStreamKey("abcdefghijkmnopqrstuvwx0"))
        #expect(!IngressURL.isValidStreamKey("abcdefghijkmnopqrstuvwx/"))
    }

    @Test func randomBytesNeverCrashTheParser() {
        var random = SeededRandom(seed: 9725)
        let pieces = ["rtmp://", "http://", "[", "]", ":", "@", "/", "?", "#", "1935", "h", "%", "\u{7F}", " "]
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            if let url = try? IngressURL(pull: text) {
                #expect(IngressURL.pullSchemes.contains(url.scheme) && !url.host.isEmpty, "\(text)")
            }
            _ = try? IngressURL(pull: String(decoding: random.bytes(Int.random(in: 0...64, using: &random)), as: UTF8.self))
        }
    }
}
