import SRTCProtocol
import Testing
@testable import SRTCCore

/// A channel's publications and subscriptions (`TrackMachine`, fed by `ChannelMachine`): what an
/// answered request or a server event about tracks changes and what the track objects are told,
/// in order; answers that come too late change nothing. Without sockets.
@Suite struct TrackMachineTests {
    typealias Machine = ChannelMachine<Int>
    /// Alice and her tracks, as the roster's tests have them.
    static let (a1, a2, alice) = (ChannelMachineRosterTests.a1, ChannelMachineRosterTests.a2, ChannelMachineRosterTests.alice)
    /// My camera, published as m1; `ObjectIdentifier`s of two types stand for two local track objects.
    static let m1 = TrackInfo(id: "m1", uid: "me", kind: .video, desc: "camera")
    static let camera = ObjectIdentifier(Int.self)
    static let microphone = ObjectIdentifier(String.self)

    /// Joined with alice (a1 video, a2 audio) there, and my camera published as m1.
    static func joined(dynacast: Bool = true) -> MachineRun {
        var run = MachineRun(ChannelMachine<Int>(policy: ReconnectMachine.Policy(delays: [0, 0.5, 1, 2, 4], margin: 0.5, retryDelay: 0.25), dynacast: dynacast))
        try? run.machine.begin(MachineRun.parameters)
        run.send(.linkOpened(1, attempt: nil))
        run.send(.joinAnswered(MachineRun.response(users: [alice]), on: 1))
        run.send(.track(.published(m1, local: camera)))
        return run
    }

    // MARK: - Table: one sequence, what its last event does

    struct Case: Sendable, CustomTestStringConvertible {
        let testDescription: String
        /// Fed in order to `joined()`.
        let events: [Machine.Event]
        /// What the last event does.
        let actions: [Machine.Action]
        /// The subscriptions afterwards: track id → layer asked for.
        let subscriptions: [String: VideoLayer?]
    }

    static func removed(_ id: String) -> Machine.Event {
        .received(.trackRemoved(TrackEvent(uid: "alice", track: MachineRun.track(id, of: "alice"))), on: 1)
    }

    static let cases: [Case] = [
        Case(testDescription: "a subscribe answered starts the subscription at its layer",
             events: [.track(.subscribed(trackId: "a1", layer: .cameraSmall))],
             actions: [.track(.startSubscription(trackId: "a1", layer: .cameraSmall))], subscriptions: ["a1": .cameraSmall]),
        Case(testDescription: "a subscribe answered after the track went starts nothing",
             events: [removed("a1"), .track(.subscribed(trackId: "a1", layer: nil))],
             actions: [], subscriptions: [:]),
        Case(testDescription: "an unsubscribe answered ends the subscription",
             events: [.track(.subscribed(trackId: "a1", layer: nil)), .track(.unsubscribed(trackId: "a1"))],
             actions: [.track(.endSubscription(trackId: "a1"))], subscriptions: [:]),
        Case(testDescription: "a layer switch answered changes the layer asked for",
             events: [.track(.subscribed(trackId: "a1", layer: nil)), .track(.layerRequested(trackId: "a1", layer: .cameraBig))],
             actions: [.track(.setRequestedLayer(trackId: "a1", layer: .cameraBig))], subscriptions: ["a1": .cameraBig]),
        Case(testDescription: "adaptive stream's 'best' answered asks for no layer",
             events: [.track(.subscribed(trackId: "a1", layer: .cameraSmall)), .track(.layerRequested(trackId: "a1", layer: nil))],
             actions: [.track(.setRequestedLayer(trackId: "a1", layer: nil))], subscriptions: ["a1": nil]),
        Case(testDescription: "a layer answer for a track no longer subscribed changes nothing",
             events: [.track(.subscribed(trackId: "a1", layer: nil)), .track(.unsubscribed(trackId: "a1")),
                      .track(.layerRequested(trackId: "a1", layer: .cameraBig))],
             actions: [], subscriptions: [:]),
        Case(testDescription: "a subscribed track the server removes ends its subscription, then the track",
             events: [.track(.subscribed(trackId: "a1", layer: nil)), removed("a1")],
             actions: [.track(.endSubscription(trackId: "a1")), .track(.removeRemoteTrack(trackId: "a1")),
                       .notify(.trackRemoved(a1, by: UserInfo(uid: "alice", joinedAt: 2, tracks: [a2])))],
             subscriptions: [:]),
        Case(testDescription: "an unsubscribed track the server removes only ends",
             events: [removed("a2")],
             actions: [.track(.removeRemoteTrack(trackId: "a2")), .notify(.trackRemoved(a2, by: UserInfo(uid: "alice", joinedAt: 2, tracks: [a1])))],
             subscriptions: [:]),
        Case(testDescription: "the server ends a subscription (codec_unsupported)",
             events: [.track(.subscribed(trackId: "a1", layer: nil)),
                      .received(.subscriptionEnded(SubscriptionEnded(trackId: "a1", reason: "codec_unsupported")), on: 1)],
             actions: [.track(.endSubscription(trackId: "a1"))], subscriptions: [:]),
        Case(testDescription: "other subscriptions stay when one ends",
             events: [.track(.subscribed(trackId: "a1", layer: nil)), .track(.subscribed(trackId: "a2", layer: nil)),
                      .track(.unsubscribed(trackId: "a1"))],
             actions: [.track(.endSubscription(trackId: "a1"))], subscriptions: ["a2": nil]),
        Case(testDescription: "layers_needed for my published track is followed",
             events: [.received(.layersNeeded(LayersNeeded(trackId: "m1", layers: ["camera_small"])), on: 1)],
             actions: [.track(.setNeededLayers(LayersNeeded(trackId: "m1", layers: ["camera_small"])))], subscriptions: [:]),
        Case(testDescription: "layers_needed for a track not published here is ignored",
             events: [.received(.layersNeeded(LayersNeeded(trackId: "x9", layers: [])), on: 1)],
             actions: [], subscriptions: [:]),
        Case(testDescription: "an unpublish answered unbinds the local track",
             events: [.track(.unpublished(trackId: "m1"))],
             actions: [.track(.unbindLocalTrack(trackId: "m1"))], subscriptions: [:]),
        Case(testDescription: "an unpublish answered twice unbinds once",
             events: [.track(.unpublished(trackId: "m1")), .track(.unpublished(trackId: "m1"))],
             actions: [], subscriptions: [:]),
        Case(testDescription: "a subscribe answered after leaving changes nothing",
             events: [.leave, .left, .track(.subscribed(trackId: "a1", layer: nil))],
             actions: [], subscriptions: [:]),
        Case(testDescription: "a publish answered after leaving binds nothing",
             events: [.leave, .left, .track(.published(MachineRun.track("m2", of: "me", .audio), local: microphone))],
             actions: [], subscriptions: [:]),
    ]

