import Testing
import RTCNet
import RTCWire
@testable import RTCTransport

@Suite struct ICETests {
    static let serverCreds = ICECredentials(ufrag: "srvU", pwd: "server-password-0123456789")
    static let clientCreds = ICECredentials(ufrag: "cliU", pwd: "client-password-0123456789")
    static let serverAddress = SocketAddress(ip: "127.0.0.1", port: 7881)!
    static let clientAddress = SocketAddress(ip: "127.0.0.1", port: 50000)!

    static func sends(_ actions: [ICEAction]) -> [([UInt8], SocketAddress)] {
        actions.compactMap { if case .send(let b, let to) = $0 { (b, to) } else { nil } }
    }

    /// Runs the agent's checks against the lite responder until the agent is connected.
    static func connect(_ agent: inout ICEControllingAgent, _ lite: inout ICELiteResponder, now: ContinuousClock.Instant) throws {
        var inFlight = sends(agent.start(now: now))
        while let (bytes, _) = inFlight.first, agent.state != .connected {
            inFlight.removeFirst()
            let reply = sends(try deliver(bytes, from: clientAddress, toLite: &lite, now: now))
            for (r, _) in reply { inFlight += sends(try deliver(r, from: serverAddress, toAgent: &agent, now: now)) }
        }
    }

    static func deliver(_ bytes: [UInt8], from: SocketAddress, toLite lite: inout ICELiteResponder, now: ContinuousClock.Instant) throws -> [ICEAction] {
        let message = try STUNMessage(bytes: bytes)
        return bytes.withUnsafeBytes { lite.handle(message, raw: $0, from: from, now: now) }
    }

    static func deliver(_ bytes: [UInt8], from: SocketAddress, toAgent agent: inout ICEControllingAgent, now: ContinuousClock.Instant) throws -> [ICEAction] {
        let message = try STUNMessage(bytes: bytes)
        return bytes.withUnsafeBytes { agent.handle(message, raw: $0, from: from, now: now) }
    }

    func makeAgent() -> ICEControllingAgent {
        ICEControllingAgent(local: Self.clientCreds, remote: Self.serverCreds,
                            remoteCandidates: [ICECandidate(address: Self.serverAddress)], localFamily: .ipv4, tieBreaker: 99)
    }

    @Test func controllingAgentAndLiteResponderNominateAndConnect() throws {
        var agent = makeAgent()
        var lite = ICELiteResponder(local: Self.serverCreds, remote: Self.clientCreds)
        let t0 = ContinuousClock.now
        let first = agent.start(now: t0)
        #expect(first.first == .stateChanged(.checking))
        let check = try #require(Self.sends(first).first)
        #expect(check.1 == Self.serverAddress)
        let checkMessage = try STUNMessage(bytes: check.0)
        #expect(checkMessage.username == "srvU:cliU") // remote:local from the sender's side
        #expect(checkMessage.iceControlling == 99)
        #expect(!checkMessage.hasUseCandidate)

        let liteActions = try Self.deliver(check.0, from: Self.clientAddress, toLite: &lite, now: t0)
        #expect(liteActions.contains(.selected(Self.clientAddress))) // provisional
        #expect(liteActions.contains(.stateChanged(.checking)))
        let response = try #require(Self.sends(liteActions).first)
        let responseMessage = try STUNMessage(bytes: response.0)
        #expect(responseMessage.type == .bindingSuccess)
        #expect(try responseMessage.xorMappedAddress() == STUNAddress(ip: [127, 0, 0, 1], port: 50000))

        let afterCheck = try Self.deliver(response.0, from: Self.serverAddress, toAgent: &agent, now: t0)
        let nomination = try #require(Self.sends(afterCheck).first)
        #expect(try STUNMessage(bytes: nomination.0).hasUseCandidate)

        let liteNominated = try Self.deliver(nomination.0, from: Self.clientAddress, toLite: &lite, now: t0)
        #expect(liteNominated.contains(.stateChanged(.connected)))
        #expect(lite.isNominated)
        let nominationResponse = try #require(Self.sends(liteNominated).first)
        let connected = try Self.deliver(nominationResponse.0, from: Self.serverAddress, toAgent: &agent, now: t0)
        #expect(connected == [.selected(Self.serverAddress), .stateChanged(.connected)])
        #expect(agent.state == .connected)
        #expect(agent.selectedAddress == Self.serverAddress)
    }

