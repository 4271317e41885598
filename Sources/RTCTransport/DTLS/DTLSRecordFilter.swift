/// Decides, before OpenSSL sees a datagram, whether it is something the handshake could use.
///
/// Until the handshake is done, nothing in a DTLS datagram is authenticated: anyone who can send
/// from the peer's address can inject records, and OpenSSL treats a malformed ClientHello, a
/// plaintext fatal alert or a handshake header claiming a 16 MiB message as fatal. RFC 6347 §4.1.2.7
/// lets a DTLS implementation silently discard invalid records instead of failing the association,
/// and that is what this filter does: a datagram is passed on only when every record in it is well
/// formed and could be part of a handshake with a peer in the other role. What reaches OpenSSL can
/// still fail the handshake (a wrong certificate, no common SRTP profile), and an alert under the
/// negotiated keys (epoch > 0) is authenticated and ends the association as it should.
///
/// Pure: tested on byte fixtures.
public enum DTLSRecordFilter {
    /// Why a datagram was dropped.
    public enum Rejection: Sendable, Equatable {
        /// Fewer bytes than a record header, or a record longer than what follows it (RFC 6347 §4.1).
        case truncatedRecord
        /// A record version that is not DTLS 1.0 or 1.2 (0xFEFF, 0xFEFD).
        case unknownVersion(UInt16)
        /// A content type other than change_cipher_spec, alert, handshake, application_data.
        case unknownContentType(UInt8)
        /// A record longer than 2^14 + 2048 bytes (RFC 6347 §4.1, DTLSCiphertext).
        case recordTooLong(Int)
        /// An alert in epoch 0: unauthenticated, so it cannot end an association.
        case unauthenticatedAlert
        /// Application data before any keys exist.
        case plaintextApplicationData
        /// A change_cipher_spec that is not the single byte 1 (RFC 5246 §7.1).
        case malformedChangeCipherSpec
        /// A handshake fragment header or body that does not fit its record (RFC 6347 §4.2.2).
        case truncatedHandshake
        /// A handshake message the peer's role never sends in plaintext.
        case unexpectedHandshakeType(UInt8)
        /// A handshake message longer than any the peer would send.
        case handshakeTooLong(type: UInt8, length: Int)
        /// A fragment reaching past the end of its message.
        case fragmentOutOfRange
        /// A complete hello whose fields do not parse (RFC 6347 §4.2.1, RFC 5246 §7.4.1).
        case malformedHello
    }

