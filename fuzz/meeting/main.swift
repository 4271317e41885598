// libFuzzer target: the meeting WebSocket's messages (docs/meeting-protocol.md), which any
// logged-out client may send, and the events the SDK reads. Any input: the envelope decoder and
// every payload decoder answer a value or a documented error (`malformed_body`,
// `payload_too_large`), never trap; numbering a JSON object keeps it one, with that `seq`.
// Byte 0 picks the payload decoder; the rest is the message text.
import Foundation
import SMeetingProtocol

/// Every request payload the server decodes.
private let decoders: [(String) throws -> Void] = [
    { _ = try MeetingCodec.payload(LoginReq.self, from: $0) },
    { _ = try MeetingCodec.payload(MeetingCreateReq.self, from: $0) },
    { _ = try MeetingCodec.payload(UpdateRoomReq.self, from: $0) },
    { _ = try MeetingCodec.payload(MeetingRef.self, from: $0) },
    { _ = try MeetingCodec.payload(PageReq.self, from: $0) },
    { _ = try MeetingCodec.payload(MeetingEnterReq.self, from: $0) },
    { _ = try MeetingCodec.payload(OpenReq.self, from: $0) },
    { _ = try MeetingCodec.payload(ShareReq.self, from: $0) },
    { _ = try MeetingCodec.payload(ChatReq.self, from: $0) },
    { _ = try MeetingCodec.payload(PolicyReq.self, from: $0) },
    { _ = try MeetingCodec.payload(TargetReq.self, from: $0) },
    { _ = try MeetingCodec.payload(CreateSubMeetingsReq.self, from: $0) },
    { _ = try MeetingCodec.payload(AssignSubMeetingReq.self, from: $0) },
    { _ = try MeetingCodec.payload(VisitSubMeetingReq.self, from: $0) },
    { _ = try MeetingCodec.payload(CloseSubMeetingsReq.self, from: $0) },
    { _ = try MeetingCodec.payload(BroadcastReq.self, from: $0) },
    { _ = try MeetingCodec.payload(StartSignInReq.self, from: $0) },
    { _ = try MeetingCodec.payload(SignInReq.self, from: $0) },
    { _ = try MeetingCodec.payload(RollCallReq.self, from: $0) },
    { _ = try MeetingCodec.payload(SignInResultsReq.self, from: $0) },
    // What the SDK decodes from the server.
    { _ = try MeetingCodec.payload(EnterRoomResp.self, from: $0) },
    { _ = try MeetingCodec.payload(SubMeetingMovedEvent.self, from: $0) },
    { _ = try MeetingCodec.payload(SignInEndedEvent.self, from: $0) },
]

private let documented: Set<Int> = [MeetingErrorCode.malformedBody.rawValue, MeetingErrorCode.payloadTooLarge.rawValue]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMeeting(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    do {
        _ = try MeetingCodec.head(of: text)
    } catch {
        precondition(documented.contains(error.code), "undocumented \(error.code)")
    }
    let decode = decoders[Int(bytes[0]) % decoders.count]
    do { try decode(text) } catch let error as MeetingErrorBody {
        precondition(documented.contains(error.code), "undocumented \(error.code)")
    } catch {
        preconditionFailure("not a MeetingErrorBody: \(error)")
    }
    // Only JSON text as the server writes it: a raw NUL never is (JSON escapes it), and with NULs
    // among the first bytes Foundation reads the data as UTF-16 or UTF-32 (`{\0}\0}` is the
    // object `{}` in UTF-16LE to it), which `sequenced`, numbering UTF-8 text, never meets.
    if text.hasPrefix("{"), !text.utf8.contains(0), text.utf8.count < MeetingCodec.maxMessageBytes - 32 {
        let numbered = MeetingCodec.sequenced(text, seq: 7)
        if (try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any] {
            let object = try? JSONSerialization.jsonObject(with: Data(numbered.utf8)) as? [String: Any]
            precondition(object?["seq"] as? Int == 7 || (text.contains("\"seq\"")), "sequenced text lost its seq")
        }
    }
    return 0
}
