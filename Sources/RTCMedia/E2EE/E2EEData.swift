/// One user data message as end-to-end encryption carries it (docs/e2ee.md, "Data messages"): the
/// payload of a data packet (docs/protocol.md, "Data messages") becomes
///
///     encrypted_payload = marker ‖ SFrame header ‖ AEAD(key, nonce, aad = header ‖ marker ‖ topic length ‖ topic, payload)
///
/// under the sender's SFrame keys (RFC 9605), the same ones its media frames use. The marker
/// tells an encrypted payload from a plain one: its first byte 0xFF never begins UTF-8 text, and
/// the SDKs refuse to send a plain payload that begins with it. The topic travels in the clear
/// in the packet's header (the server reads it) and is authenticated here, so it cannot be
/// changed on the way.
///
/// Media frames and data messages cannot be taken for each other: a frame's metadata is its codec's
/// clear bytes (1, 3 or 10 bytes), a message's is at least 5 bytes starting with 0xFF, which
/// no VP8 key frame (first bit clear) and no shorter prefix has.
public enum E2EEData {
    /// The first bytes of an encrypted payload: 0xFF, "SF", format version 1.
    public static let marker: [UInt8] = [0xFF, 0x53, 0x46, 0x01]
    /// Bytes encryption adds at most: the marker, the longest SFrame header, the tag.
    public static let overhead = marker.count + SFrameHeader.maxLength + 16

    /// Whether `payload` begins with the marker (so it is an encrypted message, or must be refused
    /// as a plain one).
    public static func isEncrypted(_ payload: UnsafeRawBufferPointer) -> Bool {
        payload.count >= marker.count && zip(payload, marker).allSatisfy { $0 == $1 }
    }

    /// Appends the encrypted form of `payload` to `out`; `topic` is the packet's topic as UTF-8
    /// (empty: none, at most 255 bytes).
    @discardableResult
    public static func encrypt(_ payload: UnsafeRawBufferPointer, topic: UnsafeRawBufferPointer, with encryptor: SFrameEncryptor,
                               appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        guard topic.count <= 255 else { throw .malformedFrame }
        out.append(contentsOf: marker)
        return try withMetadata(topic) { metadata throws(SFrameError) in
            try encryptor.encrypt(payload, metadata: metadata, appendingTo: &out)
        }
    }

    /// Appends the payload that `encrypted` carries to `out`. Throws `malformedFrame` when it does
    /// not begin with the marker.
    @discardableResult
    public static func decrypt(_ encrypted: UnsafeRawBufferPointer, topic: UnsafeRawBufferPointer, with decryptor: SFrameDecryptor,
                               appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        guard isEncrypted(encrypted), topic.count <= 255 else { throw .malformedFrame }
        return try withMetadata(topic) { metadata throws(SFrameError) in
            try decryptor.decrypt(UnsafeRawBufferPointer(rebasing: encrypted[marker.count...]), metadata: metadata, appendingTo: &out)
        }
    }

    /// Calls `body` with marker ‖ topic length ‖ topic.
    private static func withMetadata<T>(_ topic: UnsafeRawBufferPointer,
                                        _ body: (UnsafeRawBufferPointer) throws(SFrameError) -> T) throws(SFrameError) -> T {
        var metadata = marker
        metadata.append(UInt8(topic.count))
        metadata.append(contentsOf: topic)
        // `withUnsafeBytes` rethrows untyped errors: the typed one comes back through a Result.
        return try metadata.withUnsafeBytes { bytes in Result { () throws(SFrameError) in try body(bytes) } }.get()
    }
}
