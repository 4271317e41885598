import RTCMedia

/// Tells the virtual background which pixels are the person. Install one with
/// `SRTCEngine.installVirtualBackground(segmenter:)`; `installVirtualBackground(_:)` installs the
/// platform's own (Apple Vision person segmentation on Apple platforms, `BackgroundModelSegmenter`
/// on Linux).
///
/// Calls come from one media thread at a time, at the inference interval
/// (`setVirtualBackgroundInferenceInterval(_:)`); between them the last mask is reused.
public protocol PersonSegmenter: AnyObject {
    /// Computes the person mask of `frame` (I420): `frame.width × frame.height` bytes, row by
    /// row, 255 where the person is, 0 for background, values between on soft edges.
    /// - Returns: false when there is no mask for this frame yet (a model still learning); the
    ///   frame then passes unchanged.
    func segment(_ frame: VideoPixelBuffer, into mask: UnsafeMutableBufferPointer<UInt8>) -> Bool

    /// Forgets what was carried from frame to frame (called when the virtual background is
    /// turned off, so it converges again from the first frame when turned back on).
    func reset()
}

extension PersonSegmenter {
    public func reset() {}
}
