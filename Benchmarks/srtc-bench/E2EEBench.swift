// End-to-end encryption benchmark (docs/e2ee.md): the SDKs' cost per frame to encrypt and decrypt
// with SFrame (AES_128_GCM_SHA256_128) in each codec's E2EE frame layout, beside the plain path
// (the same frame packetized into RTP payloads without E2EE) and with it (encrypted, then
// packetized), and a floor measured in the same run: bare AES-GCM through OpenSSL on the same
// bytes. Frame sizes are those of a 640×360 call at about 800 kbit/s and a 720p one at about
// 1.5 Mbit/s (a key frame, a delta frame) and of 20 ms Opus. Figures are printed, never asserted.
import RTCCrypto
import RTCMedia

func runE2EEBenchmarks() {
    print("E2EE (SFrame AES-128-GCM per frame, µs; best of \(E2EEBench.rounds) rounds; plain = packetize without E2EE, "
          + "e2ee = encrypt + packetize; floor = bare OpenSSL AES-GCM on the same bytes)")
    for (label, codec, size, keyFrame) in [("640x360 VP8 key frame", E2EEFrame.Codec.vp8, 25_000, true),
                                           ("640x360 VP8 delta frame", .vp8, 3_000, false),
                                           ("640x360 H.264 key frame", .h264, 25_000, true),
                                           ("640x360 H.264 delta frame", .h264, 3_000, false),
                                           ("640x360 VP9 delta frame", .vp9, 3_000, false),
                                           ("640x360 AV1 key frame", .av1, 25_000, true),
                                           ("640x360 AV1 delta frame", .av1, 3_000, false),
                                           ("720p VP8 key frame", .vp8, 60_000, true),
                                           ("720p VP8 delta frame", .vp8, 6_000, false),
                                           ("Opus 20 ms", .opus, 120, false)] {
        let f = E2EEBench.run(codec: codec, size: size, keyFrame: keyFrame)
        print("  \(label.padding(26)) \(String(size).padding(6)) B  plain \(format(f.plain, decimals: 2).padding(6)) e2ee \(format(f.sealed, decimals: 2).padding(6)) "
              + "(encrypt \(format(f.encrypt, decimals: 2).padding(6)) decrypt \(format(f.decrypt, decimals: 2).padding(6))) "
              + "floor \(format(f.floor, decimals: 2).padding(6)) (\(format(Double(size) / f.encrypt, decimals: 0)) MB/s)")
    }
}

enum E2EEBench {
    static let rounds = 5
    static let framesPerRound = 2_000

    /// Microseconds per frame.
    struct Figure { let plain: Double, sealed: Double, encrypt: Double, decrypt: Double, floor: Double }

