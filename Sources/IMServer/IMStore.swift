import SRTCProtocol

/// Where a call invitation is.
public enum IMCallState: String, Sendable, Equatable {
    case ringing, accepted, declined, cancelled
    case timedOut = "timed_out"
}

/// A call invitation between two uids of one app.
public struct IMCall: Sendable, Equatable {
    public var callId: String
    public var appId: String
    public var caller: String
    public var callee: String
    public var channel: String?
    public var state: IMCallState
    /// Unix milliseconds.
    public var createdAt: Int64
    public var expiresAt: Int64

    public init(callId: String, appId: String, caller: String, callee: String, channel: String?, state: IMCallState,
                createdAt: Int64, expiresAt: Int64) {
        self.callId = callId
        self.appId = appId
        self.caller = caller
        self.callee = callee
        self.channel = channel
        self.state = state
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// Why the store refused or failed.
public enum IMStoreError: Error, Sendable, Equatable {
    /// The recipient's mailbox holds `mailboxSize` unacknowledged entries.
    case mailboxFull(uid: String)
    /// The database failed.
    case storage(String)
}

/// The IM service's storage: accounts, mailboxes, calls and delivered notification keys. Every
/// SQL statement of the IM service is behind this interface, so another database can implement
/// it (`SQLIMStore` is the one built in). Times are Unix milliseconds.
public protocol IMStore: Sendable {
    /// Records that `uid` uses IM (created at its first login).
    func touchAccount(appId: String, uid: String, now: Int64) throws(IMStoreError)
    /// Whether `uid` ever logged in to IM.
    func accountExists(appId: String, uid: String) throws(IMStoreError) -> Bool
    /// Numbers `draft` in its recipient's (`to`) mailbox, creating the account when needed, and
    /// stores it sent at `now`; keeps at most `mailboxSize` entries (dropping the oldest
    /// acknowledged ones). The draft's `seq` and `sentAt` are ignored; the stored entry is returned.
    func append(_ draft: IMMessage, appId: String, now: Int64, expiresAt: Int64, mailboxSize: Int) throws(IMStoreError) -> IMMessage
    /// Entries of `uid` after `seq`, oldest first, at most `limit`.
    func messages(appId: String, uid: String, after seq: Int64, limit: Int) throws(IMStoreError) -> [IMMessage]
    /// The newest seq of `uid`'s mailbox and the highest acknowledged one.
    func cursors(appId: String, uid: String) throws(IMStoreError) -> (last: Int64, acked: Int64)
    /// Every entry up to `seq` was handled (a lower `seq` than recorded changes nothing).
    func acknowledge(appId: String, uid: String, seq: Int64) throws(IMStoreError)
    /// Deletes expired entries, calls and keys; returns the entries deleted.
    @discardableResult
    func purge(now: Int64) throws(IMStoreError) -> Int

    func createCall(_ call: IMCall) throws(IMStoreError)
    func call(appId: String, callId: String) throws(IMStoreError) -> IMCall?
    /// Moves a call from `from` to `to`; `false` when it was not in `from` any more.
    func transitionCall(callId: String, from: IMCallState, to: IMCallState) throws(IMStoreError) -> Bool
    /// Ringing calls whose time is up.
    func expiredCalls(now: Int64) throws(IMStoreError) -> [IMCall]

    /// Claims `key` until `expiresAt`; `false` when it was already claimed.
    func claim(appId: String, key: String, now: Int64, expiresAt: Int64) throws(IMStoreError) -> Bool
}
