import Testing
@testable import RTCWire
import TestRandom
import TestWait

/// Hostile SDP: each named error, then seeded random edits of the Chrome offer and random text.
@Suite struct SDPRobustnessTests {
    static let header = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
    static let media = "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"

    static let namedErrorCases: [(String, String, SDPError)] = [
        ("no v", "o=- 1 2 IN IP4 127.0.0.1\r\n", .missingLine("v")),
        ("empty", "", .missingLine("v")),
        ("v=1", "v=1\r\n", .unsupportedVersion),
        ("no equals", header + "hello\r\n", .malformedLine(line: 5)),
        ("upper type", header + "A=b\r\n", .malformedLine(line: 5)),
        ("control char", header + "a=x\u{1}y\r\n", .malformedLine(line: 5)),
        ("unknown type", header + "x=1\r\n", .malformedLine(line: 5)),
        ("o in media", header + media + "o=- 1 2 IN IP4 1.2.3.4\r\n", .malformedLine(line: 6)),
        ("missing o", "v=0\r\ns=-\r\nt=0 0\r\n", .missingLine("o")),
        ("missing t", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\n", .missingLine("t")),
        ("bad o", "v=0\r\no=- x 2 IN IP4 127.0.0.1\r\n", .invalidValue(line: 2, type: "o")),
        ("second o", header + "o=- 1 2 IN IP4 127.0.0.1\r\n", .invalidValue(line: 5, type: "o")),
        ("bad t", "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0\r\n", .invalidValue(line: 4, type: "t")),
        ("bad c", header + "c=IN IP4\r\n", .invalidValue(line: 5, type: "c")),
        ("m port", header + "m=audio 70000 UDP/TLS/RTP/SAVPF 111\r\n", .invalidValue(line: 5, type: "m")),
        ("m pt", header + "m=audio 9 UDP/TLS/RTP/SAVPF 128\r\n", .invalidValue(line: 5, type: "m")),
        ("m dup pt", header + "m=audio 9 UDP/TLS/RTP/SAVPF 111 111\r\n", .invalidValue(line: 5, type: "m")),
        ("m no fmt", header + "m=audio 9 UDP/TLS/RTP/SAVPF\r\n", .invalidValue(line: 5, type: "m")),
        ("rtpmap", header + media + "a=rtpmap:111 opus\r\n", .invalidAttribute(line: 6, name: "rtpmap")),
        ("dup rtpmap", header + media + "a=rtpmap:111 opus/48000\r\na=rtpmap:111 opus/48000\r\n",
         .invalidAttribute(line: 7, name: "rtpmap")),
        ("fmtp empty", header + media + "a=fmtp:111\r\n", .invalidAttribute(line: 6, name: "fmtp")),
        ("rtcp-fb", header + media + "a=rtcp-fb:111\r\n", .invalidAttribute(line: 6, name: "rtcp-fb")),
        ("fingerprint", header + media + "a=fingerprint:sha-256 AB:CD\r\n", .invalidAttribute(line: 6, name: "fingerprint")),
        ("fingerprint hex", header + media + "a=fingerprint:sha-1 " + Array(repeating: "ZZ", count: 20).joined(separator: ":") + "\r\n",
         .invalidAttribute(line: 6, name: "fingerprint")),
        ("setup", header + media + "a=setup:both\r\n", .invalidAttribute(line: 6, name: "setup")),
        ("two mids", header + media + "a=mid:0\r\na=mid:1\r\n", .invalidAttribute(line: 7, name: "mid")),
        ("two directions", header + media + "a=sendonly\r\na=recvonly\r\n", .invalidAttribute(line: 7, name: "recvonly")),
        ("flag with value", header + media + "a=rtcp-mux:yes\r\n", .invalidAttribute(line: 6, name: "rtcp-mux")),
        ("extmap id", header + media + "a=extmap:0 urn:x\r\n", .invalidAttribute(line: 6, name: "extmap")),
        ("extmap direction", header + media + "a=extmap:1/both urn:x\r\n", .invalidAttribute(line: 6, name: "extmap")),
        ("ssrc", header + media + "a=ssrc:4294967296 cname:x\r\n", .invalidAttribute(line: 6, name: "ssrc")),
        ("ssrc-group", header + media + "a=ssrc-group:FID 1 x\r\n", .invalidAttribute(line: 6, name: "ssrc-group")),
        ("rid", header + media + "a=rid:q sideways\r\n", .invalidAttribute(line: 6, name: "rid")),
        ("rid pt", header + media + "a=rid:q send pt=abc\r\n", .invalidAttribute(line: 6, name: "rid")),
        ("simulcast", header + media + "a=simulcast:send\r\n", .invalidAttribute(line: 6, name: "simulcast")),
        ("simulcast rid", header + media + "a=simulcast:send a;;b\r\n", .invalidAttribute(line: 6, name: "simulcast")),
        ("candidate typ", header + media + "a=candidate:1 1 udp 1 1.2.3.4 5 type host\r\n", .invalidAttribute(line: 6, name: "candidate")),
        ("candidate component", header + media + "a=candidate:1 0 udp 1 1.2.3.4 5 typ host\r\n",
         .invalidAttribute(line: 6, name: "candidate")),
        ("candidate odd extension", header + media + "a=candidate:1 1 udp 1 1.2.3.4 5 typ host generation\r\n",
         .invalidAttribute(line: 6, name: "candidate")),
        ("sctp-port", header + media + "a=sctp-port:-1\r\n", .invalidAttribute(line: 6, name: "sctp-port")),
        ("group", header + "a=group\r\n", .invalidAttribute(line: 5, name: "group")),
        ("ice-lite value", header + "a=ice-lite:1\r\n", .invalidAttribute(line: 5, name: "ice-lite")),
        ("ice-ufrag twice", header + "a=ice-ufrag:a\r\na=ice-ufrag:b\r\n", .invalidAttribute(line: 6, name: "ice-ufrag")),
        ("attribute name", header + "a=:x\r\n", .malformedLine(line: 5)),
    ]

    @Test(arguments: namedErrorCases)
    func throwsNamedError(name: String, text: String, error: SDPError) {
        #expect(throws: error, "\(name)") { try SessionDescription(parsing: text) }
    }

    /// Parses; when parsing succeeds, serializing and reparsing gives the same description.
    static func checkRoundTrip(_ text: String) {
        #expect(!roundTripChanges(text), "round trip changed:\n\(text)")
    }

    /// Whether `text` parses but its serialization parses to something else.
    static func roundTripChanges(_ text: String) -> Bool {
        guard let parsed = try? SessionDescription(parsing: text) else { return false }
        return (try? SessionDescription(parsing: parsed.serialize())) != parsed
    }

    /// 1,000 rather than 10,000: each case parses a 130-line offer three times, which costs about
    /// 3 ms in the debug build `swift test` uses; 3,000 cases held a core for 8 s at the start of
    /// the run, long enough for other suites' 10 s network timeouts to fire (`fuzz/sdp` goes
    /// further). They run on a thread of their own (`onThread`), off the cooperative pool.
    @Test func aThousandSeededEditsOfTheChromeOfferNeverCrash() async {
        let changed = await onThread { () -> [String] in
            var changed: [String] = []
            var random = SeededRandom(seed: 0x5344_5021)
            let lines = ChromeOfferFixture.lines
            let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz =:/;,.~*-_\t".utf8)
            for _ in 0 ..< 1_000 {
                var edited = lines
                for _ in 0 ..< Int.random(in: 1 ... 4, using: &random) {
                    let index = Int.random(in: 0 ..< edited.count, using: &random)
                    var bytes = Array(edited[index].utf8)
                    switch Int.random(in: 0 ..< 5, using: &random) {
                    case 0: bytes = Array(bytes.prefix(Int.random(in: 0 ... bytes.count, using: &random)))  // truncate
                    case 1 where !bytes.isEmpty:  // replace one byte
                        bytes[Int.random(in: 0 ..< bytes.count, using: &random)] = alphabet.randomElement(using: &random)!
                    case 2:  // insert one byte
                        bytes.insert(alphabet.randomElement(using: &random)!, at: Int.random(in: 0 ... bytes.count, using: &random))
                    case 3: edited.remove(at: index); continue  // drop the line
                    default: edited.insert(edited[Int.random(in: 0 ..< edited.count, using: &random)], at: index)  // duplicate
                    }
                    edited[index] = String(decoding: bytes, as: UTF8.self)
                }
                let text = edited.joined(separator: "\r\n")
                if Self.roundTripChanges(text) { changed.append(text) }
            }
            return changed
        }
        #expect(changed.isEmpty, "round trip changed:\n\(changed.first ?? "")")
    }

    @Test func tenThousandSeededRandomTextsNeverCrash() {
        var random = SeededRandom(seed: 0x5344_5022)
        let pieces = ["v=0", "o=- 1 1 IN IP4 x", "s=-", "t=0 0", "m=audio 9 RTP/AVP 0", "m=application 9 DTLS/SCTP x",
                      "a=", "a=rtpmap:0 ", "a=candidate:", "a=simulcast:", "a=rid:", "a=ssrc:", "c=IN IP4 ", "b=", "\r", "\n",
                      " ", ":", "/", ";", "~", "9", "sendonly", "recv", "typ", "host"]
        for _ in 0 ..< 10_000 {
            let count = Int.random(in: 0 ... 24, using: &random)
            let text = (0 ..< count).map { _ in pieces.randomElement(using: &random)! }.joined()
            Self.checkRoundTrip(text)
        }
    }

    @Test func everyTruncationOfTheChromeOfferIsHandled() async {
        let changed = await onThread {
            let text = ChromeOfferFixture.text
            return stride(from: 0, through: text.utf8.count, by: 7).map { String(decoding: text.utf8.prefix($0), as: UTF8.self) }
                .filter(Self.roundTripChanges)
        }
        #expect(changed.isEmpty, "round trip changed:\n\(changed.first ?? "")")
    }
}
