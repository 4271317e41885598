/// An end-to-end encrypted data message this client could not decrypt
/// (`ChannelDelegate.channel(_:didFailToDecryptData:)`, docs/e2ee.md, "Data messages"). Its payload
/// is not delivered: what arrives as `didReceiveData` is either plain or decrypted, never ciphertext.
public struct DataDecryptionFailure: Sendable, Equatable {
    /// The sender's uid.
    public var from: String
    /// The sender's topic, if it gave one (it travels in the clear).
    public var topic: String?
    /// Whether it came on the reliable, ordered channel (else the lossy one).
    public var reliable: Bool
    /// `missingKey` (no key for the sender's key index, or no E2EE configured) or
    /// `decryptionFailed` (another key, or bytes changed on the way) or `replayed` (accepted
    /// before, or older than the replay window: docs/e2ee.md, "Data messages").
    public var reason: E2EEState

    public init(from: String, topic: String?, reliable: Bool, reason: E2EEState) {
        self.from = from
        self.topic = topic
        self.reliable = reliable
        self.reason = reason
    }
}
