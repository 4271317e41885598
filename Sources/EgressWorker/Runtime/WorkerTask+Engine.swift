import EgressProtocol
import Foundation
import SRTC

extension WorkerTask {
    /// The SDK engine settings of a task's worker: events on `queue`; with TLS on, the server's
    /// own certificate trusted as it is (the worker reaches the server at 127.0.0.1, a name the
    /// certificate does not carry); with keys (the trusted recorder), end-to-end encrypted tracks
    /// decrypted through `keyProvider`, and what the worker publishes (a composite) in the clear.
    func engineConfiguration(queue: DispatchQueue, keyProvider: E2EEKeyProvider?) -> SRTCEngine.Configuration {
        var configuration = SRTCEngine.Configuration(delegateQueue: queue, logLevel: .warning)
        configuration.serverCertificateFile = serverCertificate
        configuration.e2ee = keyProvider.map { E2EEConfiguration(keyProvider: $0, encryptsOutgoing: false) }
        return configuration
    }
}

extension EgressE2EEKeys {
    /// The SDK key provider these keys make: the shared passphrase's, or per-participant keys.
    func makeProvider() -> E2EEKeyProvider {
        if let passphrase { return .sharedKey(passphrase: passphrase) }
        let provider = E2EEKeyProvider.perParticipant()
        add(to: provider)
        return provider
    }

    /// Gives `provider` these per-participant keys (a shared-key provider ignores them).
    func add(to provider: E2EEKeyProvider) {
        for key in keys ?? [] {
            if let bytes = key.bytes { provider.setKey(bytes, for: key.uid, index: key.index) }
        }
    }
}
