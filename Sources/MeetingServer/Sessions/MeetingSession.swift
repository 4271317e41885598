import Foundation
import RTCNet
import SMeetingProtocol
import Synchronization

/// One logged-in member's meeting session (docs/meeting-protocol.md). It outlives its WebSocket:
/// when the socket drops, the session stays — in its meeting, for everyone else — for the grace
/// period (SRTC's `reconnect_grace_seconds`); a new socket that logs in with its `session_id`
/// and the `seq` of the last event it handled resumes it and first gets the events it missed,
/// in order. After the grace period the member exits (`disconnected`).
final class MeetingSession: MeetingConnection, Sendable {
    struct State {
        var socket: WebSocket?
        var nextSeq = 1
        /// The latest events, kept for a resume (bounded by count and bytes).
        var kept: [(seq: Int, text: String)] = []
        var keptBytes = 0
        var room: MeetingRoom?
        /// The grace period's end, on the service's timer queue: a resume cancels it, and a
        /// cancelled timer frees its memory at once (a cancelled `Task.sleep` kept about 1.5 KB
        /// until the grace period would have ended, for every drop and resume).
        var graceTimer: TimerQueue.Handle?
        /// Counts the socket's drops, so a grace period that ended late cannot end a later one.
        var drops = 0
        var ended = false
    }

    /// Events kept for a resume; a connection that missed more starts over (`resumed: false`).
    static let maxKeptEvents = 4096
    static let maxKeptBytes = 4 << 20

    let id: String
    let appId: String
    let uid: String
    let nickname: String
    let service: MeetingService
    let state: Mutex<State>

    /// - Parameter nextSeq: the number of its next event (a session taken over from another node
    ///   continues that node's numbering).
    init(id: String, appId: String, uid: String, nickname: String, socket: WebSocket, service: MeetingService, nextSeq: Int = 1) {
        self.id = id
        self.appId = appId
        self.uid = uid
        self.nickname = nickname
        self.service = service
        state = Mutex(State(socket: socket, nextSeq: nextSeq))
    }

    /// The number its next event gets.
    var nextSeq: Int { state.withLock { $0.nextSeq } }

    var room: MeetingRoom? { state.withLock { $0.room } }

    func setRoom(_ room: MeetingRoom?) { state.withLock { $0.room = room } }

    // MARK: - MeetingConnection

    /// Numbers an event, keeps it for a resume and sends it if a socket is attached. Under the
    /// lock, so numbers are sent in order.
    func send(text: String) {
        state.withLock { s in
            let numbered = MeetingCodec.sequenced(text, seq: s.nextSeq)
            s.nextSeq += 1
            s.kept.append((s.nextSeq - 1, numbered))
            s.keptBytes += numbered.utf8.count
            var drop = 0
            while s.kept.count - drop > Self.maxKeptEvents || s.keptBytes > Self.maxKeptBytes {
                s.keptBytes -= s.kept[drop].text.utf8.count
                drop += 1
            }
            if drop > 0 { s.kept.removeFirst(drop) }
            s.socket?.send(text: numbered)
        }
    }

    func removed(from room: MeetingRoom) {
        state.withLock { if $0.room === room { $0.room = nil } }
    }

    // MARK: - Connection lifecycle

    /// The socket dropped: the session waits for a resume until the grace period ends.
    func detach(_ socket: WebSocket) {
        state.withLock { s in
            guard s.socket === socket, !s.ended else { return }
            s.socket = nil
            s.drops += 1
            let drop = s.drops
            s.graceTimer = service.timers.schedule(after: .seconds(service.graceSeconds)) { [weak self] in
                guard let self else { return }
                Task { await self.graceEnded(drop: drop) }
            }
        }
    }

    /// Attaches `socket`: sends `response` (the `login` answer), then every event after
    /// `lastSeq`, before any later event. `false` (nothing attached) when the session ended or
    /// an event after `lastSeq` is no longer kept.
    func resume(on socket: WebSocket, lastSeq: Int, response: String) -> Bool {
        state.withLock { s in
            let oldest = s.kept.first?.seq ?? s.nextSeq
            guard !s.ended, lastSeq >= oldest - 1, lastSeq < s.nextSeq else { return false }
            cancelGraceTimer(&s)
            if let old = s.socket, old !== socket { old.close(code: .normalClosure, reason: "resumed on another connection") }
            s.socket = socket
            socket.send(text: response)
            for event in s.kept where event.seq > lastSeq { socket.send(text: event.text) }
            return true
        }
    }

    /// Ends the session: out of its meeting (or waiting room) with `reason`, forgotten by the
    /// service. `logout` ends it at once (`exit`); a lost connection after the grace period.
    func end(reason: ExitReason) async {
        let (room, wasEnded) = state.withLock { s -> (MeetingRoom?, Bool) in
            defer {
                s.ended = true
                s.room = nil
                cancelGraceTimer(&s)
            }
            return (s.room, s.ended)
        }
        guard !wasEnded else { return }
        service.sessions.forget(self)
        service.forgetSessionRecord(id)
        if let room { await room.exit(uid: uid, connection: self, reason: reason) }
    }

    /// Ends the session here without ending it for the cluster: no exit from its room, and its
    /// record stays (it moved to another node, or this node drains and its client is told to
    /// come back through another one: `rejoin`). `code` closes the socket, if any (1012 on a drain).
    func release(closing code: WebSocketCloseCode? = nil, reason: String = "") {
        let socket = state.withLock { s -> WebSocket? in
            s.ended = true
            s.room = nil
            cancelGraceTimer(&s)
            return s.socket
        }
        service.sessions.forget(self)
        if let code { socket?.close(code: code, reason: reason) }
    }

    /// The grace period of drop number `drop` passed without a resume. A resume that came as
    /// the timer fired attached a socket (and maybe dropped it again): the session goes on.
    private func graceEnded(drop: Int) async {
        let expired = state.withLock { s -> Bool in
            guard s.graceTimer != nil, s.drops == drop, s.socket == nil else { return false }
            s.graceTimer = nil
            return true
        }
        if expired { await end(reason: .disconnected) }
    }

    private func cancelGraceTimer(_ s: inout State) {
        if let timer = s.graceTimer { service.timers.cancel(timer) }
        s.graceTimer = nil
    }

    /// Closes the socket, if any (server shutdown, logout).
    func closeSocket(reason: String) {
        state.withLock { $0.socket }?.close(code: .normalClosure, reason: reason)
    }
}
