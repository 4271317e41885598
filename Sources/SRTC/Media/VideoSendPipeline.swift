import Foundation
import RTCMedia
import RTCWire
import Synchronization

/// Takes encoded frames of one layer of a local video track (an RTP sender of one publication).
protocol EncodedVideoSink: AnyObject, Sendable {
    /// The codec this sink sends (the pipeline runs one encoder per codec its sinks want).
    var videoCodec: VideoCodec { get }
    /// One encoded frame of layer `layer` (0 = the big or only layer, 1 = the small simulcast layer).
    func send(_ frame: EncodedVideoFrame, layer: Int)
    /// Whether anyone receives layer `layer` through this sink (dynacast, docs/protocol.md
    /// `layers_needed`): a layer no sink needs is not encoded.
    func needs(layer: Int) -> Bool
    /// The layers this sink's frames carry when it takes a scalable stream (AV1 `L2T3_KEY`:
    /// layer 0's encoder writes both spatial layers), nil for one layer per encoder.
    var scalabilityMode: ScalabilityMode? { get }
    /// Of a scalable stream: how many spatial layers, lowest first, anyone receives through this
    /// sink (dynacast inside SVC: the encoder leaves the others out).
    var neededSpatialLayers: Int { get }
}

extension EncodedVideoSink {
    var scalabilityMode: ScalabilityMode? { nil }
    var neededSpatialLayers: Int { 1 }
}

/// The encoders of one local video track: per simulcast layer, one encoder for each codec the
/// attached sinks send (VP8, VP9, H.264, AV1), shared by every channel the track is published in. Frames
/// are encoded on the pushing thread, only while at least one sink is attached.
final class VideoSendPipeline: Sendable {
    // MARK: - Types

    private struct Layer {
        var preset: VideoPreset
        var encoders: [VideoCodec: any VideoEncoding] = [:]
        /// The scalability mode each encoder was made with (a sink of another mode re-creates it).
        var modes: [VideoCodec: ScalabilityMode] = [:]
        var lastTimestampUs: Int64?
        /// Not encoded because no sink needs it; its next frame is a key frame.
        var paused = false
        /// The sinks the last encoded frame went to: a sink that starts needing a layer others
        /// already receive (dynacast, one channel of several) joins mid-stream and needs a key frame.
        var served: Set<ObjectIdentifier> = []
    }

    private struct State {
        var layers: [Layer]
        var sinks: [ObjectIdentifier: any EncodedVideoSink] = [:]
        var framesEncoded = [Int](repeating: 0, count: 2)
        var bytesEncoded = 0
        var spatialFramesEncoded = [Int](repeating: 0, count: 2)
    }

    /// Counters for statistics and benchmarks.
    struct Stats: Sendable, Equatable {
        /// Frames encoded per layer.
        var framesEncoded: [Int]
        var bytesEncoded: Int
        /// Layers not encoded now because no sink needs them (dynacast).
        var pausedLayers: Set<Int> = []
        /// Layer frames a scalable encoder wrote per spatial layer (0: the lowest).
        var spatialFramesEncoded: [Int] = [0, 0]
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
        state.withLock { s in
            Stats(framesEncoded: s.framesEncoded, bytesEncoded: s.bytesEncoded,
                  pausedLayers: Set(s.layers.indices.filter { s.layers[$0].paused }), spatialFramesEncoded: s.spatialFramesEncoded)
        }
    }

    /// Drops the encoders (the track is no longer published anywhere).
    func reset() {
        state.withLock { s in
            for i in s.layers.indices {
                s.layers[i].encoders = [:]
                s.layers[i].lastTimestampUs = nil
            }
        }
    }

    // MARK: - Encoding

    /// Encodes `frame` for every layer whose frame rate allows it and some sink needs, once per
    /// codec those sinks send, and hands the results to the sinks of that codec. A layer nobody
    /// needs is paused (not encoded: dynacast) and starts again with a key frame.
    func encodeAndSend(_ frame: VideoFrame) {
        state.withLock { s in
            guard !s.sinks.isEmpty else { return }
            for index in s.layers.indices {
                let sinks = s.sinks.values.filter { $0.needs(layer: index) }
                guard !sinks.isEmpty else {
                    // Its encoders go: one resumed after seconds without frames reads the timestamp
                    // gap as a collapsed frame rate (libvpx averages frame durations) and sent about
                    // half its bitrate for seconds after (51–68 kbit/s for a 100 kbit/s layer in the
                    // network lab). A new encoder starts with the key frame a resumed layer needs.
                    s.layers[index].paused = true
                    s.layers[index].encoders = [:]
                    s.layers[index].lastTimestampUs = nil
                    s.layers[index].served.removeAll(keepingCapacity: true)
                    continue
                }
                guard let input = layerInput(frame, layer: index, in: &s) else { continue }
                var forceKey = keyFrameRequests.withLock { $0.remove(index) != nil }
                if s.layers[index].paused {
                    s.layers[index].paused = false
                    forceKey = true
                }
                let joined = sinks.contains { !s.layers[index].served.contains(ObjectIdentifier($0)) }
                if joined { forceKey = true }  // a sink new to this layer starts with a key frame
                if joined || sinks.count != s.layers[index].served.count {
                    s.layers[index].served = Set(sinks.map { ObjectIdentifier($0) })
                }
                for codec in VideoCodec.allCases where sinks.contains(where: { $0.videoCodec == codec }) {
                    let mode = sinks.lazy.filter { $0.videoCodec == codec }.compactMap { $0.scalabilityMode }.first ?? .l1t1
                    // Dynacast inside SVC: the spatial layers some sink of this codec needs.
                    let spatial = mode.spatialLayers > 1
                        ? max(1, sinks.lazy.filter { $0.videoCodec == codec }.map(\.neededSpatialLayers).max() ?? 1) : 1
                    guard let encoded = encode(input, codec: codec, mode: mode, spatialLayers: spatial, layer: index,
                                               forceKeyFrame: forceKey, in: &s) else { continue }
                    s.framesEncoded[index] += 1
                    s.bytesEncoded += encoded.data.count
                    for layer in encoded.layerFrames where layer.spatialID < s.spatialFramesEncoded.count {
                        s.spatialFramesEncoded[layer.spatialID] += 1
                    }
                    for sink in sinks where sink.videoCodec == codec { sink.send(encoded, layer: index) }
                }
                s.layers[index].lastTimestampUs = frame.timestampUs
            }
        }
    }

