// End-to-end encryption benchmark (docs/e2ee.md): the SDKs' cost per frame to encrypt and decrypt
// with SFrame (AES_128_GCM_SHA256_128) in the E2EE frame layout, next to a floor measured in the
// same run: bare AES-GCM through OpenSSL on the same bytes, with nothing of ours around it. Frame
// sizes are those of a 720p VP8 call at about 1.5 Mbit/s (a key frame, a delta frame) and of
// 20 ms Opus. Figures are printed, never asserted.
import RTCCrypto
import RTCMedia

func runE2EEBenchmarks() {
    print("E2EE (SFrame AES-128-GCM per frame; best of \(E2EEBench.rounds) rounds; floor = bare OpenSSL AES-GCM on the same bytes)")
    for (label, codec, size, keyFrame) in [("720p VP8 key frame", E2EEFrame.Codec.vp8, 60_000, true),
                                           ("720p VP8 delta frame", .vp8, 6_000, false),
                                           ("Opus 20 ms", .opus, 120, false)] {
        let figure = E2EEBench.run(codec: codec, size: size, keyFrame: keyFrame)
        print("  \(label.padding(22)) \(String(size).padding(6)) B  encrypt \(format(figure.encrypt)) ns  decrypt \(format(figure.decrypt)) ns  "
              + "floor \(format(figure.floor)) ns  (\(format(Double(size) / figure.encrypt * 1000, decimals: 0)) MB/s)")
    }
}

enum E2EEBench {
    static let rounds = 5
    static let framesPerRound = 2_000

    struct Figure { let encrypt: Double, decrypt: Double, floor: Double }

    static func run(codec: E2EEFrame.Codec, size: Int, keyFrame: Bool) -> Figure {
        var frame = [UInt8](repeating: 0xa5, count: size)
        frame[0] = keyFrame ? 0x50 : 0x51  // VP8: P bit clear on a key frame
        let baseKey = [UInt8](repeating: 7, count: 16)
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: baseKey, keyID: 1, suite: .aes128GCMSHA256))
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        decryptor.setKey(baseKey: baseKey, keyID: 1)
        var encrypted: [UInt8] = [], decrypted: [UInt8] = []
        encrypted.reserveCapacity(size + 64)
        decrypted.reserveCapacity(size + 64)
        let count = size > 10_000 ? framesPerRound / 10 : framesPerRound
        func best(_ body: () -> Void) -> Double {
            (0..<rounds).map { _ in
                let start = CPUTime.thread()
                for _ in 0..<count { body() }
                return (CPUTime.thread() - start) * 1000 / Double(count)
            }.min()!
        }
        let encrypt = best {
            encrypted.removeAll(keepingCapacity: true)
            frame.withUnsafeBytes { _ = try? E2EEFrame.encrypt($0, codec: codec, with: encryptor, appendingTo: &encrypted) }
        }
        let decrypt = best {
            decrypted.removeAll(keepingCapacity: true)
            encrypted.withUnsafeBytes { _ = try? E2EEFrame.decrypt($0, codec: codec, with: decryptor, appendingTo: &decrypted) }
        }
        precondition(decrypted == frame, "the benchmark's frame did not round-trip")
        let aead = AESGCMContext(key: SFrameKey(baseKey: baseKey, keyID: 1, suite: .aes128GCMSHA256).key)!
        var out = [UInt8](repeating: 0, count: size + 16)
        let nonce = [UInt8](repeating: 1, count: 12), aad = [UInt8](repeating: 2, count: 12)
        let floor = best {
            frame.withUnsafeBytes { plain in nonce.withUnsafeBytes { n in aad.withUnsafeBytes { a in out.withUnsafeMutableBytes { o in
                _ = aead.seal(nonce: n, aad: a, plaintext: plain, into: o)
            } } } }
        }
        return Figure(encrypt: encrypt, decrypt: decrypt, floor: floor)
    }
}
