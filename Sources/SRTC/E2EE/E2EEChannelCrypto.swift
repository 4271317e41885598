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
    /// Replay windows of encrypted data messages kept per remote participant, one per key id
    /// (sending session): the oldest is forgotten past this many.
    static let dataWindowsPerParticipant = 8
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
        /// The counters of data messages accepted, per key id (docs/e2ee.md, "Data messages").
        var dataWindows: [(keyID: UInt64, window: SFrameReplayWindow)] = []

        /// Records the data message `header` names: false when it was accepted before or is
        /// older than the window.
        mutating func acceptData(_ header: SFrameHeader) -> Bool {
            let index = dataWindows.firstIndex { $0.keyID == header.keyID } ?? {
                dataWindows.append((header.keyID, SFrameReplayWindow()))
                if dataWindows.count > E2EEChannelCrypto.dataWindowsPerParticipant { dataWindows.removeFirst() }
                return dataWindows.count - 1
            }()
            return dataWindows[index].window.accept(header.counter) == .fresh
        }
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
        seal { encryptor, out in
            _ = try frame.withUnsafeBytes { frame in try E2EEFrame.encrypt(frame, codec: codec, with: encryptor, appendingTo: &out) }
        }
    }

    /// The encrypted form of one video frame: a scalable encoder's temporal unit has each of its
    /// layer frames encrypted apart, one SFrame ciphertext each (as browsers' encoded transforms
    /// hand them out, and as receivers decrypt them: docs/e2ee.md, AV1 and VP9), with `layerFrames`
    /// moved onto the ciphertexts; nil as `encrypt(_:codec:)`, when any layer frame cannot be.
    func encrypt(_ frame: EncodedVideoFrame, codec: E2EEFrame.Codec) -> EncodedVideoFrame? {
        var encrypted = frame
        guard !frame.layerFrames.isEmpty else {
            guard let data = encrypt(frame.data, codec: codec) else { return nil }
            encrypted.data = data
            return encrypted
        }
        encrypted.data.removeAll(keepingCapacity: true)
        for (index, layer) in frame.layerFrames.enumerated() {
            guard let data = encrypt(Array(frame.data[layer.range]), codec: codec) else { return nil }
            let start = encrypted.data.count
            encrypted.data.append(contentsOf: data)
            encrypted.layerFrames[index].range = start ..< encrypted.data.count
        }
        return encrypted
    }

    /// The encrypted payload of one data message (docs/e2ee.md, "Data messages"), under the same
    /// key and counter as the media frames; nil when there is no key to send under yet.
    func encryptData(_ payload: [UInt8], topic: [UInt8]) -> [UInt8]? {
        seal { encryptor, out in
            _ = try payload.withUnsafeBytes { payload in
                try topic.withUnsafeBytes { topic in try E2EEData.encrypt(payload, topic: topic, with: encryptor, appendingTo: &out) }
            }
        }
    }

    /// Runs `write` with the local sender's encryptor (made again when the keys changed) and
    /// its reused output buffer; the bytes written, or nil without a key or when it throws.
    private func seal(_ write: (SFrameEncryptor, inout [UInt8]) throws -> Void) -> [UInt8]? {
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
                done = (try? write(encryptor, &state.out)) != nil
            }
            current = state
            return done ? state.out : nil
        }
    }

    /// The frame `data` from `uid` carries, or nil (with the participant's state updated) when it
    /// does not decrypt.
    func decrypt(_ data: [UInt8], codec: E2EEFrame.Codec, from uid: String) -> [UInt8]? {
        let (plain, told) = withRemote(uid) { remote -> ([UInt8]?, E2EEState?) in
            let (result, header) = open(uid: uid, remote: &remote) { decryptor, out in
                try data.withUnsafeBytes { data in try E2EEFrame.decrypt(data, codec: codec, with: decryptor, appendingTo: &out) }
            }
            let index = header.map { E2EEKeyProvider.index(of: $0.keyID) }
            var told: E2EEState? = remote.state == result ? nil : result
            if result == .ok, let index {
                if let newest = remote.newestIndex, index > newest { told = .keyRatcheted }
                remote.newestIndex = max(remote.newestIndex ?? index, index)
            }
            remote.state = told ?? remote.state
            return (result == .ok ? remote.plain : nil, told)
        }
        if let told, let tell = stateChanged.function { tell(uid, told) }
        return plain
    }

    /// The payload of the encrypted data message `payload` from `uid` with `topic` (UTF-8), or why
    /// it does not decrypt (`missingKey`, `decryptionFailed`) or was accepted before (`replayed`:
    /// its counter is in the sender's replay window, or older than it). Leaves the media state alone.
    func decryptData(_ payload: [UInt8], topic: [UInt8], from uid: String) -> Result<[UInt8], E2EEDataFailure> {
        withRemote(uid) { remote in
            let (result, header) = open(uid: uid, remote: &remote) { decryptor, out in
                try payload.withUnsafeBytes { payload in
                    try topic.withUnsafeBytes { topic in try E2EEData.decrypt(payload, topic: topic, with: decryptor, appendingTo: &out) }
                }
            }
            guard result == .ok, let header else { return .failure(E2EEDataFailure(state: result)) }
            // Only an authenticated counter moves the window.
            return remote.acceptData(header) ? .success(remote.plain) : .failure(E2EEDataFailure(state: .replayed))
        }
    }

    /// Runs `body` on `uid`'s decryption state (its derived keys dropped first when the keys
    /// changed or were last checked a while ago) with its plaintext buffer emptied.
    private func withRemote<T>(_ uid: String, _ body: (inout Remote) -> T) -> T {
        let generation = provider.generation
        let now = DispatchTime.now().uptimeNanoseconds
        return remotes.withLock { remotes -> T in
            var remote = remotes[uid] ?? Remote()
            if remote.generation != generation || now &- remote.checkedAt > Self.recheckNanoseconds {
                // Keys may have changed or retired: derive again from the provider on demand.
                for keyID in remote.keyIDs { remote.decryptor.removeKey(keyID: keyID) }
                remote.keyIDs = []
                remote.generation = generation
                remote.checkedAt = now
            }
            remote.plain.removeAll(keepingCapacity: true)
            let result = body(&remote)
            remotes[uid] = remote
            return result
        }
    }

    /// Decrypts with `read` into `remote.plain`, deriving the key the input names when it is new;
    /// the result and the header of what opened.
    private func open(uid: String, remote: inout Remote,
                      _ read: (SFrameDecryptor, inout [UInt8]) throws -> SFrameHeader) -> (E2EEState, SFrameHeader?) {
        do {
            return (.ok, try read(remote.decryptor, &remote.plain))
        } catch SFrameError.unknownKeyID(let keyID) {
            let index = E2EEKeyProvider.index(of: keyID)
            guard let base = provider.baseKey(for: uid, index: index) else { return (.missingKey, nil) }
            remote.decryptor.setKey(baseKey: base, keyID: keyID)
            remote.keyIDs.append(keyID)
            if remote.keyIDs.count > Self.keyIDsPerParticipant { remote.decryptor.removeKey(keyID: remote.keyIDs.removeFirst()) }
            guard let header = try? read(remote.decryptor, &remote.plain) else { return (.decryptionFailed, nil) }
            return (.ok, header)
        } catch {
            return (.decryptionFailed, nil)
        }
    }
}

/// Why an encrypted data message did not decrypt (`missingKey` or `decryptionFailed`).
struct E2EEDataFailure: Error {
    let state: E2EEState
}
