import Foundation
import SRTCProtocol
import Synchronization

/// A media track: local (yours, published with `Channel.publishLocalTrack`) or remote (another
/// user's, announced by `channel(_:user:didAddTrack:)`).
// open (not public) only so the device tracks of `SRTCDevices` (camera, microphone, screen) can
// subclass it from their module; its initializers are `package`, so apps still cannot.
// @unchecked Sendable: not final (every track type subclasses it), so it cannot be checked; its state is `let`s of Sendable types and `base`, a Mutex.
open class Track: @unchecked Sendable {
    // MARK: - Types

    struct Base {
        var info: TrackInfo?
        var muted = false
        var ended = false
        var bound = false
    }

    // MARK: - Properties

    /// Track events; observers are held weakly.
    public let delegates: MulticastDelegate<TrackDelegate>
    /// Audio or video.
    public let kind: TrackKind
    /// `mic`, `camera_big`, `screen` or a custom description.
    public let desc: String
    package let context: EngineContext
    let base: Mutex<Base>

    package init(kind: TrackKind, desc: String, info: TrackInfo?, context: EngineContext) {
        self.kind = kind
        self.desc = desc
        self.context = context
        self.delegates = MulticastDelegate(queue: context.delegateQueue)
        self.base = Mutex(Base(info: info, muted: info?.muted ?? false))
    }

    // MARK: - Public API

    /// The server's view of the track: id, publisher, layers. Nil for a local track not published yet.
    public var info: TrackInfo? { base.withLock { $0.info } }
    /// The server-assigned id; nil for a local track not published yet.
    public var trackId: String? { info?.id }
    /// Whether the track is muted (a muted track sends nothing).
    public var isMuted: Bool { base.withLock { $0.muted } }
    /// Whether the track ended (unpublished, publisher gone, channel left).
    public var isEnded: Bool { base.withLock { $0.ended } }

    // MARK: - Internals

    /// Stores new info and raises `didUpdateInfo`, and `trackDidMute` / `trackDidUnmute` on a change.
    func update(info: TrackInfo) {
        let changedMute: Bool? = base.withLock { b in
            b.info = info
            guard b.muted != info.muted else { return nil }
            b.muted = info.muted
            return info.muted
        }
        delegates.notify { [self] in $0.track(self, didUpdateInfo: info) }
        if let muted = changedMute { notifyMute(muted) }
    }

    /// Sets the local mute flag; returns false when it did not change.
    func setMuted(_ muted: Bool) -> Bool {
        let changed = base.withLock { b -> Bool in
            guard b.muted != muted else { return false }
            b.muted = muted
            if b.info != nil { b.info?.muted = muted }
            return true
        }
        if changed { notifyMute(muted) }
        return changed
    }

    func notifyMute(_ muted: Bool) {
        delegates.notify { [self] in muted ? $0.trackDidMute(self) : $0.trackDidUnmute(self) }
    }

    /// Raises `trackDidEnd` once.
    func end() {
        let first = base.withLock { b -> Bool in
            defer { b.ended = true }
            return !b.ended
        }
        if first { delegates.notify { [self] in $0.trackDidEnd(self) } }
    }

    /// Raises `trackDidBindRtcTrack` once per binding.
    func bind() {
        let first = base.withLock { b -> Bool in
            defer { b.bound = true }
            return !b.bound
        }
        if first { delegates.notify { [self] in $0.trackDidBindRtcTrack(self) } }
    }

    /// Forgets the binding (the subscription ended); a later one raises the event again.
    func unbind() {
        base.withLock { $0.bound = false }
    }
}
