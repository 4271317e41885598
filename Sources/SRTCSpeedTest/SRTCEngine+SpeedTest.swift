import RTCWire
import SRTCCore
import Synchronization

/// The network speed test (the documentation's `startSpeedTest:` / `stopSpeedTest`).
extension SRTCEngine {
    /// Starts a speed test against the server's media port; progress and the result arrive
    /// through `delegates` (`SRTCEngineDelegate`). Run it before joining a channel.
    ///
    /// - Throws: `.conflict` while another speed test runs or while a channel is joined (the
    ///   documentation's `RTCEngineErrorConflict`), `.invalidURL` for an empty address or a token
    ///   too long for one datagram, `.engineDestroyed`.
    public func startSpeedTest(_ params: SpeedTestParams) throws {
        guard !isDestroyed else { throw SRTCError.engineDestroyed }
        guard !params.serverAddress.isEmpty else { throw SRTCError.invalidURL(params.serverAddress) }
        guard params.token.utf8.count <= SpeedTestPacket.maximumSize - SpeedTestPacket.headerSize - 2 else {
            throw SRTCError.invalidURL("the token does not fit one speed-test datagram")
        }
        guard getChannels().isEmpty else {
            throw SRTCError.conflict("the engine is in a channel; run the speed test before joining")
        }
        let clamped = params.clamped
        let tester = SpeedTester(params: clamped, bindAddress: configuration.mediaBindAddress) { [weak self] event in
            self?.speedTestEvent(event, linkId: clamped.linkId)
        }
        try speedTestSlot.tester.withLock { running throws(SRTCError) in
            guard running == nil else { throw .conflict("a speed test is already running; stop it first") }
            running = tester
        }
        log(.info, "speed test \(clamped.linkId) to \(clamped.serverAddress):\(clamped.serverPort) for \(clamped.duration) s")
        tester.start()
    }

    /// Stops the running speed test, if any; nothing more is reported for it.
    public func stopSpeedTest() {
        let tester = speedTestSlot.tester.withLock { running -> SpeedTester? in
            defer { running = nil }
            return running
        }
        tester?.stop()
    }

    /// The running speed test, if any (kept in the engine's attachments).
    private var speedTestSlot: SpeedTestSlot { attachments.attachment(SpeedTestSlot.self) }

    /// Delivers a tester's event; the last one frees the slot for the next test.
    private func speedTestEvent(_ event: SpeedTestMachine.Event, linkId: String) {
        switch event {
        case .progress(let progress):
            delegates.notify { [weak self] d in if let self { d.engine(self, speedTestDidProgress: progress) } }
        case .finished(let result):
            speedTestSlot.tester.withLock { $0 = nil }
            delegates.notify { [weak self] d in if let self { d.engine(self, speedTestDidFinish: result) } }
        case .failed(let error):
            speedTestSlot.tester.withLock { $0 = nil }
            delegates.notify { [weak self] d in if let self { d.engine(self, speedTestDidFail: error, linkId: linkId) } }
        }
    }
}

/// The engine's running speed test, if any (one at a time); destroying the engine stops it.
final class SpeedTestSlot: EngineAttachment {
    let tester = Mutex<SpeedTester?>(nil)

    init() {}

    func engineWillDestroy() {
        tester.withLock { running -> SpeedTester? in defer { running = nil }; return running }?.stop()
    }
}
