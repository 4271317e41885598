import Testing
import TestRandom
@testable import RTCMedia

/// The E2EE layouts of H.264 and VP9 frames (docs/e2ee.md, "Frame format"), and the emulation
/// prevention that keeps H.264 ciphertext free of start codes (H.264 §7.4.1).
@Suite struct E2EEH264Tests {
    static let baseKey = [UInt8](repeating: 7, count: 16)

    static func pair() -> (SFrameEncryptor, SFrameDecryptor) {
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        decryptor.setKey(baseKey: baseKey, keyID: 3)
        return (SFrameEncryptor(key: SFrameKey(baseKey: baseKey, keyID: 3, suite: .aes128GCMSHA256)), decryptor)
    }

    /// The forward escaping of §7.4.1, written the plain way, to check the in-place one against.
    static func referenceEscape(_ bytes: [UInt8], zeros: Int = 0) -> [UInt8] {
        var out: [UInt8] = [], run = zeros
        for byte in bytes {
            if run >= 2, byte <= 3 { out.append(3); run = 0 }
            out.append(byte)
            run = byte == 0 ? run + 1 : 0
        }
        if run >= 2 { out.append(3) }
        return out
    }

    // MARK: - Emulation prevention

    @Test(arguments: [([UInt8]([0, 0, 0]), [UInt8]([0, 0, 3, 0])),
                      ([0, 0, 1, 7], [0, 0, 3, 1, 7]),
                      ([0, 0], [0, 0, 3]),                        // a final 00 00 gets an escape
                      ([0, 0, 3], [0, 0, 3, 3]),                  // an 03 after 00 00 is escaped too
                      ([0, 0, 4, 0], [0, 0, 4, 0]),               // bytes above 03 are left alone
                      ([0, 0, 0, 0, 0], [0, 0, 3, 0, 0, 3, 0]),   // the counter restarts after each escape
                      ([9, 0, 0, 2, 0, 0, 0, 0], [9, 0, 0, 3, 2, 0, 0, 3, 0, 0, 3])])
    func escapingInsertsThreeAfterTwoZeros(input: [UInt8], escaped: [UInt8]) {
        var buffer = [0xaa] + input
        H264.escape(&buffer, from: 1)
        #expect(buffer == [0xaa] + escaped)
        var back: [UInt8] = []
        escaped.withUnsafeBytes { H264.unescape($0, appendingTo: &back) }
        #expect(back == input)
    }

    /// Zeros just before the escaped part count (the clear slice bytes end a NAL unit's run).
    @Test func escapingGoesOnFromTheZerosBefore() {
        var buffer: [UInt8] = [0, 0, 1]
        H264.escape(&buffer, from: 2, zeros: 2)
        #expect(buffer == [0, 0, 3, 1])
        var back: [UInt8] = []
        [UInt8]([3, 1]).withUnsafeBytes { H264.unescape($0, zeros: 2, appendingTo: &back) }
        #expect(back == [1])
    }

