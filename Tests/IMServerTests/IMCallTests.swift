import Foundation
import Testing
import IMServer
import SRTCProtocol
import SRTCServer
import SRTCTestSupport

/// Call signalling: invite, accept, decline, cancel, time out, and what may not happen.
@Suite struct IMCallTests {
    @Test func anAcceptedCallReachesBothPartiesAndEveryDeviceOfTheCallee() async throws {
        let server = try makeIMServer()
        let (alice, _) = try await server.imSession("alice")
        let (bobPhone, _) = try await server.imSession("bob")
        let (bobDesk, _) = try await server.imSession("bob")
        let invite = try await alice.call("invite", IMInviteRequest(to: "bob", channel: "call-1", content: "video?"))
        let callId = try invite.data(IMInviteResponse.self).callId
        for device in [bobPhone, bobDesk] {
            let ring = try #require(try await device.imMessages(count: 1).first)
            #expect(ring.kind == .callInvite && ring.callId == callId && ring.channel == "call-1" && ring.from == "alice" && ring.content == "video?")
        }
        #expect(try await bobPhone.call("accept", IMCallRequest(callId: callId)).ok)
        // The desk stops ringing; the caller learns the answer.
        #expect(try await bobDesk.imMessages(count: 2).last?.kind == .callAccepted)
        let answer = try #require(try await alice.imMessages(count: 1).first)
        #expect(answer.kind == .callAccepted && answer.from == "bob" && answer.callId == callId)
        // Once answered, nothing else moves it.
        #expect(try await bobDesk.call("decline", IMCallRequest(callId: callId)).error?.errorCode == .wrongState)
        #expect(try await alice.call("cancel", IMCallRequest(callId: callId)).error?.errorCode == .wrongState)
        await server.stop()
    }

    @Test func declineCancelAndTimeoutEachEndACall() async throws {
        let server = try makeIMServer()
        let (alice, _) = try await server.imSession("alice")
        let (bob, _) = try await server.imSession("bob")
        let declined = try await alice.call("invite", IMInviteRequest(to: "bob")).data(IMInviteResponse.self).callId
        #expect(try await bob.call("decline", IMCallRequest(callId: declined, content: "busy")).ok)
        let cancelled = try await alice.call("invite", IMInviteRequest(to: "bob")).data(IMInviteResponse.self).callId
        // Only the callee answers and only the caller cancels.
        #expect(try await alice.call("accept", IMCallRequest(callId: cancelled)).error?.errorCode == .permissionDenied)
        #expect(try await bob.call("cancel", IMCallRequest(callId: cancelled)).error?.errorCode == .permissionDenied)
        #expect(try await alice.call("cancel", IMCallRequest(callId: cancelled)).ok)
        let unanswered = try await alice.call("invite", IMInviteRequest(to: "bob", timeoutSeconds: 1)).data(IMInviteResponse.self).callId
        let bobs = try await bob.imMessages(count: 6)
        #expect(bobs.map(\.kind) == [.callInvite, .callDeclined, .callInvite, .callCancelled, .callInvite, .callTimeout])
        #expect(bobs.map(\.callId) == [declined, declined, cancelled, cancelled, unanswered, unanswered])
        #expect(bobs[1].content == "busy")
        let alices = try await alice.imMessages(count: 3)
        #expect(alices.map(\.kind) == [.callDeclined, .callCancelled, .callTimeout])
        await server.stop()
    }

    @Test func invitationsNeedAKnownCalleeOtherThanYouAndASaneTimeout() async throws {
        let server = try makeIMServer()
        let (alice, _) = try await server.imSession("alice")
        _ = try await server.imSession("bob")
        #expect(try await alice.call("invite", IMInviteRequest(to: "nobody")).error?.errorCode == .notFound)
        #expect(try await alice.call("invite", IMInviteRequest(to: "alice")).error?.errorCode == .invalidParameter)
        #expect(try await alice.call("invite", IMInviteRequest(to: "bob", timeoutSeconds: 500)).error?.errorCode == .invalidParameter)
        #expect(try await alice.call("invite", IMInviteRequest(to: "bob", channel: "no spaces")).error?.errorCode == .invalidParameter)
        #expect(try await alice.call("accept", IMCallRequest(callId: "CLnope")).error?.errorCode == .notFound)
        await server.stop()
    }
}
