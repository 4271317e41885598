import SMeetingProtocol
import SRTCProtocol
import SRTCServer

/// The meeting is the authority over its channels' media: the SRTC server asks it before a
/// `publish`, and every change of a member's states is followed on the channel (a closed mic is
/// held muted by the SFU, an ended share unpublished), whatever the member's client does.
extension MeetingRoom {
    /// The track descriptions a meeting channel carries.
    static let micDesc = TrackDesc.mic.rawValue
    static let cameraDesc = TrackDesc.cameraBig.rawValue
    static let screenDesc = TrackDesc.screen.rawValue

    /// Whether `uid` may publish `track` on `key` now (docs/meeting-protocol.md, "Media rules").
    func mayPublish(uid: String, on key: ChannelKey, track: PublishTrack) -> PublishVerdict {
        // A member of the room on its previous node publishes again as it did there, before its
        // meeting session is back (`+Record`).
        if let ingress = ingress(uid: uid) { return ingressMayPublish(ingress, track, on: key) }
        guard let info = members[uid]?.info ?? returning[uid] else { return .refuse("not in the meeting") }
        guard channelKey(for: info.subMeetingId) == key else { return .refuse("this channel is not the one of your (sub-)meeting") }
        switch track.desc {
        case Self.micDesc:
            guard track.kind == .audio else { return .refuse("mic must be an audio track") }
            guard info.micState == .on else { return .refuse("your microphone is closed in the meeting: request_open_mic first") }
        case Self.cameraDesc:
            guard track.kind == .video else { return .refuse("camera_big must be a video track") }
            guard room.mode != .voice else { return .refuse("a voice meeting has no video") }
            guard info.cameraState == .on else { return .refuse("your camera is closed in the meeting: request_open_camera first") }
        case Self.screenDesc:
            guard track.kind == .video else { return .refuse("screen must be a video track") }
            guard room.mode != .voice else { return .refuse("a voice meeting has no video") }
            guard Self.holdsScreen(info) else { return .refuse("only the member sharing the screen (or capturing a view) may publish screen") }
        default:
            return .refuse("a meeting channel carries only mic, camera_big and screen tracks")
        }
        return .allow
    }

    /// Makes the member's channel follow a change of its states: a device turned off is held
    /// muted by the SFU (turned on, released); a screen it no longer holds is unpublished.
    func followMedia(uid: String, before: MeetingUserInfo, after: MeetingUserInfo) {
        guard before.subMeetingId == after.subMeetingId else { return }  // a move leaves the old channel anyway
        let key = channelKey(for: after.subMeetingId)
        if before.micState != after.micState {
            commands.enqueue(.hold(key, uid: uid, desc: Self.micDesc, muted: after.micState == .off))
        }
        if before.cameraState != after.cameraState {
            commands.enqueue(.hold(key, uid: uid, desc: Self.cameraDesc, muted: after.cameraState == .off))
        }
        if Self.holdsScreen(before), !Self.holdsScreen(after) {
            commands.enqueue(.unpublish(key, uid: uid, desc: Self.screenDesc))
        }
    }

    /// Whether a member may open its mic or camera, or share, under the mode: in a training
    /// meeting only host, co-hosts and presenters may.
    func trainingAllows(_ info: MeetingUserInfo) -> Bool {
        room.mode != .training || info.role.isAdmin || info.presenter
    }

    /// After a mode change: a voice meeting has no cameras or screens; in a training meeting
    /// members who are not presenters close their devices and stop sharing.
    func enforceMode(by admin: String?) {
        for m in members.values {
            let info = m.info
            let voice = room.mode == .voice
            let silenced = !trainingAllows(info)
            if voice || silenced, info.cameraState == .on { update(info.uid, ["camera_state"], by: admin) { $0.cameraState = .off } }
            if silenced, info.micState == .on { update(info.uid, ["mic_state"], by: admin) { $0.micState = .off } }
            if voice || silenced, Self.holdsScreen(info) { endShares(info.uid, by: admin) }
        }
    }

    /// Ends the member's share (screen or whiteboard, with the room's sharing state) and its view
    /// capture.
    func endShares(_ uid: String, by admin: String?) {
        guard let info = members[uid]?.info else { return }
        if info.shareState != 0, room.sharingUid == uid { _ = try? stopShare(uid, by: admin) }
        if info.viewCapture { update(uid, ["view_capture"], by: admin) { $0.viewCapture = false } }
    }
}
