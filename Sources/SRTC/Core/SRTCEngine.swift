import Foundation
import RTCNet
import RTCMedia
import RTCWire
import SRTCProtocol
import Synchronization

/// The SDK's entry point (the documentation's `srtc` object): creates channels and local tracks
/// and holds the process-wide settings (log level, global audio processors).
///
/// One engine lives in a process at a time (`SRTCEngine+Process.swift`): the camera, the speaker
/// and IM are the process's. Several channels can be joined at once, each with its own users,
/// statistics and rendering.
///
/// ```swift
/// let srtc = SRTCEngine.sharedEngine()                      // events on the main queue
/// let srtc = try SRTCEngine(delegateQueue: DispatchQueue(label: "events"))   // programs without a main loop
/// let channel = try srtc.createChannel()
/// channel.delegates.add(delegate: self)
/// try await channel.join(url: "https://rtc.example.com", token: token)
/// ```
public final class SRTCEngine: Sendable {
    // MARK: - Types

    /// Settings fixed when the engine is created.
    public struct Configuration: Sendable {
        /// The serial queue every delegate event is delivered on. `.main` by default (events for
        /// UI code); a program that runs no main loop (a Linux service, a test) passes its own
        /// serial queue, or events would never be delivered.
        public var delegateQueue: DispatchQueue
        /// Initial log level (`logLevel` changes it later).
        public var logLevel: LogLevel
        /// Where log lines go (`logSink` changes it later); nil writes them to standard error.
        public var logSink: LogSink?
        /// The App Group the app shares with its broadcast extension: `startScreenRecordListening()`
        /// without a path listens at `broadcastSocketPath(appGroup:)` of it.
        public var appGroup: String?
        /// Seconds without a decoded frame after which a subscribed remote video reports a
        /// receive timeout (`didChangeReceiveStreamStatus`).
        public var receiveTimeout: Double
        /// Local address the media sockets bind to (`0.0.0.0` = every interface).
        public var mediaBindAddress: String
        /// Linux: the PulseAudio server for microphones and speakers (`unix:/path/native`,
        /// `tcp:host:4713`); nil uses libpulse's default ($PULSE_SERVER, then the session's server).
        public var audioServer: String?
        /// Take quality, speaker and layer events on the subscribe transport's data channel, as
        /// the SFU engine sends them (the subscribe transport is set up at join then); `false`
        /// keeps them on the signaling WebSocket.
        public var useDataChannel: Bool
        /// Which candidates the media transports may use: `.relay` sends everything through the
        /// TURN server of the join response's `ice_servers` (docs/sdk-srtc.md).
        public var iceTransportPolicy: ICETransportPolicy
        /// The video codec offered first when publishing (`.vp8`, `.h264`, `.vp9` or `.av1`; the server keeps
        /// the first it forwards). Subscribing decodes each (docs/sdk-srtc.md).
        public var preferredVideoCodec: VideoCodec
        /// How a two-layer camera goes out when published in VP9 or AV1: `.svc` (the default) one
        /// `L2T3_KEY` stream, `.simulcast` two one-layer encodings with rids as VP8 sends them
        /// (docs/sdk-srtc.md). VP8 and H.264 cameras are simulcast either way.
        public var videoScalability: VideoScalability = .svc
        /// Seconds between performance samples (`SRTCEngineDelegate.engine(_:performanceDidUpdate:)`);
        /// 0 turns the sampling off.
        public var performanceInterval: Double
        /// A PEM file of the certificate authorities trusted for `https://` / `wss://` servers, in
        /// place of the system trust store: for a server whose certificate comes from a private CA
        /// (docs/sdk-srtc.md, "Servers with a private CA"). The host name is checked either way.
        public var trustedCAFile: String?
        /// The server's own certificate file, trusted as it is and without a host-name check (wins
        /// over `trustedCAFile`): for the egress workers, which run on the server's host and reach
        /// it at 127.0.0.1, a name its certificate does not carry.
        package var serverCertificateFile: String?
        /// End-to-end encryption of every channel's media (docs/e2ee.md): frames are encrypted
        /// before they leave this client and decrypted after they arrive, with keys the server
        /// never sees. nil (the default): media is protected hop by hop (SRTP) only.
        public var e2ee: E2EEConfiguration?
        /// Dynacast (docs/sdk-srtc.md): simulcast layers that no subscriber receives are not
        /// encoded, as the server's `layers_needed` says. On by default, as in the web SDK.
        public var dynacast = true
        /// Adaptive stream (docs/sdk-srtc.md "Adaptive stream"), as the web SDK's option of the same
        /// name: a subscribed remote video is asked of the server at the smallest layer that fills
        /// its widest shown `SizedVideoRenderer`, and paused at the server while none shows it.
        /// Off by default: the layer is the one asked for in `subscribe` / `switchLayer`.
        public var adaptiveStream = false
        /// Redundant audio (RFC 2198, `audio/red`, docs/network.md "RED"): offered when
        /// publishing and subscribing; where negotiated, each Opus packet is sent with the previous
        /// one as a redundant block, and a lost packet is rebuilt from the next one's. On by
        /// default, as in Chromium; `false` offers plain Opus only.
        public var redundantAudio = true
        /// Opus discontinuous transmission (RFC 7587 §3.1.3, docs/network.md "DTX"): offers
        /// `usedtx=1` when publishing; where the answer keeps it, the encoder stops sending during
        /// silence (one packet every 400 ms instead of 50 a second). Off by default: a sender in
        /// DTX sends no audio level for the silent time, and receivers that count packets as a
        /// sign of life see a pause.
        public var opusDTX = false
        /// Opus in-band FEC (RFC 6716 §2.1.7, docs/network.md "Opus in-band FEC tuned to the loss
        /// subscribers see"): offers `useinbandfec=1` when publishing; where the answer keeps it,
        /// each packet carries a low-bitrate copy of the one before for the loss the receiver
        /// reports show (`LocalAudioTrack.sendStatistics`). On by default, as in Chromium.
        public var opusInbandFEC = true
        /// Ask for lost audio packets by NACK where negotiated (docs/network.md). Off only in
        /// tests that measure what RED alone recovers.
        package var audioNACK = true

