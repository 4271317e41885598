// One picture of a video track with its capture time and display rotation: what the SDK's
// `pushFrame`, `VideoProcessor` and renderers exchange on every platform.

// MARK: - Types

/// Clockwise rotation a renderer applies to show a frame upright (cameras report it instead of rotating pixels).
public enum VideoRotation: Int, Sendable, CaseIterable {
    /// Shown as stored.
    case rotation0 = 0
    /// Rotated a quarter turn clockwise.
    case rotation90 = 90
    /// Rotated half a turn.
    case rotation180 = 180
    /// Rotated three quarter turns clockwise.
    case rotation270 = 270
}

/// A video frame: a pixel buffer, its presentation time and its display rotation.
///
/// `timestampUs` is in **microseconds** on the sender's capture clock (any epoch; only differences
/// matter). RTP uses a 90 kHz clock for video: `rtpTimestamp` converts, and `init(rtpTimestamp:…)` goes back.
public struct VideoFrame: Sendable, Equatable {
    /// The pixels.
    public var buffer: VideoPixelBuffer
    /// Presentation time in microseconds.
    public var timestampUs: Int64
    /// How a renderer should rotate the pixels to show them upright.
    public var rotation: VideoRotation

    // MARK: - Public API

    /// RTP clock rate of video payloads (RFC 7741 §6.1 for VP8): 90 000 ticks per second.
    public static let rtpClockRate: Int64 = 90_000

    /// Creates a frame from a pixel buffer.
    /// - Parameters:
    ///   - buffer: the picture.
    ///   - timestampUs: presentation time in microseconds.
    ///   - rotation: display rotation, `.rotation0` by default.
    public init(buffer: VideoPixelBuffer, timestampUs: Int64, rotation: VideoRotation = .rotation0) {
        self.buffer = buffer
        self.timestampUs = timestampUs
        self.rotation = rotation
    }

    /// Creates a frame whose time is an RTP timestamp of the 90 kHz video clock.
    public init(buffer: VideoPixelBuffer, rtpTimestamp: UInt32, rotation: VideoRotation = .rotation0) {
        self.init(buffer: buffer, timestampUs: Int64(rtpTimestamp) * 1_000_000 / Self.rtpClockRate,
                  rotation: rotation)
    }

    /// Width in pixels, before rotation.
    public var width: Int { buffer.width }
    /// Height in pixels, before rotation.
    public var height: Int { buffer.height }

    /// The presentation time on the 90 kHz RTP clock, wrapped to 32 bits as RTP carries it.
    public var rtpTimestamp: UInt32 {
        // 90 000 / 1 000 000 = 9 / 100; the small factor keeps the product far from overflow.
        UInt32(truncatingIfNeeded: timestampUs.multipliedReportingOverflow(by: 9).partialValue / 100)
    }
}
