import RTCWire
import Testing

/// RED payloads (RFC 2198 §3): block headers, then the blocks' data, the primary last.
struct REDPayloadTests {
    /// One redundant Opus block 960 units (20 ms at 48 kHz) older, 3 bytes, then a 4-byte primary.
    static let oneRedundant: [UInt8] = [
        0xEF,                    // F=1, block PT=111
        0x0F, 0x00, 0x03,        // timestamp offset 960 (14 bits: 0x0F << 6 | 0x00 >> 2), block length 3 (10 bits)
        0x6F,                    // F=0, primary PT=111
        1, 2, 3,                 // redundant data
        9, 8, 7, 6,              // primary data
    ]

    @Test func readsARedundantBlockAndThePrimary() throws {
        try Self.oneRedundant.withUnsafeBytes { bytes in
            let red = try REDPayloadView(bytes)
            #expect(red.redundantCount == 1)
            #expect(red.redundant(0) == REDBlock(payloadType: 111, timestampOffset: 960, range: 5 ..< 8))
            #expect(red.primary == REDBlock(payloadType: 111, timestampOffset: 0, range: 8 ..< 12))
            #expect(Array(red.data(red.redundant(0))) == [1, 2, 3])
            #expect(Array(red.data(red.primary)) == [9, 8, 7, 6])
        }
    }

    @Test func aPayloadWithoutRedundancyIsItsPrimary() throws {
        try [UInt8]([0x6F, 9, 8]).withUnsafeBytes { bytes in
            let red = try REDPayloadView(bytes)
            #expect(red.redundantCount == 0)
            #expect(red.primary == REDBlock(payloadType: 111, timestampOffset: 0, range: 1 ..< 3))
        }
    }

    @Test(arguments: [
        ([], REDError.headerOverrun),                                   // no final header
        ([0xEF, 0x0F], .headerOverrun),                                  // a redundant header cut short
        ([0xEF, 0x0F, 0x00, 0x03], .headerOverrun),                      // no final header after it
        ([0xEF, 0x0F, 0x00, 0x03, 0x6F, 1], .blockOverrun),              // 3 bytes announced, 1 there
    ] as [([UInt8], REDError)])
    func badPayloadsAreNamed(bytes: [UInt8], error: REDError) {
        _ = bytes.withUnsafeBytes { raw in
            #expect(throws: error) { _ = try REDPayloadView(raw) }
        }
    }

    @Test func theWriterMakesWhatTheReaderReads() throws {
        var out = [UInt8](repeating: 0, count: 64)
        let length = [UInt8]([9, 8, 7, 6]).withUnsafeBytes { primary in
            [UInt8]([1, 2, 3]).withUnsafeBytes { redundant in
                out.withUnsafeMutableBytes {
                    REDPayloadWriter.write(primary: primary, payloadType: 111, redundant: redundant, timestampOffset: 960, into: $0)
                }
            }
        }
        #expect(length == Self.oneRedundant.count)
        #expect(Array(out.prefix(length ?? 0)) == Self.oneRedundant)
    }