    /// 20000 seeded buffers rich in 00–03: the in-place escape equals the plain one, holds no
    /// 00 00 0x (x ≤ 2), does not end in 00 00, and unescapes back.
    @Test func escapingRoundTripsAndLeavesNoStartCode() {
        var random = SeededRandom(seed: 31)
        for _ in 0..<20_000 {
            let input = (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...5, using: &random) }
            let zeros = Int.random(in: 0...2, using: &random)
            var buffer = input
            H264.escape(&buffer, from: 0, zeros: zeros)
            #expect(buffer == Self.referenceEscape(input, zeros: zeros), "\(input) zeros \(zeros)")
            let seeded = [UInt8](repeating: 0, count: zeros) + buffer
            let startCode = seeded.indices.dropLast(2).contains { seeded[$0] == 0 && seeded[$0 + 1] == 0 && seeded[$0 + 2] <= 2 }
            #expect(!startCode && !(seeded.count >= 2 && seeded.suffix(2) == [0, 0]), "\(input) → \(buffer)")
            var back: [UInt8] = []
            buffer.withUnsafeBytes { H264.unescape($0, zeros: zeros, appendingTo: &back) }
            #expect(back == input)
            if back != input || buffer != Self.referenceEscape(input, zeros: zeros) { break }
        }
    }

    // MARK: - The H.264 layout

    // SPS, PPS (with a 3-byte start code) and an IDR slice whose header is 88 84: first_mb_in_slice
    // 0 ("1"), slice_type 7 ("0001000"), pic_parameter_set_id 0 ("1"): two bytes after the NAL header.
    static let sps: [UInt8] = [0x67, 0x42, 0xe0, 0x1f, 0xaa]
    static let pps: [UInt8] = [0x68, 0xce, 0x3c, 0x80]
    static let idr: [UInt8] = [0x65, 0x88, 0x84] + (0..<600).map { UInt8(truncatingIfNeeded: $0 * 7) }
    static let accessUnit: [UInt8] = [0, 0, 0, 1] + sps + [0, 0, 1] + pps + [0, 0, 0, 1] + idr

    @Test func h264KeepsParameterSetsAndTheSliceHeaderClear() throws {
        let (encryptor, decryptor) = Self.pair()
        var encrypted: [UInt8] = []
        try Self.accessUnit.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .h264, with: encryptor, appendingTo: &encrypted) }
        // The clear part, every start code 4 bytes long, then the SFrame header (kid 3, ctr 0).
        let clear = [0, 0, 0, 1] + Self.sps + [0, 0, 0, 1] + Self.pps + [0, 0, 0, 1, 0x65, 0x88, 0x84]
        #expect(Array(encrypted.prefix(clear.count)) == clear)
        #expect(encrypted[clear.count] == 0x30)
        // The ciphertext holds no start code: a packetizer finds SPS, PPS and one IDR unit, and the
        // SFU's key-frame test still sees the IDR.
        let units = H264.nalUnits(annexB: encrypted)
        #expect(units.map { encrypted[$0.lowerBound] & 0x1f } == [7, 8, 5])
        #expect(H264.isKeyFrame(annexB: encrypted))
        var packetizer = H264Packetizer(maxPayloadSize: 200)
        #expect(H264.isKeyFrame(payload: packetizer.packetize(encrypted)[0]))
        #expect(!encrypted.dropFirst(clear.count).starts(with: Self.idr.dropFirst(3).prefix(8)))

        var decrypted: [UInt8] = []
        try encrypted.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .h264, with: decryptor, appendingTo: &decrypted) }
        #expect(decrypted == [0, 0, 0, 1] + Self.sps + [0, 0, 0, 1] + Self.pps + [0, 0, 0, 1] + Self.idr)

        // Every clear byte is authenticated: the SPS, the PPS, the slice header.
        for index in [5, 13, clear.count - 1] {
            var changed = encrypted
            changed[index] ^= 0x10
            var out: [UInt8] = [0x5a]
            #expect(throws: SFrameError.authenticationFailed) {
                try changed.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .h264, with: decryptor, appendingTo: &out) }
            }
            #expect(out == [0x5a], "nothing appended when it fails")
        }
    }

    /// An access unit of two IDR slices (as an encoder in size-limited or multi-threaded slice mode
    /// writes): the second slice, start code and all, is part of the ciphertext, so a packetizer
    /// sees SPS, PPS and one slice, the RTP round trip gives the encrypted unit back, and it
    /// decrypts to both slices.
    @Test func h264MultiSliceAccessUnitsEncryptAsOneSlice() throws {
        let (encryptor, decryptor) = Self.pair()
        // first_mb_in_slice 40 ("00000101001"), slice_type 7, PPS id 0, then slice data.
        let second: [UInt8] = [0x65, 0x05, 0x21, 0x10] + (0..<300).map { UInt8(truncatingIfNeeded: $0 * 13 + 1) }
        let unit = Self.accessUnit + [0, 0, 0, 1] + second
        var encrypted: [UInt8] = []
        try unit.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .h264, with: encryptor, appendingTo: &encrypted) }
        #expect(H264.nalUnits(annexB: encrypted).map { encrypted[$0.lowerBound] & 0x1f } == [7, 8, 5])
        var packetizer = H264Packetizer(maxPayloadSize: 200)
        var assembler = H264FrameAssembler()
        var assembled: DepacketizedVideoFrame?
        let payloads = packetizer.packetize(encrypted)
        for (index, payload) in payloads.enumerated() {
            let output = try assembler.push(payload: payload, sequenceNumber: UInt16(index), timestamp: 3_000, marker: index == payloads.count - 1)
            if let frame = output.frame { assembled = frame }
        }
        let frame = try #require(assembled)
        #expect(frame.data == encrypted && frame.isKeyFrame)
        var decrypted: [UInt8] = []
        try frame.data.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .h264, with: decryptor, appendingTo: &decrypted) }
        var expected: [UInt8] = [0, 0, 0, 1] + Self.sps
        expected += [0, 0, 0, 1] + Self.pps
        expected += [0, 0, 0, 1] + Self.idr
        expected += [0, 0, 0, 1] + second
        #expect(decrypted == expected)
    }

    /// docs/e2ee.md's H.264 worked example, which the web SDK's WebCrypto code writes too
    /// (`interop/test_browser_e2ee_h264.py`): base key 00…0f, key id 0x123, counter 0x4567.
    static let workedExample = "000000016742e01faa0000000168ce3c80000000016588849901234567d3334c41678cdf0b30189f09fab334e596c574ccf9dab49648"

    /// The worked example's access unit with a second slice after it (3-byte start code): the
    /// web SDK's WebCrypto code writes the same bytes (`interop/test_browser_e2ee_h264.py`) and
    /// reads the second slice back from the plaintext.
    static let multiSliceExample = "000000016742e01faa0000000168ce3c80000000016588849901234567d3334c41678cdf0b302ea969b9863f24e27c72ae8d37e10173b72632e0321a797c265896"
    static let secondSlice: [UInt8] = [0, 0, 1, 0x65, 0x05, 0x21, 0x10, 0x00, 0x00, 0x00, 0xaa]

    @Test func h264MultiSliceWorkedExample() throws {
        let frame: [UInt8] = [0, 0, 0, 1] + Self.sps + [0, 0, 1] + Self.pps + [0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x03, 0xff]
            + Self.secondSlice
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: Array(0..<16), keyID: 0x123, suite: .aes128GCMSHA256), counter: 0x4567)
        var encrypted: [UInt8] = []
        try frame.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .h264, with: encryptor, appendingTo: &encrypted) }
        let hex = encrypted.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        print("h264MultiSliceWorkedExample: \(hex)")
        #expect(hex == Self.multiSliceExample)
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        decryptor.setKey(baseKey: Array(0..<16), keyID: 0x123)
        var plain: [UInt8] = []
        try encrypted.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .h264, with: decryptor, appendingTo: &plain) }
        #expect(plain == [0, 0, 0, 1] + Self.sps + [0, 0, 0, 1] + Array(frame[12...]))
    }

    @Test func h264WorkedExample() throws {
        let frame: [UInt8] = [0, 0, 0, 1] + Self.sps + [0, 0, 1] + Self.pps + [0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x03, 0xff]
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: Array(0..<16), keyID: 0x123, suite: .aes128GCMSHA256), counter: 0x4567)
        var encrypted: [UInt8] = []
        try frame.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .h264, with: encryptor, appendingTo: &encrypted) }
        #expect(encrypted.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() == Self.workedExample)
    }

    /// Frames that are not H.264 access units with a slice are refused, and nothing is appended.
    @Test(arguments: [[UInt8]([0x65, 0x88, 0x84, 1, 2]),                 // no start code
                      [0, 0, 0, 1] + sps + [0, 0, 1] + pps,              // no slice
                      [0, 0, 1, 0x65, 0x00, 0x00],                       // a slice header that never ends
                      [0, 0, 1, 0x41]])                                  // a slice without a header
    func h264FramesWithoutASliceAreRefused(frame: [UInt8]) {
        let (encryptor, decryptor) = Self.pair()
        var out: [UInt8] = [0x5a]
        #expect(throws: SFrameError.malformedFrame) { try frame.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .h264, with: encryptor, appendingTo: &out) } }
        #expect(throws: SFrameError.malformedFrame) { try frame.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .h264, with: decryptor, appendingTo: &out) } }
        #expect(out == [0x5a] && encryptor.counter == 0)
    }

    /// OpenH264's frames through encrypt → RTP packetizer → reassembly → decrypt → decoder: the
    /// decoder reads every frame number, and a decoder fed the encrypted frames reads none. With
    /// 4 slices per picture (`slicesPerFrame`), every access unit has 4 slice NAL units, the
    /// encrypted one a single slice NAL unit (the later slices are in the ciphertext), and the
    /// decrypted one all 4 again.
    @Test(arguments: [1, 4]) func openH264FramesSurviveEncryptionAndPacketization(slices: Int) throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        var configuration = H264Encoder.Configuration(width: 320, height: 240)
        configuration.bitrate = 600_000
        configuration.slicesPerFrame = slices
        func sliceCount(_ unit: [UInt8]) -> Int {
            H264.nalUnits(annexB: unit).filter { (1 ... 5).contains(unit[$0.lowerBound] & 0x1f) }.count
        }
        let encoder = try H264Encoder(configuration: configuration)
        let decoder = try H264Decoder(), blind = try H264Decoder()
        let (encryptor, decryptor) = Self.pair()
        var packetizer = H264Packetizer(maxPayloadSize: 500)
        var assembler = H264FrameAssembler()
        var sequence: UInt16 = 0
        var numbers: [Int?] = [], blindNumbers: [Int] = []
        for number in 0..<15 {
            let encoded = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            var encrypted: [UInt8] = []
            try encoded.data.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .h264, with: encryptor, appendingTo: &encrypted) }
            #expect(sliceCount(encoded.data) == slices && sliceCount(encrypted) == 1, "frame \(number)")
            let payloads = packetizer.packetize(encrypted)
            #expect(H264.isKeyFrame(payload: payloads[0]) == encoded.isKeyFrame, "the SFU tells key frames")
            var assembled: DepacketizedVideoFrame?
            for (index, payload) in payloads.enumerated() {
                let output = try assembler.push(payload: payload, sequenceNumber: sequence, timestamp: encoded.rtpTimestamp,
                                                marker: index == payloads.count - 1)
                sequence &+= 1
                if let frame = output.frame { assembled = frame }
            }
            let frame = try #require(assembled)
            #expect(frame.data == encrypted, "the depacketizer gives back the encrypted frame byte for byte")
            var plain: [UInt8] = []
            try frame.data.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .h264, with: decryptor, appendingTo: &plain) }
            #expect(sliceCount(plain) == slices)
            let decoded = try #require(try decoder.decode(plain, timestampUs: encoded.timestampUs))
            numbers.append(TestPatternReader.frameNumber(in: decoded))
            if let garbage = try? blind.decode(frame.data, timestampUs: encoded.timestampUs), let seen = TestPatternReader.frameNumber(in: garbage) {
                blindNumbers.append(seen)
            }
        }
        #expect(numbers == (0..<15).map { $0 })
        #expect(blindNumbers.isEmpty, "a decoder without the key read \(blindNumbers)")
    }

    // MARK: - VP9

    /// VP9 frames are encrypted whole: the SFrame header comes first.
    @Test func vp9FramesAreEncryptedWhole() throws {
        let (encryptor, decryptor) = Self.pair()
        let frame: [UInt8] = [0x82, 0x49, 0x83, 0x42, 0x00] + Array(repeating: 0x11, count: 200)
        var encrypted: [UInt8] = []
        try frame.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .vp9, with: encryptor, appendingTo: &encrypted) }
        #expect(encrypted.count == frame.count + 1 + 16 && encrypted[0] == 0x30)
        var decrypted: [UInt8] = []
        try encrypted.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .vp9, with: decryptor, appendingTo: &decrypted) }
        #expect(decrypted == frame)
    }

    /// docs/e2ee.md's VP9 worked example, which the web SDK's WebCrypto code writes too
    /// (`interop/test_browser_e2ee_vp9_svc.py`): the two layer frames of a key picture, each its
    /// own SFrame ciphertext under the next counter, as the Swift SDK's sender encrypts a scalable
    /// picture (one encryptor, layer frames lowest first) and a browser's transform, handed each
    /// layer frame apart, does: base key 00…0f, key id 0x123, counters 0x4567 and 0x4568.
    static let vp9WorkedExample = ["9901234567517ace01678985a855def7a782fb458e16fad3982e31",
                                   "9901234568d72b5a89463af9fd9e28aff78de06ce9e10e0c894e"]

    @Test func vp9SVCWorkedExample() throws {
        let layers: [[UInt8]] = [[0x82, 0x49, 0x83, 0x42, 0x00, 0x05], [0x86, 0x00, 0x40, 0x01, 0x02]]
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: Array(0..<16), keyID: 0x123, suite: .aes128GCMSHA256), counter: 0x4567)
        let encrypted = try layers.map { layer in
            var out: [UInt8] = []
            try layer.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .vp9, with: encryptor, appendingTo: &out) }
            return out
        }
        let hex = encrypted.map { $0.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
        #expect(hex == Self.vp9WorkedExample)
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        decryptor.setKey(baseKey: Array(0..<16), keyID: 0x123)
        let decrypted = try encrypted.map { frame in
            var out: [UInt8] = []
            try frame.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .vp9, with: decryptor, appendingTo: &out) }
            return out
        }
        #expect(decrypted == layers)
    }

    /// A VP9 picture of two spatial layers, each layer frame encrypted apart (as a browser's
    /// encoded transform does with SVC): the jitter buffer joins the picture and says where the
    /// second layer frame begins (its B bit, RFC 9628 §4.2), so a receiver decrypts each; the
    /// descriptors the SFU reads stay clear.
    @Test func vp9LayerFramesOfOnePictureDecryptApart() throws {
        let (encryptor, decryptor) = Self.pair()
        let layers: [[UInt8]] = [[0x82, 0x49, 0x83, 0x42, 0x00] + Array(repeating: 0x11, count: 30), Array(repeating: 0x22, count: 50)]
        let encrypted = try layers.map { layer in
            var out: [UInt8] = []
            try layer.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .vp9, with: encryptor, appendingTo: &out) }
            return out
        }
        var buffer = VP9CodecTests.buffer()
        var frames: [DepacketizedVideoFrame] = []
        // I, L, B, E (P clear: a key picture); picture id 5; TID 0, SID 0 or SID 1 with D; TL0PICIDX 1.
        // The second layer frame comes in two packets: B on the first, E on the second.
        let descriptors: [[UInt8]] = [[0xAC, 0x05, 0x00, 0x01], [0xA8, 0x05, 0x03, 0x01], [0xA4, 0x05, 0x03, 0x01]]
        let parts: [[UInt8]] = [encrypted[0], Array(encrypted[1].prefix(20)), Array(encrypted[1].dropFirst(20))]
        let packets = zip(descriptors, parts).map { $0 + $1 }
        for (index, payload) in packets.enumerated() {
            try buffer.insert(payload: payload, sequenceNumber: UInt16(index), timestamp: 3_000, marker: index == packets.count - 1)
            frames += buffer.popFrames(nowUs: 0)
        }
        let frame = try #require(frames.first)
        #expect(frames.count == 1 && frame.isKeyFrame)
        #expect(frame.data == encrypted[0] + encrypted[1] && frame.layerFrameStarts == [encrypted[0].count])
        let bounds = [0] + frame.layerFrameStarts + [frame.data.count]
        let decrypted = try zip(bounds, bounds.dropFirst()).map { start, end in
            var out: [UInt8] = []
            try Array(frame.data[start ..< end]).withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .vp9, with: decryptor, appendingTo: &out) }
            return out
        }
        #expect(decrypted == layers)
    }
}
