import Foundation
import RTCCrypto
import SRTCProtocol
import SRTCServer

/// The sending side of one IM session as the service sees it: thread-safe, never blocks.
protocol IMConnection: AnyObject, Sendable {
    func send(text: String)
}

/// The IM service (docs/im.md): who is online, mailboxes, calls, notifications. An actor, so an
/// account's entries are numbered, stored and pushed in one order: a session that logs in gets
/// its login response, then the stored entries after its resume point, then live ones, with no
/// gap and no repeat.
actor IMService {
    struct Account: Hashable { let appId: String; let uid: String }

    let store: any IMStore
    let settings: IMSettings
    let clock: @Sendable () -> Int64
    private var online: [Account: [ObjectIdentifier: any IMConnection]] = [:]
    private var lastPurge: Int64 = 0

    /// Replay reads the mailbox this many entries at a time.
    static let replayPage = 200

    /// - Parameter clock: Unix milliseconds.
    init(store: any IMStore, settings: IMSettings,
         clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }) {
        self.store = store
        self.settings = settings
        self.clock = clock
    }

    // MARK: - Sessions

    /// Registers `connection` for `uid`, answers the login (`respond`) and replays the entries
    /// after `lastSeq` (or, without it, after the account's acknowledged seq).
    func login(_ connection: any IMConnection, appId: String, uid: String, lastSeq: Int64?, sessionId: String,
               respond: (IMLoginResponse) -> Void) throws(SignalError) {
        let now = clock()
        let account = Account(appId: appId, uid: uid)
        let (last, acked): (Int64, Int64)
        do {
            try store.touchAccount(appId: appId, uid: uid, now: now)
            (last, acked) = try store.cursors(appId: appId, uid: uid)
        } catch { throw Self.failure(error) }
        let from = min(max(0, lastSeq ?? acked), last)
        online[account, default: [:]][ObjectIdentifier(connection)] = connection
        respond(IMLoginResponse(uid: uid, sessionId: sessionId, resumeFrom: from, lastSeq: last, serverTime: now,
                                maxContentBytes: settings.maxContentBytes))
        var cursor = from
        while cursor < last {
            let page: [IMMessage]
            do { page = try store.messages(appId: appId, uid: uid, after: cursor, limit: Self.replayPage) } catch { throw Self.failure(error) }
            guard let newest = page.last else { break }
            for message in page { connection.send(text: JSONEnvelope.event(IMEventType.message.rawValue, message)) }
            cursor = newest.seq
        }
    }

    /// Forgets a closed session.
    func logout(_ connection: any IMConnection, appId: String, uid: String) {
        let account = Account(appId: appId, uid: uid)
        online[account]?[ObjectIdentifier(connection)] = nil
        if online[account]?.isEmpty == true { online[account] = nil }
    }

    /// Sessions online for `uid` (tests, metrics).
    func sessionCount(appId: String, uid: String) -> Int { online[Account(appId: appId, uid: uid)]?.count ?? 0 }

    func acknowledge(appId: String, uid: String, seq: Int64) throws(SignalError) {
        do { try store.acknowledge(appId: appId, uid: uid, seq: seq) } catch { throw Self.failure(error) }
    }

    // MARK: - Messages

    /// A one-to-one message from `from` to a uid that has used IM.
    func send(appId: String, from: String, _ req: IMSendRequest) throws(SignalError) -> IMSendResponse {
        try checkContent(req.content)
        try checkRecipient(appId: appId, req.to)
        let message = try deliver(IMMessage.draft(msgId: Self.newId("MS"), kind: .message, from: from, to: req.to, content: req.content), appId: appId)
        return IMSendResponse(msgId: message.msgId, sentAt: message.sentAt)
    }

    /// A notification from the backend or another module to each of `uids` (any valid uid: the
    /// backend knows its users). Returns how many mailboxes got it; 0 when its key was used.
    func notify(appId: String, uids: [String], _ n: UserNotification) throws(SignalError) -> Int {
        guard let kind = IMMessageKind(rawValue: n.kind), kind == .notification || kind == .meetingReminder else {
            throw SignalError(.invalidParameter, "kind must be notification or meeting_reminder")
        }
        try checkContent(n.content)
        if let title = n.title { try checkContent(title) }
        if let data = n.data { try checkContent(data) }
        guard !uids.isEmpty, uids.count <= 1000 else { throw SignalError(.invalidParameter, "uids must hold 1 to 1000 uids") }
        for uid in uids where !Identifier.isValid(uid) { throw SignalError(.invalidParameter, "invalid uid \(uid.prefix(64))") }
        if let key = n.dedupeKey {
            let now = clock()
            do {
                guard try store.claim(appId: appId, key: key, now: now, expiresAt: now + Int64(settings.retentionSeconds) * 1000) else { return 0 }
            } catch { throw Self.failure(error) }
        }
        let msgId = Self.newId("NT")
        var delivered = 0
        for uid in Set(uids).sorted() {
            do {
                _ = try deliver(IMMessage.draft(msgId: msgId, kind: kind, from: nil, to: uid, title: n.title, content: n.content, data: n.data), appId: appId)
                delivered += 1
            } catch where error.errorCode == .limitReached {
                continue  // a full mailbox misses a notification; the others still get it
            }
        }
        return delivered
    }

    /// Numbers and stores one entry, then pushes it to the recipient's online sessions.
    @discardableResult
    func deliver(_ draft: IMMessage, appId: String) throws(SignalError) -> IMMessage {
        let now = clock()
        let message: IMMessage
        do {
            message = try store.append(draft, appId: appId, now: now, expiresAt: now + Int64(settings.retentionSeconds) * 1000,
                                       mailboxSize: settings.mailboxSize)
        } catch { throw Self.failure(error) }
        if let sessions = online[Account(appId: appId, uid: draft.to)] {
            let text = JSONEnvelope.event(IMEventType.message.rawValue, message)
            for connection in sessions.values { connection.send(text: text) }
        }
        return message
    }

    // MARK: - Checks

    func checkContent(_ content: String) throws(SignalError) {
        guard content.utf8.count <= settings.maxContentBytes else {
            throw SignalError(.payloadTooLarge, "content exceeds \(settings.maxContentBytes) bytes")
        }
    }

    func checkRecipient(appId: String, _ uid: String) throws(SignalError) {
        guard Identifier.isValid(uid) else { throw SignalError(.invalidParameter, "invalid uid \(uid.prefix(64))") }
        let known: Bool
        do { known = try store.accountExists(appId: appId, uid: uid) } catch { throw Self.failure(error) }
        guard known else { throw SignalError(.notFound, "unknown recipient \(uid): it has never enabled IM") }
    }

    static func failure(_ error: IMStoreError) -> SignalError {
        switch error {
        case .mailboxFull(let uid): SignalError(.limitReached, "the mailbox of \(uid) is full")
        case .storage(let why): SignalError(.internalError, "storage failed: \(why)")
        }
    }

    static func newId(_ prefix: String) -> String { prefix + SecureRandom.string(count: 18) }

    // MARK: - Timer

    /// Times out ringing calls and, once a minute, purges expired entries.
    func tick() {
        let now = clock()
        timeOutCalls(now: now)
        if now - lastPurge >= 60_000 {
            lastPurge = now
            _ = try? store.purge(now: now)
        }
    }
}

extension IMMessage {
    /// An entry before the store numbers it (`seq` and `sentAt` are set by `IMStore.append`).
    static func draft(msgId: String, kind: IMMessageKind, from: String?, to: String, title: String? = nil, content: String,
                      data: String? = nil, callId: String? = nil, channel: String? = nil) -> IMMessage {
        IMMessage(seq: 0, msgId: msgId, kind: kind, from: from, to: to, title: title, content: content, data: data,
                  callId: callId, channel: channel, sentAt: 0)
    }
}
