import EgressProtocol
import RTCAV
import RTCMedia
import Synchronization

/// Composes the latest frame of every source into one I420 picture: sources are placed by
/// `CompositeLayout`, scaled with their aspect kept, and everything else is black (empty tiles,
/// letterbox bars, muted sources, sources with no frame yet). Frames arrive from the tracks'
/// decode threads (`update`); `compose` runs on the composite's video clock. Public for `srtc-bench`.
// @unchecked Sendable: the sources' frames are in `state` (Mutex); `output` and `scaler` are used only by `compose()`, called on the composite's one video clock.
public final class VideoCompositor: @unchecked Sendable {
    private struct State {
        var sources: [String] = []
        var frames: [String: VideoFrame] = [:]
        var muted: Set<String> = []
        var layout: EgressLayout
        var speaker: String?
    }

    public let width: Int
    public let height: Int
    private let state: Mutex<State>
    /// Owned by the composing thread.
    private var output: VideoPixelBuffer
    private let scaler = PictureScaler()
    private let black: VideoPixelBuffer

    public init(width: Int, height: Int, layout: EgressLayout) throws {
        self.width = width
        self.height = height
        black = try VideoPixelBuffer.black(width: width, height: height)
        output = black
        state = Mutex(State(layout: layout))
    }

    // MARK: - Sources (any thread)

    /// The sources in tile order.
    public func setSources(_ ids: [String]) {
        state.withLock { s in
            s.sources = ids
            for id in Array(s.frames.keys) where !ids.contains(id) { s.frames[id] = nil }
        }
    }

    func setLayout(_ layout: EgressLayout) { state.withLock { $0.layout = layout } }

    /// The source shown large in the speaker layout.
    func setSpeaker(_ id: String?) { state.withLock { $0.speaker = id } }

    func setMuted(_ id: String, _ muted: Bool) {
        state.withLock { s in if muted { s.muted.insert(id) } else { s.muted.remove(id) } }
    }

    /// The latest decoded frame of source `id`.
    public func update(_ id: String, frame: VideoFrame) {
        state.withLock { s in if s.sources.contains(id) { s.frames[id] = frame } }
    }

    var layout: EgressLayout { state.withLock { $0.layout } }

    /// Each source's tile in the current layout.
    func tiles() -> [String: TileRect] {
        let (sources, layout, speaker) = state.withLock { ($0.sources, $0.layout, $0.speaker) }
        let rects = CompositeLayout.tiles(layout, count: sources.count, width: width, height: height,
                                          speaker: speaker.flatMap { sources.firstIndex(of: $0) })
        var out: [String: TileRect] = [:]
        for (id, rect) in zip(sources, rects) { out[id] = rect }
        return out
    }

    // MARK: - Composing (the video clock's thread)

    /// The composite picture now.
    public func compose() -> VideoPixelBuffer {
        let tiles = tiles()
        let (frames, muted) = state.withLock { ($0.frames, $0.muted) }
        output.withMutableData { data in
            black.data.withUnsafeBufferPointer { src in
                data.withUnsafeMutableBufferPointer { dst in dst.baseAddress!.update(from: src.baseAddress!, count: src.count) }
            }
        }
        for (id, tile) in tiles where !muted.contains(id) {
            guard let frame = frames[id] else { continue }
            let picture = frame.buffer.format == .i420 ? frame.buffer : frame.buffer.toI420()
            let rect = CompositeLayout.fit(sourceWidth: picture.width, sourceHeight: picture.height, in: tile)
            try? scaler.scale(picture, into: &output, x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        }
        return output
    }
}
