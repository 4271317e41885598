import Foundation
import RTCNet
import SMeetingProtocol
import SRTCProtocol
import SRTCServer

/// The signed meeting routes for the customer's backend, `POST /server/v1/meeting/…`
/// (docs/server-api.md, "Meeting routes"). Bodies and answers use the meeting protocol's
/// snake_case types; errors are the server API's JSON error body.
enum MeetingRoutes {
    struct CreateBody: Decodable, Sendable {
        var hostUid: String
        var title: String
        var type: MeetingType?
        var mode: MeetingMode?
        var attendType: AttendType?
        var password: String?
        var conferee: [String]?
        var planTime: Int64?
        var planDur: Int?
        var waitingRoom: Bool?
        var e2ee: Bool?
    }
    struct IdBody: Decodable, Sendable { var meetingId: String }
    struct UpdateBody: Decodable, Sendable {
        var meetingId: String
        var title: String?
        var mode: MeetingMode?
        var attendType: AttendType?
        var password: String?
        var conferee: [String]?
        var planTime: Int64?
        var planDur: Int?
        var waitingRoom: Bool?
    }
    struct ListBody: Decodable, Sendable { var status: MeetingStatus?; var hostUid: String?; var page: Int?; var pageSize: Int? }
    struct KickBody: Decodable, Sendable { var meetingId: String; var uid: String }
    struct AdmitBody: Decodable, Sendable { var meetingId: String; var uid: String? }
    struct InfoAnswer: Encodable { var meeting: MeetingInfo; var members: [MeetingUserInfo] }
    struct AttendanceAnswer: Encodable { var meetingId: String; var records: [AttendanceRecord] }

    static func register(in builder: inout APIRouter.Builder, service: MeetingService) {
        let store = service.store
        route(&builder, "create", CreateBody.self) { app, body in
            guard Identifier.isValid(body.hostUid) else { throw MeetingValidation.invalid("host_uid is invalid") }
            let req = MeetingCreateReq(title: body.title, type: body.type ?? .instant, mode: body.mode ?? .normal, attendType: body.attendType ?? .open,
                                       password: body.password, conferee: body.conferee, planTime: body.planTime, planDur: body.planDur,
                                       waitingRoom: body.waitingRoom ?? false, e2ee: body.e2ee ?? false)
            return try store.create(appId: app.appId, hostUid: body.hostUid, req)
        }
        route(&builder, "info", live: true, MeetingRef.self) { app, body in
            let meeting = try store.meeting(appId: app.appId, ref: body)
            return InfoAnswer(meeting: meeting, members: await service.members(appId: app.appId, meetingId: meeting.meetingId))
        }
        route(&builder, "list", ListBody.self) { app, body in
            try store.list(appId: app.appId, status: body.status, hostUid: body.hostUid, page: body.page ?? 1, pageSize: body.pageSize ?? 20)
        }
        route(&builder, "update", live: true, UpdateBody.self) { app, body in
            let req = MeetingUpdateReq(title: body.title, mode: body.mode, attendType: body.attendType, password: body.password,
                                       conferee: body.conferee, planTime: body.planTime, planDur: body.planDur, waitingRoom: body.waitingRoom)
            return try await service.update(appId: app.appId, meetingId: body.meetingId, by: nil, req)
        }
        route(&builder, "cancel", IdBody.self) { app, body in
            try store.cancel(appId: app.appId, meetingId: body.meetingId, by: nil)
        }
        route(&builder, "end", live: true, IdBody.self) { app, body in
            try await service.end(appId: app.appId, meetingId: body.meetingId, by: nil)
        }
        route(&builder, "kick", live: true, KickBody.self) { app, body in
            try await service.liveRoom(appId: app.appId, meetingId: body.meetingId).backendKick(body.uid)
            return EmptyPayload()
        }
        route(&builder, "attendance", IdBody.self) { app, body in
            AttendanceAnswer(meetingId: body.meetingId, records: try store.attendance(appId: app.appId, meetingId: body.meetingId))
        }
        route(&builder, "waiting_list", live: true, IdBody.self) { app, body in
            WaitingListEvent(users: try await service.liveRoom(appId: app.appId, meetingId: body.meetingId).waitingList)
        }
        route(&builder, "waiting_admit", live: true, AdmitBody.self) { app, body in
            let room = try service.liveRoom(appId: app.appId, meetingId: body.meetingId)
            guard let uid = body.uid else { return WaitingListEvent(users: await room.admitEveryone(by: nil)) }
            let admitted = try await room.admitOne(uid)
            return WaitingListEvent(users: [admitted])
        }
        route(&builder, "waiting_remove", live: true, KickBody.self) { app, body in
            try await service.liveRoom(appId: app.appId, meetingId: body.meetingId).removeWaiting(body.uid, by: nil)
            return EmptyPayload()
        }
        route(&builder, "sign_ins", IdBody.self) { app, body in
            SignInResultsResp(meetingId: body.meetingId, results: try store.signIns(appId: app.appId, meetingId: body.meetingId))
        }
    }

