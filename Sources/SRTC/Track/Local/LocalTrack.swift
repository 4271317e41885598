import Foundation
import SRTCProtocol
import Synchronization

/// A track this app publishes. Create one with the engine's factories
/// (`createLocalCustomVideoTrack(desc:)`, …) and publish it with `Channel.publishLocalTrack`.
/// One local track may be published in several channels at once; it is encoded once.
// open (not public) only so the device tracks of `SRTCDevices` (camera, microphone, screen) can
// subclass it from their module; its initializers are `package`, so apps still cannot.
// @unchecked Sendable: not final (the SDK subclasses it), so it cannot be checked; its only state, `publications`, is a Mutex.
open class LocalTrack: Track, @unchecked Sendable {
    /// Where the track is published: the channel (weak) and the track's id there.
    struct Publication {
        weak var channel: Channel?
        var trackId: String
    }

    let publications = Mutex<[ObjectIdentifier: Publication]>([:])

    // MARK: - Public API

    /// Mutes the track: it stops sending and every channel it is published in is told.
    public func mute() async {
        guard setMuted(true) else { return }
        await announceMute(true)
    }

    /// Unmutes the track.
    public func unmute() async {
        guard setMuted(false) else { return }
        await announceMute(false)
    }

    /// Whether the track is published in at least one channel.
    public var isPublished: Bool { publications.withLock { !$0.isEmpty } }

    // MARK: - Internals

    private func announceMute(_ muted: Bool) async {
        let targets = publications.withLock { Array($0.values) }
        for p in targets {
            await p.channel?.sendMute(trackId: p.trackId, muted: muted)
        }
    }

    func didPublish(in channel: Channel, info: TrackInfo) {
        publications.withLock { $0[ObjectIdentifier(channel)] = Publication(channel: channel, trackId: info.id) }
        update(info: info)
        bind()
    }

    func didUnpublish(from channel: Channel) {
        let empty = publications.withLock { p -> Bool in
            p[ObjectIdentifier(channel)] = nil
            return p.isEmpty
        }
        if empty {
            unbind()
            mediaDetached()
        }
    }

    /// The track id in `channel`, if published there.
    func trackId(in channel: Channel) -> String? {
        publications.withLock { $0[ObjectIdentifier(channel)]?.trackId }
    }

    /// Overridden by media tracks: no channel carries the track any more.
    func mediaDetached() {}
}
