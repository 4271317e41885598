import RTCCrypto
import SMeetingProtocol
import SRTCProtocol
import SRTCServer

// Ingresses in a meeting (docs/meeting-protocol.md, "Ingress"): a host or co-host makes an RTMP
// ingress into the meeting's channel, or a sub-meeting's, through the server's ingress module;
// everyone sees it in `RoomInfo.ingresses`, and the channel admits its uid and lets it publish
// `camera_big` and `mic`. It is no member (no seat, no states of its own), but the room-wide rules
// hold it: mute all holds its mic, camera off for everyone its camera. The ingresses end with the
// meeting (the last member gone, or ended), a sub-meeting's when the sub-meetings close.
extension MeetingRoom {
    /// At most this many ingresses in one meeting.
    static let maxIngresses = 4

    func createIngress(_ uid: String, nickname: String?, subMeetingId: String? = nil) async throws(MeetingErrorBody) -> CreateIngressResp {
        _ = try admin(uid)
        let name = nickname ?? "RTMP stream"
        guard (1...64).contains(name.count) else { throw MeetingErrorBody(.invalidParameter, "nickname must be 1–64 characters") }
        if let subMeetingId {
            guard let sub = subMeetings.first(where: { $0.id == subMeetingId }) else {
                throw MeetingErrorBody(.notFound, "no sub-meeting \(subMeetingId.prefix(64))")
            }
            guard sub.status != .closing else { throw MeetingErrorBody(.wrongState, "the sub-meetings are closing") }
        }
        // Its stream is not end-to-end encrypted: the members' clients would drop it.
        guard room.e2ee != true else { throw MeetingErrorBody(.policyForbidden, "an end-to-end encrypted meeting takes no ingress") }
        guard (room.ingresses ?? []).count < Self.maxIngresses else {
            throw MeetingErrorBody(.limitReached, "a meeting has at most \(Self.maxIngresses) ingresses")
        }
        let ingressUid = "ingress_" + SecureRandom.string(count: 10)
        let made: ModuleIngress
        do throws(ModuleRefusal) {
            made = try await channels.createIngress(channelKey(for: subMeetingId), uid: ingressUid)
        } catch {
            throw Self.meetingError(error)
        }
        guard !closed, subMeetingId == nil || subMeetings.contains(where: { $0.id == subMeetingId && $0.status != .closing }) else {
            // The meeting (or the sub-meeting) ended while the ingress was made.
            let channels = self.channels, key = channelKey(for: subMeetingId)
            Task { try? await channels.deleteIngress(key, ingressId: made.ingressId) }
            throw closed ? MeetingErrorBody(.meetingClosed, "the meeting ended") : MeetingErrorBody(.wrongState, "the sub-meetings are closing")
        }
        let ingress = MeetingIngress(ingressId: made.ingressId, uid: ingressUid, nickname: name, createdBy: uid, subMeetingId: subMeetingId)
        room.ingresses = (room.ingresses ?? []) + [ingress]
        broadcastRoom(["ingresses"], by: uid)
        return CreateIngressResp(ingress: ingress, url: made.url, streamKey: made.streamKey)
    }

    func deleteIngress(_ uid: String, ingressId: String) async throws(MeetingErrorBody) -> RoomInfo {
        _ = try admin(uid)
        guard room.ingresses?.contains(where: { $0.ingressId == ingressId }) == true else {
            throw MeetingErrorBody(.notFound, "no ingress \(ingressId.prefix(64)) in this meeting")
        }
        let key = channelKey(for: room.ingresses?.first { $0.ingressId == ingressId }?.subMeetingId)
        room.ingresses?.removeAll { $0.ingressId == ingressId }
        if room.ingresses?.isEmpty == true { room.ingresses = nil }
        broadcastRoom(["ingresses"], by: uid)
        do throws(ModuleRefusal) {
            try await channels.deleteIngress(key, ingressId: ingressId)
        } catch {
            if error.code != .notFound { throw Self.meetingError(error) }
        }
        return roomSnapshot
    }

    /// The ingress publishing under `uid`, if any.
    func ingress(uid: String) -> MeetingIngress? {
        room.ingresses?.first { $0.uid == uid }
    }

    /// What an ingress may publish in its (sub-)meeting's channel: its camera and its sound, held
    /// muted while mute all (camera off for everyone) holds.
    func ingressMayPublish(_ ingress: MeetingIngress, _ track: PublishTrack, on key: ChannelKey) -> PublishVerdict {
        guard key == channelKey(for: ingress.subMeetingId) else { return .refuse("an ingress publishes in the channel it was made for") }
        switch track.desc {
        case Self.micDesc where track.kind == .audio: return room.muteAll ? .allowHeld : .allow
        case Self.cameraDesc where track.kind == .video:
            return room.mode == .voice ? .refuse("a voice meeting has no video") : room.cameraOffAll ? .allowHeld : .allow
        default: return .refuse("an ingress publishes mic and camera_big only")
        }
    }

    /// Mute all (or camera off for everyone) set or lifted: the ingresses' `desc` follow, held
    /// or released (an ingress has no device of its own to close or reopen).
    func followRuleOnIngresses(desc: String, held: Bool) {
        for ingress in room.ingresses ?? [] {
            commands.enqueue(.hold(channelKey(for: ingress.subMeetingId), uid: ingress.uid, desc: desc, muted: held))
        }
    }

    /// Ends the meeting's ingresses (the meeting closed); their pushes end.
    func endIngresses() {
        let ended = room.ingresses ?? []
        room.ingresses = nil
        deleteIngresses(ended)
    }

    /// Ends the sub-meetings' ingresses (the sub-meetings closed); everyone gets `room_changed`.
    func endSubMeetingIngresses() {
        let ended = (room.ingresses ?? []).filter { $0.subMeetingId != nil }
        guard !ended.isEmpty else { return }
        room.ingresses?.removeAll { $0.subMeetingId != nil }
        if room.ingresses?.isEmpty == true { room.ingresses = nil }
        broadcastRoom(["ingresses"], by: nil)
        deleteIngresses(ended)
    }

    private func deleteIngresses(_ ingresses: [MeetingIngress]) {
        guard !ingresses.isEmpty else { return }
        let channels = self.channels
        let targets = ingresses.map { (channelKey(for: $0.subMeetingId), $0.ingressId) }
        Task {
            for (key, id) in targets { try? await channels.deleteIngress(key, ingressId: id) }
        }
    }
}
