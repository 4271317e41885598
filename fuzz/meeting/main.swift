// libFuzzer target: the meeting WebSocket's JSON codec (docs/meeting-protocol.md), which the meeting
// backend runs on every message a member sends and the SMeeting SDK on every message it receives.
// Any input: no trap; a refusal is a `malformed_body` or `payload_too_large` error naming what was
// wrong; a payload that decodes encodes and decodes again to the same value.
//
// Input layout: the whole input is the message text (invalid UTF-8 replaced, as a WebSocket text
// frame could not carry it anyway). The envelope is read first, as the server does, then `data` is
// decoded as every payload type either side reads.
import Foundation
import SMeetingProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMeeting(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let head = try MeetingCodec.head(of: text)
        if let type = head.type { _ = MeetingRequestType(rawValue: type) ?? nil }
    } catch {
        precondition(error.code == MeetingErrorCode.malformedBody.rawValue || error.code == MeetingErrorCode.payloadTooLarge.rawValue,
                     "head refused with \(error)")
    }
    // Requests the server decodes.
    roundTrip(LoginReq.self, text)
    roundTrip(MeetingCreateReq.self, text, compare: ==)
    roundTrip(UpdateRoomReq.self, text)
    roundTrip(MeetingUpdateReq.self, text, compare: ==)
    roundTrip(MeetingRef.self, text)
    roundTrip(PageReq.self, text)
    roundTrip(MeetingEnterReq.self, text, compare: ==)
    roundTrip(TargetReq.self, text)
    roundTrip(PolicyReq.self, text)
    roundTrip(OpenReq.self, text)
    roundTrip(ShareReq.self, text)
    roundTrip(ChatReq.self, text)
    // Answers and events the SDK decodes.
    roundTrip(LoginResp.self, text, compare: ==)
    roundTrip(EnterRoomResp.self, text, compare: ==)
    roundTrip(MeetingInfo.self, text, compare: ==)
    roundTrip(MeetingPage.self, text, compare: ==)
    roundTrip(RoomInfo.self, text, compare: ==)
    roundTrip(UserEnteredEvent.self, text)
    roundTrip(UserExitedEvent.self, text)
    roundTrip(UserChangedEvent.self, text)
    roundTrip(RoomChangedEvent.self, text)
    roundTrip(ChatEvent.self, text)
    roundTrip(AdminRequestEvent.self, text)
    roundTrip(ByEvent.self, text)
    roundTrip(DisconnectedEvent.self, text)
    roundTrip(MeetingErrorBody.self, text, compare: ==)
    return 0
}

/// Decodes `data` of `text` as `T`; when it decodes, wraps the re-encoded value in an envelope and
/// decodes it again, which must succeed (and, for `Equatable` payloads, give the same value).
private func roundTrip<T: Codable>(_ type: T.Type, _ text: String, compare: ((T, T) -> Bool)? = nil) {
    let value: T
    do {
        value = try MeetingCodec.payload(T.self, from: text)
    } catch {
        precondition(error.code == MeetingErrorCode.malformedBody.rawValue, "\(T.self) refused with \(error)")
        precondition(!error.message.isEmpty)
        return
    }
    let envelope = #"{"id":1,"type":"x","data":"# + MeetingCodec.encode(value) + "}"
    guard let again = try? MeetingCodec.payload(T.self, from: envelope) else {
        preconditionFailure("\(T.self) decoded but its encoding does not: \(envelope)")
    }
    if let compare { precondition(compare(value, again), "\(T.self) changed in a round trip: \(envelope)") }
}