        public init(delegateQueue: DispatchQueue = .main, logLevel: LogLevel = .warning,
                    receiveTimeout: Double = 3, mediaBindAddress: String = "0.0.0.0", audioServer: String? = nil,
                    useDataChannel: Bool = true, performanceInterval: Double = 2, iceTransportPolicy: ICETransportPolicy = .all,
                    preferredVideoCodec: VideoCodec = .vp8, trustedCAFile: String? = nil,
                    logSink: LogSink? = nil, appGroup: String? = nil) {
            self.delegateQueue = delegateQueue
            self.logLevel = logLevel
            self.logSink = logSink
            self.appGroup = appGroup
            self.receiveTimeout = receiveTimeout
            self.mediaBindAddress = mediaBindAddress
            self.audioServer = audioServer
            self.useDataChannel = useDataChannel
            self.performanceInterval = performanceInterval
            self.iceTransportPolicy = iceTransportPolicy
            self.preferredVideoCodec = preferredVideoCodec
            self.trustedCAFile = trustedCAFile
        }

        /// How the engine's WebSockets verify a TLS server.
        var tls: TLSConfiguration {
            if let serverCertificateFile { return TLSConfiguration(verification: .pinned(certificateFile: serverCertificateFile)) }
            return trustedCAFile.map(TLSConfiguration.trusting(caFile:)) ?? .clientDefault
        }
    }

    // MARK: - Properties

    package let context: EngineContext
    private let channels = Mutex<[Channel]>([])
    /// The state of the role modules on this engine (IM, the speed test, render: `attachments`).
    let roleAttachments = EngineAttachments()

