/// A sign-in (everyone present answers before `deadline`) or a roll call (`target_uid` answers).
public struct SignInInfo: Codable, Sendable, Equatable {
    public var signInId: String
    public var kind: SignInKind
    public var startedBy: String
    /// Unix milliseconds.
    public var startedAt: Int64
    /// Unix milliseconds; answers after it are refused (`deadline_passed`).
    public var deadline: Int64
    /// The member called (roll calls).
    public var targetUid: String?

    public init(signInId: String, kind: SignInKind, startedBy: String, startedAt: Int64, deadline: Int64, targetUid: String? = nil) {
        self.signInId = signInId
        self.kind = kind
        self.startedBy = startedBy
        self.startedAt = startedAt
        self.deadline = deadline
        self.targetUid = targetUid
    }
}

/// One member's answer, or its absence (`signed_at` null).
public struct SignInRecord: Codable, Sendable, Equatable {
    public var uid: String
    public var nickname: String
    /// Unix milliseconds; `nil`: did not answer.
    public var signedAt: Int64?

    public init(uid: String, nickname: String, signedAt: Int64?) {
        self.uid = uid
        self.nickname = nickname
        self.signedAt = signedAt
    }
}

/// A stored sign-in or roll call with everyone it asked.
public struct SignInResult: Codable, Sendable, Equatable {
    public var signIn: SignInInfo
    /// Unix milliseconds; `nil` while it runs.
    public var endedAt: Int64?
    public var records: [SignInRecord]

    public init(signIn: SignInInfo, endedAt: Int64?, records: [SignInRecord]) {
        self.signIn = signIn
        self.endedAt = endedAt
        self.records = records
    }

    /// How many answered.
    public var signedCount: Int { records.filter { $0.signedAt != nil }.count }
}

/// `admin_start_sign_in`: everyone present signs in within `duration` seconds (5 to 3600).
public struct StartSignInReq: Codable, Sendable {
    public var duration: Int
    public init(duration: Int) { self.duration = duration }
}

/// `admin_roll_call`: `uid` answers within `timeout` seconds (5 to 600, default 30).
public struct RollCallReq: Codable, Sendable {
    public var uid: String
    public var timeout: Int?
    public init(uid: String, timeout: Int? = nil) { self.uid = uid; self.timeout = timeout }
}

/// `sign_in`, `answer_roll_call`: which sign-in or roll call I answer.
public struct SignInReq: Codable, Sendable {
    public var signInId: String
    public init(signInId: String) { self.signInId = signInId }
}

/// `sign_in_started` (everyone), `roll_call` (the member called, and hosts and co-hosts).
public struct SignInStartedEvent: Codable, Sendable, Equatable {
    public var signIn: SignInInfo
    public init(signIn: SignInInfo) { self.signIn = signIn }
}

/// `sign_in_progress` (hosts and co-hosts): `uid` signed in; `signed` of `total` so far.
public struct SignInProgressEvent: Codable, Sendable, Equatable {
    public var signInId: String
    public var uid: String
    public var signed: Int
    public var total: Int
    public init(signInId: String, uid: String, signed: Int, total: Int) { self.signInId = signInId; self.uid = uid; self.signed = signed; self.total = total }
}

/// `sign_in_ended` (everyone) and `roll_call_result` (the member called, hosts and co-hosts):
/// the result, with who answered and when.
public struct SignInEndedEvent: Codable, Sendable, Equatable {
    public var result: SignInResult
    public init(result: SignInResult) { self.result = result }
}

/// `sign_in_results`: every sign-in and roll call of `meeting_id` (its host, after the meeting too).
public struct SignInResultsReq: Codable, Sendable {
    public var meetingId: String
    public init(meetingId: String) { self.meetingId = meetingId }
}

/// `sign_in_results`' answer and `/server/v1/meeting/sign_ins`.
public struct SignInResultsResp: Codable, Sendable, Equatable {
    public var meetingId: String
    public var results: [SignInResult]
    public init(meetingId: String, results: [SignInResult]) { self.meetingId = meetingId; self.results = results }
}
