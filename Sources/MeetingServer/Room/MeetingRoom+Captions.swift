import SMeetingProtocol
import SRTCServer

// Live captions in the meeting's channel (docs/captions.md), turned on and off by the host or a
// co-host; the server's captions module runs them, and its refusal is the answer.
extension MeetingRoom {
    func startCaptions(_ uid: String, language: String?) async throws(MeetingErrorBody) {
        _ = try admin(uid)
        do throws(ModuleRefusal) {
            try await channels.startCaptions(channelKey, language: language)
        } catch {
            throw Self.meetingError(error)
        }
    }

    func stopCaptions(_ uid: String) async throws(MeetingErrorBody) {
        _ = try admin(uid)
        do throws(ModuleRefusal) {
            try await channels.stopCaptions(channelKey)
        } catch {
            throw Self.meetingError(error)
        }
    }

    /// The meeting code of a server API refusal: the same number where the meeting protocol has
    /// it; `already_exists` (captions already run) is the meeting protocol's `wrong_state`.
    static func meetingError(_ refusal: ModuleRefusal) -> MeetingErrorBody {
        let code = MeetingErrorCode(rawValue: refusal.code.rawValue)
        guard let code, code != .notInMeeting else { return MeetingErrorBody(.wrongState, refusal.message) }
        return MeetingErrorBody(code, refusal.message)
    }
}
