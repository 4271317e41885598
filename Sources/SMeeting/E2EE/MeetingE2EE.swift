import RTCCrypto
import SMeetingProtocol
import SRTC
import Synchronization

/// One client's side of an end-to-end encrypted meeting (docs/e2ee.md, "E2EE meetings"): its
/// X25519 key pair, the public keys members announced, the meeting key in use and the SFrame keys
/// it gives the meeting's channel (a per-participant `E2EEKeyProvider`: each member's frames
/// under its own key, derived from the meeting key and its uid, at key index = epoch).
///
/// The host's client makes a meeting key at entry and a new one (the next epoch) whenever the
/// members change, and seals each to every member with a known public key. Members accept a
/// sealed key only from the host, for a newer epoch, naming them with their own public key.
final class MeetingE2EE: Sendable {
    /// What the channel encrypts with (`Channel.setE2EE`).
    let provider = E2EEKeyProvider.perParticipant()
    let keyPair: X25519KeyPair

    private struct State {
        var epoch: UInt8?
        var grant: MeetingKeyGrant?
        var publicKeys: [String: [UInt8]] = [:]
    }

    private let state = Mutex(State())

    /// - Parameter keyPair: this stay's key pair (a new random one; tests give RFC 7748's).
    init(keyPair: X25519KeyPair = X25519KeyPair()) {
        self.keyPair = keyPair
    }

    /// What a received message changed.
    enum Received: Equatable {
        /// `uid` announced its public key; `isNew` when it is one this client did not hold for
        /// `uid` (a member repeating the key it announced changes no roster, and must not make
        /// the host rotate early, ahead of a leave's settle time).
        case announced(String, isNew: Bool)
        /// A new meeting key is in use.
        case keyChanged(SMeetingE2EEStatus)
    }

    /// My announcement (sent to everyone at entry, and to a host that announces).
    var announcement: [UInt8] { MeetingKeyMessage.announce(publicKey: keyPair.publicKey).bytes }

    /// The status of the key in use; nil before the first one.
    var status: SMeetingE2EEStatus? {
        state.withLock { s in
            guard let epoch = s.epoch, let grant = s.grant else { return nil }
            return Self.status(grant, epoch: epoch)
        }
    }

    /// Host: a new meeting key (the next epoch) for me and `members` whose public keys are known;
    /// applies it here and returns the sealed key for each other member. Nil when the epochs ran
    /// out (255 rotations: docs/e2ee.md, "Limits").
    func rotate(myUid: String, members: [String]) -> (messages: [(uid: String, bytes: [UInt8])], status: SMeetingE2EEStatus)? {
        state.withLock { s -> (messages: [(uid: String, bytes: [UInt8])], status: SMeetingE2EEStatus)? in
            let epoch: UInt8
            if let current = s.epoch {
                guard current < .max else { return nil }
                epoch = current + 1
            } else {
                epoch = 0
            }
            let grant = MeetingKeyGrant(meetingKey: SecureRandom.bytes(MeetingKeyMessage.keyLength),
                                        roster: roster(myUid: myUid, members: members, publicKeys: s.publicKeys))
            var messages: [(uid: String, bytes: [UInt8])] = []
            for member in grant.roster where member.uid != myUid {
                guard let sealed = try? MeetingKeySeal.seal(grant, epoch: epoch, from: myUid, keyPair: keyPair,
                                                            to: member.uid, publicKey: member.publicKey) else { continue }
                messages.append((member.uid, MeetingKeyMessage.sealedKey(sealed).bytes))
            }
            apply(grant, epoch: epoch, replacing: s.grant)
            s.epoch = epoch
            s.grant = grant
            return (messages, Self.status(grant, epoch: epoch))
        }
    }

    /// Whether a rotation for `members` would seal to another roster than the key in use (a
    /// member gone, or one whose public key is new or changed); true before the first key.
    /// The host's client rotates only then: a member that left without being in the roster, or
    /// that announced the key it already holds, needs no new key.
    func rotationChangesRoster(myUid: String, members: [String]) -> Bool {
        state.withLock { s in
            guard s.epoch != nil, let grant = s.grant else { return true }
            let byUid = { (a: MeetingKeyGrant.Member, b: MeetingKeyGrant.Member) in a.uid < b.uid }
            return roster(myUid: myUid, members: members, publicKeys: s.publicKeys).sorted(by: byUid) != grant.roster.sorted(by: byUid)
        }
    }

