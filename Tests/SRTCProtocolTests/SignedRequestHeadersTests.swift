import SRTCProtocol
import Testing

@Suite struct SignedRequestHeadersTests {
    static func headers(_ values: [String: String]) -> (String) -> String? { { values[$0] } }
    static let complete = ["app_id": "app", "nonce": "n1", "timestamp": "1800000000", "signature": "ab"]

    @Test func parsesTheFourHeadersKeepingTheTimestampText() throws {
        var values = Self.complete
        values["timestamp"] = "+1800000000"
        let parsed = try SignedRequestHeaders.parse(Self.headers(values)).get()
        #expect(parsed.timestamp == 1_800_000_000)
        #expect(parsed.timestampText == "+1800000000")
    }

    @Test(arguments: ["app_id", "nonce", "timestamp", "signature"])
    func aMissingOrEmptyHeaderIsNamed(_ name: String) {
        var values = Self.complete
        values[name] = nil
        #expect(SignedRequestHeaders.parse(Self.headers(values)) == .failure(.missingHeader(name)))
        values[name] = ""
        #expect(SignedRequestHeaders.parse(Self.headers(values)) == .failure(.missingHeader(name)))
    }

    @Test func longNoncesAndNonNumericTimestampsAreRefused() {
        var values = Self.complete
        values["nonce"] = String(repeating: "n", count: 129)
        #expect(SignedRequestHeaders.parse(Self.headers(values)) == .failure(.nonceTooLong))
        values = Self.complete
        for bad in ["12.5", "1e9", "-9223372036854775809", "9223372036854775808", "0x10", " 1"] {
            values["timestamp"] = bad
            #expect(SignedRequestHeaders.parse(Self.headers(values)) == .failure(.timestampNotANumber), "\(bad)")
        }
    }

    @Test(arguments: [
        (Int64.min, Int64(1_800_000_000), false), (Int64.max, 1_800_000_000, false),
        (1_800_000_300, 1_800_000_000, true), (1_799_999_700, 1_800_000_000, true),
        (1_800_000_301, 1_800_000_000, false), (Int64.min, Int64.max, false), (Int64.max, Int64.min, false),
    ])
    func freshnessIsDecidedForEveryPairWithoutOverflow(_ timestamp: Int64, _ now: Int64, _ fresh: Bool) throws {
        var values = Self.complete
        values["timestamp"] = String(timestamp)
        let parsed = try SignedRequestHeaders.parse(Self.headers(values)).get()
        #expect(parsed.isFresh(now: now, windowSeconds: 300) == fresh)
        #expect(parsed.nonceExpiry(windowSeconds: 300) >= timestamp || timestamp > Int64.max - 300)
    }

    @Test func verifiesOnlyTheRightSignatureInEitherHexCase() throws {
        let good = RequestSignature.headers(appId: "app", appKey: "key", method: "POST", pathAndQuery: "/p", body: [1, 2],
                                            timestamp: 1_800_000_000, nonce: "n")
        var values = Dictionary(uniqueKeysWithValues: good)
        let parsed = try SignedRequestHeaders.parse(Self.headers(values)).get()
        #expect(parsed.verifies(appKey: "key", method: "POST", pathAndQuery: "/p", body: [1, 2]))
        #expect(!parsed.verifies(appKey: "key2", method: "POST", pathAndQuery: "/p", body: [1, 2]))
        #expect(!parsed.verifies(appKey: "key", method: "POST", pathAndQuery: "/p", body: [1, 3]))
        values["signature"] = values["signature"]!.uppercased()
        #expect(try SignedRequestHeaders.parse(Self.headers(values)).get().verifies(appKey: "key", method: "POST", pathAndQuery: "/p", body: [1, 2]))
    }
}
