import Foundation
import RTCTransport
import SRTCProtocol
import Synchronization

/// The media side of one joined channel: its DTLS certificate, the publish and subscribe
/// transports, and the once-a-second RTCP reports.
// @unchecked Sendable: its only non-Sendable field, the report `timer` (a DispatchSource, thread-safe), is scheduled in init and only cancelled after; the rest is `let`s of Sendable types.
final class ChannelMedia: @unchecked Sendable {
    let certificate: DTLSCertificate
    let publish: PublishSession
    let subscribe: SubscribeSession
    /// The TURN relay and ICE transport policy both transports use.
    let relay: MediaRelay
    /// End-to-end encryption, when the channel's configuration turns it on (`Channel.setE2EE(_:)`,
    /// else the engine's).
    let e2ee: E2EEChannelCrypto?
    /// Whether what this channel publishes is encrypted (E2EE on and not receive-only).
    let encryptsOutgoing: Bool
    /// Serializes publish-transport negotiations (offer → answer).
    let publishLock = AsyncLock()
    private let timer: DispatchSourceTimer
    /// Transports whose path moved to another local address (`NetworkPathWatcher`) and that wait
    /// for their ICE restart.
    private let moved = Mutex<Set<TransportRole>>([])

    init(context: EngineContext, e2ee configuration: E2EEConfiguration?) throws(SRTCError) {
        do {
            certificate = try DTLSCertificate()
        } catch {
            throw .mediaFailed("could not make a DTLS certificate: \(error)")
        }
        relay = MediaRelay(policy: context.configuration.iceTransportPolicy)
        let e2ee = configuration.map(E2EEChannelCrypto.init(configuration:))
        self.e2ee = e2ee
        encryptsOutgoing = e2ee != nil && configuration?.encryptsOutgoing == true
        publish = PublishSession(certificate: certificate, bindAddress: context.configuration.mediaBindAddress, relay: relay,
                                 videoCodec: context.configuration.preferredVideoCodec,
                                 videoScalability: context.configuration.videoScalability,
                                 redundantAudio: context.configuration.redundantAudio,
                                 opusDTX: context.configuration.opusDTX,
                                 opusInbandFEC: context.configuration.opusInbandFEC,
                                 e2ee: encryptsOutgoing ? e2ee : nil, logger: context.logger)
        subscribe = SubscribeSession(certificate: certificate, context: context, relay: relay, e2ee: e2ee,
                                     decryptsEveryTrack: configuration?.encryptsOutgoing ?? true)
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "srtc.media-reports"))
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [publish, subscribe] in
            publish.sendReports()
            subscribe.sendReports()
        }
        timer.resume()
    }

    /// Whether a transport's media path broke (ICE consent lost, DTLS failed) or moved to another
    /// local address.
    var needsICERestart: (publish: Bool, subscribe: Bool) {
        let moved = moved.withLock { $0 }
        return (moved.contains(.publish) || publish.transportState == .failed,
                moved.contains(.subscribe) || subscribe.currentTransport?.state == .failed)
    }

    /// `role`'s path moved (or its restart did not get through): it needs an ICE restart.
    func pathMoved(_ role: TransportRole) {
        _ = moved.withLock { $0.insert(role) }
    }

    /// An ICE restart of `role` is under way.
    func restarting(_ role: TransportRole) {
        _ = moved.withLock { $0.remove(role) }
    }

    func close() {
        timer.cancel()
        publish.close()
        subscribe.close()
    }
}