    /// The datagram's verdict for an endpoint in `role`: `nil` to hand it to OpenSSL.
    public static func check(_ datagram: UnsafeRawBufferPointer, receivedBy role: DTLSEndpoint.Role) -> Rejection? {
        var offset = 0
        while offset < datagram.count {
            guard datagram.count - offset >= recordHeaderLength else { return .truncatedRecord }
            let type = datagram[offset]
            let version = UInt16(datagram[offset + 1]) << 8 | UInt16(datagram[offset + 2])
            let epoch = UInt16(datagram[offset + 3]) << 8 | UInt16(datagram[offset + 4])
            let length = Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12])
            let body = offset + recordHeaderLength
            guard version == 0xFEFF || version == 0xFEFD else { return .unknownVersion(version) }
            guard length <= maxRecordLength else { return .recordTooLong(length) }
            guard datagram.count - body >= length else { return .truncatedRecord }
            let fragment = UnsafeRawBufferPointer(rebasing: datagram[body ..< body + length])
            if epoch == 0, let rejection = checkPlaintext(type: type, fragment, role: role) { return rejection }
            if epoch != 0, !(20...23).contains(type) { return .unknownContentType(type) }
            offset = body + length
        }
        return nil
    }

    // MARK: - Internals

    static let recordHeaderLength = 13
    static let handshakeHeaderLength = 12
    static let maxRecordLength = (1 << 14) + 2048

    private static func checkPlaintext(type: UInt8, _ fragment: UnsafeRawBufferPointer, role: DTLSEndpoint.Role) -> Rejection? {
        switch type {
        case 20: return fragment.count == 1 && fragment[0] == 1 ? nil : .malformedChangeCipherSpec
        case 21: return .unauthenticatedAlert
        case 22: return checkHandshake(fragment, role: role)
        case 23: return .plaintextApplicationData
        default: return .unknownContentType(type)
        }
    }

    /// Every handshake fragment in the record (RFC 6347 §4.2.2 header, then the fragment).
    private static func checkHandshake(_ record: UnsafeRawBufferPointer, role: DTLSEndpoint.Role) -> Rejection? {
        guard !record.isEmpty else { return .truncatedHandshake }
        var offset = 0
        while offset < record.count {
            guard record.count - offset >= handshakeHeaderLength else { return .truncatedHandshake }
            let type = record[offset]
            let length = uint24(record, offset + 1)
            let fragmentOffset = uint24(record, offset + 6)
            let fragmentLength = uint24(record, offset + 9)
            let body = offset + handshakeHeaderLength
            guard let limit = maxMessageLength(type: type, sentTo: role) else { return .unexpectedHandshakeType(type) }
            guard length <= limit else { return .handshakeTooLong(type: type, length: length) }
            guard fragmentOffset + fragmentLength <= length else { return .fragmentOutOfRange }
            guard record.count - body >= fragmentLength else { return .truncatedHandshake }
            if fragmentOffset == 0, fragmentLength == length, type == 1 || type == 2 {
                let hello = UnsafeRawBufferPointer(rebasing: record[body ..< body + length])
                guard type == 1 ? isWellFormedClientHello(hello) : isWellFormedServerHello(hello) else { return .malformedHello }
            }
            offset = body + fragmentLength
        }
        return nil
    }

    /// The longest message of `type` the peer of an endpoint in `role` sends in epoch 0 (each at
    /// or below OpenSSL's own limit for it, so what would fail there is dropped here); `nil` for a
    /// type that peer never sends in plaintext (HelloRequest: no renegotiation in WebRTC).
    static func maxMessageLength(type: UInt8, sentTo role: DTLSEndpoint.Role) -> Int? {
        switch (role, type) {
        case (.server, 1): return 16_384        // ClientHello
        case (.server, 11), (.client, 11): return 32_768   // Certificate (a self-signed one in WebRTC)
        case (.server, 16): return 2_048         // ClientKeyExchange
        case (.server, 15): return 16_384        // CertificateVerify
        case (.client, 3): return 258            // HelloVerifyRequest: version + cookie<0..255>
        case (.client, 2): return 16_384         // ServerHello
        case (.client, 4): return 16_384         // NewSessionTicket
        case (.client, 12): return 16_384        // ServerKeyExchange
        case (.client, 13): return 16_384        // CertificateRequest
        case (.client, 14): return 0             // ServerHelloDone
        default: return nil
        }
    }

    /// RFC 6347 §4.2.1: version, random, session_id<0..32>, cookie<0..2^8-1>,
    /// cipher_suites<2..2^16-2>, compression_methods<1..2^8-1>, then optional extensions.
    static func isWellFormedClientHello(_ body: UnsafeRawBufferPointer) -> Bool {
        var reader = Reader(body)
        guard reader.skip(2 + 32),
              let session = reader.vector(lengthBytes: 1), session.count <= 32,
              reader.vector(lengthBytes: 1) != nil,
              let suites = reader.vector(lengthBytes: 2), suites.count >= 2, suites.count % 2 == 0,
              let compression = reader.vector(lengthBytes: 1), !compression.isEmpty else { return false }
        return reader.wellFormedExtensions()
    }

    /// RFC 5246 §7.4.1.3: version, random, session_id<0..32>, cipher_suite, compression_method,
    /// then optional extensions.
    static func isWellFormedServerHello(_ body: UnsafeRawBufferPointer) -> Bool {
        var reader = Reader(body)
        guard reader.skip(2 + 32), let session = reader.vector(lengthBytes: 1), session.count <= 32, reader.skip(3) else { return false }
        return reader.wellFormedExtensions()
    }

    private static func uint24(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> Int {
        Int(bytes[at]) << 16 | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2])
    }

    /// Bounds-checked reading of TLS vectors.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func skip(_ count: Int) -> Bool {
            guard bytes.count - offset >= count else { return false }
            offset += count
            return true
        }

        /// A vector with a 1- or 2-byte length prefix.
        mutating func vector(lengthBytes: Int) -> UnsafeRawBufferPointer? {
            guard bytes.count - offset >= lengthBytes else { return nil }
            let length = lengthBytes == 1 ? Int(bytes[offset]) : Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += lengthBytes
            guard bytes.count - offset >= length else { return nil }
            defer { offset += length }
            return UnsafeRawBufferPointer(rebasing: bytes[offset ..< offset + length])
        }

        /// Nothing left, or an extensions block of (type, length, data) entries filling it exactly.
        mutating func wellFormedExtensions() -> Bool {
            if offset == bytes.count { return true }
            guard let block = vector(lengthBytes: 2), offset == bytes.count else { return false }
            var inner = Reader(block)
            while inner.offset < block.count {
                guard inner.skip(2), inner.vector(lengthBytes: 2) != nil else { return false }
            }
            return true
        }
    }
}
