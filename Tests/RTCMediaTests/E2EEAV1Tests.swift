import Testing
@testable import RTCMedia

/// The E2EE layout of AV1 temporal units (docs/e2ee.md, "Frame format"): OBU headers and sizes in
/// the clear, OBU payloads encrypted, the SFrame header and tag inside the first and last OBU.
@Suite struct E2EEAV1Tests {
    static func pair() -> (SFrameEncryptor, SFrameDecryptor) { E2EEH264Tests.pair() }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    // A temporal delimiter (12 00), a sequence header (type 1, S: 0a, size 3) and a frame OBU with
    // an extension byte (type 6, X, S: 36; extension 08, spatial id 1; size 4).
    static let unit: [UInt8] = [0x12, 0x00, 0x0a, 0x03, 0x00, 0x01, 0x02, 0x36, 0x08, 0x04, 0x10, 0x11, 0x12, 0x13]

    /// docs/e2ee.md's AV1 worked example, which the web SDK's WebCrypto code writes too
    /// (`interop/test_browser_e2ee_av1.py`): base key 00…0f, key id 0x123, counter 0x4567.
    static let workedExample = "0a089901234567d3324f36081453769eccae98ec6094b58088b51b83b279c3011b"

    @Test func av1WorkedExample() throws {
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: Array(0..<16), keyID: 0x123, suite: .aes128GCMSHA256), counter: 0x4567)
        var encrypted: [UInt8] = []
        try Self.unit.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .av1, with: encryptor, appendingTo: &encrypted) }
        #expect(Self.hex(encrypted) == Self.workedExample)
        // The clear bytes: the sequence header's OBU header, size 3 + 5 (the SFrame header 99 01 23 45 67 first); the frame
        // OBU's header, extension, size 4 + 16 (the tag last). No temporal delimiter.
        #expect(Array(encrypted[0 ..< 7]) == [0x0a, 0x08, 0x99, 0x01, 0x23, 0x45, 0x67])
        #expect(Array(encrypted[10 ..< 13]) == [0x36, 0x08, 0x14])

        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        decryptor.setKey(baseKey: Array(0..<16), keyID: 0x123)
        var decrypted: [UInt8] = [0x5a]
        try encrypted.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .av1, with: decryptor, appendingTo: &decrypted) }
        #expect(decrypted == [0x5a] + Self.unit.dropFirst(2), "the unit without its temporal delimiter")
    }

    /// Every clear byte is authenticated (OBU types, extension, sizes) and so is the ciphertext;
    /// sizes written in a longer LEB128 form, as another depacketizer may, still decrypt.
    @Test func av1ClearBytesAreAuthenticated() throws {
        let (encryptor, decryptor) = Self.pair()
        var encrypted: [UInt8] = []
        try Self.unit.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .av1, with: encryptor, appendingTo: &encrypted) }
        #expect(encrypted.count == Self.unit.count - 2 + 1 + 16, "SFrame header (kid 3, ctr 0: one byte) and tag added, the delimiter left out")
        // 0a 04 | 30 c c c | 36 08 14 | c c c c tag: the frame OBU starts at 6.
        let frameOBU = 6
        #expect(Array(encrypted[0 ..< 3]) == [0x0a, 0x04, 0x30] && Array(encrypted[frameOBU ..< frameOBU + 3]) == [0x36, 0x08, 0x14])
        // The sequence header's type (1 → 3, a frame header), the frame OBU's type, its extension,
        // a ciphertext byte, the tag's last byte.
        let flips: [(Int, UInt8)] = [(0, 0x10), (frameOBU, 0x08), (frameOBU + 1, 0x20), (3, 0x01), (encrypted.count - 1, 0x01)]
        for (index, flip) in flips {
            var changed = encrypted
            changed[index] ^= flip
            var out: [UInt8] = [0x5a]
            #expect(throws: SFrameError.authenticationFailed, "byte \(index)") {
                try changed.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .av1, with: decryptor, appendingTo: &out) }
            }
            #expect(out == [0x5a], "nothing appended when it fails")
        }
        // Moving a byte from one OBU to the other (sizes 5 and 19) keeps the concatenated SFrame
        // bytes but not the authenticated sizes.
        var moved: [UInt8] = [0x0a, 0x05]
        moved += encrypted[2 ..< 6]
        moved += [encrypted[9], 0x36, 0x08, 0x13]
        moved += encrypted[10...]
        var out: [UInt8] = []
        #expect(throws: SFrameError.authenticationFailed) {
            try moved.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .av1, with: decryptor, appendingTo: &out) }
        }
        // Sizes in two-byte LEB128 (84 00 is 4), as another depacketizer may write them: the same
        // OBUs, so it decrypts.
        var longSizes: [UInt8] = [0x0a, 0x84, 0x00]
        longSizes += encrypted[2 ..< 6]
        longSizes += [0x36, 0x08, 0x94, 0x00]
        longSizes += encrypted[9...]
        var decrypted: [UInt8] = []
        try longSizes.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .av1, with: decryptor, appendingTo: &decrypted) }
        #expect(decrypted == Array(Self.unit.dropFirst(2)))
    }

    /// What is not a temporal unit of sized OBUs is refused, and nothing is appended.
    @Test(arguments: [[UInt8]([]),
                      [0x12, 0x00],                           // only a temporal delimiter: nothing to send
                      [0x30, 0x01, 0x02],                     // an OBU without obu_size
                      [0x32, 0x05, 0x01],                     // a size past the end
                      [0xb2, 0x01, 0x00]])                    // the forbidden bit
    func av1MalformedUnitsAreRefused(frame: [UInt8]) {
        let (encryptor, decryptor) = Self.pair()
        var out: [UInt8] = [0x5a]
        #expect(throws: SFrameError.malformedFrame) { try frame.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .av1, with: encryptor, appendingTo: &out) } }
        #expect(throws: SFrameError.malformedFrame) { try frame.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .av1, with: decryptor, appendingTo: &out) } }
        #expect(out == [0x5a] && encryptor.counter == 0)
    }

    /// Encrypted units whose OBUs cannot hold the SFrame header and tag are refused.
    @Test func av1UnitsTooShortForTheSFrameBytesAreRefused() {
        let (_, decryptor) = Self.pair()
        var out: [UInt8] = [0x5a]
        // An SFrame header cut short (99: a two-byte key id and counter follow).
        #expect(throws: SFrameError.truncated) {
            try [UInt8]([0x32, 0x02, 0x99, 0x01]).withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .av1, with: decryptor, appendingTo: &out) }
        }
        // An OBU with room for the header but not the tag.
        #expect(throws: SFrameError.malformedFrame) {
            try [UInt8]([0x32, 0x05, 0x30, 1, 2, 3, 4]).withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .av1, with: decryptor, appendingTo: &out) }
        }
        #expect(out == [0x5a])
    }

    /// libaom's temporal units through encrypt → RTP packetizer → reassembly → decrypt → dav1d:
    /// the packetizer still sets N on key frames (the sequence header's OBU type is clear), the
    /// depacketizer gives back the encrypted unit byte for byte, dav1d reads every frame number,
    /// and a decoder fed the encrypted units reads none.
    @Test func libaomUnitsSurviveEncryptionAndPacketization() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        var configuration = AV1Encoder.Configuration(width: 320, height: 240)
        configuration.bitrate = 600_000
        let encoder = try AV1Encoder(configuration: configuration)
        let decoder = try AV1Decoder(), blind = try AV1Decoder()
        let (encryptor, decryptor) = Self.pair()
        var packetizer = AV1Packetizer(maxPayloadSize: 300)
        var assembler = AV1FrameAssembler()
        var sequence: UInt16 = 0
        var numbers: [Int?] = [], blindNumbers: [Int] = []
        for number in 0 ..< 15 {
            var encoded = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            var encrypted: [UInt8] = []
            try encoded.data.withUnsafeBytes { _ = try E2EEFrame.encrypt($0, codec: .av1, with: encryptor, appendingTo: &encrypted) }
            #expect(!encrypted.contains(sequence: encoded.data.suffix(24)), "the payload is not in the clear")
            encoded.data = encrypted
            let payloads = try packetizer.packetize(encoded)
            #expect(payloads[0].withUnsafeBytes { AV1.isKeyFrame(payload: $0) } == (number == 0), "the SFU tells key frames")
            var assembled: DepacketizedVideoFrame?
            for (index, payload) in payloads.enumerated() {
                let output = try assembler.push(payload: payload, sequenceNumber: sequence, timestamp: UInt32(number * 3_000),
                                                marker: index == payloads.count - 1)
                sequence &+= 1
                if let frame = output.frame { assembled = frame }
            }
            let frame = try #require(assembled)
            #expect(frame.data == encrypted, "the depacketizer gives back the encrypted unit byte for byte")
            var plain: [UInt8] = []
            try frame.data.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .av1, with: decryptor, appendingTo: &plain) }
            var clear = frame.encodedFrame
            clear.data = plain
            numbers.append(try decoder.decodeIntact(clear).flatMap(TestPatternReader.frameNumber(in:)))
            if let garbage = try? blind.decodeIntact(frame.encodedFrame), let seen = TestPatternReader.frameNumber(in: garbage) {
                blindNumbers.append(seen)
            }
        }
        #expect(numbers == (0 ..< 15).map { $0 })
        #expect(blindNumbers.isEmpty, "a decoder without the key read \(blindNumbers)")
    }

    /// Where layer frames begin (`AV1OBU.spatialLayerFrameStarts`): at a change of spatial id in
    /// the OBU extensions, an OBU without extension just before it (a sequence header, a temporal
    /// delimiter) opening the new layer frame; nothing for one layer or a unit that does not parse.
    @Test func av1LayerFrameStartsFollowTheSpatialIds() {
        // S0: sequence header, frame (ext 00); S1: frame (ext 08); S2: sequence header, frame (ext 10).
        let unit: [UInt8] = [0x0a, 0x01, 0x00, 0x36, 0x00, 0x01, 0xaa, 0x36, 0x08, 0x02, 0xbb, 0xbb,
                             0x12, 0x00, 0x0a, 0x01, 0x00, 0x36, 0x10, 0x01, 0xcc]
        #expect(unit.withUnsafeBytes { AV1OBU.spatialLayerFrameStarts(inTemporalUnit: $0) } == [7, 12])
        // One layer (extension or none) and a unit cut short.
        #expect(Self.unit.withUnsafeBytes { AV1OBU.spatialLayerFrameStarts(inTemporalUnit: $0) }.isEmpty)
        let one: [UInt8] = [0x0a, 0x01, 0x00, 0x32, 0x01, 0xaa, 0x36, 0x20, 0x01, 0xbb]
        #expect(one.withUnsafeBytes { AV1OBU.spatialLayerFrameStarts(inTemporalUnit: $0) }.isEmpty)
        #expect(Array(unit.prefix(9)).withUnsafeBytes { AV1OBU.spatialLayerFrameStarts(inTemporalUnit: $0) }.isEmpty)
        // libaom leaves an all-zero extension out: S0 T0 without one, then S1 (ext 08).
        let libaom: [UInt8] = [0x0a, 0x01, 0x00, 0x32, 0x01, 0xaa, 0x36, 0x08, 0x01, 0xbb]
        #expect(libaom.withUnsafeBytes { AV1OBU.spatialLayerFrameStarts(inTemporalUnit: $0) } == [6])
        // Seeded random bytes: starts strictly inside the unit, in order (`fuzz/sframe` too).
        var state: UInt32 = 31
        for _ in 0 ..< 5_000 {
            let bytes = (0 ..< Int(state % 40)).map { _ -> UInt8 in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            }
            let starts = bytes.withUnsafeBytes { AV1OBU.spatialLayerFrameStarts(inTemporalUnit: $0) }
            #expect(zip([0] + starts, starts).allSatisfy { $0 < $1 } && starts.allSatisfy { $0 < bytes.count }, "\(bytes)")
        }
        // Temporal layers of one spatial layer are one layer frame.
        let temporal: [UInt8] = [0x36, 0x20, 0x01, 0xaa, 0x36, 0x40, 0x01, 0xbb]
        #expect(temporal.withUnsafeBytes { AV1OBU.spatialLayerFrameStarts(inTemporalUnit: $0) }.isEmpty)
    }

    /// libaom's L2T3_KEY units with each spatial layer's frame encrypted apart (as the Swift SDK
    /// and browsers send them), each packetized as its own frame with the marker on the unit's
    /// last packet: the receiver finds the layer frames in the joined unit by the clear OBU
    /// extensions, decrypts them one by one and dav1d reads every frame number 320 wide; a
    /// subscriber sent only the S0 frames (camera_small) decrypts them whole and reads 160 wide.
    @Test func svcLayerFramesAreEncryptedApart() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        var configuration = AV1Encoder.Configuration(width: 320, height: 240)
        configuration.bitrate = 800_000
        configuration.scalabilityMode = .l2t3Key
        let encoder = try AV1Encoder(configuration: configuration)
        let big = try AV1Decoder(), small = try AV1Decoder()
        let (encryptor, decryptor) = Self.pair()
        var packetizer = AV1Packetizer(maxPayloadSize: 400)
        var bigAssembler = AV1FrameAssembler(), smallAssembler = AV1FrameAssembler()
        var bigSequence: UInt16 = 0, smallSequence: UInt16 = 0
        var bigNumbers: [Int?] = [], smallNumbers: [Int?] = [], smallSizes: Set<String> = []
        for number in 0 ..< 16 {
            let unit = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            #expect(unit.layerFrames.count == 2)
            if number < 2 {
                var headers: [String] = []
                try unit.data.withUnsafeBytes { try AV1OBU.forEach(inTemporalUnit: $0) { header, payload in headers.append(header.map { String($0, radix: 16) }.joined() + "/\(payload.count)") } }
                print("svc unit \(number): layers \(unit.layerFrames.map(\.range)) OBUs \(headers)")
            }
            var layers: [[UInt8]] = []
            for layer in unit.layerFrames {
                var encrypted: [UInt8] = []
                try Array(unit.data[layer.range]).withUnsafeBytes {
                    _ = try E2EEFrame.encrypt($0, codec: .av1, with: encryptor, appendingTo: &encrypted)
                }
                layers.append(encrypted)
            }
            // Each layer frame's packets, in order; S0's alone go to the small subscriber.
            var packets: [[[UInt8]]] = []
            for (layer, encrypted) in zip(unit.layerFrames, layers) {
                var frame = EncodedVideoFrame(data: encrypted, isKeyFrame: layer.isKeyFrame, timestampUs: 0)
                frame.scalabilityMode = nil
                packets.append(try packetizer.packetize(frame))
            }
            func assemble(_ payloads: [[UInt8]], _ assembler: inout AV1FrameAssembler, _ sequence: inout UInt16) throws -> DepacketizedVideoFrame {
                var assembled: DepacketizedVideoFrame?
                for (index, payload) in payloads.enumerated() {
                    let output = try assembler.push(payload: payload, sequenceNumber: sequence, timestamp: UInt32(number * 3_000),
                                                    marker: index == payloads.count - 1)
                    sequence &+= 1
                    if let frame = output.frame { assembled = frame }
                }
                return try #require(assembled)
            }
            let whole = try assemble(packets.flatMap { $0 }, &bigAssembler, &bigSequence)
            #expect(whole.data == layers[0] + layers[1], "the depacketizer joins the encrypted layer frames byte for byte")
            let starts = whole.data.withUnsafeBytes { AV1OBU.spatialLayerFrameStarts(inTemporalUnit: $0) }
            #expect(starts == [layers[0].count], "unit \(number): the second layer frame is found where it begins")
            var plain: [UInt8] = []
            for (start, end) in zip([0] + starts, starts + [whole.data.count]) {
                try Array(whole.data[start ..< end]).withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .av1, with: decryptor, appendingTo: &plain) }
            }
            var clear = whole.encodedFrame
            clear.data = plain
            let top = try big.decodeIntact(clear)
            #expect(top == nil || top?.width == 320)
            bigNumbers.append(top.flatMap(TestPatternReader.frameNumber(in:)))

            let base = try assemble(packets[0], &smallAssembler, &smallSequence)
            #expect(base.data.withUnsafeBytes { AV1OBU.spatialLayerFrameStarts(inTemporalUnit: $0) }.isEmpty)
            var basePlain: [UInt8] = []
            try base.data.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: .av1, with: decryptor, appendingTo: &basePlain) }
            var baseFrame = base.encodedFrame
            baseFrame.data = basePlain
            let low = try small.decodeIntact(baseFrame)
            if let low { smallSizes.insert("\(low.width)x\(low.height)") }
            smallNumbers.append(low.flatMap(TestPatternReader.frameNumber(in:)))
        }
        #expect(bigNumbers == (0 ..< 16).map { $0 })
        #expect(smallSizes == ["160x120"])
        #expect(smallNumbers.compactMap { $0 }.count >= 12 && smallNumbers.compactMap { $0 } == smallNumbers.compactMap { $0 }.sorted(),
                "small numbers \(smallNumbers)")
    }
}

private extension Array where Element == UInt8 {
    func contains(sequence: some Collection<UInt8>) -> Bool {
        let needle = Array(sequence)
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0 ... count - needle.count).contains { self[$0 ..< $0 + needle.count].elementsEqual(needle) }
    }
}
