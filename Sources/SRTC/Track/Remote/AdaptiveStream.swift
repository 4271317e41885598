import SRTCProtocol

/// What a subscribed remote video needs from the server under adaptive stream
/// (`SRTCEngine.Configuration.adaptiveStream`, docs/sdk-srtc.md "Adaptive stream").
package enum AdaptiveLayerChoice: Equatable, Sendable {
    /// Nothing shows the video: the server forwards none of it (`set_layer` with `"none"`).
    case paused
    /// The best layer the link carries (`set_layer` with no layer).
    case best
    /// The layer with this description (`camera_small`, ...).
    case layer(String)

    /// The `layer` field of the `set_layer` request (docs/protocol.md).
    package var requestValue: String? {
        switch self {
        case .paused: LayerSwitchedInfo.pausedLayer
        case .best: nil
        case .layer(let desc): desc
        }
    }
}

/// The adaptive-stream rules of one subscribed remote video, as a value: the renderers' shown
/// sizes go in at each tick of the channel, the request to send (if any) comes out. The same rules
/// as the web SDK's `adaptiveStream` (web/srtc/adaptive-stream.js), so that a tile behaves alike in
/// both SDKs.
package struct AdaptiveStream: Sendable {
    /// What the renderers of a track say at one tick.
    package struct Demand: Equatable, Sendable {
        /// The widths, in device pixels, of the sized renderers that show the video now.
        package var shownWidths: [Int] = []
        /// A renderer that takes every frame whatever its size (a plain `VideoRenderer`, an
        /// encoded-frame renderer): the video is needed at its best.
        package var needsEverything = false

        package init(shownWidths: [Int] = [], needsEverything: Bool = false) {
            self.shownWidths = shownWidths
            self.needsEverything = needsEverything
        }
    }

    /// The choice seen at the previous tick: a new choice waits one tick, so that a resize in
    /// progress sends one request.
    private var candidate: AdaptiveLayerChoice?
    /// The last choice decided from the renderers (nil until the first one after a subscription).
    /// A layer asked for by hand (`Channel.switchLayer`) holds until the renderers' choice changes.
    private(set) var decided: AdaptiveLayerChoice?

    package init() {}

    /// The layer a video shown `width` device pixels wide needs: the smallest layer at least that
    /// wide, else the widest; `.best` when the track has fewer than two layers with a width.
    package static func choice(layers: [SimulcastLayer], demand: Demand) -> AdaptiveLayerChoice {
        if demand.needsEverything { return .best }
        guard let width = demand.shownWidths.filter({ $0 > 0 }).max() else { return .paused }
        let sized = layers.compactMap { layer in layer.width.flatMap { $0 > 0 ? (layer.desc, $0) : nil } }
            .sorted { $0.1 < $1.1 }
        guard sized.count >= 2, let widest = sized.last else { return .best }
        return .layer((sized.first { $0.1 >= width } ?? widest).0)
    }

    /// One tick: returns the choice to request now, or nil (unchanged, or changed and waiting one
    /// more tick).
    package mutating func tick(layers: [SimulcastLayer], demand: Demand) -> AdaptiveLayerChoice? {
        let wanted = Self.choice(layers: layers, demand: demand)
        guard wanted == candidate else {
            candidate = wanted
            return nil
        }
        guard wanted != decided else { return nil }
        decided = wanted
        return wanted
    }

    /// A request failed: the next tick tries again.
    package mutating func requestFailed(_ choice: AdaptiveLayerChoice) {
        if decided == choice { decided = nil }
    }

    /// A subscription started or ended: the renderers' choice applies afresh.
    package mutating func reset() {
        candidate = nil
        decided = nil
    }
}
