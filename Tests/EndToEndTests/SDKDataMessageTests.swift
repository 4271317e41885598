import Foundation
@testable import SRTCCore
import SRTCProtocol
import Synchronization
import TestWait
import Testing

/// User data between SDK engines through the server's data channel fan-out (docs/protocol.md,
/// "Data messages"): what arrived, from whom, in which order, and what did not arrive.
@Suite(.serialized) struct SDKDataMessageTests {
    /// Records the data messages a channel receives.
    final class DataRecorder: ChannelDelegate, @unchecked Sendable {
        private let store = Mutex<[DataMessage]>([])
        var messages: [DataMessage] { store.withLock { $0 } }
        func channel(_ channel: Channel, didReceiveData message: DataMessage) { store.withLock { $0.append(message) } }

        /// The numbers of the messages from `uid` on the reliable or lossy channel, in arrival order.
        func numbers(from uid: String?, reliable: Bool) -> [Int] {
            messages.filter { $0.from == uid && $0.reliable == reliable }.compactMap { Int(String(decoding: $0.data, as: UTF8.self)) }
        }
    }

    struct Peer {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "sdk-data-events"), logLevel: .off,
                                                     mediaBindAddress: "127.0.0.1"))
        let channel: Channel
        let data = DataRecorder()

        init() {
            channel = try! engine.createChannel()  // a live engine: this cannot throw
            channel.delegates.add(delegate: data)
        }

        var dataChannelOpen: Bool { channel.media?.subscribe.dataChannelOpen ?? false }
    }

    @Test func reliableMessagesArriveInOrderAndLossyOnlyAtTheirRecipients() async throws {
        let server = try SDKTestServer()
        let a = Peer(), b = Peer(), c = Peer()
        for (peer, uid) in [(a, "a"), (b, "b"), (c, "c")] {
            try await peer.channel.join(url: server.url, token: server.token(uid: uid, channel: "data"))
        }
        try await eventually("every data channel open") { a.dataChannelOpen && b.dataChannelOpen && c.dataChannelOpen }

        for i in 0..<200 { try a.channel.publishData(Data(String(i).utf8), topic: "count") }
        for i in 0..<50 { try a.channel.publishData(Data(String(i).utf8), reliable: false, to: ["b"]) }
        try a.channel.publishData(Data("end".utf8), to: ["b", "c"], topic: "end")
        for peer in [b, c] {
            try await eventually("the end marker") { peer.data.messages.contains { $0.topic == "end" } }
        }

        // Reliable: all, in order, from a, with the topic; the sender gets nothing back.
        #expect(b.data.numbers(from: "a", reliable: true) == Array(0..<200))
        #expect(c.data.numbers(from: "a", reliable: true) == Array(0..<200))
        #expect(b.data.messages.filter { $0.reliable }.dropLast().allSatisfy { $0.topic == "count" })
        #expect(a.data.messages.isEmpty)
        // Lossy: only b, each number at most once (loopback loses little; unordered allows any order).
        let lossy = b.data.numbers(from: "a", reliable: false)
        #expect(!lossy.isEmpty && Set(lossy).count == lossy.count && lossy.allSatisfy { (0..<50).contains($0) })
        #expect(c.data.numbers(from: "a", reliable: false).isEmpty)
        for peer in [a, b, c] { await peer.channel.leave() }
        await server.stop()
    }

    @Test func withoutPublishDataNothingIsForwardedAndTheBackendSendsToAll() async throws {
        let server = try SDKTestServer()
        let a = Peer(), b = Peer()
        try await a.channel.join(url: server.url, token: server.token(uid: "a", channel: "nodata", publishData: false))
        try await b.channel.join(url: server.url, token: server.token(uid: "b", channel: "nodata"))
        try await eventually("both data channels open") { a.dataChannelOpen && b.dataChannelOpen }

        for i in 0..<10 { try a.channel.publishData(Data(String(i).utf8)) }
        let payload = Data([0, 1, 2, 255])
        let (status, body) = try await server.call("/server/v1/channel/data",
                                                   ["channel": "nodata", "data": payload.base64EncodedString(), "topic": "backend"])
        #expect(status == 200 && body["delivered"] as? Int == 2)
        for peer in [a, b] {
            try await eventually("the backend's packet") { !peer.data.messages.isEmpty }
        }
        // b got only the backend's packet: a's ten went before it on the same channel and were dropped.
        #expect(b.data.messages == [DataMessage(from: nil, topic: "backend", data: payload, reliable: true)])
        #expect(a.data.messages == [DataMessage(from: nil, topic: "backend", data: payload, reliable: true)])

        let (tooLarge, error) = try await server.call("/server/v1/channel/data",
                                                      ["channel": "nodata", "data": Data(count: 16_384).base64EncodedString()])
        #expect(tooLarge == 413 && error["code"] as? Int == APIErrorCode.payloadTooLarge.rawValue)
        #expect(throws: SRTCError.server(code: APIErrorCode.payloadTooLarge.rawValue, message: "data packet exceeds 16384 bytes")) {
            try b.channel.publishData(Data(count: 16_382))
        }
        for peer in [a, b] { await peer.channel.leave() }
        await server.stop()
    }
}
