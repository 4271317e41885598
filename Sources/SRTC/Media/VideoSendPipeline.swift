import Foundation
import RTCMedia
import Synchronization

/// Takes encoded frames of one layer of a local video track (an RTP sender of one publication).
protocol EncodedVideoSink: AnyObject, Sendable {
    /// One encoded frame of layer `layer` (0 = the big or only layer, 1 = the small simulcast layer).
    func send(_ frame: EncodedVideoFrame, layer: Int)
}

/// The encoders of one local video track: one VP8 encoder per simulcast layer, shared by every
/// channel the track is published in. Frames are encoded on the pushing thread, only while at
/// least one sink is attached.
final class VideoSendPipeline: Sendable {
    // MARK: - Types

    private struct Layer {
        var preset: VideoPreset
        var encoder: VP8Encoder?
        var lastTimestampUs: Int64?
    }

    private struct State {
        var layers: [Layer]
        var sinks: [ObjectIdentifier: any EncodedVideoSink] = [:]
        var framesEncoded = [Int](repeating: 0, count: 2)
        var bytesEncoded = 0
    }

    /// Counters for statistics and benchmarks.
    struct Stats: Sendable, Equatable {
        /// Frames encoded per layer.
        var framesEncoded: [Int]
        var bytesEncoded: Int
    }

    // MARK: - Properties

    let preset: VideoPreset
    let simulcast: Bool
    private let logger: Logger
    private let state: Mutex<State>
    /// Layers a receiver asked a key frame for (PLI/FIR), taken by the next encode; separate from
    /// `state` so a request from the network thread never waits for an encode.
    private let keyFrameRequests = Mutex<Set<Int>>([])

    init(preset: VideoPreset, simulcast: Bool, logger: Logger) {
        self.preset = preset
        self.simulcast = simulcast
        self.logger = logger
        let layers = simulcast ? [Layer(preset: preset), Layer(preset: preset.smallLayer)] : [Layer(preset: preset)]
        state = Mutex(State(layers: layers))
    }

    // MARK: - Sinks

    func attach(_ sink: any EncodedVideoSink) {
        state.withLock { $0.sinks[ObjectIdentifier(sink)] = sink }
        requestKeyFrame(layer: nil)
    }

    func detach(_ sink: any EncodedVideoSink) {
        state.withLock { $0.sinks[ObjectIdentifier(sink)] = nil }
    }

    var hasSinks: Bool { state.withLock { !$0.sinks.isEmpty } }

    /// Asks the next frame of `layer` (every layer when nil) to be a key frame.
    func requestKeyFrame(layer: Int?) {
        keyFrameRequests.withLock { requests in
            // Only layers that exist: a request for a layer no encoder takes would stay pending forever
            // and make `keyFrameRequested` true for good.
            if let layer { requests.insert(layer) } else { requests.formUnion(0..<(simulcast ? 2 : 1)) }
        }
    }

    /// A key frame was asked for and the next encode has not taken the request yet.
    var keyFrameRequested: Bool { keyFrameRequests.withLock { !$0.isEmpty } }

    var stats: Stats {
        state.withLock { Stats(framesEncoded: $0.framesEncoded, bytesEncoded: $0.bytesEncoded) }
    }

    /// Drops the encoders (the track is no longer published anywhere).
    func reset() {
        state.withLock { s in
            for i in s.layers.indices {
                s.layers[i].encoder = nil
                s.layers[i].lastTimestampUs = nil
            }
        }
    }

    // MARK: - Encoding

    /// Encodes `frame` for every layer whose frame rate allows it and hands the results to the sinks.
    func encodeAndSend(_ frame: VideoFrame) {
        state.withLock { s in
            guard !s.sinks.isEmpty else { return }
            let sinks = Array(s.sinks.values)
            for index in s.layers.indices {
                guard let encoded = encode(frame, layer: index, in: &s) else { continue }
                s.framesEncoded[index] += 1
                s.bytesEncoded += encoded.data.count
                for sink in sinks { sink.send(encoded, layer: index) }
            }
        }
    }

    private func encode(_ frame: VideoFrame, layer index: Int, in s: inout State) -> EncodedVideoFrame? {
        var layer = s.layers[index]
        defer { s.layers[index] = layer }
        // Frame-rate gate: skip frames arriving faster than the layer's rate (with 20 % slack for jitter).
        let interval = 1_000_000 / Int64(max(1, layer.preset.frameRate))
        if let last = layer.lastTimestampUs, frame.timestampUs > last, frame.timestampUs - last < interval * 8 / 10 {
            return nil
        }
        let input: VideoFrame
        if index == 0 {
            input = frame
        } else {
            let width = max(2, (frame.width / 4) & ~1), height = max(2, (frame.height / 4) & ~1)
            input = VideoFrame(buffer: frame.buffer.scaled(width: width, height: height),
                               timestampUs: frame.timestampUs, rotation: frame.rotation)
        }
        do {
            if layer.encoder == nil {
                var configuration = VP8Encoder.Configuration(width: input.width, height: input.height)
                configuration.bitrate = layer.preset.maxBitrate
                configuration.frameRate = layer.preset.frameRate
                configuration.keyFrameInterval = layer.preset.frameRate * 10
                layer.encoder = try VP8Encoder(configuration: configuration)
            }
            let forceKey = keyFrameRequests.withLock { $0.remove(index) != nil }
            let encoded = try layer.encoder?.encode(input, forceKeyFrame: forceKey)
            layer.lastTimestampUs = frame.timestampUs
            return encoded
        } catch {
            logger.warning("VP8 encode failed (layer \(index)): \(error)")
            layer.encoder = nil
            return nil
        }
    }
}
