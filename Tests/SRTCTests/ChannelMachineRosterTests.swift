import SRTCProtocol
import Testing
@testable import SRTCCore

/// The users and tracks a channel knows (`ChannelMachine+Roster`): what each server event
/// changes and tells, in order; repeated, late and stale events change nothing.
@Suite struct ChannelMachineRosterTests {
    typealias Machine = ChannelMachine<Int>
    static let a1 = MachineRun.track("a1", of: "alice")
    static let a2 = MachineRun.track("a2", of: "alice", .audio)
    static let alice = UserInfo(uid: "alice", joinedAt: 2, tracks: [a1, a2])

    /// Joined with alice (two tracks) there.
    func joinedWithAlice() -> MachineRun {
        MachineRun.joined(users: [Self.alice]).0
    }

    // MARK: - Events that change nothing

    struct Stale: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let event: Machine.Event
    }

    static let stale: [Stale] = [
        Stale(testDescription: "alice joins again, as she is", event: .received(.userJoined(alice), on: 1)),
        Stale(testDescription: "a track added twice", event: .received(.trackAdded(TrackEvent(uid: "alice", track: a1)), on: 1)),
        Stale(testDescription: "an unknown track removed",
              event: .received(.trackRemoved(TrackEvent(uid: "alice", track: MachineRun.track("x9", of: "alice"))), on: 1)),
        Stale(testDescription: "an unknown user leaves", event: .received(.userLeft(UserLeft(uid: "zed", reason: .clientLeave)), on: 1)),
        Stale(testDescription: "an unknown user updated", event: .received(.userUpdated(UserInfo(uid: "zed", nickname: "Z", joinedAt: 5)), on: 1)),
        Stale(testDescription: "a track of an unknown user updated",
              event: .received(.trackUpdated(TrackEvent(uid: "zed", track: MachineRun.track("z1", of: "zed"))), on: 1)),
        Stale(testDescription: "my own join echoed", event: .received(.userJoined(MachineRun.me), on: 1)),
        Stale(testDescription: "a track of mine", event: .received(.trackAdded(TrackEvent(uid: "me", track: MachineRun.track("m1", of: "me"))), on: 1)),
        Stale(testDescription: "the subscription of an unknown track ended",
              event: .received(.subscriptionEnded(SubscriptionEnded(trackId: "x9", reason: "track_removed")), on: 1)),
        Stale(testDescription: "an event on a connection that is no longer the channel's",
              event: .received(.userLeft(UserLeft(uid: "alice", reason: .kicked)), on: 7)),
        Stale(testDescription: "the close of an old connection", event: .linkClosed(7)),
        Stale(testDescription: "the timer of an attempt no longer wanted", event: .attemptDue(0)),
        Stale(testDescription: "a failure of an attempt no longer wanted", event: .attemptFailed(attempt: 0, link: nil, error: .timeout("join"))),
    ]

    @Test(arguments: ChannelMachineRosterTests.stale)
    func changesNothing(_ row: Stale) {
        var run = joinedWithAlice()
        let before = run.machine
        #expect(run.send(row.event) == [])
        #expect(run.machine == before)
    }

    // MARK: - Users

    @Test func aLeavingUsersTracksEndBeforeItsKeysAreForgottenAndTheLeaveIsTold() {
        var run = joinedWithAlice()
        let withA2 = UserInfo(uid: "alice", joinedAt: 2, tracks: [Self.a2])
        let withNone = UserInfo(uid: "alice", joinedAt: 2)
        #expect(run.send(.received(.userLeft(UserLeft(uid: "alice", reason: .kicked)), on: 1)) == [
            .track(.removeRemoteTrack(trackId: "a1")), .notify(.trackRemoved(Self.a1, by: withA2)),
            .track(.removeRemoteTrack(trackId: "a2")), .notify(.trackRemoved(Self.a2, by: withNone)),
            .forgetE2EE(uid: "alice"), .notify(.userLeft(uid: "alice", reason: .kicked)),
        ])
        #expect(run.machine.users.isEmpty)
        #expect(run.machine.remoteTrackIds.isEmpty)
    }

    @Test func anUpdateChangesOnlyTheProfile() {
        var run = joinedWithAlice()
        let update = UserInfo(uid: "alice", nickname: "Al", custom: "{}", joinedAt: 99)
        let updated = UserInfo(uid: "alice", nickname: "Al", custom: "{}", joinedAt: 2, tracks: [Self.a1, Self.a2])
        #expect(run.send(.received(.userUpdated(update), on: 1)) == [.notify(.userUpdated(updated))])
    }

    // MARK: - Tracks

    @Test func aTrackUpdateReachesTheTrackThenTheObservers() {
        var run = joinedWithAlice()
        let muted = MachineRun.track("a1", of: "alice", muted: true)
        let alice = UserInfo(uid: "alice", joinedAt: 2, tracks: [muted, Self.a2])
        #expect(run.send(.received(.trackUpdated(TrackEvent(uid: "alice", track: muted)), on: 1))
                == [.track(.updateRemoteTrack(muted)), .notify(.trackUpdated(muted, by: alice))])
    }

    @Test func aHiddenPublisherIsKeptWhileItHasTracks() {
        var run = joinedWithAlice()
        let h1 = MachineRun.track("h1", of: "composite")
        let composite = UserInfo(uid: "composite", joinedAt: 0, tracks: [h1])
        #expect(run.send(.received(.trackAdded(TrackEvent(uid: "composite", track: h1)), on: 1))
                == [.track(.addRemoteTrack(h1)), .notify(.trackAdded(h1, by: composite))])
        #expect(run.machine.users.map(\.uid) == ["alice"])
        #expect(run.send(.received(.trackRemoved(TrackEvent(uid: "composite", track: h1)), on: 1))
                == [.track(.removeRemoteTrack(trackId: "h1")), .notify(.trackRemoved(h1, by: UserInfo(uid: "composite", joinedAt: 0)))])
        #expect(run.machine.hiddenPublishers.isEmpty)
    }

    @Test func aLayerSwitchReachesTheTrackBeforeTheObservers() {
        var run = joinedWithAlice()
        let switched = LayerSwitchedInfo(uid: "alice", trackId: "a1", layer: "camera_small", previous: "camera_big", cause: "bandwidth")
        #expect(run.send(.received(.layerSwitched(switched), on: 1))
                == [.track(.setCurrentLayer(trackId: "a1", layer: "camera_small")), .notify(.layerSwitched(switched))])
    }

    @Test func aSubscriptionEndedByTheServerEndsItOnTheTrack() {
        var run = joinedWithAlice()
        #expect(run.send(.received(.subscriptionEnded(SubscriptionEnded(trackId: "a1", reason: "codec_unsupported")), on: 1))
                == [.track(.endSubscription(trackId: "a1"))])
        // Data-channel events are not tied to a WebSocket.
        let message = CustomMessage(from: "alice", to: nil, data: "hi", timestamp: 5)
        #expect(run.send(.dataEvent(.message(message))) == [.notify(.message(message))])
    }

    // MARK: - Catching up after a resume

    /// What happened while the connection was down is told as the difference between the state
    /// known and the resume's answer, before the events held during the resume.
    @Test func aResumeTellsTheDifferenceThenTheHeldEvents() {
        let b1 = MachineRun.track("b1", of: "bob")
        let bob = UserInfo(uid: "bob", joinedAt: 3, tracks: [b1])
        let dave = UserInfo(uid: "dave", joinedAt: 4)
        var run = MachineRun.joined(users: [Self.alice, bob, dave]).0
        run.send(.linkClosed(1))
        let attempt = run.fireNextTimer()?.attempt ?? -1
        run.send(.linkOpened(2, attempt: attempt))
        let message = CustomMessage(from: "carol", to: nil, data: "hello", timestamp: 9)
        #expect(run.send(.received(.message(message), on: 2)) == [])

        // Meanwhile: the channel's info changed, alice muted a1 and left a2 for a3, bob left,
        // dave left and came back, carol joined.
        let a1Muted = MachineRun.track("a1", of: "alice", muted: true)
        let a3 = MachineRun.track("a3", of: "alice", .audio)
        let newInfo = ChannelInfo(channel: "room", createdAt: 1, userCount: 4)
        let daveAgain = UserInfo(uid: "dave", joinedAt: 9)
        let carol = UserInfo(uid: "carol", joinedAt: 5)
        let answer = MachineRun.response(users: [UserInfo(uid: "alice", joinedAt: 2, tracks: [a1Muted, a3]), daveAgain, carol],
                                         resumed: true, info: newInfo)
        #expect(run.send(.resumeAnswered(answer, on: 2, attempt: attempt)) == [
            .updateRelay([]), .notify(.reconnected(MachineRun.info)), .notify(.infoUpdated(newInfo)),
            .track(.removeRemoteTrack(trackId: "b1")), .notify(.trackRemoved(b1, by: UserInfo(uid: "bob", joinedAt: 3))),
            .forgetE2EE(uid: "bob"), .notify(.userLeft(uid: "bob", reason: .clientLeave)),
            .forgetE2EE(uid: "dave"), .notify(.userLeft(uid: "dave", reason: .clientLeave)),
            .track(.removeRemoteTrack(trackId: "a2")), .notify(.trackRemoved(Self.a2, by: UserInfo(uid: "alice", joinedAt: 2, tracks: [Self.a1]))),
            .track(.updateRemoteTrack(a1Muted)), .notify(.trackUpdated(a1Muted, by: UserInfo(uid: "alice", joinedAt: 2, tracks: [a1Muted]))),
            .track(.addRemoteTrack(a3)), .notify(.trackAdded(a3, by: UserInfo(uid: "alice", joinedAt: 2, tracks: [a1Muted, a3]))),
            .notify(.userJoined(daveAgain)),
            .notify(.userJoined(carol)),
            .notify(.message(message)),
            .restartBrokenPaths,
        ])
        #expect(run.machine.users.map(\.uid) == ["alice", "dave", "carol"])
        #expect(run.machine.remoteTrackIds == ["a1", "a3"])
        #expect(run.machine.info == newInfo)
    }
}