    /// The local preview (`startLocalPreview`).
    package let preview = LocalPreview()
    /// The screen broadcast host, while listening (`startScreenRecordListening`).
    let broadcastHost = Mutex<BroadcastHost?>(nil)

    /// Samples performance for `performanceDidUpdate` (nil when turned off or destroyed).
    let performanceMonitor = Mutex<PerformanceMonitor?>(nil)

    /// Weak multicast of `SRTCEngineDelegate` (process-level events: the speed test, performance),
    /// on the delegate queue.
    public let delegates: MulticastDelegate<SRTCEngineDelegate>

    /// The SDK version (`version`): the release's `ProductVersion.current`, a semantic version
    /// that `srtc --version`, `srtc-server --version` and `GET /healthz` report too.
    public static let version = ProductVersion.current

    /// Creates the process's engine (`sharedEngine()` answers it afterwards).
    /// - Parameter configuration: delegate queue, log level and sink, receive timeout, …
    /// - Throws: `.conflict` while another engine of this process lives (not destroyed yet).
    public convenience init(configuration: Configuration = Configuration()) throws(SRTCError) {
        ProcessEngine.beginCreation()
        defer { ProcessEngine.endCreation() }
        try ProcessEngine.checkVacant()
        self.init(independent: configuration)
        ProcessEngine.fill(self)
    }

    /// Creates the process's engine, its events on `delegateQueue` (a serial queue).
    /// - Throws: `.conflict` while another engine of this process lives.
    public convenience init(delegateQueue: DispatchQueue) throws(SRTCError) {
        try self.init(configuration: Configuration(delegateQueue: delegateQueue))
    }

    /// An engine outside the one-per-process rule, for this package's programs that play several
    /// participants in one process (tests, the egress worker, benchmarks); apps get only one.
    package init(independent configuration: Configuration) {
        context = EngineContext(configuration: configuration)
        delegates = MulticastDelegate(queue: configuration.delegateQueue)
        startPerformanceMonitor()
    }

    // MARK: - Settings

    /// The SDK's log level.
    public var logLevel: LogLevel {
        get { context.logger.currentLevel }
        set { context.logger.currentLevel = newValue }
    }

    /// Where the SDK's log lines go, each with its level, on the thread that logged; nil (the
    /// default) writes them to standard error as `[srtc level] text`.
    public var logSink: LogSink? {
        get { context.logger.sink }
        set { context.logger.sink = newValue }
    }

    /// Processes captured audio of every local audio track before encoding. Held strongly;
    /// replacing it calls the old one's `audioProcessingRelease()`.
    public var audioCaptureProcessor: AudioProcessor? {
        get { context.audioCaptureProcessor }
        set { context.setCaptureProcessor(newValue) }
    }

    /// Processes remote audio of every subscribed audio track before its renderers. Held strongly.
    public var audioRenderProcessor: AudioProcessor? {
        get { context.audioRenderProcessor }
        set { context.setRenderProcessor(newValue) }
    }

    /// The engine's configuration.
    public var configuration: Configuration { context.configuration }

    // MARK: - Channels

    /// Creates a channel instance. Call it again to join several channels at once; each keeps its
    /// own users, tracks and statistics. The engine holds it until its `destroy()`.
    /// - Parameter engine: `.sfu` (the default) joins with a token and publishes and subscribes;
    ///   `.cdn` is the receive-only CDN engine that plays a live stream (`play(url:)`).
    /// - Throws: `.engineDestroyed` once `destroy()` has begun (the page's nil).
    public func createChannel(engine: ChannelEngine = .sfu) throws(SRTCError) -> Channel {
        let channel = Channel(context: context, engine: self, engineType: engine)
        // Checked under the list's lock, so a channel made while `destroy()` empties it is refused
        // rather than left out of the teardown.
        try channels.withLock { (list) throws(SRTCError) in
            guard !context.isDestroyed else { throw .engineDestroyed }
            list.append(channel)
        }
        return channel
    }

