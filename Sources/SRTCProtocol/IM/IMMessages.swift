/// The IM WebSocket's messages (docs/im.md), shared by the server's `IMServer` and the SDKs.
/// Keys are snake_case on the wire (`JSONEnvelope`).

/// Requests a client sends.
public enum IMRequestType: String, Sendable, CaseIterable {
    case login, ping, send, ack, invite, accept, decline, cancel
}

/// Events the server pushes.
public enum IMEventType: String, Sendable, CaseIterable {
    /// A mailbox entry (`IMMessage`).
    case message
}

/// What a mailbox entry is.
public enum IMMessageKind: String, Codable, Sendable, CaseIterable {
    /// A one-to-one message from another user.
    case message
    /// A system notification from the app's backend (`/server/v1/im/notify`).
    case notification
    /// A scheduled meeting is about to start (`data` holds the meeting).
    case meetingReminder = "meeting_reminder"
    /// Someone calls me (or, in the caller's mailbox, my call went out).
    case callInvite = "call_invite"
    case callAccepted = "call_accepted"
    case callDeclined = "call_declined"
    case callCancelled = "call_cancelled"
    /// Nobody answered before the invitation's timeout.
    case callTimeout = "call_timeout"

    /// The call events.
    public var isCall: Bool { rawValue.hasPrefix("call_") }
}

/// One mailbox entry, delivered with the `message` event.
public struct IMMessage: Codable, Sendable, Equatable {
    /// Position in the recipient's mailbox: 1, 2, 3… without gaps, per uid.
    public var seq: Int64
    /// Unique id of what was sent (one call event or notification shares it across recipients).
    public var msgId: String
    public var kind: IMMessageKind
    /// The sender's uid; nil for the backend and the server.
    public var from: String?
    /// The mailbox's uid.
    public var to: String
    public var title: String?
    public var content: String
    /// App data (notifications; the meeting of a reminder as JSON).
    public var data: String?
    public var callId: String?
    /// The SRTC channel a call invitation proposes.
    public var channel: String?
    /// Unix milliseconds.
    public var sentAt: Int64

    public init(seq: Int64, msgId: String, kind: IMMessageKind, from: String?, to: String, title: String? = nil, content: String,
                data: String? = nil, callId: String? = nil, channel: String? = nil, sentAt: Int64) {
        self.seq = seq
        self.msgId = msgId
        self.kind = kind
        self.from = from
        self.to = to
        self.title = title
        self.content = content
        self.data = data
        self.callId = callId
        self.channel = channel
        self.sentAt = sentAt
    }
}

/// `login`: an IM token (or an SMeeting member token); `last_seq` resumes after what the client
/// already has.
public struct IMLoginRequest: Codable, Sendable, Equatable {
    public var token: String
    public var lastSeq: Int64?
    public var sdk: String?

    public init(token: String, lastSeq: Int64? = nil, sdk: String? = nil) {
        self.token = token
        self.lastSeq = lastSeq
        self.sdk = sdk
    }
}

public struct IMLoginResponse: Codable, Sendable, Equatable {
    public var uid: String
    public var sessionId: String
    /// Where replay starts: entries after this arrive as `message` events right after the response.
    public var resumeFrom: Int64
    /// The newest seq in the mailbox.
    public var lastSeq: Int64
    public var serverTime: Int64
    /// Largest `content` accepted, in bytes.
    public var maxContentBytes: Int
    /// The user's seal key (base64url of 32 bytes, docs/sealed-strings.md), for the SDK's `decrypt`.
    public var sealKey: String?

    public init(uid: String, sessionId: String, resumeFrom: Int64, lastSeq: Int64, serverTime: Int64, maxContentBytes: Int) {
        self.uid = uid
        self.sessionId = sessionId
        self.resumeFrom = resumeFrom
        self.lastSeq = lastSeq
        self.serverTime = serverTime
        self.maxContentBytes = maxContentBytes
    }
}

public struct IMSendRequest: Codable, Sendable, Equatable {
    public var to: String
    public var content: String

    public init(to: String, content: String) {
        self.to = to
        self.content = content
    }
}

public struct IMSendResponse: Codable, Sendable, Equatable {
    public var msgId: String
    public var sentAt: Int64

    public init(msgId: String, sentAt: Int64) {
        self.msgId = msgId
        self.sentAt = sentAt
    }
}

/// `ack`: every entry up to `seq` was handled.
public struct IMAckRequest: Codable, Sendable, Equatable {
    public var seq: Int64

    public init(seq: Int64) { self.seq = seq }
}

public struct IMInviteRequest: Codable, Sendable, Equatable {
    public var to: String
    public var channel: String?
    public var content: String?
    /// Seconds the invitation rings, 5–120 (default 30).
    public var timeoutSeconds: Int?

    public init(to: String, channel: String? = nil, content: String? = nil, timeoutSeconds: Int? = nil) {
        self.to = to
        self.channel = channel
        self.content = content
        self.timeoutSeconds = timeoutSeconds
    }
}

public struct IMInviteResponse: Codable, Sendable, Equatable {
    public var callId: String
    /// Unix milliseconds when the invitation times out.
    public var expiresAt: Int64

    public init(callId: String, expiresAt: Int64) {
        self.callId = callId
        self.expiresAt = expiresAt
    }
}

/// `accept`, `decline` (the callee) and `cancel` (the caller).
public struct IMCallRequest: Codable, Sendable, Equatable {
    public var callId: String
    public var content: String?

    public init(callId: String, content: String? = nil) {
        self.callId = callId
        self.content = content
    }
}

public struct IMPong: Codable, Sendable, Equatable {
    public var serverTime: Int64

    public init(serverTime: Int64) { self.serverTime = serverTime }
}
