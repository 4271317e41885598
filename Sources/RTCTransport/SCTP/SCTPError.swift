/// Why an SCTP association could not be set up or a message not sent.
public enum SCTPError: Error, Sendable, Equatable {
    /// usrsctp refused to create or configure the socket; the text names the call and errno.
    case setupFailed(String)
    /// The association is not established (yet, or any more).
    case notConnected
    /// The send buffer is full; a lossy message is dropped, a reliable one should wait.
    case wouldBlock
    /// The message is larger than the peer accepts (`a=max-message-size`, RFC 8841 §6).
    case messageTooLarge(size: Int, limit: Int)
    /// usrsctp refused the send; the text carries errno.
    case sendFailed(String)
}
