import Foundation
import Testing
import RTCNet
import TestWait
@testable import RTCTransport

/// The media port ticks a connected ICE-lite transport with nothing else running only when its
/// consent could expire (`PeerTransport.quietUntil`), not every 10 ms; a peer gone silent still
/// fails it once consent has expired.
@Suite(.serialized) struct PortTickScheduleTests {
    /// Runs `body` on the transport's I/O thread and returns its result.
    static func onIOThread<T: Sendable>(_ transport: PeerTransport, _ body: @escaping @Sendable (PeerTransport) -> T) async -> T {
        await withCheckedContinuation { continuation in transport.execute { continuation.resume(returning: body($0)) } }
    }

    @Test func aConnectedLiteTransportSleepsUntilConsentCouldExpireAndFailsWhenItDoes() async throws {
        let peers = try LoopbackPeers()
        defer { peers.shutdown() }
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .connected })
        // Connected: asleep until 30 s after the last consent check, far beyond the next port tick.
        try await eventually("the server transport to sleep until its consent deadline") {
            await Self.onIOThread(peers.server) { t in
                t.quietUntil > Monotonic.now() + 20_000_000_000
            }
        }
        // Consent of 1 s from now on (the deadline is looked at again: as after a check), then the
        // client goes silent: its loop stops, with no close_notify and no more checks.
        await Self.onIOThread(peers.server) { t in
            if case .lite(var lite) = t.ice {
                lite.consentTimeout = .seconds(1)
                t.ice = .lite(lite)
            }
            t.liteConsentDeadline = nil
            t.quietUntil = 0
        }
        peers.client.io.stop()
        #expect(await peers.serverDelegate.waitFor { $0.states.last == .failed })
    }
}
