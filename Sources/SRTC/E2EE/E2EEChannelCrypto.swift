import Foundation
import RTCCrypto
import RTCMedia
import RTCNet
import Synchronization

/// One channel's end-to-end encryption at work: the local sender's encryptor (one for all its
/// tracks and layers, so every frame takes a fresh counter under the one key) and a decryptor per
/// remote participant, with the state each one is in.
final class E2EEChannelCrypto: Sendable {
    /// Key ids remembered per remote participant: a sender that published again has a new one; the
    /// oldest is forgotten past this many, so frames naming made-up key ids cannot grow the set.
    static let keyIDsPerParticipant = 4

    private struct Remote {
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        var baseKey: [UInt8]
        var keyIDs: [UInt64] = []
        var state: E2EEState?
        var plain: [UInt8] = []
    }

    private let provider: E2EEKeyProvider
    private let sender = Mutex<(uid: String, encryptor: SFrameEncryptor, out: [UInt8])?>(nil)
    private let remotes = Mutex<[String: Remote]>([:])
    /// Told when a participant's state changes (the channel turns it into a delegate event).
    let stateChanged = CallbackSlot<@Sendable (String, E2EEState) -> Void>()

    init(configuration: E2EEConfiguration) {
        provider = configuration.keyProvider
    }

    /// Sets who this client sends as (at join): a new key id for this session.
    func setLocalUid(_ uid: String) {
        sender.withLock { current in
            guard current?.uid != uid else { return }
            // A random 48-bit key id per session: a sender joining again never reuses a nonce.
            let keyID = UInt64.random(in: 0 ..< 1 << 48)
            let key = SFrameKey(baseKey: provider.baseKey(for: uid), keyID: keyID, suite: .aes128GCMSHA256)
            current = (uid, SFrameEncryptor(key: key), [])
        }
    }

    /// The encrypted form of one frame; nil when there is no local uid yet or the frame is not one
    /// its codec makes (then nothing is sent).
    func encrypt(_ frame: [UInt8], codec: E2EEFrame.Codec) -> [UInt8]? {
        sender.withLock { current -> [UInt8]? in
            guard var state = current else { return nil }
            state.out.removeAll(keepingCapacity: true)
            let done = frame.withUnsafeBytes { (try? E2EEFrame.encrypt($0, codec: codec, with: state.encryptor, appendingTo: &state.out)) != nil }
            current = state
            return done ? state.out : nil
        }
    }

    /// The frame `data` from `uid` carries, or nil (with the participant's state updated) when it
    /// does not decrypt.
    func decrypt(_ data: [UInt8], codec: E2EEFrame.Codec, from uid: String) -> [UInt8]? {
        let (plain, changed) = remotes.withLock { remotes -> ([UInt8]?, E2EEState?) in
            var remote = remotes[uid] ?? Remote(baseKey: provider.baseKey(for: uid))
            remote.plain.removeAll(keepingCapacity: true)
            var result: E2EEState
            do {
                try data.withUnsafeBytes { _ = try E2EEFrame.decrypt($0, codec: codec, with: remote.decryptor, appendingTo: &remote.plain) }
                result = .ok
            } catch SFrameError.unknownKeyID(let keyID) {
                // Shared key: any key id of this sender can be derived; remember a few.
                remote.decryptor.setKey(baseKey: remote.baseKey, keyID: keyID)
                remote.keyIDs.append(keyID)
                if remote.keyIDs.count > Self.keyIDsPerParticipant { remote.decryptor.removeKey(keyID: remote.keyIDs.removeFirst()) }
                let opened = data.withUnsafeBytes { (try? E2EEFrame.decrypt($0, codec: codec, with: remote.decryptor, appendingTo: &remote.plain)) != nil }
                result = opened ? .ok : .decryptionFailed
            } catch {
                result = .decryptionFailed
            }
            let changed = remote.state == result ? nil : result
            remote.state = result
            remotes[uid] = remote
            return (result == .ok ? remote.plain : nil, changed)
        }
        if let changed, let tell = stateChanged.function { tell(uid, changed) }
        return plain
    }

    /// The last state seen for `uid`'s media.
    func state(of uid: String) -> E2EEState? { remotes.withLock { $0[uid]?.state } }
}
