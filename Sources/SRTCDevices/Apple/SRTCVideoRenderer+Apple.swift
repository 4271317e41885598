#if canImport(AVFoundation) && (os(iOS) || os(macOS))
import SRTCCore
import AVFoundation
import CoreMedia
import Synchronization
#if os(iOS)
import UIKit
/// The view class `SRTCVideoRenderer` is on this platform.
public typealias SRTCPlatformView = UIView
#else
import AppKit
/// The view class `SRTCVideoRenderer` is on this platform.
public typealias SRTCPlatformView = NSView
#endif

/// A native video view on Apple platforms (Linux: an X11 window of the same name): a `UIView` /
/// `NSView` whose `AVSampleBufferDisplayLayer` shows the frames it is given, aspect-fit. Pass it
/// wherever a view is asked for (`startPlayRemoteVideo(view:…)`, `add(videoRenderer:)`).
///
/// `render(frame:)` is called on the decoding thread: the frame becomes an NV12 `CVPixelBuffer`
/// (`PixelBufferBridge`, the conversion the Linux build tests) wrapped in a sample buffer marked
/// "display immediately", and the layer is fed on the main queue; only the newest pending frame
/// is kept, so a busy main thread skips frames instead of queueing them.
// @unchecked Sendable: the layer is touched only on the main thread (`render` hops there); frames cross threads through `pending` (Mutex) and the Atomics.
public final class SRTCVideoRenderer: SRTCPlatformView, MirrorableRenderer, SizedVideoRenderer, @unchecked Sendable {
    private let displayLayer = AVSampleBufferDisplayLayer()
    /// What `shownSize` answers on any thread, written on the main thread as the view is laid
    /// out, moves between windows or is hidden.
    private let shown = Mutex<(width: Int, height: Int)?>(nil)
    private let pending = Mutex<CMSampleBuffer?>(nil)
    private let drawn = Atomic<Int>(0)
    private let mirror = Atomic<Bool>(false)

    public override init(frame: CGRect) {
        super.init(frame: frame)
        displayLayer.videoGravity = .resizeAspect
        #if os(iOS)
        layer.addSublayer(displayLayer)
        #else
        wantsLayer = true
        layer?.addSublayer(displayLayer)
        #endif
    }

    public required init?(coder: NSCoder) {
        nil
    }

    #if os(iOS)
    public override func layoutSubviews() {
        super.layoutSubviews()
        displayLayer.frame = bounds
        updateShownSize()
    }

    public override func didMoveToWindow() {
        super.didMoveToWindow()
        updateShownSize()
    }

    public override var isHidden: Bool {
        didSet { updateShownSize() }
    }

    /// Main thread: bounds in device pixels while the view is in a window and not hidden.
    private func updateShownSize() {
        let scale = window?.screen.scale ?? 0
        let onScreen = window != nil && !isHidden && alpha > 0
        let size = onScreen ? (width: Int(bounds.width * scale), height: Int(bounds.height * scale)) : nil
        shown.withLock { $0 = size }
    }
    #else
    public override func layout() {
        super.layout()
        displayLayer.frame = bounds
        updateShownSize()
    }

    public override func viewDidMoveToWindow() {
        super.viewDidMoveToWindow()
        updateShownSize()
    }

    public override func viewDidHide() {
        super.viewDidHide()
        updateShownSize()
    }

    public override func viewDidUnhide() {
        super.viewDidUnhide()
        updateShownSize()
    }

    /// Main thread: bounds in device pixels while the view is in a window and not hidden.
    private func updateShownSize() {
        let scale = window?.backingScaleFactor ?? 0
        let onScreen = window != nil && !isHiddenOrHasHiddenAncestor
        let size = onScreen ? (width: Int(bounds.width * scale), height: Int(bounds.height * scale)) : nil
        shown.withLock { $0 = size }
    }
    #endif

    /// The view's size in device pixels while it is in a window and not hidden; nil otherwise.
    /// With adaptive stream (`SRTCEngine.Configuration.adaptiveStream`) this picks the remote
    /// video's layer, and nil pauses it at the server.
    public nonisolated var shownSize: (width: Int, height: Int)? { shown.withLock { $0 } }

    /// Whether pictures are shown flipped left to right (the local preview of a front camera;
    /// `SRTCEngine.setLocalPreviewMirror(_:)` sets it): the layer is flipped, never the frames.
    public nonisolated var mirrored: Bool {
        get { mirror.load(ordering: .relaxed) }
        set {
            mirror.store(newValue, ordering: .relaxed)
            DispatchQueue.main.async { [weak self] in
                MainActor.assumeIsolated {
                    guard let self else { return }
                    self.displayLayer.setAffineTransform(self.mirror.load(ordering: .relaxed) ? CGAffineTransform(scaleX: -1, y: 1) : .identity)
                }
            }
        }
    }

    /// Frames handed to the layer so far.
    public nonisolated var framesDrawn: Int { drawn.load(ordering: .relaxed) }

    /// Shows `frame` (any thread; the newest frame wins).
    public nonisolated func render(frame: VideoFrame) {
        guard let sample = Self.sampleBuffer(frame) else { return }
        let first = pending.withLock { p -> Bool in defer { p = sample }; return p == nil }
        guard first else { return }   // a main-queue hop is already scheduled and takes the newest
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                guard let self, let sample = self.pending.withLock({ p -> CMSampleBuffer? in defer { p = nil }; return p }) else { return }
                if self.displayLayer.status == .failed { self.displayLayer.flush() }
                self.displayLayer.enqueue(sample)
                self.drawn.add(1, ordering: .relaxed)
            }
        }
    }

    /// The frame as a sample buffer the layer displays at once.
    private nonisolated static func sampleBuffer(_ frame: VideoFrame) -> CMSampleBuffer? {
        guard let pixelBuffer = PixelBufferBridge.cvPixelBuffer(from: frame.buffer) else { return nil }
        var format: CMVideoFormatDescription?
        guard CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: pixelBuffer, formatDescriptionOut: &format) == noErr,
              let format else { return nil }
        var timing = CMSampleTimingInfo(duration: .invalid, presentationTimeStamp: CMTime(value: frame.timestampUs, timescale: 1_000_000),
                                        decodeTimeStamp: .invalid)
        var sample: CMSampleBuffer?
        guard CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: pixelBuffer, formatDescription: format,
                                                       sampleTiming: &timing, sampleBufferOut: &sample) == noErr, let sample else { return nil }
        if let attachments = CMSampleBufferGetSampleAttachmentsArray(sample, createIfNecessary: true), CFArrayGetCount(attachments) > 0 {
            let dictionary = unsafeBitCast(CFArrayGetValueAtIndex(attachments, 0), to: CFMutableDictionary.self)
            CFDictionarySetValue(dictionary, Unmanaged.passUnretained(kCMSampleAttachmentKey_DisplayImmediately).toOpaque(),
                                 Unmanaged.passUnretained(kCFBooleanTrue).toOpaque())
        }
        return sample
    }
}
#endif