    /// Sends a frame encoded elsewhere (`LocalEncodedVideoTrack`) to the sinks of `codec` that
    /// need the single layer. A sink new to the track gets nothing before a key frame (it could
    /// decode nothing before one); a key frame answers the pending key-frame requests, which the
    /// pipeline cannot act on itself.
    /// - Returns: whether some sink took it.
    func sendEncoded(_ frame: EncodedVideoFrame, codec: VideoCodec) -> Bool {
        state.withLock { (s: inout State) -> Bool in
            guard !s.sinks.isEmpty else { return false }
            if frame.isKeyFrame {
                _ = keyFrameRequests.withLock { $0.remove(0) }
                s.layers[0].served = Set(s.sinks.values.filter { $0.videoCodec == codec && $0.needs(layer: 0) }.map { ObjectIdentifier($0) })
            }
            var sent = false
            for sink in s.sinks.values where sink.videoCodec == codec {
                let id = ObjectIdentifier(sink)
                guard s.layers[0].served.contains(id) else { continue }
                // Paused (dynacast): it starts again at a key frame, like a new sink.
                guard sink.needs(layer: 0) else { s.layers[0].served.remove(id); continue }
                sink.send(frame, layer: 0)
                sent = true
            }
            if sent {
                s.framesEncoded[0] += 1
                s.bytesEncoded += frame.data.count
            }
            s.layers[0].lastTimestampUs = frame.timestampUs
            return sent
        }
    }

    /// The frame layer `index` encodes (the small layer a quarter of the size), or nil when it
    /// comes faster than the layer's frame rate (with 20 % slack for jitter).
    private func layerInput(_ frame: VideoFrame, layer index: Int, in s: inout State) -> VideoFrame? {
        let layer = s.layers[index]
        let interval = 1_000_000 / Int64(max(1, layer.preset.frameRate))
        if let last = layer.lastTimestampUs, frame.timestampUs > last, frame.timestampUs - last < interval * 8 / 10 {
            return nil
        }
        guard index > 0 else { return frame }
        let width = max(2, (frame.width / 4) & ~1), height = max(2, (frame.height / 4) & ~1)
        return VideoFrame(buffer: frame.buffer.scaled(width: width, height: height), timestampUs: frame.timestampUs, rotation: frame.rotation)
    }

    private func encode(_ input: VideoFrame, codec: VideoCodec, mode: ScalabilityMode, spatialLayers: Int, layer index: Int,
                        forceKeyFrame: Bool, in s: inout State) -> EncodedVideoFrame? {
        let preset = s.layers[index].preset
        do {
            let encoder: any VideoEncoding
            if let existing = s.layers[index].encoders[codec], s.layers[index].modes[codec] == mode {
                encoder = existing
            } else {
                encoder = try Self.makeEncoder(codec, width: input.width, height: input.height, preset: preset, mode: mode)
                s.layers[index].encoders[codec] = encoder
                s.layers[index].modes[codec] = mode
                if mode.spatialLayers > 1, let scalable = encoder as? any ScalableVideoEncoding {
                    try scalable.setActiveSpatialLayers(spatialLayers)
                }
                // A new encoder starts with a key frame anyway.
                return try encoder.encode(input, forceKeyFrame: true)
            }
            if mode.spatialLayers > 1, let scalable = encoder as? any ScalableVideoEncoding {
                try scalable.setActiveSpatialLayers(spatialLayers)
            }
            return try encoder.encode(input, forceKeyFrame: forceKeyFrame)
        } catch {
            logger.warning("\(codec.rawValue) encode failed (layer \(index)): \(error)")
            s.layers[index].encoders[codec] = nil
            return nil
        }
    }

    private static func makeEncoder(_ codec: VideoCodec, width: Int, height: Int, preset: VideoPreset,
                                    mode: ScalabilityMode) throws -> any VideoEncoding {
        switch codec {
        case .vp8, .vp9:
            var configuration = VPXEncoder.Configuration(width: width, height: height, codec: codec)
            configuration.bitrate = preset.maxBitrate
            configuration.frameRate = preset.frameRate
            configuration.keyFrameInterval = preset.frameRate * 10
            if codec == .vp9 { configuration.scalabilityMode = mode }
            return try VP8Encoder(configuration: configuration)
        case .h264:
            var configuration = H264Encoder.Configuration(width: width, height: height)
            configuration.bitrate = preset.maxBitrate
            configuration.frameRate = preset.frameRate
            configuration.keyFrameInterval = preset.frameRate * 10
            return try H264Encoder(configuration: configuration)
        case .av1:
            // libaom in real-time mode (speed 9): about as costly per frame as libvpx's VP9 here.
            var configuration = AV1Encoder.Configuration(width: width, height: height)
            configuration.bitrate = preset.maxBitrate
            configuration.frameRate = preset.frameRate
            configuration.keyFrameInterval = preset.frameRate * 10
            configuration.scalabilityMode = mode
            return try AV1Encoder(configuration: configuration)
        }
    }
}
