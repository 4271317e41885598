import Foundation

/// User data received on the channel's data channel (`Channel.publishData` of another user,
/// or the backend's `/server/v1/channel/data`).
public struct DataMessage: Sendable, Equatable {
    /// The sender's uid; nil when the customer's backend sent it.
    public var from: String?
    /// The sender's topic, if it gave one.
    public var topic: String?
    public var data: Data
    /// Whether it came on the reliable, ordered channel (else the lossy one).
    public var reliable: Bool
    /// Whether the sender encrypted it end to end (`publishData(…, encrypted: true)`) and it was
    /// decrypted here: only then is it known to come from `from` unchanged (docs/e2ee.md).
    public var encrypted: Bool

    public init(from: String?, topic: String?, data: Data, reliable: Bool, encrypted: Bool = false) {
        self.from = from
        self.topic = topic
        self.data = data
        self.reliable = reliable
        self.encrypted = encrypted
    }
}
