import EgressProtocol
import Foundation
import RTCNet
import SRTCProtocol
import SRTCServer

/// The signed egress routes, `POST /server/v1/channel/composite|record|live/…` (docs/egress.md), and
/// `POST /server/v1/ingress/create|list|delete` (docs/ingress.md), and
/// `POST /server/v1/channel/captions/start|stop|list` (docs/captions.md).
/// Bodies and answers are snake_case JSON; errors are the server API's error body.
enum EgressRoutes {
    struct CompositeAnswer: Encodable { var composite: CompositeInfo }
    struct CompositeList: Encodable { var composites: [CompositeInfo] }
    struct RecordingAnswer: Encodable { var recording: RecordingInfo }
    struct RecordingList: Encodable { var recordings: [RecordingInfo] }
    struct E2EEKeysAnswer: Encodable { var keys: Int }
    struct IngressAnswer: Encodable { var ingress: IngressInfo }
    struct IngressList: Encodable { var ingresses: [IngressInfo] }
    struct CaptionsAnswer: Encodable { var captions: CaptionsInfo }
    struct CaptionList: Encodable {
        var channel: String
        /// The captions running in the channel now, if any.
        var running: CaptionsInfo?
        var captions: [CaptionEntry]
    }

    static func register(in builder: inout APIRouter.Builder, supervisor: EgressSupervisor, channels: ChannelControl) {
        // MARK: Composites
        route(&builder, "composite/start", EgressRequests.CompositeStart.self) { app, body throws(EgressError) in
            let settings = try EgressRequests.settings(body)
            let info = try await supervisor.startComposite(appId: app.appId, key: ChannelKey(appId: app.appId, name: body.channel),
                                                           settings: settings, requireLive: true, e2ee: body.e2ee)
            return CompositeAnswer(composite: info)
        }
        route(&builder, "composite/update", EgressRequests.CompositeUpdate.self) { app, body throws(EgressError) in
            try EgressRequests.checkChannel(body.channel)
            try EgressRequests.checkUid(body.uid)
            return CompositeAnswer(composite: try await supervisor.setLayout(appId: app.appId, key: ChannelKey(appId: app.appId, name: body.channel),
                                                                              uid: body.uid, layout: body.layout))
        }
        route(&builder, "composite/stop", EgressRequests.CompositeRef.self) { app, body throws(EgressError) in
            try EgressRequests.checkChannel(body.channel)
            try EgressRequests.checkUid(body.uid)
            return CompositeAnswer(composite: try await supervisor.stopComposite(appId: app.appId, key: ChannelKey(appId: app.appId, name: body.channel),
                                                                                  uid: body.uid))
        }
        route(&builder, "composite/list", EgressRequests.ChannelFilter.self) { app, body throws(EgressError) in
            if let channel = body.channel { try EgressRequests.checkChannel(channel) }
            return CompositeList(composites: await supervisor.composites(appId: app.appId, channel: body.channel))
        }

        // MARK: Recordings
        route(&builder, "record/start", EgressRequests.RecordStart.self) { app, body throws(EgressError) in
            try EgressRequests.checkChannel(body.channel)
            let key = ChannelKey(appId: app.appId, name: body.channel)
            let idle = body.idle_timeout ?? 60
            guard EgressRequests.idleTimeouts.contains(idle) else { throw EgressError(.invalidParameter, "idle_timeout must be 5...86400 seconds") }
            try EgressRequests.checkE2EE(body.e2ee)
            let source = try await resolveSource(body, key: key, channels: channels, supervisor: supervisor)
            let info = try await supervisor.startRecording(appId: app.appId, key: key, source: source, format: body.format ?? .webm,
                                                           idleTimeoutSeconds: idle, e2ee: body.e2ee)
            return RecordingAnswer(recording: info)
        }
        route(&builder, "record/stop", EgressRequests.RecordRef.self) { app, body throws(EgressError) in
            guard Identifier.isValid(body.recording_id) else { throw EgressError(.invalidParameter, "invalid recording_id") }
            return RecordingAnswer(recording: try await supervisor.stopRecording(appId: app.appId, id: body.recording_id))
        }
        route(&builder, "record/list", EgressRequests.RecordList.self) { app, body throws(EgressError) in
            if let channel = body.channel { try EgressRequests.checkChannel(channel) }
            var status: RecordingInfo.Status?
            if let name = body.status {
                guard let s = RecordingInfo.Status(rawValue: name) else { throw EgressError(.invalidParameter, "unknown status \(name)") }
                status = s
            }
            let limit = body.limit ?? 100
            guard (1...1000).contains(limit) else { throw EgressError(.invalidParameter, "limit must be 1...1000") }
            return RecordingList(recordings: await supervisor.recordingList(appId: app.appId, channel: body.channel, status: status, limit: limit))
        }

        // MARK: The trusted recorder's keys
        route(&builder, "e2ee/keys", EgressRequests.E2EEKeysUpdate.self) { app, body throws(EgressError) in
            try EgressRequests.checkChannel(body.channel)
            if let uid = body.uid { try EgressRequests.checkUid(uid) }
            if let id = body.recording_id, !Identifier.isValid(id) { throw EgressError(.invalidParameter, "invalid recording_id") }
            try EgressRequests.checkE2EE(EgressE2EEKeys(keys: body.keys))
            try await supervisor.addE2EEKeys(appId: app.appId, key: ChannelKey(appId: app.appId, name: body.channel),
                                             recordingId: body.recording_id, compositeUid: body.uid, keys: body.keys)
            return E2EEKeysAnswer(keys: body.keys.count)
        }

        // MARK: Ingress
        route(&builder, "create", IngressRequests.Create.self, prefix: "/server/v1/ingress/") { app, body throws(EgressError) in
            let request = try IngressRequests.request(body)
            let key = ChannelKey(appId: app.appId, name: body.channel)
            if await channels.users(key).contains(body.uid) {
                throw EgressError(.alreadyExists, "uid \(body.uid) is a user in channel \(body.channel)")
            }
            return IngressAnswer(ingress: try await supervisor.createIngress(appId: app.appId, key: key, request: request))
        }
        route(&builder, "list", EgressRequests.ChannelFilter.self, prefix: "/server/v1/ingress/") { app, body throws(EgressError) in
            if let channel = body.channel { try EgressRequests.checkChannel(channel) }
            return IngressList(ingresses: await supervisor.ingressList(appId: app.appId, channel: body.channel))
        }
        route(&builder, "delete", IngressRequests.Ref.self, prefix: "/server/v1/ingress/") { app, body throws(EgressError) in
            guard Identifier.isValid(body.ingress_id) else { throw EgressError(.invalidParameter, "invalid ingress_id") }
            return IngressAnswer(ingress: try await supervisor.deleteIngress(appId: app.appId, id: body.ingress_id))
        }

        // MARK: Captions
        route(&builder, "captions/start", CaptionRequests.Start.self) { app, body throws(EgressError) in
            try EgressRequests.checkChannel(body.channel)
            let language = try CaptionRequests.language(body.language)
            return CaptionsAnswer(captions: try await supervisor.startCaptions(appId: app.appId, key: ChannelKey(appId: app.appId, name: body.channel),
                                                                                language: language))
        }
        route(&builder, "captions/stop", CaptionRequests.Stop.self) { app, body throws(EgressError) in
            try EgressRequests.checkChannel(body.channel)
            return CaptionsAnswer(captions: try await supervisor.stopCaptions(appId: app.appId, key: ChannelKey(appId: app.appId, name: body.channel)))
        }
        route(&builder, "captions/list", CaptionRequests.List.self) { app, body throws(EgressError) in
            try EgressRequests.checkChannel(body.channel)
            if let id = body.captions_id, !Identifier.isValid(id) { throw EgressError(.invalidParameter, "invalid captions_id") }
            let limit = body.limit ?? 1000
            guard (1...10_000).contains(limit) else { throw EgressError(.invalidParameter, "limit must be 1...10000") }
            let key = ChannelKey(appId: app.appId, name: body.channel)
            return CaptionList(channel: body.channel, running: await supervisor.runningCaptions(key: key),
                               captions: supervisor.store.captions(appId: app.appId, channel: body.channel, captionsId: body.captions_id,
                                                                   sinceMs: body.since_ms, limit: limit))
        }

        // MARK: Live
        route(&builder, "live/start", EgressRequests.LiveStart.self) { app, body throws(EgressError) in
            try EgressRequests.checkChannel(body.channel)
            try EgressRequests.checkUid(body.uid)
            if let url = body.rtmp_url { try EgressRequests.checkRTMP(url) }
            let hls = body.hls ?? true
            guard hls || body.rtmp_url != nil else { throw EgressError(.invalidParameter, "nothing to stream: hls is false and no rtmp_url") }
            return CompositeAnswer(composite: try await supervisor.startLive(appId: app.appId, key: ChannelKey(appId: app.appId, name: body.channel),
                                                                              uid: body.uid, hls: hls, rtmpURL: body.rtmp_url))
        }
        route(&builder, "live/stop", EgressRequests.CompositeRef.self) { app, body throws(EgressError) in
            try EgressRequests.checkChannel(body.channel)
            try EgressRequests.checkUid(body.uid)
            return CompositeAnswer(composite: try await supervisor.stopLive(appId: app.appId, key: ChannelKey(appId: app.appId, name: body.channel),
                                                                             uid: body.uid))
        }
        route(&builder, "live/list", EgressRequests.ChannelFilter.self) { app, body throws(EgressError) in
            if let channel = body.channel { try EgressRequests.checkChannel(channel) }
            return CompositeList(composites: await supervisor.composites(appId: app.appId, channel: body.channel).filter { $0.live != nil })
        }
    }

