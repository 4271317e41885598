import Foundation
import Testing
import SRTCProtocol
@testable import SRTCServer

/// `ChannelRoom` without sockets: a manual clock drives its timers, fake media stands for the
/// SFU, and recording connections show exactly what each client was sent, in order.
struct ChannelRoomTests {
    @Test func aJoinIsAnsweredAndTheOthersAreTold() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let bob = try await h.join("bob")
        #expect(bob.joined.users.map(\.uid) == ["alice"] && !bob.joined.resumed)
        #expect(bob.connection.kinds == ["response:join"])
        #expect(alice.connection.kinds == ["response:join", "event:user_joined", "event:channel_updated"])
        guard case .userJoined(let joined) = alice.connection.events.first else { Issue.record("no user_joined"); return }
        #expect(joined.uid == "bob")
        #expect(h.observer.entries == ["joined alice", "joined bob"])
        await h.room.close(reason: .serverShutdown)
    }

    @Test func aDroppedSessionIsRemovedWhenTheGracePeriodPasses() async throws {
        var limits = ChannelLimits()
        limits.reconnectGraceSeconds = 20
        let h = RoomHarness(limits: limits)
        let alice = try await h.join("alice")
        let bob = try await h.join("bob")
        await h.room.connectionLost(uid: "alice", sessionId: alice.sessionId, connection: alice.connection)
        h.clock.advance(milliseconds: 19_999)
        await h.settled()
        #expect(!bob.connection.events.contains { $0.typeName == "user_left" })
        h.clock.advance(milliseconds: 1)
        await h.settled()
        #expect(bob.connection.events.last == .channelUpdated(ChannelInfo(channel: "room", createdAt: h.clock.now() - 20_000, userCount: 1, metadata: nil)))
        #expect(bob.connection.events.contains(.userLeft(UserLeft(uid: "alice", reason: .timeout))))
        #expect(h.observer.entries.last == "left alice timeout")
        await h.room.close(reason: .serverShutdown)
    }

    @Test func resumingWithinTheGracePeriodKeepsTheSession() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let bob = try await h.join("bob")
        await h.room.connectionLost(uid: "alice", sessionId: alice.sessionId, connection: alice.connection)
        h.clock.advance(milliseconds: 10_000)
        let again = try await h.join("alice", resuming: alice.sessionId)
        #expect(again.joined.resumed && again.sessionId == alice.sessionId)
        h.clock.advance(milliseconds: 60_000)
        await h.settled()
        #expect(!bob.connection.events.contains { $0.typeName == "user_left" })
        #expect(h.observer.entries == ["joined alice", "joined bob", "resumed alice"])
        // Only the two token-expiry timers are left: the grace timer was cancelled.
        #expect(h.clock.pendingCount == 2)
        await h.room.close(reason: .serverShutdown)
    }

    @Test func aSessionEndsWhenItsTokenExpires() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice", validFor: 60)
        let bob = try await h.join("bob")
        // At `exp` plus the leeway a token is accepted with (docs/protocol.md, "Limits").
        h.clock.advance(milliseconds: 59_999 + ChannelLimits().tokenLeewaySeconds * 1000)
        await h.settled()
        #expect(alice.connection.closeCode == nil)
        h.clock.advance(milliseconds: 1)
        await h.settled()
        #expect(alice.connection.events.last == .disconnected(Disconnected(reason: .tokenExpired, message: "token expired")))
        #expect(alice.connection.closeCode == 1000)
        #expect(bob.connection.events.contains(.userLeft(UserLeft(uid: "alice", reason: .tokenExpired))))
        await h.room.close(reason: .serverShutdown)
    }

    @Test func aSubscribeIsAnsweredBeforeTheOfferItCauses() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let bob = try await h.join("bob")
        let ids = try await alice.publish(["a0", "v1"])
        let video = try #require(ids["v1"])
        #expect(try await bob.request(.subscribe(SubscribeRequest(trackId: video, layer: nil))).get() == .empty)
        await h.settled()
        #expect(bob.connection.kinds.suffix(2) == ["response:subscribe", "event:subscriber_offer"])
        #expect(bob.connection.events.last == .subscriberOffer(SessionDescriptionMessage(sdp: "offer 1", revision: 1)))
        #expect(h.media.participant("alice")?.calls == ["publish a0,v1"])
        #expect(h.media.participant("bob")?.calls == ["subscribe \(video)"])
        #expect(h.media.preparedCount == 1)
        await h.room.close(reason: .serverShutdown)
    }

    @Test func aSubscriberThatCannotDecodeTheCodecIsToldAndGetsNoMedia() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let bob = try await h.join("bob", videoCodecs: ["H264"])
        let ids = try await alice.publish(["a0", "v1"])   // the fake media answers VP8
        let video = try #require(ids["v1"]), audio = try #require(ids["a0"])
        #expect(try await bob.request(.subscribe(SubscribeRequest(trackId: video))).get() == .empty)
        await h.settled()
        #expect(bob.connection.kinds.suffix(2) == ["response:subscribe", "event:subscription_ended"])
        #expect(bob.connection.events.last == .subscriptionEnded(SubscriptionEnded(trackId: video, reason: "codec_unsupported")))
        #expect(h.media.participant("bob")?.calls ?? [] == [])
        // Audio is not a video codec: subscribed as ever.
        #expect(try await bob.request(.subscribe(SubscribeRequest(trackId: audio))).get() == .empty)
        #expect(h.media.participant("bob")?.calls == ["subscribe \(audio)"])
        await h.room.close(reason: .serverShutdown)
    }

    /// An H.264 High track (what an RTMP ingress passes through with `"transcode": false`) is sent
    /// only to a subscriber whose `video_codecs` names High: Chromium's list (no `6400…`) is told
    /// `codec_unsupported` rather than offered an m-section it would reject; a plain `h264` is
    /// Constrained Baseline; a client that sends no list gets it as before.
    @Test func anH264HighTrackIsRefusedToASubscriberWithoutTheProfile() async throws {
        let h = RoomHarness()
        let enc = try await h.join("enc")
        let chromium = try await h.join("chromium", videoCodecs: DecodedVideoCodecsTests.chromium)
        let plain = try await h.join("plain", videoCodecs: ["vp8", "h264"])
        let swift = try await h.join("swift", videoCodecs: DecodedVideoCodecsTests.swiftSDK)
        let any = try await h.join("any")
        let sdp = ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "m=video 9 UDP/TLS/RTP/SAVPF 106", "c=IN IP4 0.0.0.0",
                   "a=mid:v1", "a=sendonly", "a=rtpmap:106 H264/90000",
                   "a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=64001f", ""].joined(separator: "\r\n")
        let video = try #require(try await enc.publish(["v1"], sdp: sdp)["v1"])
        await h.settled()
        let info = try #require(chromium.connection.events.compactMap { event -> TrackInfo? in
            if case .trackAdded(let t) = event { t.track } else { nil }
        }.first)
        #expect(info.codec == "H264" && info.profileLevelID == "64001f", "\(info)")
        for refused in [chromium, plain] {
            #expect(try await refused.request(.subscribe(SubscribeRequest(trackId: video))).get() == .empty)
            await h.settled()
            #expect(refused.connection.events.last == .subscriptionEnded(SubscriptionEnded(trackId: video, reason: "codec_unsupported")), "\(refused.uid)")
            #expect(h.media.participant(refused.uid)?.calls ?? [] == [], "\(refused.uid) is offered nothing")
        }
        for sent in [swift, any] {
            #expect(try await sent.request(.subscribe(SubscribeRequest(trackId: video))).get() == .empty)
            #expect(h.media.participant(sent.uid)?.calls == ["subscribe \(video)"], "\(sent.uid)")
        }
        await h.room.close(reason: .serverShutdown)
    }

    @Test func unpublishingEndsEverySubscriptionToTheTrack() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let bob = try await h.join("bob")
        let video = try #require(try await alice.publish(["v0"])["v0"])
        _ = try await bob.request(.subscribe(SubscribeRequest(trackId: video))).get()
        #expect(try await alice.request(.unpublish(UnpublishRequest(trackId: video, sdp: "offer 2"))).get()
            == .answer(PublishResponse(sdp: "answer to offer 2", tracks: [])))
        await h.settled()
        #expect(bob.connection.kinds.suffix(4) == ["event:subscriber_offer", "event:subscription_ended", "event:track_removed", "event:subscriber_offer"])
        #expect(h.media.participant("bob")?.calls == ["subscribe \(video)", "unsubscribe \(video)"])
        #expect(await bob.request(.unsubscribe(TrackRef(trackId: video))) == .failure(SignalError(.notFound, "not subscribed to \(video)")))
        await h.room.close(reason: .serverShutdown)
    }

    @Test func leavingRemovesTracksAndMediaAndEmptiesTheRoom() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let bob = try await h.join("bob")
        _ = try await alice.publish(["a0"])
        #expect(try await alice.request(.leave).get() == .empty)
        #expect(bob.connection.kinds.suffix(3) == ["event:track_removed", "event:user_left", "event:channel_updated"])
        #expect(h.media.participant("alice")?.calls == ["publish a0", "close"])
        #expect(try await bob.request(.leave).get() == .empty)
        #expect(h.observer.entries == ["joined alice", "joined bob", "published alice mic", "unpublished alice mic",
                                       "left alice client_leave", "left bob client_leave", "empty"])
        #expect(await h.room.closeIfEmpty())
        #expect(h.media.closedCount == 1)
    }

    @Test func aClosedRoomRefusesEverythingAndDropsLateEvents() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        await h.room.close(reason: .channelClosed)
        #expect(alice.connection.events.last == .disconnected(Disconnected(reason: .channelClosed, message: "channel closed")))
        #expect(await h.room.join(JoinRequest(token: ""), claims: h.claims("bob"), connection: RecordingConnection(), requestId: 1)
            .map(\.sessionId) == .failure(ChannelRoom.closedError))
        let refused = SignalError(.wrongState, "this session is no longer in the channel")
        #expect(await alice.request(.ping) == .failure(refused))
        #expect(alice.connection.messages.last == .response(id: 2, Response(type: "ping", result: .failure(refused))))
        h.room.post(.activeSpeakers(ActiveSpeakersSnapshot(speakers: [])))
        h.clock.advance(milliseconds: 7200_000)
        #expect(await h.room.kick(uid: "alice", message: nil) == false)
        #expect(await h.room.deliver(CustomMessage(from: nil, to: nil, data: "x", timestamp: 0)) == 0)
        #expect(alice.connection.events.last == .disconnected(Disconnected(reason: .channelClosed, message: "channel closed")))
    }

    @Test func aLayerSwitchNamesThePublisherAndIsDroppedOnceTheTrackIsGone() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let bob = try await h.join("bob")
        let video = try #require(try await alice.publish(["v0"])["v0"])
        h.room.post(.layerSwitched(subscriber: "bob", trackId: video, layer: "camera_small", previous: nil, cause: "requested"))
        await h.settled()
        #expect(bob.connection.events.last == .layerSwitched(LayerSwitchedInfo(uid: "alice", trackId: video, layer: "camera_small",
                                                                                previous: nil, cause: "requested")))
        // A single stream's one layer has no name in the SFU's event: the track's desc names it.
        let desc = try #require(await h.room.tracks[video]?.desc)
        h.room.post(.layerSwitched(subscriber: "bob", trackId: video, layer: "none", previous: "", cause: "bandwidth"))
        h.room.post(.layerSwitched(subscriber: "bob", trackId: video, layer: "", previous: "none", cause: "bandwidth"))
        await h.settled()
        #expect(Array(bob.connection.events.suffix(2)) == [
            .layerSwitched(LayerSwitchedInfo(uid: "alice", trackId: video, layer: "none", previous: desc, cause: "bandwidth")),
            .layerSwitched(LayerSwitchedInfo(uid: "alice", trackId: video, layer: desc, previous: "none", cause: "bandwidth"))])
        _ = try await alice.request(.unpublish(UnpublishRequest(trackId: video))).get()
        let count = bob.connection.messages.count
        h.room.post(.layerSwitched(subscriber: "bob", trackId: video, layer: "camera_big", previous: "camera_small", cause: "bandwidth"))
        await h.settled()
        #expect(bob.connection.messages.count == count)
        await h.room.close(reason: .serverShutdown)
    }

    @Test func aSecondJoinOfTheSameUidReplacesTheFirstSession() async throws {
        let h = RoomHarness()
        let first = try await h.join("alice")
        let bob = try await h.join("bob")
        let second = try await h.join("alice")
        #expect(second.sessionId != first.sessionId && !second.joined.resumed)
        #expect(first.connection.events.last == .disconnected(Disconnected(reason: .duplicateLogin, message: "the same uid joined again")))
        #expect(first.connection.closeCode == 1000)
        #expect(bob.connection.kinds.suffix(4) == ["event:user_left", "event:channel_updated", "event:user_joined", "event:channel_updated"])
        #expect(await first.request(.ping) == .failure(SignalError(.wrongState, "this session is no longer in the channel")))
        await h.room.close(reason: .serverShutdown)
    }

    @Test func eventsPostedFromOneThreadAreAppliedInThatOrder() async throws {
        let h = RoomHarness()
        let alice = try await h.join("alice")
        let count = 2_000
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                for i in 0..<count {
                    if i % 2 == 0 {
                        h.room.post(.activeSpeakers(ActiveSpeakersSnapshot(speakers: [ActiveSpeaker(uid: "alice", trackId: "\(i)", level: 0.5)])))
                    } else {
                        h.room.post(.subscriberOffer(uid: "alice", sdp: "v=0", revision: i))
                    }
                }
                done.resume()
            }.start()
        }
        await h.settled()
        #expect(Self.sequence(alice.connection.events) == Array(0..<count))
        await h.room.close(reason: .serverShutdown)
    }

    /// The numbers carried by the ordering test's events, in arrival order.
    static func sequence(_ events: [ServerEvent]) -> [Int] {
        events.compactMap {
            switch $0 {
            case .activeSpeakers(let s): return s.speakers.first.flatMap { Int($0.trackId) }
            case .subscriberOffer(let o): return o.revision
            default: return nil
            }
        }
    }
}
