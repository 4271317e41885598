import Foundation
@testable import SRTCCore
import SRTCTestSupport
import Synchronization
import TestWait
import Testing

/// End-to-end encrypted data messages through the real server (docs/e2ee.md, "Data messages"):
/// who reads what one encrypted broadcast carries, and what everyone else is told instead.
@Suite struct SDKE2EEDataTests {
    /// Records the data messages and the decryption failures a channel is told of.
    final class DataRecorder: ChannelDelegate, @unchecked Sendable {
        private let store = Mutex<(messages: [DataMessage], failures: [DataDecryptionFailure])>(([], []))
        var messages: [DataMessage] { store.withLock { $0.messages } }
        var failures: [DataDecryptionFailure] { store.withLock { $0.failures } }
        func channel(_ channel: Channel, didReceiveData message: DataMessage) { store.withLock { $0.messages.append(message) } }
        func channel(_ channel: Channel, didFailToDecryptData failure: DataDecryptionFailure) { store.withLock { $0.failures.append(failure) } }
    }

    @Test func encryptedMessagesReachOnlyTheKeyHoldersAndOthersAreToldWhy() async throws {
        let server = try SDKTestServer()
        let shared = E2EEKeyProvider.sharedKey(passphrase: "correct horse battery staple")
        let alice = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared))
        let bob = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared))
        let carol = SDKPeer(e2ee: E2EEConfiguration(keyProvider: .sharedKey(passphrase: "another passphrase")))
        let dave = SDKPeer()
        let peers = [(alice, "alice"), (bob, "bob"), (carol, "carol"), (dave, "dave")]
        let recorders = peers.map { _ in DataRecorder() }
        for ((peer, uid), recorder) in zip(peers, recorders) {
            peer.channel.delegates.add(delegate: recorder)
            try await peer.channel.join(url: server.url, token: server.token(uid: uid, channel: "e2ee-data"))
        }
        try await eventually("every data channel open") {
            peers.allSatisfy { $0.0.channel.media?.subscribe.dataChannelOpen ?? false }
        }

        // Without E2EE there is nothing to encrypt with; a plain payload may not look encrypted.
        #expect(throws: SRTCError.self) { try dave.channel.publishData(Data("x".utf8), encrypted: true) }
        #expect(throws: SRTCError.self) { try dave.channel.publishData(Data([0xff, 0x53, 0x46, 0x01, 0x00])) }

        for i in 0..<20 { try alice.channel.publishData(Data("secret \(i)".utf8), topic: "chat", encrypted: true) }
        try alice.channel.publishData(Data("plain".utf8), topic: "chat")
        let expected = (0..<20).map { "secret \($0)" } + ["plain"]

        // bob, with the passphrase: every message decrypted, in order, marked encrypted but the last.
        try await eventually("bob gets the 21 messages; \(recorders[1].messages.count)") { recorders[1].messages.count >= 21 }
        let got = recorders[1].messages
        #expect(got.map { String(decoding: $0.data, as: UTF8.self) } == expected)
        #expect(got.map(\.encrypted) == Array(repeating: true, count: 20) + [false])
        #expect(got.allSatisfy { $0.from == "alice" && $0.topic == "chat" })
        #expect(recorders[1].failures.isEmpty)

        // carol (another passphrase) and dave (no E2EE): no ciphertext delivered, a failure each.
        for (index, reason) in [(2, E2EEState.decryptionFailed), (3, .missingKey)] {
            let recorder = recorders[index]
            try await eventually("\(peers[index].1) gets the plain message and 20 failures") {
                recorder.messages.count >= 1 && recorder.failures.count >= 20
            }
            #expect(recorder.messages.map { String(decoding: $0.data, as: UTF8.self) } == ["plain"])
            #expect(recorder.failures.allSatisfy { $0 == DataDecryptionFailure(from: "alice", topic: "chat", reliable: true, reason: reason) },
                    "\(recorder.failures.prefix(3))")
        }
        print("encrypted data: bob read \(got.count - 1) encrypted messages; carol \(recorders[2].failures.count) decryptionFailed, dave \(recorders[3].failures.count) missingKey")
    }
}
