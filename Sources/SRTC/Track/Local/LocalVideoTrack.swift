import Foundation
import RTCMedia
import SRTCProtocol
import Synchronization

/// A local video track: frames go through the engine's camera filter (camera tracks only: the
/// render module's beauty and virtual background, `SRTCRender`), then `videoProcessors`, then to
/// local renderers (preview) and to the VP8 encoder of every channel the track is published in.
// open (not public) only so the device tracks of `SRTCDevices` (camera, microphone, screen) can
// subclass it from their module; its initializers are `package`, so apps still cannot.
// @unchecked Sendable: not final (the SDK subclasses it), so it cannot be checked; its own state is `let`s of Sendable types, a Mutex and a WeakList.
open class LocalVideoTrack: LocalTrack, @unchecked Sendable {
    // MARK: - Properties

    /// Encoding parameters of the (big) layer.
    public let preset: VideoPreset
    /// Whether the track is sent as two simulcast layers (`camera_big` rid `h`, `camera_small` rid `l`).
    public let simulcast: Bool
    /// Whether the engine's beauty filter and virtual background apply: camera tracks (the device
    /// camera, and custom tracks with a camera description such as `camera_big`).
    public let isCameraPipeline: Bool
    private let processors = Mutex<ProcessorList>(ProcessorList(items: []))
    private let renderers = WeakList<VideoRenderer>()
    /// Encoders and RTP senders; created on first publish.
    let sendPipeline: VideoSendPipeline

    // @unchecked Sendable: a ProcessorList lives only inside `processors` (a Mutex); the app's processors it hands out run serially on the pushing thread (VideoProcessor's contract).
    private struct ProcessorList: @unchecked Sendable {
        var items: [VideoProcessor]
    }

    package init(desc: String, preset: VideoPreset, simulcast: Bool, context: EngineContext) {
        self.preset = preset
        self.simulcast = simulcast
        self.isCameraPipeline = TrackDesc.isCameraLike(desc)
        self.sendPipeline = VideoSendPipeline(preset: preset, simulcast: simulcast, logger: context.logger)
        super.init(kind: .video, desc: desc, info: nil, context: context)
    }

    // MARK: - Public API

    /// Processors applied to every frame before encoding, serially in array order. A processor
    /// returning `nil` drops the frame. Held strongly.
    public var videoProcessors: [VideoProcessor] {
        get { processors.withLock { $0.items } }
        set { processors.withLock { $0 = ProcessorList(items: newValue) } }
    }

    /// Shows the processed local frames (preview); held weakly.
    public func add(videoRenderer: VideoRenderer) { renderers.add(videoRenderer) }

    /// Stops calling a renderer.
    public func remove(videoRenderer: VideoRenderer) { renderers.remove(videoRenderer) }

    /// The simulcast layers the track announces when published.
    public var layers: [SimulcastLayer] {
        guard simulcast else { return [] }
        let small = preset.smallLayer
        return [SimulcastLayer(rid: VideoLayer.cameraBig.rid, desc: VideoLayer.cameraBig.rawValue,
                               width: preset.width, height: preset.height, maxBitrate: preset.maxBitrate),
                SimulcastLayer(rid: VideoLayer.cameraSmall.rid, desc: VideoLayer.cameraSmall.rawValue,
                               width: small.width, height: small.height, maxBitrate: small.maxBitrate)]
    }

    // MARK: - Internals

    /// Runs a captured or pushed frame through the camera filter, the processors, the preview and
    /// the encoders. Returns the frame that was sent, or nil when a processor dropped it.
    @discardableResult
    package func deliver(_ frame: VideoFrame) -> VideoFrame? {
        let rendered = isCameraPipeline ? context.cameraFilter.apply(frame) : frame
        guard let processed = Self.process(rendered, through: videoProcessors) else { return nil }
        renderers.forEach { $0.render(frame: processed) }
        if !isMuted { sendPipeline.encodeAndSend(processed) }
        return processed
    }

    /// Applies `processors` in order; nil as soon as one drops the frame.
    static func process(_ frame: VideoFrame, through processors: [VideoProcessor]) -> VideoFrame? {
        var current = frame
        for processor in processors {
            guard let next = processor.processVideoFrame(current) else { return nil }
            current = next
        }
        return current
    }

    override func mediaDetached() {
        sendPipeline.reset()
    }
}
