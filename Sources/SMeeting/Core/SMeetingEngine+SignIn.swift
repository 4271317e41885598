import SMeetingProtocol

/// Sign-in and roll call. The host (or a co-host) starts a sign-in with a deadline and sees the
/// count as members sign in; a roll call asks one member to answer in time. Results are stored
/// by the server: `getSignInResults(meetingId:)` reads them, after the meeting too.
extension SMeetingEngine {
    /// The sign-in running now, if any.
    public var currentSignIn: SignInInfo? { state.withLock { $0.meeting.signIn } }

    /// Roll calls running now that I was told about (mine, or all of them for hosts).
    public var currentRollCalls: [SignInInfo] { state.withLock { Array($0.meeting.rollCalls.values) }.sorted { $0.startedAt < $1.startedAt } }

    /// Starts a sign-in of everyone present, open for `duration` seconds (5 to 3600).
    @discardableResult
    public func adminStartSignIn(duration: Int) async throws -> SignInInfo {
        let (client, _) = try inMeeting()
        return try await client.call(.adminStartSignIn, StartSignInReq(duration: duration), SignInInfo.self)
    }

    /// Ends the running sign-in before its deadline; returns the result.
    @discardableResult
    public func adminEndSignIn() async throws -> SignInResult {
        let (client, _) = try inMeeting()
        return try await client.call(.adminEndSignIn, EmptyPayload(), SignInResult.self)
    }

    /// Signs me in to the running sign-in (or the one `signInId` names).
    /// - Throws: `.apiError` 40905 after its deadline, 40401 for an unknown sign-in.
    @discardableResult
    public func signIn(signInId: String? = nil) async throws -> SignInRecord {
        let (client, _) = try inMeeting()
        guard let id = signInId ?? currentSignIn?.signInId else { throw SMeetingError.internalError("no sign-in is running") }
        return try await client.call(.signIn, SignInReq(signInId: id), SignInRecord.self)
    }

    /// Calls `uid`, who must answer within `timeout` seconds (5 to 600).
    /// - Throws: `.apiError` 40401 when `uid` is not in the meeting.
    @discardableResult
    public func adminRollCall(uid: String, timeout: Int = 30) async throws -> SignInInfo {
        let (client, _) = try inMeeting()
        return try await client.call(.adminRollCall, RollCallReq(uid: uid, timeout: timeout), SignInInfo.self)
    }

    /// Answers a roll call of me.
    /// - Throws: `.apiError` 40905 after its deadline.
    @discardableResult
    public func answerRollCall(rollCallId: String) async throws -> SignInRecord {
        let (client, _) = try inMeeting()
        return try await client.call(.answerRollCall, SignInReq(signInId: rollCallId), SignInRecord.self)
    }
}
