import RTCCrypto

extension STUNMessage {
    /// Checks MESSAGE-INTEGRITY (RFC 8489 §14.5) against the raw bytes this message was parsed from:
    /// HMAC-SHA1 keyed with `key` (the ICE password for short-term credentials, §9.1.2) over the
    /// bytes before the attribute, with the header length rewritten to end just after it (so a
    /// trailing FINGERPRINT is excluded). Compared in constant time.
    /// - Throws: `STUNError.integrityMismatch` when the attribute is missing or does not match.
    public func verifyIntegrity(in raw: UnsafeRawBufferPointer, key: [UInt8]) throws(STUNError) {
        guard let offset = integrityOffset, offset + 24 <= raw.count, offset >= Self.headerLength else {
            throw .integrityMismatch
        }
        var prefix = Array(raw[0..<offset])
        Self.setLength(&prefix, offset + 24 - Self.headerLength)
        var mac = [UInt8](repeating: 0, count: 20)
        key.withUnsafeBytes { k in
            prefix.withUnsafeBytes { m in
                mac.withUnsafeMutableBytes { Digest.hmacSHA1(key: k, message: m, into: $0) }
            }
        }
        let received = raw[(offset + 4)..<(offset + 24)]
        guard ConstantTime.equals(mac, received) else { throw .integrityMismatch }
    }

    /// `verifyIntegrity(in:key:)` for an array.
    public func verifyIntegrity(in raw: [UInt8], key: [UInt8]) throws(STUNError) {
        var failure: STUNError?
        raw.withUnsafeBytes { bytes in
            do throws(STUNError) { try verifyIntegrity(in: bytes, key: key) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    // MARK: - Typed attribute access

    /// The first attribute of `type`, if present.
    public func attribute(_ type: UInt16) -> STUNAttribute? {
        attributes.first { $0.type == type }
    }

    /// USERNAME as UTF-8 text.
    public var username: String? {
        attribute(STUNAttribute.username).map { String(decoding: $0.value, as: UTF8.self) }
    }

    /// PRIORITY, when present with a 4-byte value.
    public var priority: UInt32? {
        guard let v = attribute(STUNAttribute.priority)?.value, v.count == 4 else { return nil }
        return v.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// `true` when USE-CANDIDATE is present.
    public var hasUseCandidate: Bool { attribute(STUNAttribute.useCandidate) != nil }

    /// The ICE-CONTROLLING tie-breaker, when present.
    public var iceControlling: UInt64? { tieBreaker(STUNAttribute.iceControlling) }

    /// The ICE-CONTROLLED tie-breaker, when present.
    public var iceControlled: UInt64? { tieBreaker(STUNAttribute.iceControlled) }

    private func tieBreaker(_ type: UInt16) -> UInt64? {
        guard let v = attribute(type)?.value, v.count == 8 else { return nil }
        return v.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// XOR-MAPPED-ADDRESS decoded with this message's transaction id.
    public func xorMappedAddress() throws(STUNError) -> STUNAddress? {
        guard let v = attribute(STUNAttribute.xorMappedAddress)?.value else { return nil }
        return try STUNAddress.xorDecoded(v, transactionID: transactionID)
    }

    /// ERROR-CODE as (code, reason), when present and well formed (RFC 8489 §14.8).
    public var errorCode: (code: Int, reason: String)? {
        guard let v = attribute(STUNAttribute.errorCode)?.value, v.count >= 4 else { return nil }
        return (Int(v[2] & 0x07) * 100 + Int(v[3]), String(decoding: v[4...], as: UTF8.self))
    }

    // MARK: - ICE builders (RFC 8445 §7.1–7.3)

    /// A Binding request for an ICE connectivity check, signed with the remote password.
    /// - Parameters:
    ///   - username: `remoteUfrag:localUfrag` (RFC 8445 §7.2.2).
    ///   - controlling: the agent's role and tie-breaker; `useCandidate` nominates the pair.
    public static func iceBindingRequest(
        transactionID: STUNTransactionID, username: String, priority: UInt32,
        controlling: Bool, tieBreaker: UInt64, useCandidate: Bool
    ) -> STUNMessage {
        var attributes: [STUNAttribute] = [.username(username), .priority(priority)]
        attributes.append(controlling ? .iceControlling(tieBreaker: tieBreaker) : .iceControlled(tieBreaker: tieBreaker))
        if useCandidate { attributes.append(.useCandidateFlag) }
        return STUNMessage(type: .bindingRequest, transactionID: transactionID, attributes: attributes)
    }

    /// A Binding success response carrying the request's source as XOR-MAPPED-ADDRESS (RFC 8489 §7.3.1.1).
    public static func bindingSuccess(to request: STUNMessage, mappedAddress: STUNAddress) -> STUNMessage {
        STUNMessage(type: .bindingSuccess, transactionID: request.transactionID,
                    attributes: [.xorMappedAddress(mappedAddress, transactionID: request.transactionID)])
    }

    /// A Binding error response (e.g. 400 Bad Request, 401 Unauthorized, 487 Role Conflict).
    public static func bindingError(to request: STUNMessage, code: Int, reason: String) -> STUNMessage {
        STUNMessage(type: .bindingError, transactionID: request.transactionID,
                    attributes: [.errorCode(code, reason: reason)])
    }
}

extension STUNTransactionID {
    /// A fresh random transaction id (RFC 8489 §6: uniformly random from the 96-bit space).
    public static func random() -> STUNTransactionID {
        STUNTransactionID(high: SecureRandom.uint32(), low: SecureRandom.uint64())
    }
}
