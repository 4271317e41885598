import Dispatch
import Foundation
import RTCNet
import SRTCCore
import SRTCProtocol
import Synchronization

/// The engine's IM service across connections (docs/im.md): logs in, hands every mailbox entry to
/// the `IMDelegate` once and in order, acknowledges it, and when the connection drops reconnects
/// with backoff and resumes after the last entry delivered (`last_seq`), so nothing is lost or
/// repeated. `disableIm()` closes it.
final class IMLink: Sendable {
    private struct State {
        var client: IMClient?
        var lastSeq: Int64
        var uid: String?
        var closed = false
        var reconnect: Task<Void, Never>?
    }

    let url: String
    let token: String
    private let queue: DispatchQueue
    /// How a `wss://` IM server is verified (the engine's `trustedCAFile`).
    private let tls: TLSConfiguration
    private let delegate: @Sendable () -> IMDelegate?
    private weak let engineRef: SRTCEngine?
    private let state: Mutex<State>
    /// Backoff between reconnection attempts, as for channels (then every 4 s).
    static let backoff = ReconnectMachine.Policy()

    init(url: String, token: String, lastSeq: Int64?, engine: SRTCEngine, delegate: @escaping @Sendable () -> IMDelegate?) {
        self.url = url
        self.token = token
        self.queue = engine.delegateQueue
        tls = engine.tlsConfiguration
        self.delegate = delegate
        engineRef = engine
        state = Mutex(State(lastSeq: lastSeq ?? 0))
    }

    var uid: String? { state.withLock { $0.uid } }
    var lastSeq: Int64 { state.withLock { $0.lastSeq } }
    var isConnected: Bool { state.withLock { $0.client != nil && !$0.closed } }

    // MARK: - Lifecycle

    /// Connects and logs in; throws what refused it (nothing is retried on a first failure).
    func open(hadLastSeq: Bool) async throws(SRTCError) {
        try await connect(resume: hadLastSeq)
    }

    /// Closes for good (`disableIm`); `imDidDisconnect` follows with no error.
    func close() {
        let (client, reconnect, wasClosed) = state.withLock { s -> (IMClient?, Task<Void, Never>?, Bool) in
            defer { s.closed = true; s.client = nil }
            return (s.client, s.reconnect, s.closed)
        }
        reconnect?.cancel()
        client?.close()
        if !wasClosed { notify { engine, d in d.imDidDisconnect(engine, error: nil) } }
    }

    /// The current connection, for requests.
    func connected() throws(SRTCError) -> IMClient {
        try state.withLock { s throws(SRTCError) -> IMClient in
            guard !s.closed else { throw .wrongState("IM is not enabled") }
            guard let client = s.client else { throw .connectionFailed("IM is reconnecting") }
            return client
        }
    }

    // MARK: - Connecting

    /// One connection: open, log in with the resume point, then deliver.
    private func connect(resume: Bool) async throws(SRTCError) {
        let client = try await IMClient.connect(url: url, tls: tls)
        client.start(onMessage: { [weak self] message in self?.received(message, on: client) },
                     onClose: { [weak self] in self?.lost(client) })
        let last = state.withLock { $0.lastSeq }
        let request = IMLoginRequest(token: token, lastSeq: resume || last > 0 ? last : nil, sdk: "srtc-swift/\(SRTCEngine.version)")
        let response: IMLoginResponse
        do {
            // The server's resume point is the truth (it may have less than the client thinks, after
            // a restore); it is set before the replay that follows the answer is handled.
            response = try await client.call(.login, request, IMLoginResponse.self) { [weak self] response in
                self?.state.withLock { $0.lastSeq = response.resumeFrom }
            }
        } catch {
            client.close()
            throw error
        }
        SRTCEngine.rememberSealKey(response.sealKey, uid: response.uid, token: token)
        let accepted = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.client = client
            s.uid = response.uid
            return true
        }
        guard accepted else {
            client.close()
            throw .wrongState("IM was disabled")
        }
        notify { engine, d in d.imDidConnect(engine) }
    }

    /// The connection dropped: reconnect until it works, IM is disabled, or the token is refused.
    private func lost(_ client: IMClient) {
        let start = state.withLock { s -> Bool in
            guard !s.closed, s.client === client || s.client == nil, s.reconnect == nil else { return false }
            s.client = nil
            return true
        }
        guard start else { return }
        notify { engine, d in d.imIsReconnecting(engine) }
        let task = Task { [weak self] in
            var attempt = 0
            while let self, !Task.isCancelled {
                try? await TimerQueue.shared.sleep(for: .milliseconds(Int(Self.backoff.delay(attempt: attempt) * 1000)))
                attempt += 1
                guard !Task.isCancelled else { return }
                do throws(SRTCError) {
                    try await self.connect(resume: true)
                    self.state.withLock { $0.reconnect = nil }
                    return
                } catch .server(let code, let message) where [40106, 40107, 40108].contains(code) {
                    self.state.withLock { $0.reconnect = nil; $0.closed = true }
                    self.notify { engine, d in d.imDidDisconnect(engine, error: .server(code: code, message: message)) }
                    return
                } catch {
                    continue
                }
            }
        }
        state.withLock { $0.reconnect = task }
    }

    // MARK: - Delivery

    /// Reader thread: drops what was delivered already, then hands the entry to the delegate and
    /// acknowledges it once the delegate has seen it.
    private func received(_ message: IMMessage, on client: IMClient) {
        let fresh = state.withLock { s -> Bool in
            guard !s.closed, message.seq > s.lastSeq else { return false }
            s.lastSeq = message.seq
            return true
        }
        guard fresh else { return }
        notify { engine, d in
            d.im(engine, didReceive: message)
            client.send(.ack, IMAckRequest(seq: message.seq))
        }
    }

    private func notify(_ body: @escaping @Sendable (SRTCEngine, IMDelegate) -> Void) {
        queue.async { [weak engineRef, delegate] in
            guard let engine = engineRef, let d = delegate() else { return }
            body(engine, d)
        }
    }
}
