import RTCNet
import SRTCProtocol

/// `POST /server/v1/seal {uid, value}` → `{sealed}`: seals a string for one user of the signing
/// app (docs/sealed-strings.md), which only that user's SDK opens (`SRTCEngine.decrypt`). The
/// same thing a backend holding `app_key` can do locally by the documented algorithm.
public enum SealRoutes {
    struct SealRequest: Decodable {
        var uid: String
        var value: String
    }

    static func register(in builder: inout APIRouter.Builder) {
        builder.addImmediate("POST", "/server/v1/seal", seal)
    }

    static func seal(_ context: RouteContext) -> HTTPResponse {
        guard let app = context.app else { return APIRouter.error(.internalError, "unsigned seal", now: context.now) }
        let body: SealRequest
        switch JSONBody.decode(SealRequest.self, from: context.request.body, now: context.now) {
        case .success(let b): body = b
        case .failure(let e): return e.response
        }
        guard Identifier.isValid(body.uid) else {
            return APIRouter.error(.invalidParameter, "uid must be 1 to \(Identifier.maxLength) characters of A-Z a-z 0-9 _ - . @ = +", now: context.now)
        }
        guard body.value.utf8.count <= SealedString.maxPlaintextBytes else {
            return APIRouter.error(.payloadTooLarge, "value exceeds \(SealedString.maxPlaintextBytes) bytes", now: context.now)
        }
        let key = SealKey.derive(appKey: app.appKey, appId: app.appId, uid: body.uid)
        guard let sealed = SealedString.seal(body.value, appId: app.appId, uid: body.uid, key: key) else {
            return APIRouter.error(.invalidParameter, "app id \(app.appId) cannot name a sealed string (1 to \(SealedString.maxAppIdBytes) bytes, no control characters)",
                                   now: context.now)
        }
        var json = JSONText(capacity: sealed.box.count * 4 / 3 + 128)
        json.beginObject()
        json.field("sealed", sealed.text)
        json.endObject()
        return .json(200, json.bytes)
    }
}
