import RTCCrypto
import SMeetingProtocol
import SRTCProtocol
import SRTCServer

// Ingresses in a meeting (docs/meeting-protocol.md, "Ingress"): a host or co-host makes an RTMP
// ingress into the meeting's channel through the server's ingress module; everyone sees it in
// `RoomInfo.ingresses`, and the channel admits its uid and lets it publish `camera_big` and `mic`
// (it is no member: the meeting's member rules do not apply to it). The ingresses end with the
// meeting (the last member gone, or ended).
extension MeetingRoom {
    /// At most this many ingresses in one meeting.
    static let maxIngresses = 4

    func createIngress(_ uid: String, nickname: String?) async throws(MeetingErrorBody) -> CreateIngressResp {
        _ = try admin(uid)
        let name = nickname ?? "RTMP stream"
        guard (1...64).contains(name.count) else { throw MeetingErrorBody(.invalidParameter, "nickname must be 1–64 characters") }
        // Its stream is not end-to-end encrypted: the members' clients would drop it.
        guard room.e2ee != true else { throw MeetingErrorBody(.policyForbidden, "an end-to-end encrypted meeting takes no ingress") }
        guard (room.ingresses ?? []).count < Self.maxIngresses else {
            throw MeetingErrorBody(.limitReached, "a meeting has at most \(Self.maxIngresses) ingresses")
        }
        let ingressUid = "ingress_" + SecureRandom.string(count: 10)
        let made: ModuleIngress
        do throws(ModuleRefusal) {
            made = try await channels.createIngress(channelKey, uid: ingressUid)
        } catch {
            throw Self.meetingError(error)
        }
        guard !closed else {
            // The meeting ended while the ingress was made.
            let channels = self.channels, key = channelKey
            Task { try? await channels.deleteIngress(key, ingressId: made.ingressId) }
            throw MeetingErrorBody(.meetingClosed, "the meeting ended")
        }
        let ingress = MeetingIngress(ingressId: made.ingressId, uid: ingressUid, nickname: name, createdBy: uid)
        room.ingresses = (room.ingresses ?? []) + [ingress]
        broadcastRoom(["ingresses"], by: uid)
        return CreateIngressResp(ingress: ingress, url: made.url, streamKey: made.streamKey)
    }

    func deleteIngress(_ uid: String, ingressId: String) async throws(MeetingErrorBody) -> RoomInfo {
        _ = try admin(uid)
        guard room.ingresses?.contains(where: { $0.ingressId == ingressId }) == true else {
            throw MeetingErrorBody(.notFound, "no ingress \(ingressId.prefix(64)) in this meeting")
        }
        room.ingresses?.removeAll { $0.ingressId == ingressId }
        if room.ingresses?.isEmpty == true { room.ingresses = nil }
        broadcastRoom(["ingresses"], by: uid)
        do throws(ModuleRefusal) {
            try await channels.deleteIngress(channelKey, ingressId: ingressId)
        } catch {
            if error.code != .notFound { throw Self.meetingError(error) }
        }
        return roomSnapshot
    }

    /// The ingress publishing under `uid`, if any.
    func ingress(uid: String) -> MeetingIngress? {
        room.ingresses?.first { $0.uid == uid }
    }

    /// What an ingress may publish in the main channel: its camera and its sound.
    func ingressMayPublish(_ track: PublishTrack, on key: ChannelKey) -> PublishVerdict {
        guard key == channelKey else { return .refuse("an ingress publishes in the main meeting's channel") }
        switch track.desc {
        case Self.micDesc where track.kind == .audio: return .allow
        case Self.cameraDesc where track.kind == .video:
            return room.mode == .voice ? .refuse("a voice meeting has no video") : .allow
        default: return .refuse("an ingress publishes mic and camera_big only")
        }
    }

    /// Ends the meeting's ingresses (the meeting closed); their pushes end.
    func endIngresses() {
        let ids = room.ingresses?.map(\.ingressId) ?? []
        room.ingresses = nil
        guard !ids.isEmpty else { return }
        let channels = self.channels, key = channelKey
        Task {
            for id in ids { try? await channels.deleteIngress(key, ingressId: id) }
        }
    }
}
