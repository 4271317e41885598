import RTCCrypto

/// Encrypts one sender's frames under one key (RFC 9605 §4.4.3): each frame gets the next
/// counter, so a (key, nonce) pair is never used twice. RFC 9605 §4.4.1: a base key is used by one
/// sender only, and only to encrypt; receivers hold it in an `SFrameDecryptor`.
///
/// Not thread-safe: a sender's frames are encrypted in order by one thread at a time.
public final class SFrameEncryptor {
    public let key: SFrameKey
    /// The counter the next frame gets.
    public private(set) var counter: UInt64
    private let aead: AESGCMContext
    /// Header ‖ metadata, rebuilt per frame in place (capacity kept: no allocation per frame).
    private var aad: [UInt8] = []

    public init(key: SFrameKey, counter: UInt64 = 0) {
        self.key = key
        self.counter = counter
        // A derived key always has the suite's length, which AES-GCM accepts.
        aead = AESGCMContext(key: key.key)!
        aad.reserveCapacity(64)
    }

    /// Appends the SFrame ciphertext of `plaintext` (header ‖ ciphertext ‖ tag) to `out`, with
    /// `metadata` authenticated but not carried (RFC 9605 §4.4.3: `aad = header + metadata`).
    /// - Returns: the header used.
    @discardableResult
    public func encrypt(_ plaintext: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer,
                        appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        try seal(length: plaintext.count, appendingTo: &out) { _ in (plaintext, metadata) }
    }

    /// `encrypt(_:metadata:appendingTo:)` with metadata that `out` already holds at `metadata`
    /// (a frame layout that rewrites its clear bytes, as H.264's does, writes them there first).
    @discardableResult
    public func encrypt(_ plaintext: UnsafeRawBufferPointer, metadataIn metadata: Range<Int>,
                        appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        precondition(metadata.upperBound <= out.count, "metadata outside the output buffer")
        return try seal(length: plaintext.count, appendingTo: &out) { buffer in (plaintext, UnsafeRawBufferPointer(rebasing: buffer[metadata])) }
    }

    /// `encrypt(_:metadata:appendingTo:)` with plaintext and metadata that `out` already holds
    /// (a layout that gathers its plaintext from several places, as AV1's does, writes it there
    /// first): the SFrame ciphertext is appended after them.
    @discardableResult
    public func encrypt(plaintextIn plaintext: Range<Int>, metadataIn metadata: Range<Int>,
                        appendingTo out: inout [UInt8]) throws(SFrameError) -> SFrameHeader {
        precondition(plaintext.upperBound <= out.count && metadata.upperBound <= out.count, "input outside the output buffer")
        return try seal(length: plaintext.count, appendingTo: &out) { buffer in
            (UnsafeRawBufferPointer(rebasing: buffer[plaintext]), UnsafeRawBufferPointer(rebasing: buffer[metadata]))
        }
    }

    /// Seals the `length` bytes of plaintext that `input` gives (read once `out` has room for the
    /// SFrame ciphertext, with the metadata) into the end of `out`.
    private func seal(length: Int, appendingTo out: inout [UInt8],
                      input: (UnsafeMutableRawBufferPointer) -> (plaintext: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer))
        throws(SFrameError) -> SFrameHeader {
        guard counter < .max else { throw .counterExhausted }
        let header = SFrameHeader(keyID: key.keyID, counter: counter)
        let start = out.count, headerLength = header.encodedLength
        out.append(contentsOf: repeatElement(0, count: headerLength + length + key.suite.tagLength))
        let key = self.key
        let sealed = out.withUnsafeMutableBytes { buffer -> Bool in
            let headerBytes = UnsafeMutableRawBufferPointer(rebasing: buffer[start ..< start + headerLength])
            header.write(into: headerBytes)
            let (plaintext, metadata) = input(buffer)
            aad.removeAll(keepingCapacity: true)
            aad.append(contentsOf: UnsafeRawBufferPointer(headerBytes))
            aad.append(contentsOf: metadata)
            var nonce: (UInt64, UInt32) = (0, 0)
            return withUnsafeMutableBytes(of: &nonce) { nonce in
                key.nonce(counter: header.counter, into: nonce)
                return aad.withUnsafeBytes { aad in
                    aead.seal(nonce: UnsafeRawBufferPointer(nonce), aad: aad, plaintext: plaintext,
                              into: UnsafeMutableRawBufferPointer(rebasing: buffer[(start + headerLength)...]))
                }
            }
        }
        precondition(sealed, "AES-GCM encryption failed in OpenSSL")
        counter += 1
        return header
    }
}
