#if canImport(ReplayKit) && os(iOS)
import AVFoundation
import CoreMedia
import Foundation
import ReplayKit
import RTCMedia

/// What a broadcast extension hears from the host app.
public protocol SRTCBroadcastExtensionDelegate: AnyObject {
    /// The host app ended the broadcast (`stopScreenRecord()`) or went away: call
    /// `finishBroadcastWithError(_:)` on the `RPBroadcastSampleHandler`.
    func broadcastExtensionShouldFinish(_ broadcast: SRTCBroadcastExtension)
}

/// The broadcast extension's SDK (the documentation's `broadcastStartedWithAppGroup:delegate:`,
/// `sendSampleBuffer:withType:`), for the extension's `RPBroadcastSampleHandler`: a thin layer
/// that turns ReplayKit's sample buffers into frames and hands them to `BroadcastSender`, the
/// platform-neutral part tested on Linux.
///
/// ```swift
/// final class SampleHandler: RPBroadcastSampleHandler, SRTCBroadcastExtensionDelegate {
///     let broadcast = SRTCBroadcastExtension()
///     override func broadcastStarted(withSetupInfo setupInfo: [String: NSObject]?) {
///         broadcast.broadcastStarted(appGroup: "group.your.app", delegate: self)
///     }
///     override func processSampleBuffer(_ sampleBuffer: CMSampleBuffer, with type: RPSampleBufferType) {
///         broadcast.sendSampleBuffer(sampleBuffer, withType: type)
///     }
///     func broadcastExtensionShouldFinish(_ broadcast: SRTCBroadcastExtension) {
///         finishBroadcastWithError(NSError(domain: "SRTC", code: 0))
///     }
/// }
/// ```
// @unchecked Sendable: `sender` is set in broadcastStarted and cleared in broadcastFinished; this assumes ReplayKit calls the sample handler's methods one at a time (it does not document it).
public final class SRTCBroadcastExtension: @unchecked Sendable {
    private var sender: BroadcastSender?

    public init() {}

    /// Connects to the host app of `appGroup` (it listens with `startScreenRecordListening`).
    /// When it does not listen, the delegate is told to finish at once.
    public func broadcastStarted(appGroup: String, delegate: SRTCBroadcastExtensionDelegate) {
        let finish: @Sendable () -> Void = { [weak self, weak delegate] in
            guard let self else { return }
            delegate?.broadcastExtensionShouldFinish(self)
        }
        guard let path = SRTCEngine.broadcastSocketPath(appGroup: appGroup), let sender = try? BroadcastSender(path: path, onStop: finish) else {
            finish()
            return
        }
        self.sender = sender
    }

    /// Hands one sample buffer over: screen video and app audio; microphone audio is ignored
    /// (the host app captures the microphone itself).
    public func sendSampleBuffer(_ sampleBuffer: CMSampleBuffer, withType type: RPSampleBufferType) {
        guard let sender else { return }
        let time = Int64(CMTimeGetSeconds(CMSampleBufferGetPresentationTimeStamp(sampleBuffer)) * 1_000_000)
        switch type {
        case .video:
            guard let image = CMSampleBufferGetImageBuffer(sampleBuffer), let pixels = PixelBufferBridge.videoPixelBuffer(from: image) else { return }
            sender.send(frame: VideoFrame(buffer: pixels, timestampUs: time))
        case .audioApp:
            guard let pcm = Self.pcm(sampleBuffer) else { return }
            sender.send(appAudio: pcm)
        default:
            break
        }
    }

    /// App audio as PCM, through an `AVAudioPCMBuffer` of the sample's own format.
    private static func pcm(_ sample: CMSampleBuffer) -> AudioPCMBuffer? {
        guard let description = CMSampleBufferGetFormatDescription(sample) else { return nil }
        let format = AVAudioFormat(cmAudioFormatDescription: description)
        let frames = AVAudioFrameCount(CMSampleBufferGetNumSamples(sample))
        guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frames) else { return nil }
        buffer.frameLength = frames
        guard CMSampleBufferCopyPCMDataIntoAudioBufferList(sample, at: 0, frameCount: Int32(frames),
                                                           into: buffer.mutableAudioBufferList) == noErr else { return nil }
        return AudioBufferBridge.pcm(from: buffer)
    }

    /// The user ended the broadcast from the system UI (`broadcastFinished()`).
    public func broadcastFinished() {
        sender?.finish()
        sender = nil
    }
}
#endif
