import SRTCProtocol

/// The room's entry points: each posts to the room's inbox and awaits the answer, so a change
/// is applied after everything that happened before it and before everything after it
/// (docs/architecture.md, "One ordered stream per room"). Callable from any context.
extension ChannelRoom {
    /// Runs `body` on the room once everything posted before it has been applied; `fallback`
    /// when the room closed first (the job never runs then).
    nonisolated func perform<T: Sendable>(ifClosed fallback: T, _ body: @escaping @Sendable (isolated ChannelRoom) async -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let posted = inbox.post { room in continuation.resume(returning: await body(room)) }
            if !posted { continuation.resume(returning: fallback) }
        }
    }

    /// Queues a media event or a timer; returns at once (the SFU's I/O thread calls it).
    nonisolated func post(_ event: RoomEvent) {
        inbox.post(event)
    }

    // MARK: - Sessions

    /// Admits a verified session (`admit`). On success the `joined` response to `requestId` is
    /// queued on `connection` before any later event of the room reaches it.
    /// - Parameters:
    ///   - iceServers: the session's TURN servers and credentials, added to the response.
    ///   - sealKey: the user's seal key (`SealKey.encoded`), added to the response.
    nonisolated func join(_ request: JoinRequest, claims: TokenClaims, connection: SignalConnection, requestId: Int?,
                          iceServers: [ICEServer] = [], sealKey: String? = nil) async -> Result<JoinResponse, SignalError> {
        await perform(ifClosed: .failure(Self.closedError)) { room in
            var result = await room.admit(request, claims: claims, connection: connection)
            if case .success(var response) = result {
                response.iceServers = iceServers
                response.sealKey = sealKey
                result = .success(response)
            }
            if let requestId, case .success(let response) = result {
                connection.send(.response(id: requestId, Response(type: "join", result: .success(.joined(response)))))
            }
            return result
        }
    }

    /// Answers one request of a joined session (`answer`); the response is queued on
    /// `connection` before any later event of the room reaches it.
    nonisolated func handle(_ request: ClientRequest, uid: String, sessionId: String, connection: SignalConnection) async
        -> Result<ResponseData, SignalError> {
        let type = request.body.typeName
        let answered: Result<ResponseData, SignalError>? = await perform(ifClosed: nil) { room in
            let result = await room.answer(request, uid: uid, sessionId: sessionId, connection: connection)
            connection.send(.response(id: request.id, Response(type: type, result: result)))
            return result
        }
        if let answered { return answered }
        let refused = Result<ResponseData, SignalError>.failure(SignalError(.wrongState, "this session is no longer in the channel"))
        connection.send(.response(id: request.id, Response(type: type, result: refused)))
        return refused
    }

    /// The WebSocket of a session dropped without `leave` (`holdForResume`).
    nonisolated func connectionLost(uid: String, sessionId: String, connection: SignalConnection) async {
        await perform(ifClosed: ()) { $0.holdForResume(uid: uid, sessionId: sessionId, connection: connection) }
    }

    /// Closes the room if nobody is in it; true when it is closed (`closeWhenEmpty`).
    nonisolated func closeIfEmpty() async -> Bool {
        await perform(ifClosed: true) { await $0.closeWhenEmpty() }
    }

    /// Ends every session with `reason` and closes the room (`shutDown`).
    nonisolated func close(reason: DisconnectReason) async {
        await perform(ifClosed: ()) { await $0.shutDown(reason: reason) }
    }

    // MARK: - Server API

    /// Removes `uid`; `false` when not present (`kickUser`).
    nonisolated func kick(uid: String, message: String?) async -> Bool {
        await perform(ifClosed: false) { await $0.kickUser(uid: uid, message: message) }
    }

    /// Delivers a backend message; returns how many got it (`deliverMessage`).
    nonisolated func deliver(_ message: CustomMessage) async -> Int {
        await perform(ifClosed: 0) { $0.deliverMessage(message) }
    }

    /// Delivers a user data packet from the backend on the data channels of `uids` (empty:
    /// everyone); returns how many took it (0 before any media).
    nonisolated func deliverData(_ payload: [UInt8], topic: String?, reliable: Bool, to uids: Set<String>) async -> Result<Int, SignalError> {
        await perform(ifClosed: .success(0)) { room in
            guard room.mediaPrepared, let media = room.media else { return .success(0) }
            do throws(SignalError) { return .success(try await media.publishData(payload, topic: topic, reliable: reliable, to: uids)) } catch {
                return .failure(error)
            }
        }
    }

    /// Sends a live caption to every user (`captionToUsers`); false when the room is closed.
    nonisolated func caption(_ caption: Caption) async -> Bool {
        await perform(ifClosed: false) { $0.captionToUsers(caption) }
    }

    /// Sets the channel's metadata and tells everyone (`updateMetadata`).
    nonisolated func setMetadata(_ value: String?) async {
        await perform(ifClosed: ()) { $0.updateMetadata(value) }
    }
}