    /// Adds `POST /server/v1/meeting/<name>`: decodes the body, runs `handler` for the signing app.
    /// `live` routes act on the meeting's live room: on a cluster node, they are answered by the
    /// node that runs the meeting's channel (`mt_<meeting_id>`), where its members are.
    private static func route<Body: Decodable & Sendable>(
        _ builder: inout APIRouter.Builder, _ name: String, live: Bool = false, _ type: Body.Type,
        _ handler: @escaping @Sendable (App, Body) async throws -> any Encodable & Sendable
    ) {
        builder.add("POST", "/server/v1/meeting/" + name, channel: live ? meetingChannel : storedOnly) { context in
            guard let app = context.app else { return APIRouter.error(.internalError, "unsigned meeting route", now: context.now) }
            let body: Body
            do throws(MeetingErrorBody) {
                let bytes = context.request.body.isEmpty ? Array("{}".utf8) : context.request.body
                let text = #"{"data":"# + String(decoding: bytes, as: UTF8.self) + "}"
                body = try MeetingCodec.payload(Body.self, from: text)
            } catch {
                return answer(error, now: context.now)
            }
            do {
                let result = try await handler(app, body)
                return .json(200, Array(MeetingCodec.encode(result).utf8))
            } catch let error as MeetingErrorBody {
                return answer(error, now: context.now)
            } catch {
                return answer(MeetingErrorBody(.internalError, "\(error)"), now: context.now)
            }
        }
    }

    /// Calls that only read or write stored meetings are answered on any node.
    static let storedOnly: APIRouter.ChannelOfRequest = { _ in nil }

    /// The channel of the meeting a call names (`meeting_id`), for the calling app.
    static let meetingChannel: APIRouter.ChannelOfRequest = { context in
        struct Ref: Decodable { var meetingId: String? }
        guard let app = context.app, !context.request.body.isEmpty,
              let id = try? MeetingCodec.payload(Ref.self, from: #"{"data":"# + String(decoding: context.request.body, as: UTF8.self) + "}").meetingId,
              Identifier.isValid(id) else { return nil }
        return ChannelKey(appId: app.appId, name: MeetingRoom.channelName(id))
    }

    /// The server API's error body; meeting-only causes map to the nearest server API code.
    static func answer(_ error: MeetingErrorBody, now: Int64) -> HTTPResponse {
        let code = APIErrorCode(rawValue: error.code) ?? (error.code == MeetingErrorCode.meetingClosed.rawValue ? .wrongState : .permissionDenied)
        return APIRouter.error(code, error.message, now: now)
    }
}

extension MeetingRoom {
    /// The backend removes a member (`/server/v1/meeting/kick`).
    func backendKick(_ uid: String) async throws(MeetingErrorBody) {
        guard let t = members[uid] else { throw MeetingErrorBody(.notFound, "\(uid) is not in the meeting") }
        try await removeKicked(t, by: nil)
    }

    /// The backend admits one waiting member (`/server/v1/meeting/waiting_admit`).
    func admitOne(_ uid: String) throws(MeetingErrorBody) -> WaitingUserInfo {
        guard let w = waiting[uid] else { throw MeetingErrorBody(.notFound, "\(uid) is not in the waiting room") }
        try admit(uid, by: nil)
        return w.info
    }
}
