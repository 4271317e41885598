import RTCCrypto

/// Decrypts SFrame ciphertexts (RFC 9605 §4.4.4) with the keys a receiver holds, chosen by the key
/// id in each header. Holds every key id it was given until told to forget one, so frames sent
/// under an old key while a new one spreads still decrypt.
///
/// Not thread-safe: one receiving thread at a time.
public final class SFrameDecryptor {
    public let suite: SFrameCipherSuite
    private var keys: [UInt64: (key: SFrameKey, aead: AESGCMContext)] = [:]
    private var aad: [UInt8] = []

    public init(suite: SFrameCipherSuite) {
        self.suite = suite
        aad.reserveCapacity(64)
    }

    /// The key ids it can decrypt.
    public var keyIDs: Set<UInt64> { Set(keys.keys) }

    /// Adds (or replaces) the key for `keyID`, derived from `baseKey`.
    public func setKey(baseKey: [UInt8], keyID: UInt64) {
        let key = SFrameKey(baseKey: baseKey, keyID: keyID, suite: suite)
        keys[keyID] = (key, AESGCMContext(key: key.key)!)
    }

    /// Forgets the key for `keyID`: its frames no longer decrypt.
    public func removeKey(keyID: UInt64) { keys[keyID] = nil }

    /// Appends the plaintext of the SFrame ciphertext `sframe` to `out`, checking `metadata`
    /// (the same bytes the sender authenticated). Nothing is appended when it throws.
    /// - Returns: the frame's header.
    @discardableResult
    public func decrypt(_ sframe: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer,
                        appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        let (header, headerLength) = try SFrameHeader.parse(sframe)
        return try open(header: header, headerLength: headerLength, sealedLength: sframe.count - headerLength, appendingTo: &out) { _ in
            (sframe, metadata)
        }
    }

    /// `decrypt(_:metadata:appendingTo:)` of an SFrame ciphertext and metadata that `out` already
    /// holds (at `sframe` and `metadata`, before its end): the plaintext is appended after them.
    @discardableResult
    public func decrypt(sframeIn sframe: Range<Int>, metadataIn metadata: Range<Int>,
                        appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        precondition(sframe.upperBound <= out.count && metadata.upperBound <= out.count, "input outside the output buffer")
        let parsed = out.withUnsafeBytes { buffer in
            Result { () throws(SFrameError) in try SFrameHeader.parse(UnsafeRawBufferPointer(rebasing: buffer[sframe])) }
        }
        let (header, headerLength) = try parsed.get()
        return try open(header: header, headerLength: headerLength, sealedLength: sframe.count - headerLength, appendingTo: &out) { buffer in
            (UnsafeRawBufferPointer(rebasing: buffer[sframe]), UnsafeRawBufferPointer(rebasing: buffer[metadata]))
        }
    }

    /// Opens the ciphertext that `input` gives (the SFrame bytes and the metadata, read once
    /// `out` has room for the plaintext) into the end of `out`.
    private func open(header: SFrameHeader, headerLength: Int, sealedLength: Int, appendingTo out: inout [UInt8],
                      input: (UnsafeMutableRawBufferPointer) -> (sframe: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer))
        throws(SFrameError) -> SFrameHeader {
        guard sealedLength >= suite.tagLength else { throw .truncated }
        guard let (key, aead) = keys[header.keyID] else { throw .unknownKeyID(header.keyID) }
        let start = out.count, textLength = sealedLength - suite.tagLength
        out.append(contentsOf: repeatElement(0, count: textLength))
        var nonce: (UInt64, UInt32) = (0, 0)
        let opened = withUnsafeMutableBytes(of: &nonce) { nonce in
            key.nonce(counter: header.counter, into: nonce)
            return out.withUnsafeMutableBytes { buffer in
                let (sframe, metadata) = input(buffer)
                aad.removeAll(keepingCapacity: true)
                aad.append(contentsOf: UnsafeRawBufferPointer(rebasing: sframe[..<headerLength]))
                aad.append(contentsOf: metadata)
                return aad.withUnsafeBytes { aad in
                    aead.open(nonce: UnsafeRawBufferPointer(nonce), aad: aad, sealed: UnsafeRawBufferPointer(rebasing: sframe[headerLength...]),
                              into: UnsafeMutableRawBufferPointer(rebasing: buffer[start...]))
                }
            }
        }
        guard opened else {
            out.removeSubrange(start...)
            throw .authenticationFailed
        }
        return header
    }
}
