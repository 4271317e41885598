import Foundation
import SMeetingProtocol
import SRTCProtocol

/// The rules a meeting's fields follow (docs/meeting-protocol.md, "Meetings"); every violation is
/// an `invalid_parameter` error naming the field.
enum MeetingValidation {
    static let maxTitleCharacters = 128
    static let passwordLength = 1...32
    static let maxConferees = 500
    static let planDurMinutes = 1...(7 * 24 * 60)
    static let maxChatCharacters = 4096

    static func invalid(_ message: String) -> MeetingErrorBody { MeetingErrorBody(.invalidParameter, message) }

    static func checkTitle(_ title: String) throws(MeetingErrorBody) {
        let trimmed = title.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, title.count <= maxTitleCharacters, !hasControl(title) else {
            throw invalid("title must be 1 to \(maxTitleCharacters) characters without control characters")
        }
    }

    static func checkPassword(_ password: String?) throws(MeetingErrorBody) {
        guard let password, passwordLength.contains(password.count), !hasControl(password) else {
            throw invalid("password must be \(passwordLength.lowerBound) to \(passwordLength.upperBound) characters without control characters")
        }
    }

    static func checkConferee(_ conferee: [String]) throws(MeetingErrorBody) {
        guard conferee.count <= maxConferees else { throw invalid("conferee lists at most \(maxConferees) uids") }
        for uid in conferee where !Identifier.isValid(uid) { throw invalid("conferee uid \(uid.prefix(80)) is invalid") }
    }

    static func checkPlan(time: Int64?, dur: Int?) throws(MeetingErrorBody) {
        guard let time, time > 0 else { throw invalid("an appointment needs plan_time (Unix seconds)") }
        guard let dur, planDurMinutes.contains(dur) else {
            throw invalid("an appointment needs plan_dur, \(planDurMinutes.lowerBound) to \(planDurMinutes.upperBound) minutes")
        }
        _ = time
    }

    /// Checks a whole create request.
    static func check(_ req: MeetingCreateReq) throws(MeetingErrorBody) {
        try checkTitle(req.title)
        if req.type == .appointment { try checkPlan(time: req.planTime, dur: req.planDur) }
        if req.attendType == .password { try checkPassword(req.password) }
        if req.attendType == .invitation, req.conferee?.isEmpty ?? true { throw invalid("an invitation meeting needs conferee") }
        if let conferee = req.conferee { try checkConferee(conferee) }
    }

    /// A room number is 9 digits, never starting with 0.
    static func isRoomNo(_ value: String) -> Bool {
        value.utf8.count == 9 && value.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && value.utf8.first != 0x30
    }

    static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
