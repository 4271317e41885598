import TestWait
import Testing
import Synchronization
@testable import RTCNet

/// `/ws` echoes every message back; `/deny` is refused with 401; the last server-side socket is
/// kept so tests can check how it closed.
final class WebSocketEchoDelegate: HTTPServerDelegate {
    let lastSocket = Mutex<WebSocket?>(nil)
    let configuration: WebSocketConfiguration?

    init(configuration: WebSocketConfiguration? = nil) { self.configuration = configuration }

    func respond(to request: HTTPRequest) async -> HTTPResponse { .text(404, "not found") }

    func upgrade(_ request: HTTPRequest) async -> WebSocketUpgradeDecision {
        guard request.path == "/ws" else { return .reject(.text(401, "{\"code\":401}")) }
        return .accept(headers: ["X-Session": "s1"], configuration: configuration) { [self] socket in
            lastSocket.withLock { $0 = socket }
            if request.queryParameter("greet") != nil { socket.send(text: "welcome") }
            socket.onMessage { message in socket.send(message) }
        }
    }
}

@Suite struct WebSocketServerTests {
    @Test func clientServerRoundTripOfTextBinaryAndLargeMessages() async throws {
        let delegate = WebSocketEchoDelegate(configuration: .init(maxMessageSize: 4 << 20))
        try await withServer(delegate: delegate) { server in
            let socket = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.port)/ws?token=abc", timeout: hangTimeout)
            #expect(socket.responseHeaders["X-Session"] == "s1")
            let large = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            socket.send(text: "héllo ✓")
            socket.send(binary: [0, 1, 2, 255])
            socket.send(binary: large)
            socket.send(text: "")
            var received: [WebSocketMessage] = []
            for await message in socket.messages {
                received.append(message)
                if received.count == 4 { break }
            }
            #expect(received.count == 4)
            #expect(received.first == .text("héllo ✓"))
            #expect(received.dropFirst().first == .binary([0, 1, 2, 255]))
            #expect(received.dropFirst(2).first == .binary(large))
            #expect(received.last == .text(""))
            #expect(delegate.lastSocket.withLock { $0?.upgradeRequest?.queryParameter("token") } == "abc")
            socket.close()
            #expect(await socket.closed().code == .normalClosure)
        }
    }

    @Test func closeHandshakeCarriesCodeAndReasonBothWays() async throws {
        let delegate = WebSocketEchoDelegate()
        try await withServer(delegate: delegate) { server in
            let socket = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.port)/ws", timeout: hangTimeout)
            socket.close(code: WebSocketCloseCode(4000), reason: "bye now")
            let clientSide = await socket.closed()
            #expect(clientSide == WebSocketCloseInfo(code: WebSocketCloseCode(4000), reason: "bye now"))
            let serverSocket = try #require(delegate.lastSocket.withLock { $0 })
            #expect(await serverSocket.closed() == WebSocketCloseInfo(code: WebSocketCloseCode(4000), reason: "bye now"))
        }
    }

    @Test func serverInitiatedCloseReachesTheClient() async throws {
        let delegate = WebSocketEchoDelegate()
        try await withServer(delegate: delegate) { server in
            let socket = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.port)/ws", timeout: hangTimeout)
            socket.send(text: "sync")  // wait until the server side exists
            for await _ in socket.messages { break }
            let serverSocket = try #require(delegate.lastSocket.withLock { $0 })
            serverSocket.close(code: .policyViolation, reason: "kicked")
            #expect(await socket.closed() == WebSocketCloseInfo(code: .policyViolation, reason: "kicked"))
            #expect(await serverSocket.closed().code == .policyViolation)
        }
    }

    @Test func aMessageSentFromOnOpenArrivesFirst() async throws {
        try await withServer(delegate: WebSocketEchoDelegate()) { server in
            let socket = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.port)/ws?greet=1", timeout: hangTimeout)
            socket.send(text: "echo")
            var received: [WebSocketMessage] = []
            for await message in socket.messages {
                received.append(message)
                if received.count == 2 { break }
            }
            #expect(received == [.text("welcome"), .text("echo")])
        }
    }

    @Test func rejectedUpgradeSurfacesTheStatusAndBody() async throws {
        try await withServer(delegate: WebSocketEchoDelegate()) { server in
            do {
                _ = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.port)/deny", timeout: hangTimeout)
                Issue.record("connect should have failed")
            } catch let error as WebSocketError {
                #expect(error == .handshakeFailed(status: 401, reason: "{\"code\":401}"))
            }
        }
    }

    @Test func wrongVersionGets426WithTheSupportedVersion() async throws {
        try await withServer(delegate: WebSocketEchoDelegate()) { server in
            let raw = try RawClient(port: server.port)
            let response = try #require(await raw.upgrade(version: "8"))
            #expect(response.status == 426)
            #expect(response.headers["Sec-WebSocket-Version"] == "13")
        }
    }

    @Test func rawHandshakeFragmentsAndPingPong() async throws {
        try await withServer(delegate: WebSocketEchoDelegate()) { server in
            let raw = try RawClient(port: server.port)
            let response = try #require(await raw.upgrade())
            #expect(response.status == 101)
            #expect(response.headers["Sec-WebSocket-Accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")  // RFC 6455 §1.3
            // Ping: answered with a pong carrying the same bytes (§5.5.3).
            await raw.sendFrame(opcode: 0x9, payload: Array("are you there".utf8))
            #expect(await raw.readFrame() == WebSocketFrame(opcode: .pong, payload: Array("are you there".utf8)))
            // Three fragments with a ping in between: echoed as one unfragmented message.
            await raw.sendFrame(fin: false, opcode: 0x1, payload: Array("frag".utf8))
            await raw.sendFrame(fin: false, opcode: 0x0, payload: Array("ment".utf8))
            await raw.sendFrame(opcode: 0x9, payload: [])
            await raw.sendFrame(fin: true, opcode: 0x0, payload: Array("ed ✓".utf8))
            #expect(await raw.readFrame() == WebSocketFrame(opcode: .pong, payload: []))
            #expect(await raw.readFrame() == WebSocketFrame(opcode: .text, payload: Array("fragmented ✓".utf8)))
            // Close 1000: echoed, then the server closes TCP (§7.1.1).
            await raw.sendFrame(opcode: 0x8, payload: [0x03, 0xE8])
            #expect(await raw.readFrame() == WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]))
            #expect(await raw.waitForClose())
        }
    }

    static let badFrames: [(String, [UInt8], UInt32?, UInt16)] = [
        // (name, frame bytes after the 2-byte header is built by hand, masking, expected close code)
        ("unmasked frame", [0x81, 0x02, 0x68, 0x69], nil, 1002),
        ("2^63 length", [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4], nil, 1002),
        ("oversized", [0x82, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 0, 1, 2, 3, 4], nil, 1009),
        ("reserved bits", [0xF1, 0x80, 1, 2, 3, 4], nil, 1002),
        ("fragmented close", [0x08, 0x80, 1, 2, 3, 4], nil, 1002),
        ("invalid UTF-8", [0x81, 0x82, 0, 0, 0, 0, 0xC3, 0x28], nil, 1007),
    ]

    @Test(arguments: badFrames)
    func badFramesAreAnsweredWithCloseAndTheRightCode(_ name: String, _ bytes: [UInt8], _ unused: UInt32?, _ code: UInt16) async throws {
        let delegate = WebSocketEchoDelegate(configuration: .init(maxMessageSize: 1 << 16))
        try await withServer(delegate: delegate) { server in
            let raw = try RawClient(port: server.port)
            #expect(await raw.upgrade()?.status == 101)
            await raw.send(bytes)
            let close = try #require(await raw.readFrame(), "\(name)")
            #expect(close.opcode == .close)
            #expect(close.payload.prefix(2) == [UInt8(code >> 8), UInt8(code & 0xFF)][...], "\(name)")
            #expect(await raw.waitForClose())
            raw.close()
            let serverSocket = try #require(delegate.lastSocket.withLock { $0 })
            #expect(await serverSocket.closed().code == WebSocketCloseCode(code))
        }
    }

    @Test func sendsFromManyTasksAllArriveIntact() async throws {
        let delegate = WebSocketEchoDelegate()
        try await withServer(delegate: delegate) { server in
            let socket = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.port)/ws", timeout: hangTimeout)
            socket.send(text: "start")
            for await _ in socket.messages { break }
            let serverSocket = try #require(delegate.lastSocket.withLock { $0 })
            // The server pushes from 8 concurrent tasks; the client must see every message whole.
            await withTaskGroup(of: Void.self) { group in
                for t in 0..<8 {
                    group.addTask {
                        for i in 0..<250 { serverSocket.send(text: "t\(t)-m\(i)-" + String(repeating: "x", count: i)) }
                    }
                }
            }
            var perTask = [Int](repeating: -1, count: 8)
            var count = 0
            for await message in socket.messages {
                guard case .text(let text) = message else { continue }
                let parts = text.split(separator: "-")
                let t = Int(parts[0].dropFirst())!, i = Int(parts[1].dropFirst())!
                #expect(i == perTask[t] + 1, "order within one sender")
                #expect(parts.count == 3 ? parts[2].count == i : i == 0)
                perTask[t] = i
                count += 1
                if count == 2000 { break }
            }
            #expect(count == 2000)
        }
    }

    @Test func shutdownSendsGoingAway() async throws {
        let server = HTTPServer(configuration: .init(loopCount: 1), delegate: WebSocketEchoDelegate())
        try server.start()
        let socket = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(server.port)/ws", timeout: hangTimeout)
        await server.shutdown(gracePeriod: .seconds(2))
        #expect(await socket.closed().code == .goingAway)
    }

    @Test func pingIntervalDropsASilentPeer() async throws {
        let delegate = WebSocketEchoDelegate(configuration: .init(pingInterval: .milliseconds(100)))
        try await withServer(delegate: delegate) { server in
            let raw = try RawClient(port: server.port)
            #expect(await raw.upgrade()?.status == 101)
            // We never answer the pings: within two intervals the server gives up.
            #expect(await raw.readFrame()?.opcode == .ping)
            #expect(await raw.waitForClose())
            let serverSocket = try #require(delegate.lastSocket.withLock { $0 })
            #expect(await serverSocket.closed().code == .abnormalClosure)
        }
    }

    @Test func anUnfinishedFragmentedMessageIsNotKeptAliveByPings() async throws {
        let delegate = WebSocketEchoDelegate(configuration: .init(messageTimeout: .milliseconds(400)))
        try await withServer(delegate: delegate) { server in
            let raw = try RawClient(port: server.port, timeout: 10)
            #expect(await raw.upgrade()?.status == 101)
            // The first fragment of a message that never ends, then pings: the connection is alive,
            // but its buffered fragment must not be kept for as long as it stays so.
            await raw.sendFrame(fin: false, opcode: 0x1, payload: Array(repeating: 0x61, count: 1000))
            var closeCode: UInt16?
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                await raw.sendFrame(opcode: 0x9, payload: [])  // a ping every 50 ms: a client that looks alive
                try await Task.sleep(for: .milliseconds(50))
                guard let frame = await raw.readFrame() else { break }
                if frame.opcode == .close, frame.payload.count >= 2 {
                    closeCode = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
                    break
                }
            }
            #expect(closeCode == 1008)
            let serverSocket = try #require(delegate.lastSocket.withLock { $0 })
            #expect(await serverSocket.closed().code == .policyViolation)
        }
    }

    @Test func aFragmentedMessageFinishedInTimeIsDelivered() async throws {
        let delegate = WebSocketEchoDelegate(configuration: .init(messageTimeout: .seconds(5)))
        try await withServer(delegate: delegate) { server in
            let raw = try RawClient(port: server.port)
            #expect(await raw.upgrade()?.status == 101)
            for round in 0..<3 {  // the deadline is per message, re-armed by each new one
                await raw.sendFrame(fin: false, opcode: 0x1, payload: Array("round ".utf8))
                await raw.sendFrame(opcode: 0x9, payload: [])
                await raw.sendFrame(fin: true, opcode: 0x0, payload: Array("\(round)".utf8))
                #expect(await raw.readFrame()?.opcode == .pong)
                #expect(await raw.readFrame() == WebSocketFrame(opcode: .text, payload: Array("round \(round)".utf8)))
            }
        }
    }
}
