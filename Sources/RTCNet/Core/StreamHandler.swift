/// The protocol spoken over a `StreamConnection` (HTTP server, HTTP client, WebSocket).
/// Every method runs on the connection's event-loop thread.
protocol StreamHandler: AnyObject {
    /// The stream can carry application bytes: connected and, with TLS, past the handshake.
    func streamActive(_ stream: StreamConnection)
    /// New plaintext is in `stream.inbound`; consume what was used and leave the rest.
    func streamReceived(_ stream: StreamConnection)
    /// The peer will send nothing more (FIN or TLS close_notify). Reading has stopped.
    func streamReadClosed(_ stream: StreamConnection)
    /// Every queued byte reached the kernel.
    func streamFlushed(_ stream: StreamConnection)
    /// The handler's deadline (`StreamConnection.deadline`) passed.
    func streamDeadlineExpired(_ stream: StreamConnection)
    /// The stream closed (called once); `error` is `nil` for an orderly local close.
    func streamClosed(_ stream: StreamConnection, error: NetError?)
}

extension StreamHandler {
    func streamActive(_ stream: StreamConnection) {}
    func streamReadClosed(_ stream: StreamConnection) { stream.close() }
    func streamFlushed(_ stream: StreamConnection) {}
    func streamDeadlineExpired(_ stream: StreamConnection) { stream.close(error: .timeout) }
}