    @Test(arguments: TrackMachineTests.cases)
    func rule(_ row: Case) {
        var run = Self.joined()
        var last: [Machine.Action] = []
        for event in row.events { last = run.send(event) }
        #expect(last == row.actions)
        #expect(run.machine.tracks.subscriptions.mapValues(\.layer) == row.subscriptions)
    }

    // MARK: - The app's calls

    @Test func aTrackIsPublishedOncePerChannelAndUnpublishedByItsServerId() throws {
        let run = Self.joined()
        #expect(throws: SRTCError.wrongState("the track is already published in this channel")) {
            try run.machine.tracks.checkPublish(Self.camera)
        }
        try run.machine.tracks.checkPublish(Self.microphone)
        #expect(try run.machine.tracks.publication(of: Self.camera) == "m1")
        #expect(throws: SRTCError.wrongState("the track is not published in this channel")) {
            try run.machine.tracks.publication(of: Self.microphone)
        }
    }

    @Test func onlyASubscribedTrackSwitchesLayers() throws {
        var run = Self.joined()
        #expect(throws: SRTCError.wrongState("track a1 is not subscribed")) { try run.machine.tracks.checkLayerSwitch("a1") }
        run.send(.track(.subscribed(trackId: "a1", layer: nil)))
        try run.machine.tracks.checkLayerSwitch("a1")
    }

    @Test func withoutDynacastLayersNeededIsIgnored() {
        var run = Self.joined(dynacast: false)
        #expect(run.send(.received(.layersNeeded(LayersNeeded(trackId: "m1", layers: [])), on: 1)) == [])
    }

    // MARK: - The session's end, a resume, a move

    @Test func leavingForgetsPublicationsAndSubscriptions() throws {
        var run = Self.joined()
        run.send(.track(.subscribed(trackId: "a1", layer: .cameraBig)))
        run.send(.leave)
        run.send(.left)
        #expect(run.machine.tracks == TrackMachine())
        // Joined again, the same track object may be published afresh.
        try run.machine.tracks.checkPublish(Self.camera)
    }

    @Test func aResumeKeepsPublicationsAndSubscriptions() {
        var run = Self.joined()
        run.send(.track(.subscribed(trackId: "a1", layer: .cameraSmall)))
        let before = run.machine.tracks
        run.send(.linkClosed(1))
        let attempt = run.fireNextTimer()?.attempt ?? -1
        run.send(.linkOpened(2, attempt: attempt))
        run.send(.resumeAnswered(MachineRun.response(users: [Self.alice], resumed: true), on: 2, attempt: attempt))
        #expect(run.machine.tracks == before)
    }

    /// After a move the server keeps a track's id unless the track was gone there: the track it
    /// answers under another id (same kind and description) is bound to the new id.
    @Test func publishedAgainAfterAMoveATrackWithANewIdIsRebound() {
        var run = Self.joined()
        let m2 = TrackInfo(id: "m2", uid: "me", kind: .audio, desc: "microphone")
        run.send(.track(.published(m2, local: Self.microphone)))
        let n1 = TrackInfo(id: "n1", uid: "me", kind: .video, desc: "camera")
        #expect(run.send(.track(.republished([n1, m2]))) == [.track(.rebindLocalTrack(from: "m1", to: n1))])
        #expect(run.machine.tracks.publications == [
            "n1": .init(local: Self.camera, kind: .video, desc: "camera"),
            "m2": .init(local: Self.microphone, kind: .audio, desc: "microphone"),
        ])
    }
}