    @Test func liteResponderRejectsBadCredentials() throws {
        var lite = ICELiteResponder(local: Self.serverCreds, remote: Self.clientCreds)
        let now = ContinuousClock.now
        func check(username: String, key: String?) -> [UInt8] {
            STUNMessage.iceBindingRequest(transactionID: .random(), username: username, priority: 1, controlling: true,
                                          tieBreaker: 1, useCandidate: true)
                .encoded(integrityKey: key.map { Array($0.utf8) })
        }
        for (bytes, code) in [(check(username: "srvU:cliU", key: "wrong"), 401),
                              (check(username: "other:cliU", key: Self.serverCreds.pwd), 401),
                              (check(username: "srvU:cliU", key: nil), 400)] {
            let actions = try Self.deliver(bytes, from: Self.clientAddress, toLite: &lite, now: now)
            let reply = try STUNMessage(bytes: try #require(Self.sends(actions).first).0)
            #expect(reply.type == .bindingError)
            #expect(reply.errorCode?.code == code)
            #expect(actions.count == 1) // no selection, no state change
        }
        #expect(lite.state == .new)
        #expect(lite.selectedAddress == nil)
    }

    @Test func liteResponderFollowsANominationFromANewAddress() throws {
        var lite = ICELiteResponder(local: Self.serverCreds, remote: Self.clientCreds)
        let now = ContinuousClock.now
        func nominate() -> [UInt8] {
            STUNMessage.iceBindingRequest(transactionID: .random(), username: "srvU:cliU", priority: 1, controlling: true,
                                          tieBreaker: 1, useCandidate: true).encoded(integrityKey: Array(Self.serverCreds.pwd.utf8))
        }
        _ = try Self.deliver(nominate(), from: Self.clientAddress, toLite: &lite, now: now)
        #expect(lite.selectedAddress == Self.clientAddress)
        let moved = SocketAddress(ip: "127.0.0.2", port: 40000)!
        let actions = try Self.deliver(nominate(), from: moved, toLite: &lite, now: now)
        #expect(actions.contains(.selected(moved)))
        #expect(lite.selectedAddress == moved)
        // A nomination from the current address again changes nothing.
        let again = try Self.deliver(nominate(), from: moved, toLite: &lite, now: now)
        #expect(Self.sends(again).count == again.count)
    }

    @Test func liteResponderFailsWhenConsentLapses() throws {
        var lite = ICELiteResponder(local: Self.serverCreds, remote: Self.clientCreds)
        let t0 = ContinuousClock.now
        let request = STUNMessage.iceBindingRequest(transactionID: .random(), username: "srvU:cliU", priority: 1, controlling: true,
                                                    tieBreaker: 1, useCandidate: true).encoded(integrityKey: Array(Self.serverCreds.pwd.utf8))
        _ = try Self.deliver(request, from: Self.clientAddress, toLite: &lite, now: t0)
        #expect(lite.tick(now: t0 + .seconds(29)).isEmpty)
        #expect(lite.tick(now: t0 + .seconds(31)) == [.stateChanged(.failed)])
        #expect(lite.state == .failed)
    }

    @Test func agentRetransmitsThenFailsWithoutAnswers() {
        var agent = makeAgent()
        let t0 = ContinuousClock.now
        let first = Self.sends(agent.start(now: t0))
        #expect(first.count == 1)
        var now = t0
        var transmissions = 1
        var failed = false
        for _ in 0..<400 {
            now += .milliseconds(50)
            let actions = agent.tick(now: now)
            for (bytes, _) in Self.sends(actions) {
                #expect(bytes == first[0].0) // same transaction, same bytes
                transmissions += 1
            }
            if actions.contains(.stateChanged(.failed)) { failed = true; break }
        }
        #expect(transmissions == 7)
        #expect(failed)
        #expect(agent.state == .failed)
    }

    @Test func agentRefreshesConsentAndFailsAfterThirtySilentSeconds() throws {
        var agent = makeAgent()
        var lite = ICELiteResponder(local: Self.serverCreds, remote: Self.clientCreds)
        let t0 = ContinuousClock.now
        try Self.connect(&agent, &lite, now: t0)
        #expect(agent.state == .connected)
        // Answered consent checks keep it connected well past 30 s.
        var now = t0
        var consentChecks = 0
        for _ in 0..<(45 * 10) {
            now += .milliseconds(100)
            for (bytes, _) in Self.sends(agent.tick(now: now)) {
                consentChecks += 1
                for (r, _) in Self.sends(try Self.deliver(bytes, from: Self.clientAddress, toLite: &lite, now: now)) {
                    _ = try Self.deliver(r, from: Self.serverAddress, toAgent: &agent, now: now)
                }
            }
        }
        #expect(agent.state == .connected)
        #expect(consentChecks >= 7 && consentChecks <= 12)
        // Then silence: failed within ~30 s plus one interval.
        var failedAt: ContinuousClock.Instant?
        let silenceStart = now
        for _ in 0..<(40 * 10) {
            now += .milliseconds(100)
            if agent.tick(now: now).contains(.stateChanged(.failed)) { failedAt = now; break }
        }
        let when = try #require(failedAt)
        #expect(when - silenceStart > .seconds(24) && when - silenceStart < .seconds(31))
    }

    /// A NAT rebinding the client's port: the agent's consent checks now come from a new source.
    /// They nominate (USE-CANDIDATE), so the lite responder moves the media address there at the
    /// first one; the old mapping gets nothing more.
    @Test func aConsentCheckFromARebindingNATMovesTheServersMediaAddress() throws {
        var agent = makeAgent()
        var lite = ICELiteResponder(local: Self.serverCreds, remote: Self.clientCreds)
        let t0 = ContinuousClock.now
        try Self.connect(&agent, &lite, now: t0)
        #expect(lite.selectedAddress == Self.clientAddress)
        let rebound = SocketAddress(ip: "127.0.0.1", port: Self.clientAddress.port + 1000)!
        var now = t0, moved: [ICEAction] = []
        for _ in 0..<(7 * 10) where moved.isEmpty {
            now += .milliseconds(100)
            for (bytes, _) in Self.sends(agent.tick(now: now)) {
                let actions = try Self.deliver(bytes, from: rebound, toLite: &lite, now: now)
                moved = actions.filter { if case .selected = $0 { return true } else { return false } }
                for (r, _) in Self.sends(actions) { _ = try Self.deliver(r, from: Self.serverAddress, toAgent: &agent, now: now) }
            }
        }
        #expect(moved == [.selected(rebound)], "within one consent interval (5 s ± 20 %)")
        #expect(lite.selectedAddress == rebound && agent.state == .connected)
    }

    @Test func aSilenceAsksForOneConsentCheckAtOnce() {
        var watch = SilenceWatch()
        let t0 = ContinuousClock.now
        let looks: [(received: Int, atMs: Int)] = [(0, 0), (0, 2000), (5, 3000), (5, 3400), (5, 3500), (5, 9000), (6, 10_000), (6, 10_600)]
        let silent = looks.map { watch.isSilent(received: $0.received, now: t0 + .milliseconds($0.atMs)) }
        // Never received: nothing to miss; 500 ms after the last growth: one check per silence.
        #expect(silent == [false, false, false, false, true, false, false, true])
    }

    @Test func checkConsentNowSendsOneNominatingCheckWhenNoneIsInFlight() throws {
        var agent = makeAgent()
        var lite = ICELiteResponder(local: Self.serverCreds, remote: Self.clientCreds)
        let t0 = ContinuousClock.now
        #expect(agent.checkConsentNow(now: t0).isEmpty)  // not connected yet
        try Self.connect(&agent, &lite, now: t0)
        let now = t0 + .seconds(1)
        let sent = Self.sends(agent.checkConsentNow(now: now))
        #expect(sent.count == 1)
        #expect(agent.checkConsentNow(now: now).isEmpty)  // that one is still in flight
        let request = try STUNMessage(bytes: sent[0].0)
        #expect(request.hasUseCandidate)
    }

    @Test func candidatesBridgeToAndFromTheSDPModel() throws {
        let sdp = try Candidate(parsing: "candidate:7 1 udp 2130706431 127.0.0.1 7881 typ host")
        let candidate = try #require(ICECandidate(sdp))
        #expect(candidate.address == Self.serverAddress)
        #expect(candidate.sdpCandidate.description == sdp.description)
        #expect(ICECandidate(try Candidate(parsing: "candidate:1 1 udp 1 abcd.local 9 typ host")) == nil)
        #expect(DTLSEndpoint.Role(localSetup: .passive) == .server)
        #expect(DTLSEndpoint.Role(localSetup: .active) == .client)
        #expect(DTLSEndpoint.Role(localSetup: .actpass) == nil)
    }

    @Test func hostCandidatesOfASocket() {
        let specific = ICECandidate.hostCandidates(for: SocketAddress(ip: "127.0.0.1", port: 5000)!)
        #expect(specific.map(\.address) == [SocketAddress(ip: "127.0.0.1", port: 5000)!])
        // Bound to the wildcard: the machine's IPv4 interface addresses, each with the socket's port.
        let any = ICECandidate.hostCandidates(for: SocketAddress(ip: "0.0.0.0", port: 5001)!, includeLoopback: true)
        #expect(!any.isEmpty)
        #expect(any.allSatisfy { $0.address.port == 5001 && $0.address.family == .ipv4 && $0.type == "host" })
        #expect(any.contains { $0.address.isLoopback })
        #expect(Set(any.map(\.priority)).count == any.count) // distinct local preferences
    }

    @Test func candidateParsesAndPrints() throws {
        let c = try ICECandidate(sdpAttribute: "a=candidate:842163049 1 udp 1677729535 192.0.2.7 61665 typ srflx raddr 0.0.0.0 rport 0 generation 0")
        #expect(c.foundation == "842163049")
        #expect(c.priority == 1_677_729_535)
        #expect(c.address == SocketAddress(ip: "192.0.2.7", port: 61665))
        #expect(c.type == "srflx")
        let host = ICECandidate(address: Self.serverAddress)
        #expect(host.sdpAttribute == "candidate:1 1 udp 2130706431 127.0.0.1 7881 typ host")
        #expect(throws: ICEError.self) { try ICECandidate(sdpAttribute: "candidate:1 1 tcp 1 1.2.3.4 9 typ host") }
        #expect(throws: ICEError.self) { try ICECandidate(sdpAttribute: "candidate:1 1 udp 1 abcd.local 9 typ host") }
        #expect(throws: ICEError.self) { try ICECandidate(sdpAttribute: "garbage") }
    }
}
