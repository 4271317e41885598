import Testing
import RTCWire

/// RFC 5769 sample messages, byte for byte.
enum RFC5769 {
    static let password = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)
    static let transactionID = STUNTransactionID(bytes: [0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae])!

    /// §2.1 Sample Request.
    static let request: [UInt8] = [
        0x00, 0x01, 0x00, 0x58, // Binding request, length 88
        0x21, 0x12, 0xa4, 0x42, // magic cookie
        0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae, // transaction id
        0x80, 0x22, 0x00, 0x10, // SOFTWARE, length 16
        0x53, 0x54, 0x55, 0x4e, 0x20, 0x74, 0x65, 0x73, 0x74, 0x20, 0x63, 0x6c, 0x69, 0x65, 0x6e, 0x74, // "STUN test client"
        0x00, 0x24, 0x00, 0x04, // PRIORITY
        0x6e, 0x00, 0x01, 0xff, //   0x6e0001ff
        0x80, 0x29, 0x00, 0x08, // ICE-CONTROLLED
        0x93, 0x2f, 0xf9, 0xb1, 0x51, 0x26, 0x3b, 0x36, // tie-breaker
        0x00, 0x06, 0x00, 0x09, // USERNAME, length 9
        0x65, 0x76, 0x74, 0x6a, 0x3a, 0x68, 0x36, 0x76, 0x59, 0x20, 0x20, 0x20, // "evtj:h6vY" + 3 pad (0x20)
        0x00, 0x08, 0x00, 0x14, // MESSAGE-INTEGRITY
        0x9a, 0xea, 0xa7, 0x0c, 0xbf, 0xd8, 0xcb, 0x56, 0x78, 0x1e, 0xf2, 0xb5, 0xb2, 0xd3, 0xf2, 0x49, 0xc1, 0xb5, 0x71, 0xa2,
        0x80, 0x28, 0x00, 0x04, // FINGERPRINT
        0xe5, 0x7a, 0x3b, 0xcf,
    ]

    /// §2.2 Sample IPv4 Response.
    static let responseIPv4: [UInt8] = [
        0x01, 0x01, 0x00, 0x3c, // Binding success, length 60
        0x21, 0x12, 0xa4, 0x42, // magic cookie
        0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae, // transaction id
        0x80, 0x22, 0x00, 0x0b, // SOFTWARE, length 11
        0x74, 0x65, 0x73, 0x74, 0x20, 0x76, 0x65, 0x63, 0x74, 0x6f, 0x72, 0x20, // "test vector" + 1 pad (0x20)
        0x00, 0x20, 0x00, 0x08, // XOR-MAPPED-ADDRESS
        0x00, 0x01, 0xa1, 0x47, // IPv4, port 32853 ^ 0x2112
        0xe1, 0x12, 0xa6, 0x43, // 192.0.2.1 ^ cookie
        0x00, 0x08, 0x00, 0x14, // MESSAGE-INTEGRITY
        0x2b, 0x91, 0xf5, 0x99, 0xfd, 0x9e, 0x90, 0xc3, 0x8c, 0x74, 0x89, 0xf9, 0x2a, 0xf9, 0xba, 0x53, 0xf0, 0x6b, 0xe7, 0xd7,
        0x80, 0x28, 0x00, 0x04, // FINGERPRINT
        0xc0, 0x7d, 0x4c, 0x96,
    ]

    /// §2.3 Sample IPv6 Response.
    static let responseIPv6: [UInt8] = [
        0x01, 0x01, 0x00, 0x48, // Binding success, length 72
        0x21, 0x12, 0xa4, 0x42, // magic cookie
        0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae, // transaction id
        0x80, 0x22, 0x00, 0x0b, // SOFTWARE, length 11
        0x74, 0x65, 0x73, 0x74, 0x20, 0x76, 0x65, 0x63, 0x74, 0x6f, 0x72, 0x20, // "test vector" + pad
        0x00, 0x20, 0x00, 0x14, // XOR-MAPPED-ADDRESS, length 20
        0x00, 0x02, 0xa1, 0x47, // IPv6, port 32853 ^ 0x2112
        0x01, 0x13, 0xa9, 0xfa, 0xa5, 0xd3, 0xf1, 0x79, 0xbc, 0x25, 0xf4, 0xb5, 0xbe, 0xd2, 0xb9, 0xd9, // address ^ (cookie ‖ tid)
        0x00, 0x08, 0x00, 0x14, // MESSAGE-INTEGRITY
        0xa3, 0x82, 0x95, 0x4e, 0x4b, 0xe6, 0x7b, 0xf1, 0x17, 0x84, 0xc9, 0x7c, 0x82, 0x92, 0xc2, 0x75, 0xbf, 0xe3, 0xed, 0x41,
        0x80, 0x28, 0x00, 0x04, // FINGERPRINT
        0xc8, 0xfb, 0x0b, 0x4c,
    ]
}

@Suite struct STUNMessageTests {
    @Test func parsesRFC5769SampleRequest() throws {
        let message = try STUNMessage(bytes: RFC5769.request)
        #expect(message.type == .bindingRequest)
        #expect(message.transactionID == RFC5769.transactionID)
        #expect(message.username == "evtj:h6vY")
        #expect(message.priority == 0x6e00_01ff)
        #expect(message.iceControlled == 0x932f_f9b1_5126_3b36)
        #expect(message.iceControlling == nil)
        #expect(!message.hasUseCandidate)
        #expect(message.attribute(STUNAttribute.software)?.value == Array("STUN test client".utf8))
        #expect(message.hadFingerprint)
        try message.verifyIntegrity(in: RFC5769.request, key: RFC5769.password)
    }