    /// A frame of `codec` as an encoder makes it: the codec's first bytes, then entropy-coded
    /// looking bytes (no zero, so an H.264 body holds no start code, as real slice data does not).
    static func frame(codec: E2EEFrame.Codec, size: Int, keyFrame: Bool) -> [UInt8] {
        var state: UInt32 = 0x9605
        var body = (0..<size).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24) | 1
        }
        let head: [UInt8]
        switch codec {
        case .vp8: head = [keyFrame ? 0x50 : 0x51]
        case .vp9: head = [keyFrame ? 0x82 : 0x86]
        case .opus: head = [0x78]
        case .av1:
            // A frame OBU (type 6, S) holding the rest, after a sequence header (type 1) on a key frame.
            let sequenceHeader: [UInt8] = keyFrame ? [0x0a, 0x0b] + Array(repeating: 0x11, count: 11) : []
            let sizeBytes = AV1OBU.leb128Size(size)
            var obu: [UInt8] = [0x32]
            AV1OBU.appendLEB128(size - sequenceHeader.count - 1 - sizeBytes, to: &obu)
            head = sequenceHeader + obu
        case .h264:
            // SPS, PPS and an IDR slice (slice header 88 84), or one P slice (9a).
            head = keyFrame ? [0, 0, 0, 1, 0x67, 0x42, 0xe0, 0x1e, 0x8d, 0x68, 0x0a, 0x03, 0xda, 0x10, 0x00, 0x00, 0x00, 0x01, 0x68, 0xce, 0x3c, 0x80,
                               0, 0, 0, 1, 0x65, 0x88, 0x84]
                : [0, 0, 0, 1, 0x41, 0x9a]
        }
        body.replaceSubrange(0..<head.count, with: head)
        return body
    }

    static func run(codec: E2EEFrame.Codec, size: Int, keyFrame: Bool) -> Figure {
        let frame = frame(codec: codec, size: size, keyFrame: keyFrame)
        let baseKey = [UInt8](repeating: 7, count: 16)
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: baseKey, keyID: 1, suite: .aes128GCMSHA256))
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        decryptor.setKey(baseKey: baseKey, keyID: 1)
        var encrypted: [UInt8] = [], decrypted: [UInt8] = []
        encrypted.reserveCapacity(size + 256)
        decrypted.reserveCapacity(2 * size + 256)
        let count = size > 10_000 ? framesPerRound / 10 : framesPerRound
        func best(_ body: () -> Void) -> Double {
            (0..<rounds).map { _ in
                let start = CPUTime.thread()
                for _ in 0..<count { body() }
                return (CPUTime.thread() - start) / Double(count)
            }.min()!
        }
        var vp8 = VP8Packetizer(), vp9 = VP9Packetizer(), h264 = H264Packetizer(), av1 = AV1Packetizer()
        var payloadBytes = 0
        func packetize(_ bytes: UnsafeRawBufferPointer) {
            switch codec {
            case .vp8: vp8.packetize(bytes) { payload, _ in payloadBytes &+= payload.count }
            case .vp9: vp9.packetize(bytes, isKeyFrame: keyFrame) { payload, _ in payloadBytes &+= payload.count }
            case .h264: h264.packetize(bytes) { payload, _ in payloadBytes &+= payload.count }
            case .opus: payloadBytes &+= bytes.count  // one Opus frame is one RTP payload
            case .av1: try? av1.packetize(bytes, isKeyFrame: keyFrame) { payload, _ in payloadBytes &+= payload.count }
            }
        }
        let plain = best { frame.withUnsafeBytes { packetize($0) } }
        let encrypt = best {
            encrypted.removeAll(keepingCapacity: true)
            frame.withUnsafeBytes { _ = try? E2EEFrame.encrypt($0, codec: codec, with: encryptor, appendingTo: &encrypted) }
        }
        let sealed = best {
            encrypted.removeAll(keepingCapacity: true)
            frame.withUnsafeBytes { _ = try? E2EEFrame.encrypt($0, codec: codec, with: encryptor, appendingTo: &encrypted) }
            encrypted.withUnsafeBytes { packetize($0) }
        }
        let decrypt = best {
            decrypted.removeAll(keepingCapacity: true)
            encrypted.withUnsafeBytes { _ = try? E2EEFrame.decrypt($0, codec: codec, with: decryptor, appendingTo: &decrypted) }
        }
        precondition(decrypted == frame && payloadBytes > 0, "the benchmark's frame did not round-trip")
        let aead = AESGCMContext(key: SFrameKey(baseKey: baseKey, keyID: 1, suite: .aes128GCMSHA256).key)!
        var out = [UInt8](repeating: 0, count: size + 16)
        let nonce = [UInt8](repeating: 1, count: 12), aad = [UInt8](repeating: 2, count: 12)
        let floor = best {
            frame.withUnsafeBytes { plain in nonce.withUnsafeBytes { n in aad.withUnsafeBytes { a in out.withUnsafeMutableBytes { o in
                _ = aead.seal(nonce: n, aad: a, plaintext: plain, into: o)
            } } } }
        }
        return Figure(plain: plain, sealed: sealed, encrypt: encrypt, decrypt: decrypt, floor: floor)
    }
}
