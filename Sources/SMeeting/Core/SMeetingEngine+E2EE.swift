import Foundation
import RTCNet
import SMeetingProtocol
import SRTC

/// End-to-end encrypted meetings (`MeetingCreateReq(e2ee: true)`, docs/e2ee.md "E2EE meetings"):
/// the meeting's channel encrypts every frame under keys derived from a meeting key that the
/// host's client makes and seals to each member's X25519 public key. The key-exchange messages
/// travel as data on the channel (topic `smeeting.e2ee`); the server relays them unread.
extension SMeetingEngine {
    // MARK: - Public API

    /// The meeting key in use and its verification code; nil outside an E2EE meeting or before
    /// this member got its first key (it then sends nothing: no frame leaves unencrypted).
    public var e2eeStatus: SMeetingE2EEStatus? { state.withLock { $0.e2ee }?.status }

    // MARK: - Internals

    /// Turns E2EE on for `channel` (before it is joined) when the meeting is end-to-end encrypted.
    func prepareE2EE(for channel: Channel) throws -> MeetingE2EE? {
        guard state.withLock({ $0.meeting.room?.e2ee == true }) else { return nil }
        let e2ee = MeetingE2EE()
        try channel.setE2EE(E2EEConfiguration(keyProvider: e2ee.provider))
        return e2ee
    }

    /// After the join: the host makes the first key; everyone announces its public key.
    func startKeyExchange(on channel: Channel) {
        guard let e2ee = state.withLock({ $0.e2ee }) else { return }
        if amHost { rotateMeetingKey() }
        sendKeyMessage(e2ee.announcement, to: nil, on: channel)
    }

    /// A key-exchange message arrived on the channel.
    func receiveKeyMessage(_ bytes: [UInt8], from uid: String, on channel: Channel) {
        let (e2ee, me, host) = state.withLock { ($0.e2ee, $0.meeting.me?.uid, $0.meeting.room?.hostUid) }
        guard let e2ee, let me, let host else { return }
        do {
            switch try e2ee.receive(bytes, from: uid, myUid: me, hostUid: host) {
            case .announced(let member, let isNew):
                if me == host {
                    // A member entered (or answers my announcement): a new key that includes it.
                    // (Its announcement may come before the meeting says it entered: then
                    // `e2eeMemberEntered` rotates.) A key I already hold changes nothing; rotating
                    // for it would carry out a pending leave now, before the others leaving with
                    // it are seen (`e2eeMemberLeft`'s settle time), and cost one epoch more.
                    if isNew, state.withLock({ $0.meeting.users[member] != nil }) { rotateMeetingKey() }
                } else if member == host {
                    // A host that entered after me learns my key.
                    sendKeyMessage(e2ee.announcement, to: [host], on: channel)
                }
            case .keyChanged(let status):
                notify { $0.meeting($1, e2eeKeyDidChange: status) }
            }
        } catch {
            notify { $0.meeting($1, e2eeMessageWasRefused: uid, reason: String(describing: error)) }
        }
    }

    /// A member entered: the host's client rotates when its public key came first.
    func e2eeMemberEntered(_ uid: String) {
        guard let e2ee = state.withLock({ $0.e2ee }), amHost, e2ee.knowsKey(of: uid) else { return }
        rotateMeetingKey()
    }

    /// How long the host's client waits after a member left for others leaving with it (a host
    /// removing several, a sub-meeting closing), so that they cost one new key, not one each
    /// (the default of `State.e2eeLeaveSettleNanoseconds`).
    static let e2eeLeaveSettleNanoseconds: UInt64 = 500_000_000

    /// A member left: it is forgotten, and the host's client rotates the key so that it decrypts
    /// nothing sent from now on, once for all the members that leave within the settle time.
    func e2eeMemberLeft(_ uid: String) {
        guard let e2ee = state.withLock({ $0.e2ee }) else { return }
        e2ee.forget(uid: uid)
        guard amHost else { return }
        let (first, settle) = state.withLock { s -> (Bool, UInt64) in
            defer { s.e2eeRotationScheduled = true }
            return (!s.e2eeRotationScheduled, s.e2eeLeaveSettleNanoseconds)
        }
        guard first else { return }
        Task { [weak self] in
            try? await TimerQueue.shared.sleep(for: .nanoseconds(settle))
            guard let self else { return }
            self.state.withLock { $0.e2eeRotationScheduled = false }
            if self.amHost { self.rotateMeetingKey() }
        }
    }

    /// The host changed: the new host's client takes over with a new key (it knows the members'
    /// public keys from the last roster).
    func e2eeHostChanged() {
        guard state.withLock({ $0.e2ee }) != nil, amHost else { return }
        rotateMeetingKey(evenIfRosterUnchanged: true)
    }

    private var amHost: Bool { state.withLock { $0.meeting.me != nil && $0.meeting.me?.uid == $0.meeting.room?.hostUid } }

    /// Host: a new meeting key for everyone in the meeting whose public key is known, sealed to each;
    /// none when that is the roster of the key in use (unless `evenIfRosterUnchanged`: a new host).
    private func rotateMeetingKey(evenIfRosterUnchanged: Bool = false) {
        let (e2ee, me, members, channel) = state.withLock { ($0.e2ee, $0.meeting.me?.uid, Array($0.meeting.users.keys), $0.channel) }
        guard let e2ee, let me, let channel else { return }
        guard evenIfRosterUnchanged || e2ee.rotationChangesRoster(myUid: me, members: members) else { return }
        guard let rotated = e2ee.rotate(myUid: me, members: members) else {
            notify { $0.meeting($1, e2eeMessageWasRefused: me, reason: "the meeting's 256 key epochs are used up") }
            return
        }
        for message in rotated.messages { sendKeyMessage(message.bytes, to: [message.uid], on: channel) }
        notify { $0.meeting($1, e2eeKeyDidChange: rotated.status) }
    }

    /// Sends a key-exchange message, retrying while the channel's data channel is still opening.
    private func sendKeyMessage(_ bytes: [UInt8], to uids: [String]?, on channel: Channel) {
        Task {
            for _ in 0..<100 {
                do {
                    try channel.publishData(Data(bytes), to: uids, topic: MeetingKeyMessage.topic)
                    return
                } catch SRTCError.wrongState(_) {
                    try? await TimerQueue.shared.sleep(for: .milliseconds(100))
                } catch {
                    return
                }
            }
        }
    }
}
