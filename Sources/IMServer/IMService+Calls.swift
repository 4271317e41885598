import SRTCProtocol

/// Call signalling: an invitation rings until the callee accepts or declines, the caller
/// cancels, or its time is up. Each outcome reaches both parties' mailboxes (so every device of
/// the callee stops ringing); the invitation itself goes to the callee's.
extension IMService {
    static let inviteTimeout = (default: 30, range: 1...120)

    func invite(appId: String, from: String, _ req: IMInviteRequest) throws(SignalError) -> IMInviteResponse {
        try checkRecipient(appId: appId, req.to)
        guard req.to != from else { throw SignalError(.invalidParameter, "a call needs someone else") }
        if let channel = req.channel, !Identifier.isValid(channel) { throw SignalError(.invalidParameter, "invalid channel") }
        let content = req.content ?? ""
        try checkContent(content)
        let timeout = req.timeoutSeconds ?? Self.inviteTimeout.default
        guard Self.inviteTimeout.range.contains(timeout) else {
            throw SignalError(.invalidParameter, "timeout_seconds must be 1 to 120")
        }
        let now = clock()
        let call = IMCall(callId: Self.newId("CL"), appId: appId, caller: from, callee: req.to, channel: req.channel, state: .ringing,
                          createdAt: now, expiresAt: now + Int64(timeout) * 1000)
        do { try store.createCall(call) } catch { throw Self.failure(error) }
        try deliver(IMMessage.draft(msgId: Self.newId("CE"), kind: .callInvite, from: from, to: req.to, content: content,
                            callId: call.callId, channel: call.channel), appId: appId)
        return IMInviteResponse(callId: call.callId, expiresAt: call.expiresAt)
    }

    /// `accept`, `decline` (the callee only) or `cancel` (the caller only) of a ringing call.
    func answer(appId: String, uid: String, _ req: IMCallRequest, _ type: IMRequestType) throws(SignalError) {
        let content = req.content ?? ""
        try checkContent(content)
        let found: IMCall?
        do { found = try store.call(appId: appId, callId: req.callId) } catch { throw Self.failure(error) }
        guard let call = found, call.caller == uid || call.callee == uid else {
            throw SignalError(.notFound, "no call \(req.callId.prefix(64))")
        }
        let (state, kind): (IMCallState, IMMessageKind) = switch type {
        case .accept: (.accepted, .callAccepted)
        case .decline: (.declined, .callDeclined)
        default: (.cancelled, .callCancelled)
        }
        let allowed = type == .cancel ? call.caller == uid : call.callee == uid
        guard allowed else { throw SignalError(.permissionDenied, type == .cancel ? "only the caller cancels" : "only the callee answers") }
        let moved: Bool
        do { moved = try store.transitionCall(callId: call.callId, from: .ringing, to: state) } catch { throw Self.failure(error) }
        guard moved else { throw SignalError(.wrongState, "the call is no longer ringing") }
        try announce(call, kind, from: uid, content: content)
    }

    func timeOutCalls(now: Int64) {
        guard let expired = try? store.expiredCalls(now: now) else { return }
        for call in expired where (try? store.transitionCall(callId: call.callId, from: .ringing, to: .timedOut)) == true {
            try? announce(call, .callTimeout, from: nil, content: "")
        }
    }

    /// An outcome, to the caller's and the callee's mailboxes, with one message id.
    private func announce(_ call: IMCall, _ kind: IMMessageKind, from: String?, content: String) throws(SignalError) {
        let msgId = Self.newId("CE")
        for uid in [call.caller, call.callee] {
            try deliver(IMMessage.draft(msgId: msgId, kind: kind, from: from, to: uid, content: content, callId: call.callId, channel: call.channel),
                        appId: call.appId)
        }
    }
}
