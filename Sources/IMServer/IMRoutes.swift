import RTCNet
import SRTCProtocol
import SRTCServer

/// The IM service's signed routes for the customer's backend (docs/server-api.md, "IM routes").
enum IMRoutes {
    struct NotifyBody: Decodable, Sendable {
        var uids: [String]
        var title: String?
        var content: String
        var data: String?
    }

    struct NotifyAnswer: Encodable { var delivered: Int }

    static func register(in builder: inout APIRouter.Builder, service: IMService) {
        // An IM token for one uid (`im` claim); lifetimes as for channel tokens.
        builder.addImmediate("POST", "/server/v1/im/grant") { context in
            GrantRoutes.userGrant(context) { claims, nickname in claims.im = IMGrant(nickname: nickname) }
        }
        // A system notification to up to 1000 uids, stored for those offline.
        builder.add("POST", "/server/v1/im/notify") { context in
            guard let app = context.app else { return APIRouter.error(.internalError, "unsigned route", now: context.now) }
            let body: NotifyBody
            switch JSONBody.decode(NotifyBody.self, from: context.request.body, now: context.now) {
            case .success(let b): body = b
            case .failure(let e): return e.response
            }
            do throws(SignalError) {
                let delivered = try await service.notify(appId: app.appId, uids: body.uids,
                                                         UserNotification(kind: IMMessageKind.notification.rawValue, title: body.title,
                                                                          content: body.content, data: body.data))
                return .json(200, JSONBody.encode(NotifyAnswer(delivered: delivered)))
            } catch {
                return APIRouter.error(error.errorCode ?? .internalError, error.message, now: context.now)
            }
        }
    }
}