    @Test func reencodesRFC5769SampleRequestByteForByte() throws {
        let message = try STUNMessage(bytes: RFC5769.request)
        #expect(message.encoded(integrityKey: RFC5769.password, fingerprint: true, padding: 0x20) == RFC5769.request)
    }

    @Test func buildsRFC5769SampleRequestFromScratch() {
        let message = STUNMessage(type: .bindingRequest, transactionID: RFC5769.transactionID, attributes: [
            .software("STUN test client"), .priority(0x6e00_01ff),
            .iceControlled(tieBreaker: 0x932f_f9b1_5126_3b36), .username("evtj:h6vY"),
        ])
        #expect(message.encoded(integrityKey: RFC5769.password, fingerprint: true, padding: 0x20) == RFC5769.request)
    }

    @Test func parsesAndRebuildsRFC5769IPv4Response() throws {
        let message = try STUNMessage(bytes: RFC5769.responseIPv4)
        #expect(message.type == .bindingSuccess)
        let mapped = try #require(try message.xorMappedAddress())
        #expect(mapped == STUNAddress(ip: [192, 0, 2, 1], port: 32853))
        try message.verifyIntegrity(in: RFC5769.responseIPv4, key: RFC5769.password)
        let rebuilt = STUNMessage(type: .bindingSuccess, transactionID: RFC5769.transactionID, attributes: [
            .software("test vector"), .xorMappedAddress(mapped, transactionID: RFC5769.transactionID),
        ])
        #expect(rebuilt.encoded(integrityKey: RFC5769.password, fingerprint: true, padding: 0x20) == RFC5769.responseIPv4)
    }

    @Test func parsesAndRebuildsRFC5769IPv6Response() throws {
        let message = try STUNMessage(bytes: RFC5769.responseIPv6)
        let mapped = try #require(try message.xorMappedAddress())
        // 2001:db8:1234:5678:11:2233:4455:6677 port 32853
        let expected: [UInt8] = [0x20, 0x01, 0x0d, 0xb8, 0x12, 0x34, 0x56, 0x78, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77]
        #expect(mapped == STUNAddress(ip: expected, port: 32853))
        #expect(mapped.description == "[2001:db8:1234:5678:11:2233:4455:6677]:32853")
        try message.verifyIntegrity(in: RFC5769.responseIPv6, key: RFC5769.password)
        let rebuilt = STUNMessage(type: .bindingSuccess, transactionID: RFC5769.transactionID, attributes: [
            .software("test vector"), .xorMappedAddress(mapped, transactionID: RFC5769.transactionID),
        ])
        #expect(rebuilt.encoded(integrityKey: RFC5769.password, fingerprint: true, padding: 0x20) == RFC5769.responseIPv6)
    }

    @Test func wrongPasswordFailsIntegrity() throws {
        let message = try STUNMessage(bytes: RFC5769.request)
        #expect(throws: STUNError.integrityMismatch) {
            try message.verifyIntegrity(in: RFC5769.request, key: Array("wrong".utf8))
        }
    }

    @Test func flippedBodyBitFailsFingerprint() {
        var bytes = RFC5769.request
        bytes[30] ^= 0x01 // inside SOFTWARE
        #expect(throws: STUNError.badFingerprint) { try STUNMessage(bytes: bytes) }
    }

    @Test func messageTypeInterleavesMethodAndClass() {
        #expect(STUNMessageType.bindingRequest.rawValue == 0x0001)
        #expect(STUNMessageType.bindingIndication.rawValue == 0x0011)
        #expect(STUNMessageType.bindingSuccess.rawValue == 0x0101)
        #expect(STUNMessageType.bindingError.rawValue == 0x0111)
        #expect(STUNMessageType(rawValue: 0x0111) == .bindingError)
        let odd = STUNMessageType(method: 0xABC, class: .successResponse)
        #expect(STUNMessageType(rawValue: odd.rawValue) == odd)
    }

    @Test func crc32MatchesCheckValue() {
        // The standard CRC-32 check value of "123456789".
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func iceBindingRequestRoundTripsWithUseCandidateAndErrorCode() throws {
        let tid = STUNTransactionID.random()
        let request = STUNMessage.iceBindingRequest(transactionID: tid, username: "remote:local", priority: 1234,
                                                    controlling: true, tieBreaker: 42, useCandidate: true)
        let bytes = request.encoded(integrityKey: Array("pw".utf8))
        let parsed = try STUNMessage(bytes: bytes)
        #expect(parsed.hasUseCandidate)
        #expect(parsed.iceControlling == 42)
        #expect(parsed.username == "remote:local")
        try parsed.verifyIntegrity(in: bytes, key: Array("pw".utf8))
        let error = STUNMessage.bindingError(to: parsed, code: 487, reason: "Role Conflict")
        let errorParsed = try STUNMessage(bytes: error.encoded())
        #expect(errorParsed.type == .bindingError)
        #expect(errorParsed.errorCode?.code == 487)
        #expect(errorParsed.errorCode?.reason == "Role Conflict")
        #expect(errorParsed.transactionID == tid)
    }

    @Test func unknownAttributesAreKept() throws {
        let message = STUNMessage(type: .bindingRequest, transactionID: RFC5769.transactionID,
                                  attributes: [STUNAttribute(type: 0xC001, value: [1, 2, 3])])
        let parsed = try STUNMessage(bytes: message.encoded(fingerprint: false))
        #expect(parsed.attributes == [STUNAttribute(type: 0xC001, value: [1, 2, 3])])
        #expect(!parsed.hadFingerprint)
    }
}
