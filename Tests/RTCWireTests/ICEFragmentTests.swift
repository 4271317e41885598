import Testing
@testable import RTCWire
import TestRandom

/// `application/trickle-ice-sdpfrag` bodies (RFC 8840 §9) as WHIP/WHEP `PATCH` carries them
/// (RFC 9725 §4.3): the RFC's examples, each named error, and seeded random input.
@Suite struct ICEFragmentTests {
    /// RFC 9725 §4.3.1's trickle example (two of its candidates).
    static let trickle = """
        a=ice-ufrag:EsAw\r
        a=ice-pwd:P2uYro0UCOQ4zxjKXaWCBui1\r
        m=audio 9 RTP/AVP 0\r
        a=mid:0\r
        a=candidate:1387637174 1 udp 2122260223 192.0.2.1 61764 typ host generation 0 ufrag EsAw network-id 1\r
        a=candidate:473322822 1 tcp 1518280447 192.0.2.1 9 typ host tcptype active generation 0 ufrag EsAw network-id 1\r
        a=end-of-candidates\r

        """

    @Test func readsTheRFC9725TrickleExample() throws {
        let fragment = try ICEFragment(parsing: Self.trickle)
        #expect(fragment.iceUfrag == "EsAw" && fragment.icePwd == "P2uYro0UCOQ4zxjKXaWCBui1")
        #expect(fragment.credentials?.ufrag == "EsAw")
        #expect(fragment.sections.count == 1)
        #expect(fragment.sections[0].mediaLine == "audio 9 RTP/AVP 0" && fragment.sections[0].mid == "0")
        #expect(fragment.sections[0].candidates.map(\.address) == ["192.0.2.1", "192.0.2.1"])
        #expect(fragment.sections[0].candidates.map(\.transport) == ["udp", "tcp"])
        #expect(fragment.sections[0].endOfCandidates)
        #expect(try ICEFragment(parsing: fragment.serialize()) == fragment)
    }

    @Test func readsTheRFC9725RestartAnswerAndWritesIt() throws {
        let text = "a=ice-lite\r\na=ice-ufrag:289b31b754eaa438\r\na=ice-pwd:0b66f472495ef0ccac7bc767ae2b5e24\r\n"
        let fragment = try ICEFragment(parsing: text)
        #expect(fragment.iceLite && fragment.sections.isEmpty)
        #expect(ICEFragment(iceLite: true, iceUfrag: "289b31b754eaa438", icePwd: "0b66f472495ef0ccac7bc767ae2b5e24").serialize() == text)
    }

    @Test func credentialsInsideASectionCountAndOtherLinesAreIgnored() throws {
        let fragment = try ICEFragment(parsing: "m=video 9 UDP/TLS/RTP/SAVPF 96\na=mid:1\na=ice-ufrag:abcd\na=ice-pwd:0123456789012345678901\nc=IN IP4 0.0.0.0\na=rtcp-mux\n")
        #expect(fragment.credentials?.ufrag == "abcd" && fragment.credentials?.pwd == "0123456789012345678901")
        #expect(try ICEFragment(parsing: "a=end-of-candidates\r\n").credentials == nil)
    }

    static let namedErrors: [(String, String, SDPError)] = [
        ("no equals", "hello\r\n", .malformedLine(line: 1)),
        ("upper-case type", "A=ice-lite\r\n", .malformedLine(line: 1)),
        ("control character", "a=ice-ufrag:ab\u{1}cd\r\n", .malformedLine(line: 1)),
        ("short ufrag", "a=ice-ufrag:abc\r\n", .invalidAttribute(line: 1, name: "ice-ufrag")),
        ("short pwd", "a=ice-pwd:tooshort\r\n", .invalidAttribute(line: 1, name: "ice-pwd")),
        ("ufrag charset", "a=ice-ufrag:ab cd\r\n", .invalidAttribute(line: 1, name: "ice-ufrag")),
        ("ufrag twice", "a=ice-ufrag:abcd\r\na=ice-ufrag:efgh\r\n", .invalidAttribute(line: 2, name: "ice-ufrag")),
        ("bad candidate", "m=audio 9 RTP/AVP 0\r\na=candidate:1 1 udp x 1.2.3.4 5 typ host\r\n", .invalidAttribute(line: 2, name: "candidate")),
        ("mid outside a section", "a=mid:0\r\n", .invalidAttribute(line: 1, name: "mid")),
        ("two mids", "m=audio 9 RTP/AVP 0\r\na=mid:0\r\na=mid:1\r\n", .invalidAttribute(line: 3, name: "mid")),
        ("empty m", "m=\r\n", .invalidValue(line: 1, type: "m")),
        ("empty options", "a=ice-options:\r\n", .invalidAttribute(line: 1, name: "ice-options")),
    ]

    @Test(arguments: namedErrors)
    func refusesWithTheNamedError(name: String, text: String, error: SDPError) {
        #expect(throws: error, "\(name)") { try ICEFragment(parsing: text) }
    }

    @Test func tenThousandSeededRandomFragmentsNeverCrashAndRoundTrip() {
        var random = SeededRandom(seed: 0x4943_4546)
        let pieces = ["a=", "m=", "ice-ufrag:", "ice-pwd:", "abcd", "0123456789012345678901", "candidate:", "1 1 udp 5 10.0.0.1 9 typ host",
                      " raddr 1.2.3.4 rport 9", "end-of-candidates", "mid:", "0", "\r\n", "\n", ":", " ", "ice-lite", "ice-options:trickle",
                      "audio 9 RTP/AVP 0", "\u{0}", "é", "=", "x"]
        var parsed = 0
        for _ in 0 ..< 10_000 {
            let text = (0 ..< Int.random(in: 0 ... 20, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            guard let fragment = try? ICEFragment(parsing: text) else { continue }
            parsed += 1
            #expect((try? ICEFragment(parsing: fragment.serialize())) == fragment, "\(text.debugDescription)")
        }
        print("ICE fragments: \(parsed) of 10000 random texts parsed")
        #expect(parsed > 0)
    }
}