    /// The recorded source: a track by id, a track by uid and desc, or a composite by uid.
    static func resolveSource(_ body: EgressRequests.RecordStart, key: ChannelKey, channels: ChannelControl,
                              supervisor: EgressSupervisor) async throws(EgressError) -> EgressSupervisor.RecordingSource {
        guard let tracks = await channels.tracks(key) else { throw EgressError(.notFound, "channel \(key.name) is not live") }
        switch body.kind ?? .track {
        case .track:
            let track: TrackInfo?
            if let id = body.track_id {
                guard Identifier.isValid(id) else { throw EgressError(.invalidParameter, "invalid track_id") }
                track = tracks.first { $0.id == id }
            } else if let uid = body.uid, let desc = body.desc {
                try EgressRequests.checkUid(uid)
                track = tracks.first { $0.uid == uid && $0.desc == desc }
            } else {
                throw EgressError(.invalidParameter, "a track recording names track_id, or uid and desc")
            }
            guard let track else { throw EgressError(.notFound, "no such track in channel \(key.name)") }
            if track.e2ee == true, body.e2ee == nil {
                // Its frames are ciphertext here (docs/e2ee.md): a file of them would play nothing.
                throw EgressError(.wrongState, "track \(track.id) is end-to-end encrypted: the server has no key to record it (docs/e2ee.md)")
            }
            if track.codec?.lowercased() == "h264", (body.format ?? .webm) == .webm {
                throw EgressError(.invalidParameter, "track \(track.id) is H.264 and WebM holds VP8, VP9, AV1 and Opus: record it as mp4")
            }
            return .init(kind: .track, uid: track.uid, desc: track.desc, video: track.kind == .video, audio: track.kind == .audio)
        case .composite:
            guard let uid = body.uid else { throw EgressError(.invalidParameter, "a composite recording names the composite's uid") }
            try EgressRequests.checkUid(uid)
            guard let composite = await supervisor.composites(appId: key.appId, channel: key.name).first(where: { $0.uid == uid }) else {
                throw EgressError(.notFound, "no composite under uid \(uid) in channel \(key.name)")
            }
            return .init(kind: .composite, uid: uid, desc: nil, video: true, audio: composite.audio)
        }
    }

    /// Adds `POST <prefix><name>` (`/server/v1/channel/` unless told): decodes the body, runs `handler` for the signing app.
    private static func route<Body: Decodable & Sendable>(
        _ builder: inout APIRouter.Builder, _ name: String, _ type: Body.Type, prefix: String = "/server/v1/channel/",
        _ handler: @escaping @Sendable (App, Body) async throws(EgressError) -> any Encodable & Sendable
    ) {
        builder.add("POST", prefix + name) { context in
            guard let app = context.app else { return APIRouter.error(.internalError, "unsigned egress route", now: context.now) }
            let body: Body
            switch JSONBody.decode(Body.self, from: context.request.body, now: context.now) {
            case .success(let b): body = b
            case .failure(let e): return e.response
            }
            do throws(EgressError) {
                return .json(200, JSONBody.encode(AnyEncodable(try await handler(app, body))))
            } catch {
                return APIRouter.error(error.code, error.message, now: context.now)
            }
        }
    }
}

/// Encodes an existential answer.
private struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}
