import Foundation
import RTCCrypto
import RTCMedia
import RTCNet
import Synchronization

/// One channel's end-to-end encryption at work: the local sender's encryptor (one for all its
/// tracks and layers, so every frame takes a fresh counter under its key) and a decryptor per
/// remote participant, with the state each one is in.
final class E2EEChannelCrypto: Sendable {
    /// Key ids remembered per remote participant: the oldest is forgotten past this many, so
    /// frames naming made-up key ids cannot grow the set.
    static let keyIDsPerParticipant = 4
    /// Derived keys are checked against the provider again this often (a retired key stops
    /// decrypting at most this late after its window).
    static let recheckNanoseconds: UInt64 = 1_000_000_000

    private struct Sender {
        var uid: String
        var generation: UInt64 = .max
        var baseKey: [UInt8]?
        var encryptor: SFrameEncryptor?
        var out: [UInt8] = []
    }

    private struct Remote {
        let decryptor = SFrameDecryptor(suite: .aes128GCMSHA256)
        var keyIDs: [UInt64] = []
        var generation: UInt64 = .max
        var checkedAt: UInt64 = 0
        var state: E2EEState?
        var newestIndex: Int?
        var plain: [UInt8] = []
    }

    private let provider: E2EEKeyProvider
    private let sender = Mutex<Sender?>(nil)
    private let remotes = Mutex<[String: Remote]>([:])
    /// Told when a participant's state changes (the channel turns it into a delegate event).
    let stateChanged = CallbackSlot<@Sendable (String, E2EEState) -> Void>()

    init(configuration: E2EEConfiguration) {
        provider = configuration.keyProvider
    }

    /// Drops what was kept to decrypt `uid` (it left the channel).
    func forget(uid: String) {
        remotes.withLock { _ = $0.removeValue(forKey: uid) }
    }

    /// How many participants' decryption states are kept.
    var rememberedCount: Int { remotes.withLock { $0.count } }

    /// Sets who this client sends as (at join).
    func setLocalUid(_ uid: String) {
        sender.withLock { current in
            if current?.uid != uid { current = Sender(uid: uid) }
        }
    }

    /// The encrypted form of one frame; nil when there is no key to send under yet or the frame is
    /// not one its codec makes (then nothing is sent).
    func encrypt(_ frame: [UInt8], codec: E2EEFrame.Codec) -> [UInt8]? {
        let generation = provider.generation
        return sender.withLock { current -> [UInt8]? in
            guard var state = current else { return nil }
            if state.generation != generation {
                // Keys changed: a newer key (or other bytes) starts a new session under a new key id.
                state.generation = generation
                let index = provider.currentIndex(for: state.uid)
                let base = index.flatMap { provider.baseKey(for: state.uid, index: $0) }
                if let index, let base, base != state.baseKey || state.encryptor.map({ E2EEKeyProvider.index(of: $0.key.keyID) }) != index {
                    state.encryptor = SFrameEncryptor(key: SFrameKey(baseKey: base, keyID: E2EEKeyProvider.newKeyID(index: index), suite: .aes128GCMSHA256))
                } else if base == nil {
                    state.encryptor = nil
                }
                state.baseKey = base
            }
            var done = false
            state.out.removeAll(keepingCapacity: true)
            if let encryptor = state.encryptor {
                done = frame.withUnsafeBytes { (try? E2EEFrame.encrypt($0, codec: codec, with: encryptor, appendingTo: &state.out)) != nil }
            }
            current = state
            return done ? state.out : nil
        }
    }

    /// The frame `data` from `uid` carries, or nil (with the participant's state updated) when it
    /// does not decrypt.
    func decrypt(_ data: [UInt8], codec: E2EEFrame.Codec, from uid: String) -> [UInt8]? {
        let generation = provider.generation
        let now = DispatchTime.now().uptimeNanoseconds
        let (plain, told) = remotes.withLock { remotes -> ([UInt8]?, E2EEState?) in
            var remote = remotes[uid] ?? Remote()
            if remote.generation != generation || now &- remote.checkedAt > Self.recheckNanoseconds {
                // Keys may have changed or retired: derive again from the provider on demand.
                for keyID in remote.keyIDs { remote.decryptor.removeKey(keyID: keyID) }
                remote.keyIDs = []
                remote.generation = generation
                remote.checkedAt = now
            }
            remote.plain.removeAll(keepingCapacity: true)
            let (result, index) = open(data, codec: codec, uid: uid, remote: &remote)
            var told: E2EEState? = remote.state == result ? nil : result
            if result == .ok, let index {
                if let newest = remote.newestIndex, index > newest { told = .keyRatcheted }
                remote.newestIndex = max(remote.newestIndex ?? index, index)
            }
            remote.state = told ?? remote.state
            remotes[uid] = remote
            return (result == .ok ? remote.plain : nil, told)
        }
        if let told, let tell = stateChanged.function { tell(uid, told) }
        return plain
    }

    /// Decrypts into `remote.plain`, deriving the key the frame names when it is new; the result
    /// and the key index used.
    private func open(_ data: [UInt8], codec: E2EEFrame.Codec, uid: String, remote: inout Remote) -> (E2EEState, Int?) {
        do {
            let header = try data.withUnsafeBytes { try E2EEFrame.decrypt($0, codec: codec, with: remote.decryptor, appendingTo: &remote.plain) }
            return (.ok, E2EEKeyProvider.index(of: header.keyID))
        } catch SFrameError.unknownKeyID(let keyID) {
            let index = E2EEKeyProvider.index(of: keyID)
            guard let base = provider.baseKey(for: uid, index: index) else { return (.missingKey, nil) }
            remote.decryptor.setKey(baseKey: base, keyID: keyID)
            remote.keyIDs.append(keyID)
            if remote.keyIDs.count > Self.keyIDsPerParticipant { remote.decryptor.removeKey(keyID: remote.keyIDs.removeFirst()) }
            let opened = data.withUnsafeBytes { (try? E2EEFrame.decrypt($0, codec: codec, with: remote.decryptor, appendingTo: &remote.plain)) != nil }
            return opened ? (.ok, index) : (.decryptionFailed, nil)
        } catch {
            return (.decryptionFailed, nil)
        }
    }
}
