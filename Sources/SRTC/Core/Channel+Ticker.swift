import Foundation
import RTCNet
import SRTCProtocol

// Remote track objects (made by the machine's `addRemoteTrack`) and the ticker that watches
// them: receive timeouts, adaptive stream, network paths.
extension Channel {
    // MARK: - Remote tracks

    func makeRemoteTrack(_ info: TrackInfo) -> RemoteTrack {
        switch info.kind {
        case .audio:
            return RemoteAudioTrack(info: info, context: context)
        case .video:
            let track = RemoteVideoTrack(info: info, context: context, receiveTimeout: context.configuration.receiveTimeout)
            track.statusHandler.set { [weak self] track, timedOut in self?.reportReceiveStatus(track, timedOut: timedOut) }
            return track
        }
    }

    func reportReceiveStatus(_ track: RemoteVideoTrack, timedOut: Bool) {
        let status = ReceiveStreamStatus(uid: track.uid, trackId: track.id, desc: track.desc, timedOut: timedOut)
        delegates.notify { [self] in $0.channel(self, didChangeReceiveStreamStatus: status) }
    }

    // MARK: - Ticker: receive timeouts, network paths

    /// Adaptive stream: asks the server for what the track's renderers need (`set_layer`, docs/protocol.md).
    private func requestAdaptiveLayer(_ track: RemoteVideoTrack, _ choice: AdaptiveLayerChoice) {
        track.adaptiveChoiceSent(choice)
        Task { [weak self] in
            guard let self, let signal = try? liveSignal() else { return track.adaptiveRequestFailed(choice) }
            do {
                try await signal.request(.setLayer(SubscribeRequest(trackId: track.id, layer: choice.requestValue)))
                switch choice {
                case .paused: break
                case .best: await answered(.layerRequested(trackId: track.id, layer: nil))
                case .layer(let desc): await answered(.layerRequested(trackId: track.id, layer: VideoLayer(rawValue: desc)))
                }
                context.logger.debug("adaptive stream: \(track.id) → \(choice.requestValue ?? "best")")
            } catch {
                track.adaptiveRequestFailed(choice)
                context.logger.warning("adaptive stream: set_layer \(track.id) failed: \(error)")
            }
        }
    }

    func startTicker() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 0.25, repeating: 0.25)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let now = Monotonic.seconds()
            let adaptive = context.configuration.adaptiveStream && engineType == .sfu
            let subscribed = state.sync { s in s.machine.tracks.subscribedIds.compactMap { s.remoteTracks[$0] as? RemoteVideoTrack } }
            for track in subscribed {
                if adaptive, let choice = track.adaptiveTick() { requestAdaptiveLayer(track, choice) }
                track.tick(now: now)
            }
            if engineType == .sfu { watchNetworkPaths() }
        }
        let old = state.sync { s -> DispatchSourceTimer? in
            defer { s.ticker = timer }
            return s.ticker
        }
        old?.cancel()
        timer.resume()
    }
}
