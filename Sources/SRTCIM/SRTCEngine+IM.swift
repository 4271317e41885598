import SRTCCore
import SRTCProtocol
import Synchronization

/// IM, outside channels (the documentation's `enableImWithToken:delegate:`, `disableIm`,
/// `imDelegate`; docs/im.md): one-to-one messages, call signalling and notifications for the
/// account, whatever channels are joined.
extension SRTCEngine {
    /// Receives IM events (held weakly); set by `enableIm(url:token:delegate:)` too.
    public var imDelegate: IMDelegate? {
        get { imSlot.delegate.withLock { $0.value } }
        set { imSlot.delegate.withLock { $0.value = newValue } }
    }

    /// Starts IM: connects to the server's IM WebSocket and logs in; returns once logged in, then
    /// stored entries and new ones arrive through `delegate`. The connection is kept: dropped, it
    /// is resumed without loss or repeats (`IMDelegate.imIsReconnecting`, `imDidConnect`).
    /// - Parameters:
    ///   - url: the server's base URL, as for `Channel.join(url:token:)` (the IM WebSocket is
    ///     `/im/v1/ws` on it).
    ///   - token: an IM token from your backend (`POST /server/v1/im/grant`) or an SMeeting member token.
    ///   - lastSeq: the last entry the app handled in an earlier run, to resume after it; nil
    ///     resumes after the last one acknowledged.
    /// - Throws: `.conflict` when IM is already enabled, `.invalidURL`, `.connectionFailed`,
    ///   `.server` (40106 / 40107 / 40108 for a refused token), `.engineDestroyed`.
    public func enableIm(url: String, token: String, lastSeq: Int64? = nil, delegate: IMDelegate?) async throws {
        guard !isDestroyed else { throw SRTCError.engineDestroyed }
        let webSocketURL = try SignalURL.webSocketURL(for: url, path: "/im/v1/ws")
        if let delegate { imDelegate = delegate }
        let link = IMLink(url: webSocketURL, token: token, lastSeq: lastSeq, engine: self) { [weak self] in self?.imDelegate }
        try imSlot.link.withLock { current throws(SRTCError) in
            guard current == nil else { throw .conflict("IM is already enabled; disableIm() first") }
            current = link
        }
        do {
            try await link.open(hadLastSeq: lastSeq != nil)
        } catch {
            imSlot.link.withLock { if $0 === link { $0 = nil } }
            throw error
        }
    }

    /// Stops IM and closes its connection (`imDidDisconnect` with no error). Nothing happens when
    /// IM is not enabled.
    public func disableIm() {
        let link = imSlot.link.withLock { current -> IMLink? in
            defer { current = nil }
            return current
        }
        link?.close()
    }

    /// Whether IM is enabled and connected now (false while it reconnects).
    public var isImConnected: Bool { imSlot.link.withLock { $0 }?.isConnected ?? false }

    /// My uid once IM is enabled.
    public var imUid: String? { imSlot.link.withLock { $0 }?.uid }

    /// The `seq` of the last entry handed to the `IMDelegate` (keep it to resume in a later run).
    public var imLastSeq: Int64 { imSlot.link.withLock { $0 }?.lastSeq ?? 0 }

    /// Sends a one-to-one message to `to` (a uid that has used IM).
    /// - Throws: `.server` 40401 for an unknown recipient, 41301 when `content` is over the
    ///   server's limit, 42901 when the recipient's mailbox is full; `.wrongState` when IM is not
    ///   enabled, `.connectionFailed` while it reconnects.
    @discardableResult
    public func sendImMessage(to: String, content: String) async throws -> IMSendResponse {
        try await im().call(.send, IMSendRequest(to: to, content: content), IMSendResponse.self)
    }

    /// Invites `to` to a call; its devices ring until it accepts or declines, you cancel, or
    /// `timeoutSeconds` (1–120, default 30) pass. The outcome arrives as a `.callAccepted`,
    /// `.callDeclined`, `.callCancelled` or `.callTimeout` entry.
    /// - Parameters:
    ///   - channel: the SRTC channel you propose to meet in (your app grants the channel tokens).
    ///   - content: app data for the callee (audio or video, a subject…).
    @discardableResult
    public func sendCallInvite(to: String, channel: String? = nil, content: String? = nil, timeoutSeconds: Int? = nil) async throws -> IMInviteResponse {
        try await im().call(.invite, IMInviteRequest(to: to, channel: channel, content: content, timeoutSeconds: timeoutSeconds), IMInviteResponse.self)
    }

    /// Accepts a ringing call (as its callee).
    public func acceptCall(callId: String, content: String? = nil) async throws {
        _ = try await im().call(.accept, IMCallRequest(callId: callId, content: content), JSONEnvelope.Empty.self)
    }

    /// Declines a ringing call (as its callee); `content` reaches the caller (`"busy"`).
    public func declineCall(callId: String, content: String? = nil) async throws {
        _ = try await im().call(.decline, IMCallRequest(callId: callId, content: content), JSONEnvelope.Empty.self)
    }

    /// Cancels a call I placed that still rings.
    public func cancelCall(callId: String, content: String? = nil) async throws {
        _ = try await im().call(.cancel, IMCallRequest(callId: callId, content: content), JSONEnvelope.Empty.self)
    }

    /// This engine's IM state (kept in its attachments).
    private var imSlot: IMSlot { attachments.attachment(IMSlot.self) }

    private func im() throws(SRTCError) -> IMClient {
        guard let link = imSlot.link.withLock({ $0 }) else { throw .wrongState("IM is not enabled") }
        return try link.connected()
    }
}

/// The engine's IM: the link while enabled and the delegate; destroying the engine disables IM.
final class IMSlot: EngineAttachment {
    // @unchecked Sendable: it lives only inside `delegate` (Mutex), which reads and sets the weak reference with its lock held.
    struct WeakDelegate: @unchecked Sendable { weak var value: IMDelegate? }

    let link = Mutex<IMLink?>(nil)
    let delegate = Mutex(WeakDelegate())

    init() {}

    func engineWillDestroy() {
        link.withLock { current -> IMLink? in defer { current = nil }; return current }?.close()
    }
}