    /// Me and every other member of `members` whose public key is known.
    private func roster(myUid: String, members: [String], publicKeys: [String: [UInt8]]) -> [MeetingKeyGrant.Member] {
        var roster = [MeetingKeyGrant.Member(uid: myUid, publicKey: keyPair.publicKey)]
        for uid in Set(members) where uid != myUid {
            if let key = publicKeys[uid] { roster.append(MeetingKeyGrant.Member(uid: uid, publicKey: key)) }
        }
        return roster
    }

    /// Handles a key-exchange message `bytes` from `from` (as the server names the sender).
    func receive(_ bytes: [UInt8], from: String, myUid: String, hostUid: String) throws(MeetingE2EEError) -> Received {
        let message: MeetingKeyMessage
        do { message = try MeetingKeyMessage(parsing: bytes) } catch { throw .malformed(error) }
        switch message {
        case .announce(let publicKey):
            guard publicKey.count == X25519KeyPair.keyLength else { throw .badPublicKey }
            let isNew = state.withLock { s in
                defer { s.publicKeys[from] = publicKey }
                return s.publicKeys[from] != publicKey
            }
            return .announced(from, isNew: isNew)
        case .sealedKey(let sealed):
            guard from == hostUid else { throw .notFromHost(from) }
            let grant = try MeetingKeySeal.open(sealed, from: from, to: myUid, keyPair: keyPair)
            guard grant.roster.contains(MeetingKeyGrant.Member(uid: myUid, publicKey: keyPair.publicKey)),
                  grant.roster.contains(MeetingKeyGrant.Member(uid: from, publicKey: sealed.senderPublicKey)) else { throw .rosterMismatch }
            return try state.withLock { (s) throws(MeetingE2EEError) -> Received in
                if let current = s.epoch, sealed.epoch <= current { throw .staleEpoch(sealed.epoch) }
                apply(grant, epoch: sealed.epoch, replacing: s.grant)
                s.epoch = sealed.epoch
                s.grant = grant
                // A later host seals to the members of this roster: it knows their keys from here.
                for member in grant.roster { s.publicKeys[member.uid] = member.publicKey }
                return .keyChanged(Self.status(grant, epoch: sealed.epoch))
            }
        }
    }

    /// Whether `uid` announced its public key.
    func knowsKey(of uid: String) -> Bool { state.withLock { $0.publicKeys[uid] != nil } }

    /// Forgets what `uid` announced (it left): the next key is not sealed to it.
    func forget(uid: String) {
        _ = state.withLock { $0.publicKeys.removeValue(forKey: uid) }
    }

    /// Gives the channel each roster member's key of `epoch`; members of the previous roster who
    /// are not in this one lose theirs (their frames stop decrypting).
    private func apply(_ grant: MeetingKeyGrant, epoch: UInt8, replacing old: MeetingKeyGrant?) {
        for member in grant.roster {
            provider.setKey(MeetingKeySeal.senderKey(meetingKey: grant.meetingKey, uid: member.uid), for: member.uid, index: Int(epoch))
        }
        let kept = Set(grant.roster.map(\.uid))
        for member in old?.roster ?? [] where !kept.contains(member.uid) { provider.removeKeys(for: member.uid) }
    }

    private static func status(_ grant: MeetingKeyGrant, epoch: UInt8) -> SMeetingE2EEStatus {
        SMeetingE2EEStatus(epoch: Int(epoch), verificationCode: MeetingKeySeal.verificationCode(grant, epoch: epoch),
                           members: grant.roster.map(\.uid))
    }
}

/// The end-to-end encryption of the meeting I am in (`SMeetingEngine.e2eeStatus`,
/// `meeting(_:e2eeKeyDidChange:)`; docs/e2ee.md, "E2EE meetings").
public struct SMeetingE2EEStatus: Sendable, Equatable {
    /// Which meeting key (0 at the start, one more at each change of members).
    public var epoch: Int
    /// Three groups of four digits ("0421 7719 3050"): the same for every member holding this key
    /// with the same view of who is in; compare it aloud to detect a server that slipped in a key.
    public var verificationCode: String
    /// The uids the key was given to, sorted.
    public var members: [String]

    public init(epoch: Int, verificationCode: String, members: [String]) {
        self.epoch = epoch
        self.verificationCode = verificationCode
        self.members = members
    }
}