    /// The channel instances that are currently joined (not those created and not joined yet,
    /// nor those that left).
    public func getChannels() -> [Channel] {
        channels.withLock { $0 }.filter { $0.isJoined }
    }

    /// Destroys every channel, waits until each has left, then releases the engine's resources
    /// (the audio processors are released, the virtual background uninstalled, device watching and
    /// playback stopped). The engine cannot be used afterwards; once it returns, a new engine can
    /// be made (`sharedEngine()` makes one).
    public func destroy() async {
        channels.withLock { _ in context.isDestroyed = true }
        roleAttachments.engineWillDestroy()
        let all = channels.withLock { list -> [Channel] in
            defer { list = [] }
            return list
        }
        await withTaskGroup(of: Void.self) { group in
            for channel in all { group.addTask { await channel.leave() } }
        }
        stopLocalPreview()
        stopScreenRecordListening()
        context.setCaptureProcessor(nil)
        context.setRenderProcessor(nil)
        roleAttachments.engineDidDestroy()   // the render module uninstalls the virtual background
        context.devices.shutdown()
        performanceMonitor.withLock { m in defer { m = nil }; return m }?.stop()
        ProcessEngine.release(self)
    }

    /// Forgets a destroyed channel.
    func remove(_ channel: Channel) {
        channels.withLock { $0.removeAll { $0 === channel } }
    }

    // MARK: - Tracks

    /// A video track your app feeds with `pushFrame`. Camera-like descriptions (`camera_big`)
    /// are sent as two simulcast layers (`camera_big`, `camera_small`); any other description
    /// as one stream.
    /// - Parameters:
    ///   - desc: the description others see (`canvas`, `camera_big`, …).
    ///   - preset: size, frame rate and bitrate of the (big) layer.
    public func createLocalCustomVideoTrack(desc: String, preset: VideoPreset = .h720p) -> LocalCustomVideoTrack {
        LocalCustomVideoTrack(desc: desc, preset: preset, simulcast: TrackDesc.isCameraLike(desc), context: context)
    }

    /// A video track fed with `pushFrame`, with simulcast chosen explicitly.
    public func createLocalCustomVideoTrack(desc: String, preset: VideoPreset, simulcast: Bool) -> LocalCustomVideoTrack {
        LocalCustomVideoTrack(desc: desc, preset: preset, simulcast: simulcast, context: context)
    }

    /// A video track your app feeds with H.264 it encoded itself (`pushEncodedFrame`), sent as
    /// it is: access units in Annex B form without B-frames, SPS and PPS before each IDR
    /// (`LocalEncodedVideoTrack`). One stream, no simulcast; `preset` only states its size and
    /// bitrate to the others.
    /// - Parameter profileLevelID: the H.264 profile the frames are in (RFC 6184 §8.1, six hex
    ///   digits): Constrained Baseline (`42e01f`, the default), Main (`4d…`) or High (`64…`);
    ///   another profile is offered as `42e01f`.
    public func createLocalEncodedVideoTrack(desc: String, preset: VideoPreset = .h720p, profileLevelID: String = "42e01f") -> LocalEncodedVideoTrack {
        let known = H264ProfileLevelID(profileLevelID.lowercased())?.profile != nil
        return LocalEncodedVideoTrack(desc: desc, preset: preset, profileLevelID: known ? profileLevelID.lowercased() : "42e01f", context: context)
    }

    /// An audio track your app feeds with `pushAudioBuffer`.
    /// - Parameters:
    ///   - desc: the description others see (`bgm`, `mic`, …).
    ///   - preset: Opus bitrate and channels.
    public func createLocalCustomAudioTrack(desc: String, preset: AudioPreset = .speech) -> LocalCustomAudioTrack {
        LocalCustomAudioTrack(desc: desc, preset: preset, context: context)
    }
}
