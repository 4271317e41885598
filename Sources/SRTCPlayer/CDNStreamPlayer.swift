#if canImport(RTCAV)
import SRTCCore
import Synchronization

/// The CDN engine's player: opens a stream with FFmpeg and reads it with a `CDNStream` once the
/// channel starts it (the engine's `LiveStreamPlayer`, given by `Channel.play(url:)`).
struct CDNStreamPlayer: LiveStreamPlayer {
    func open(url: String, timeout: Double) throws(SRTCError) -> any LiveStream {
        CDNOpenedStream(source: try CDNStream.open(url: url, timeout: timeout))
    }
}

/// One opened stream, and its reader once started.
final class CDNOpenedStream: LiveStream {
    private struct State {
        var reader: CDNStream?
        var stopped = false
    }

    private let source: CDNStream.Source
    private let state = Mutex(State())

    init(source: CDNStream.Source) {
        self.source = source
    }

    func trackInfos(uid: String) -> [TrackInfo] {
        CDNStream.trackInfos(of: source, uid: uid)
    }

    func start(video: RemoteVideoTrack?, audio: RemoteAudioTrack?, onEnd: @escaping @Sendable (LiveStreamOutcome) -> Void) {
        let reader = CDNStream(source: source, video: video, audio: audio, onEnd: onEnd)
        let started = state.withLock { s -> Bool in
            guard !s.stopped, s.reader == nil else { return false }
            s.reader = reader
            return true
        }
        if started { reader.start() }
    }

    func stop() {
        let reader = state.withLock { s -> CDNStream? in
            s.stopped = true
            return s.reader
        }
        reader?.stop()
        source.interrupt.stop()  // also ends an open that was never started
    }
}
#endif
