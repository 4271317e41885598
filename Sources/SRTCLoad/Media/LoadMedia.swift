import Foundation
import RTCMedia
import RTCNet
import Synchronization

/// The media every load publisher sends: a camera (one 640×360 VP8 stream, or two simulcast
/// layers: `camera_big` 640×360 at 30 fps and `camera_small` 160×90 at 15 fps) and a microphone
/// (Opus). Encoded once per process and shared by all publishers.
package final class LoadMedia: Sendable {
    /// The big (or only) video stream: 640×360, 30 fps, 500 kbit/s (the SDK's `h360p` preset).
    package let big: EncodedLoop
    /// The small simulcast layer: 160×90, 15 fps, 100 kbit/s (the SDK's small layer of `h360p`).
    package let small: EncodedLoop
    /// 20 ms Opus packets at 32 kbit/s.
    package let audio: EncodedLoop

    package static let bigSize = (width: 640, height: 360)
    package static let smallSize = (width: 160, height: 90)

    private static let cache = Mutex<LoadMedia?>(nil)
    /// The scalable cameras, each encoded on first use (only scalable scenarios send them).
    private let av1 = Mutex<EncodedLoop?>(nil)
    private let vp9 = Mutex<EncodedLoop?>(nil)

    /// The camera as one AV1 stream of two spatial layers (L2T3_KEY): 640×360 and 320×180, 30 fps,
    /// 500 kbit/s in all, with Dependency Descriptors. Encoded once, on first use (before a run,
    /// so the encode stays out of the set-up).
    package func scalableAV1() throws -> EncodedLoop { try scalable(.av1) }

    /// The camera as one scalable stream in `codec`: AV1 as `scalableAV1`, or VP9 (`.vp9`, libvpx
    /// SVC, L2T3_KEY at the same sizes and bitrate, RFC 9628 descriptors with the SS). Anything
    /// else is AV1's.
    package func scalable(_ codec: VideoCodec) throws -> EncodedLoop {
        let (width, height) = Self.bigSize
        if codec == .vp9 {
            return try vp9.withLock { cached in
                let loop = try cached ?? EncodedLoop.vp9SVC(width: width, height: height, frameRate: 30, bitrate: 500_000)
                cached = loop
                return loop
            }
        }
        return try av1.withLock { cached in
            let loop = try cached ?? EncodedLoop.av1SVC(width: width, height: height, frameRate: 30, bitrate: 500_000)
            cached = loop
            return loop
        }
    }

    /// The shared loops, encoded on first use (about a second of CPU, several in a debug build):
    /// on a thread of its own, so concurrent tasks keep the cooperative pool.
    package static func shared() async throws -> LoadMedia {
        if let cached = cache.withLock({ $0 }) { return cached }
        return try await Thread.blockingRun { Result { try encodeOnce() } }.get()
    }

    private static func encodeOnce() throws -> LoadMedia {
        try cache.withLock { cached in
            if let cached { return cached }
            let media = try LoadMedia()
            cached = media
            return media
        }
    }

    private init() throws {
        big = try EncodedLoop.vp8(width: Self.bigSize.width, height: Self.bigSize.height, frameRate: 30, bitrate: 500_000)
        small = try EncodedLoop.vp8(width: Self.smallSize.width, height: Self.smallSize.height, frameRate: 15, bitrate: 100_000)
        audio = try EncodedLoop.opus()
    }
}
