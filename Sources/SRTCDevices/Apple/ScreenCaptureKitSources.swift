#if canImport(ScreenCaptureKit) && os(macOS)
import SRTCCore
import CoreMedia
import CoreVideo
import RTCMedia
import ScreenCaptureKit
import Synchronization

/// The displays and windows a screen share can capture (seed 001), from ScreenCaptureKit
/// (macOS 12.3 and later). The exclusion rule is `ScreenShareExclusion`, tested on every platform.
public enum ScreenCaptureSources {
    public static func availableDisplays() async throws -> [DisplaySource] {
        guard #available(macOS 12.3, *) else { throw SRTCError.systemError("screen capture sources need macOS 12.3") }
        let content = try await SCShareableContent.excludingDesktopWindows(false, onScreenWindowsOnly: true)
        return content.displays.map { DisplaySource(id: $0.displayID, width: $0.width, height: $0.height) }
    }

    /// The on-screen application windows (layer 0: not menus, the Dock or overlays).
    public static func availableWindows() async throws -> [WindowSource] {
        guard #available(macOS 12.3, *) else { throw SRTCError.systemError("screen capture sources need macOS 12.3") }
        let content = try await SCShareableContent.excludingDesktopWindows(false, onScreenWindowsOnly: true)
        return content.windows.filter { $0.windowLayer == 0 && $0.isOnScreen }.map {
            WindowSource(id: $0.windowID, title: $0.title ?? "", applicationName: $0.owningApplication?.applicationName,
                         processId: $0.owningApplication?.processID,
                         frame: ScreenRect(x: Int($0.frame.origin.x), y: Int($0.frame.origin.y),
                                           width: Int($0.frame.width), height: Int($0.frame.height)))
        }
    }
}

/// A display or a window as a local video track (`screen`, one stream), captured by an
/// `SCStream` at the preset's size and frame rate.
// @unchecked Sendable: restates LocalVideoTrack's conformance; its own state, the running stream, is in a Mutex.
public final class LocalScreenTrack: LocalVideoTrack, @unchecked Sendable {
    private let stream = Mutex<AnyObject?>(nil)

    /// Starts capturing `source` (a running capture is replaced). A display includes this app's
    /// windows unless `excludedWindowIds` (`NSWindow.windowNumber`) names them, or
    /// `excludesCurrentApplication` leaves the whole app out (`excludedWindowIds` is then ignored).
    /// - Throws: `.notFound` when the source is gone, `.systemError` when capture is refused
    ///   (screen recording permission).
    public func startCapture(source: any ScreenCaptureSource, excludedWindowIds: [UInt32] = [],
                             excludesCurrentApplication: Bool = false) async throws(SRTCError) {
        guard #available(macOS 12.3, *) else { throw .systemError("screen capture needs macOS 12.3") }
        do {
            let content = try await SCShareableContent.excludingDesktopWindows(false, onScreenWindowsOnly: true)
            let filter: SCContentFilter
            switch source {
            case let display as DisplaySource:
                guard let target = content.displays.first(where: { $0.displayID == display.id }) else { throw SRTCError.notFound("display \(display.id)") }
                if excludesCurrentApplication {
                    let mine = content.applications.filter { $0.processID == ProcessInfo.processInfo.processIdentifier }
                    filter = SCContentFilter(display: target, excludingApplications: mine, exceptingWindows: [])
                } else {
                    let ids = Set(ScreenShareExclusion.windowIds(for: display, among: [], excludedWindowIds: excludedWindowIds,
                                                                 excludesCurrentApplication: false, currentProcess: 0))
                    filter = SCContentFilter(display: target, excludingWindows: content.windows.filter { ids.contains($0.windowID) })
                }
            case let window as WindowSource:
                guard let target = content.windows.first(where: { $0.windowID == window.id }) else { throw SRTCError.notFound("window \(window.id)") }
                filter = SCContentFilter(desktopIndependentWindow: target)
            default:
                throw SRTCError.notFound("a screen capture source of type \(type(of: source))")
            }
            let configuration = SCStreamConfiguration()
            configuration.width = preset.width
            configuration.height = preset.height
            configuration.minimumFrameInterval = CMTime(value: 1, timescale: CMTimeScale(max(1, preset.frameRate)))
            configuration.pixelFormat = kCVPixelFormatType_32BGRA
            let output = ScreenStreamOutput { [weak self] pixelBuffer, timeUs in
                guard let self, let pixels = PixelBufferBridge.videoPixelBuffer(from: pixelBuffer) else { return }
                self.deliver(VideoFrame(buffer: pixels, timestampUs: timeUs))
            }
            let capture = SCStream(filter: filter, configuration: configuration, delegate: nil)
            try capture.addStreamOutput(output, type: .screen, sampleHandlerQueue: output.queue)
            try await capture.startCapture()
            let old = stream.withLock { s in defer { s = ScreenStreamHolder(stream: capture, output: output) }; return s }
            if let old = old as? ScreenStreamHolder { try? await old.stream.stopCapture() }
        } catch let error as SRTCError {
            throw error
        } catch {
            throw .systemError("screen capture: \(error)")
        }
    }

    /// Stops capturing.
    public func stopCapture() {
        guard #available(macOS 12.3, *), let holder = stream.withLock({ s in defer { s = nil }; return s }) as? ScreenStreamHolder else { return }
        Task { try? await holder.stream.stopCapture() }
    }
}

extension SRTCEngine {
    /// A display or window as a local video track (`screen`, no simulcast). Call
    /// `startCapture(source:)`.
    public func createLocalScreenTrack(preset: ScreenPreset = .h1080p) -> LocalScreenTrack {
        LocalScreenTrack(desc: TrackDesc.screen, preset: preset, simulcast: false, context: context)
    }
}

@available(macOS 12.3, *)
private final class ScreenStreamHolder {
    let stream: SCStream
    let output: ScreenStreamOutput
    init(stream: SCStream, output: ScreenStreamOutput) {
        self.stream = stream
        self.output = output
    }
}

/// Hands each complete screen sample's pixels on, with its presentation time in microseconds.
@available(macOS 12.3, *)
// @unchecked Sendable: both fields are `let`s; the (non-Sendable) handler is called only on `queue`, the stream's one sample queue.
private final class ScreenStreamOutput: NSObject, SCStreamOutput, @unchecked Sendable {
    let queue = DispatchQueue(label: "srtc.screencapturekit")
    private let handler: (CVPixelBuffer, Int64) -> Void

    init(handler: @escaping (CVPixelBuffer, Int64) -> Void) {
        self.handler = handler
    }

    func stream(_ stream: SCStream, didOutputSampleBuffer sampleBuffer: CMSampleBuffer, of type: SCStreamOutputType) {
        // Idle and blank samples carry no picture (SCStreamFrameInfo.status); only complete ones do.
        guard type == .screen, let pixelBuffer = CMSampleBufferGetImageBuffer(sampleBuffer) else { return }
        let time = CMSampleBufferGetPresentationTimeStamp(sampleBuffer)
        handler(pixelBuffer, time.isValid ? Int64(CMTimeGetSeconds(time) * 1_000_000) : 0)
    }
}
#endif
