import Dispatch
import Synchronization

/// What channels and tracks share with their engine: configuration, logger, delegate queue and
/// the global audio processors. Held strongly by them, so a channel or track the app keeps
/// stays usable (and quiet) after the engine is gone.
package final class EngineContext: Sendable {
    // @unchecked Sendable: Processors lives only inside `processors` (a Mutex); the app's processors it hands out are called under each receiver's or sender's own lock.
    private struct Processors: @unchecked Sendable {
        var capture: AudioProcessor?
        var render: AudioProcessor?
    }

    package let configuration: SRTCEngine.Configuration
    package let logger: Logger
    /// The camera tracks' frame filter (beauty and virtual background, from `SRTCRender`), shared
    /// by every camera track.
    let cameraFilter = CameraFrameFilterSlot()
    /// Device lists, hot-plug events and the speaker.
    package let devices: DeviceService
    private let processors = Mutex(Processors())
    private let destroyedFlag = Mutex(false)

    /// - Parameter deviceBackend: the devices and speaker (nil: none until `SRTCDevices` installs
    ///   the platform's on its first device call, `DeviceService.install(_:)`).
    init(configuration: SRTCEngine.Configuration, deviceBackend: DeviceBackend? = nil) {
        self.configuration = configuration
        let logger = Logger(level: configuration.logLevel, sink: configuration.logSink)
        self.logger = logger
        self.devices = DeviceService(backend: deviceBackend, delegates: MulticastDelegate(queue: configuration.delegateQueue))
    }

    var delegateQueue: DispatchQueue { configuration.delegateQueue }

    var isDestroyed: Bool {
        get { destroyedFlag.withLock { $0 } }
        set { destroyedFlag.withLock { $0 = newValue } }
    }

    var audioCaptureProcessor: AudioProcessor? {
        processors.withLock { $0.capture }
    }

    var audioRenderProcessor: AudioProcessor? {
        processors.withLock { $0.render }
    }

    /// Replaces a processor; the old one is released (`audioProcessingRelease`).
    func setCaptureProcessor(_ processor: AudioProcessor?) {
        let old = processors.withLock { p -> Processors in
            let old = Processors(capture: p.capture)
            p.capture = processor
            return old
        }
        if let previous = old.capture, previous !== processor { previous.audioProcessingRelease() }
    }

    func setRenderProcessor(_ processor: AudioProcessor?) {
        let old = processors.withLock { p -> Processors in
            let old = Processors(render: p.render)
            p.render = processor
            return old
        }
        if let previous = old.render, previous !== processor { previous.audioProcessingRelease() }
    }
}