    @Test func aBlockTooOldOrTooLargeForItsHeaderIsLeftOut() throws {
        var out = [UInt8](repeating: 0, count: 2048)
        let big = [UInt8](repeating: 5, count: 1024)
        for (redundant, offset) in [([UInt8]([1, 2, 3]), UInt32(16_384)), (big, UInt32(960))] {
            let length = try #require([UInt8]([9]).withUnsafeBytes { primary in
                redundant.withUnsafeBytes { block in
                    out.withUnsafeMutableBytes {
                        REDPayloadWriter.write(primary: primary, payloadType: 111, redundant: block, timestampOffset: offset, into: $0)
                    }
                }
            })
            #expect(Array(out.prefix(length)) == [0x6F, 9])
        }
    }

    @Test func aWriteThatDoesNotFitIsRefused() {
        var out = [UInt8](repeating: 0, count: 8)
        let length = [UInt8]([9, 8, 7, 6]).withUnsafeBytes { primary in
            [UInt8]([1, 2, 3]).withUnsafeBytes { redundant in
                out.withUnsafeMutableBytes {
                    REDPayloadWriter.write(primary: primary, payloadType: 111, redundant: redundant, timestampOffset: 960, into: $0)
                }
            }
        }
        #expect(length == nil)
    }

    @Test func aForwarderRewritesEveryBlockPayloadTypeAndNothingElse() throws {
        var bytes: [UInt8] = [
            0x80 | 111, 0x0F, 0x00, 0x02,   // F=1, PT 111, offset 960, length 2
            0x80 | 111, 0x1E, 0x00, 0x01,   // F=1, PT 111, offset 1920, length 1
            111,                            // F=0, PT 111: the primary
            0xAA, 0xBB, 0xCC, 0xDD, 0xEE,   // blocks' data: 2 + 1, then the primary's 2
        ]
        bytes.withUnsafeMutableBytes { REDPayloadWriter.setBlockPayloadTypes($0, to: 109) }
        #expect(bytes == [0x80 | 109, 0x0F, 0x00, 0x02, 0x80 | 109, 0x1E, 0x00, 0x01, 109, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE])
        // Headers that run past the end: rewritten as far as they go, nothing written beyond.
        var cut: [UInt8] = [0x80 | 111, 0x0F]
        cut.withUnsafeMutableBytes { REDPayloadWriter.setBlockPayloadTypes($0, to: 109) }
        #expect(cut == [0x80 | 109, 0x0F])
    }

    @Test func theFmtpNamesTheBlocksPayloadTypes() {
        #expect(Codec.red(payloadType: 63, opusPayloadType: 111).redundantPayloadTypes == [111, 111])
        #expect(Codec(payloadType: 63, name: "red", clockRate: 48_000, channels: 2, formatParameters: "111/111/111").redundantPayloadTypes == [111, 111, 111])
        #expect(Codec(payloadType: 63, name: "red", clockRate: 48_000, channels: 2, formatParameters: "opus/opus").redundantPayloadTypes == nil)
        #expect(Codec(payloadType: 63, name: "red", clockRate: 48_000, channels: 2).redundantPayloadTypes == nil)
    }

    @Test func anAnswerKeepsREDOnlyAroundAnAcceptedCodec() {
        let capabilities = MediaCapabilities(audioCodecs: [.opus(), .red()], videoCodecs: [], headerExtensions: [])
        let chrome = [Codec.opus(), Codec.red(payloadType: 63, opusPayloadType: 111), Codec(payloadType: 0, name: "PCMU", clockRate: 8_000)]
        #expect(capabilities.negotiate(chrome, kind: .audio).map(\.payloadType) == [111, 63])
        // RED around PCMU (not accepted), or without an fmtp, is dropped.
        let aroundPCMU = [Codec.opus(), Codec(payloadType: 63, name: "red", clockRate: 48_000, channels: 2, formatParameters: "0/0")]
        #expect(capabilities.negotiate(aroundPCMU, kind: .audio).map(\.payloadType) == [111])
        let bare = [Codec.opus(), Codec(payloadType: 63, name: "red", clockRate: 48_000, channels: 2)]
        #expect(capabilities.negotiate(bare, kind: .audio).map(\.payloadType) == [111])
        let withoutRED = MediaCapabilities(audioCodecs: [.opus()], videoCodecs: [], headerExtensions: [])
        #expect(withoutRED.negotiate(chrome, kind: .audio).map(\.payloadType) == [111])
    }

    @Test func randomBytesParseOrFailWithoutLeavingThePayload() {
        var generator = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 0 ... .max, using: &generator)
        for _ in 0 ..< 5_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let count = Int(seed >> 58)
            let bytes = (0 ..< count).map { i in UInt8(truncatingIfNeeded: (seed >> UInt64(i % 56)) &+ UInt64(i) &* 37) }
            bytes.withUnsafeBytes { raw in
                guard let red = try? REDPayloadView(raw) else { return }
                #expect(red.primary.range.upperBound == raw.count)
                for index in 0 ..< red.redundantCount {
                    let block = red.redundant(index)
                    #expect(block.range.lowerBound >= 0 && block.range.upperBound <= red.primary.range.lowerBound)
                }
            }
        }
    }
}
