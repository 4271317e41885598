import EgressProtocol
import Foundation
import SRTC

extension WorkerTask {
    /// The SDK engine settings of a task's worker: events on `queue`, and with TLS on, the server's
    /// own certificate trusted as it is (the worker reaches the server at 127.0.0.1, a name the
    /// certificate does not carry).
    func engineConfiguration(queue: DispatchQueue) -> SRTCEngine.Configuration {
        var configuration = SRTCEngine.Configuration(delegateQueue: queue, logLevel: .warning)
        configuration.serverCertificateFile = serverCertificate
        return configuration
    }
}
