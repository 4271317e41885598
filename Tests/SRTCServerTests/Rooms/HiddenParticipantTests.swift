import Foundation
import Testing
import SRTCProtocol
@testable import SRTCServer

/// Hidden participants (egress workers: composites, recorders) in a `ChannelRoom`: never users,
/// their tracks announced like any other (docs/protocol.md, "Hidden participants").
struct HiddenParticipantTests {
    static func joinHidden(_ h: RoomHarness, _ uid: String, connection: RecordingConnection = RecordingConnection()) async
        -> Result<RoomHarness.Session, SignalError> {
        let claims = h.claims(uid, grant: ChannelGrant(channel: "room", publish: true, subscribe: true, publishData: false, hidden: true))
        return await h.room.join(JoinRequest(token: "", sessionId: nil), claims: claims, connection: connection, requestId: 1).map {
            RoomHarness.Session(room: h.room, uid: uid, sessionId: $0.sessionId, connection: connection, joined: $0)
        }
    }

    @Test func aHiddenParticipantIsNoUserButItsTracksAreAnnounced() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let mcu = try await Self.joinHidden(h, "mcu").get()
        #expect(mcu.joined.users.map(\.uid) == ["alice"])
        await h.settled()
        #expect(alice.connection.kinds == ["response:join"], "no user_joined, no channel_updated")
        #expect(await h.room.info.userCount == 1)

        let ids = try await mcu.publish(["v0", "a1"])
        await h.settled()
        #expect(alice.connection.kinds.suffix(2) == ["event:track_added", "event:track_added"])
        guard case .trackAdded(let added) = alice.connection.events.last else { Issue.record("no track_added"); return }
        #expect(added.uid == "mcu")

        // A later user sees the others, not the hidden one, whose tracks come apart.
        let bob = try await h.join("bob")
        #expect(bob.joined.users.map(\.uid) == ["alice"])
        #expect(Set(bob.joined.hiddenTracks.map(\.id)) == Set(ids.values) && bob.joined.hiddenTracks.allSatisfy { $0.uid == "mcu" })
        #expect(bob.joined.channel.userCount == 2)
        #expect(await h.room.users.map(\.uid) == ["alice", "bob"])

        // It leaves: its tracks go, with no user_left; webhooks heard of no user.
        _ = await mcu.request(.leave)
        await h.settled()
        #expect(bob.connection.kinds.suffix(2) == ["event:track_removed", "event:track_removed"])
        #expect(!bob.connection.events.contains { $0.typeName == "user_left" })
        #expect(h.observer.entries.filter { $0.contains("mcu") && ($0.hasPrefix("joined") || $0.hasPrefix("left")) }.isEmpty)
        await h.room.close(reason: .serverShutdown)
    }

    @Test func aUserTokenCannotTakeItsUidAndItDoesNotCountAgainstTheLimit() async throws {
        var limits = ChannelLimits()
        limits.maxUsersPerChannel = 1
        let h = RoomHarness(limits: limits)
        _ = try await h.join("alice")
        let mcu = try await Self.joinHidden(h, "mcu").get()
        // The channel is full of users, not of hidden participants.
        await #expect(throws: SignalError(.limitReached, "channel has 1 users, the limit")) { _ = try await h.join("bob") }
        await #expect(throws: SignalError(.alreadyExists, "uid mcu is in use by the server")) { _ = try await h.join("mcu") }
        // A restarted worker (hidden again) takes its uid back.
        let again = try await Self.joinHidden(h, "mcu").get()
        #expect(again.sessionId != mcu.sessionId)
        // The server API does not see it as a user either.
        #expect(await h.room.kick(uid: "mcu", message: nil) == false)
        await h.room.close(reason: .serverShutdown)
    }

    @Test func aHiddenParticipantIsNeverASpeaker() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        _ = try await Self.joinHidden(h, "mcu").get()
        let both = ActiveSpeakersSnapshot(speakers: [ActiveSpeaker(uid: "mcu", trackId: "TR_m", level: 0.9),
                                                     ActiveSpeaker(uid: "alice", trackId: "TR_a", level: 0.5)])
        h.room.post(.activeSpeakers(both))
        await h.settled()
        #expect(alice.connection.events.last == .activeSpeakers(ActiveSpeakersSnapshot(speakers: [both.speakers[1]])))
        // Only the hidden one's level changed: users see no change, so nothing is sent.
        let count = alice.connection.events.count
        h.room.post(.activeSpeakers(ActiveSpeakersSnapshot(speakers: [ActiveSpeaker(uid: "mcu", trackId: "TR_m", level: 0.2), both.speakers[1]])))
        await h.settled()
        #expect(alice.connection.events.count == count)
        await h.room.close(reason: .serverShutdown)
    }
}
