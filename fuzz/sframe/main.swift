// libFuzzer target: end-to-end encrypted frames (docs/e2ee.md), which reach a receiver from any
// sender in a channel. Any input: no trap; a header that parses writes back to exactly its bytes;
// decrypting it as an SFrame ciphertext and as a VP8 or Opus E2EE frame either fails with an
// SFrameError and appends nothing (as a data message too), or (with the fuzzer's key) opens and re-encrypts to the input.
// As an H.264 access unit it encrypts to a frame that holds no start code past its clear part and
// decrypts back; its bytes escaped (H.264 emulation prevention) unescape back. As an AV1 temporal
// unit it encrypts and decrypts back to its sent OBUs, and the layer frame starts found in it
// (`AV1OBU.spatialLayerFrameStarts`) increase strictly inside it, each decrypted apart.
import RTCMedia

private let baseKey: [UInt8] = Array(0..<16)
private let decryptor: SFrameDecryptor = {
    let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
    for keyID: UInt64 in [0, 1, 7, 0x123] { decryptor.setKey(baseKey: baseKey, keyID: keyID) }
    return decryptor
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    if let (header, length) = try? SFrameHeader.parse(input) {
        precondition(header.bytes == Array(input.prefix(length)), "a parsed header writes back to other bytes")
    }
    var out: [UInt8] = [0x5a]
    if let header = try? decryptor.decrypt(input, metadata: UnsafeRawBufferPointer(start: nil, count: 0), appendingTo: &out) {
        // Opened: the same key and counter seal the plaintext back to the input.
        let encryptor = SFrameEncryptor(key: SFrameKey(baseKey: baseKey, keyID: header.keyID, suite: .aes128GCMSHA256), counter: header.counter)
        var again: [UInt8] = []
        out.dropFirst().withUnsafeBytes { _ = try? encryptor.encrypt($0, metadata: UnsafeRawBufferPointer(start: nil, count: 0), appendingTo: &again) }
        precondition(again == Array(input), "opened a ciphertext that does not seal back")
    } else {
        precondition(out == [0x5a], "a failed decryption appended bytes")
    }
    for codec in E2EEFrame.Codec.allCases {
        var frame: [UInt8] = []
        if (try? E2EEFrame.decrypt(input, codec: codec, with: decryptor, appendingTo: &frame)) == nil {
            precondition(frame.isEmpty, "a failed frame decryption appended bytes")
        }
    }
    // H.264: emulation prevention round-trips and leaves no start code; an access unit that
    // encrypts decrypts back to its clear part (4-byte start codes) and the rest.
    var escaped = Array(input)
    H264.escape(&escaped, from: 0)
    var unescaped: [UInt8] = []
    escaped.withUnsafeBytes { H264.unescape($0, appendingTo: &unescaped) }
    precondition(unescaped == Array(input), "emulation prevention did not round-trip")
    precondition(!escaped.indices.dropLast(2).contains { escaped[$0] == 0 && escaped[$0 + 1] == 0 && escaped[$0 + 2] <= 2 },
                 "escaped bytes hold a start code")
    let sender = SFrameEncryptor(key: SFrameKey(baseKey: baseKey, keyID: 7, suite: .aes128GCMSHA256))
    var sealed: [UInt8] = []
    if (try? E2EEFrame.encrypt(input, codec: .h264, with: sender, appendingTo: &sealed)) != nil {
        var opened: [UInt8] = []
        let back = sealed.withUnsafeBytes { (try? E2EEFrame.decrypt($0, codec: .h264, with: decryptor, appendingTo: &opened)) != nil }
        precondition(back, "an encrypted H.264 frame did not decrypt")
        var clear: [UInt8] = []
        let slice = try! E2EEFrame.appendH264Clear(input, to: &clear)
        precondition(opened == clear + Array(input[slice.upperBound...]), "an H.264 frame decrypted to other bytes")
    } else {
        precondition(sealed.isEmpty, "a failed H.264 encryption appended bytes")
    }
    // AV1: a temporal unit that encrypts decrypts back to its OBUs without the temporal
    // delimiter, tile list and padding OBUs, each with a shortest obu_size.
    var sealedAV1: [UInt8] = []
    if (try? E2EEFrame.encrypt(input, codec: .av1, with: sender, appendingTo: &sealedAV1)) != nil {
        var opened: [UInt8] = []
        let back = sealedAV1.withUnsafeBytes { (try? E2EEFrame.decrypt($0, codec: .av1, with: decryptor, appendingTo: &opened)) != nil }
        precondition(back, "an encrypted AV1 frame did not decrypt")
        var expected: [UInt8] = []
        try! AV1OBU.forEach(inTemporalUnit: input) { header, payload in
            let type = AV1OBU.type(header[0])
            guard type != AV1OBU.temporalDelimiter, type != AV1OBU.tileList, type != AV1OBU.padding else { return }
            expected.append(contentsOf: header)
            AV1OBU.appendLEB128(payload.count, to: &expected)
            expected.append(contentsOf: payload)
        }
        precondition(opened == expected, "an AV1 frame decrypted to other bytes")
    } else {
        precondition(sealedAV1.isEmpty, "a failed AV1 encryption appended bytes")
    }
    // AV1 SVC: where layer frames begin, strictly increasing inside the unit; each piece decrypts
    // alone or fails without appending.
    let starts = AV1OBU.spatialLayerFrameStarts(inTemporalUnit: input)
    precondition(zip([0] + starts, starts).allSatisfy { $0 < $1 } && (starts.last ?? 0) < max(size, 1), "layer frame starts out of order")
    for (start, end) in zip([0] + starts, starts + [size]) {
        var piece: [UInt8] = []
        if (try? E2EEFrame.decrypt(UnsafeRawBufferPointer(rebasing: input[start..<end]), codec: .av1, with: decryptor, appendingTo: &piece)) == nil {
            precondition(piece.isEmpty, "a failed layer frame decryption appended bytes")
        }
    }
    // An encrypted data message (docs/e2ee.md, "Data messages"), with an empty and a short topic.
    for topic: [UInt8] in [[], Array("chat".utf8)] {
        var payload: [UInt8] = []
        let opened = topic.withUnsafeBytes { (try? E2EEData.decrypt(input, topic: $0, with: decryptor, appendingTo: &payload)) != nil }
        precondition(opened || payload.isEmpty, "a failed data decryption appended bytes")
    }
    return 0
}
