import Foundation

/// Keys an app hands to one egress task so that it can decrypt end-to-end encrypted tracks
/// (docs/e2ee.md, "The trusted recorder"): the channel's shared passphrase, or per-participant
/// keys as the SDKs' `setKey(_:for:index:)` takes them. They travel to the worker over its
/// standard input and stay in memory: never stored, never logged (`description` hides them).
public struct EgressE2EEKeys: Codable, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// One sender's key number `index`.
    public struct ParticipantKey: Codable, Sendable, Equatable {
        public var uid: String
        /// 0–255 (the SFrame key id's index).
        public var index: Int
        /// The key bytes, base64 (16–64 bytes).
        public var key: String

        public init(uid: String, index: Int, key: String) {
            self.uid = uid
            self.index = index
            self.key = key
        }

        /// The key's bytes, or nil when `key` is not base64.
        public var bytes: [UInt8]? { Data(base64Encoded: key).map { [UInt8]($0) } }
    }

    /// The shared-key mode's passphrase.
    public var passphrase: String?
    /// The per-participant mode's keys.
    public var keys: [ParticipantKey]?

    public init(passphrase: String? = nil, keys: [ParticipantKey]? = nil) {
        self.passphrase = passphrase
        self.keys = keys
    }

    /// Why the keys cannot be used, or nil: exactly one mode; a passphrase of 1–1024 bytes;
    /// 1–1000 keys, each with a uid, an index in 0…255 and 16–64 bytes of base64.
    public var problem: String? {
        switch (passphrase, keys) {
        case (nil, nil), (.some, .some): return "e2ee holds either passphrase or keys"
        case (let passphrase?, nil):
            return (1...1024).contains(passphrase.utf8.count) ? nil : "e2ee.passphrase must be 1–1024 bytes"
        case (nil, let keys?):
            guard (1...1000).contains(keys.count) else { return "e2ee.keys holds 1–1000 keys" }
            for key in keys {
                guard !key.uid.isEmpty, key.uid.utf8.count <= 128 else { return "e2ee.keys: a key without a valid uid" }
                guard (0...255).contains(key.index) else { return "e2ee.keys: index \(key.index) is outside 0–255" }
                guard let bytes = key.bytes, (16...64).contains(bytes.count) else { return "e2ee.keys: the key of \(key.uid) is not 16–64 bytes of base64" }
            }
            return nil
        }
    }

    public var description: String {
        passphrase != nil ? "EgressE2EEKeys(passphrase: <hidden>)" : "EgressE2EEKeys(\(keys?.count ?? 0) keys: <hidden>)"
    }

    public var debugDescription: String { description }
}
