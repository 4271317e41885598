import Foundation
import Testing
@testable import SRTCProtocol

/// The signaling wire format pinned byte for byte (docs/protocol.md is the contract; the web SDK
/// and interop/*.py speak it from the docs). `Fixtures/signal-goldens.txt` holds one encoded
/// message a line, in the order of `samples`, and `Fixtures/signal-decode-errors.txt` the error
/// each malformed input decodes to. Both were captured from the codec of commit ca7844ab (the one
/// with a switch per direction) before the codec became a table, so a change of bytes shows here.
/// `SRTC_RECORD_SIGNAL_GOLDENS=1 swift test --filter SignalGoldenTests` rewrites them.
@Suite struct SignalGoldenTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let recording = ProcessInfo.processInfo.environment["SRTC_RECORD_SIGNAL_GOLDENS"] == "1"

    enum Sample: Sendable {
        case request(ClientRequest)
        case server(ServerMessage)

        var encoded: String {
            switch self {
            case .request(let r): SignalCodec.encode(r)
            case .server(let m): SignalCodec.encode(m)
            }
        }
    }

    static let track = SignalCodecTests.track
    static let hidden = TrackInfo(id: "TR_9", uid: "mcu_1", kind: .video, desc: "camera_big", codec: "VP8")

    /// Every request and event of SignalCodecTests, and responses of every shape the codec reads.
    static let samples: [Sample] = SignalCodecTests.requests.map(Sample.request) + SignalCodecTests.events.map(Sample.server) + [
        .request(ClientRequest(id: 20, .join(JoinRequest(token: "t", protocolVersion: 1, sessionId: nil, nickname: "N", custom: #"{"a":1}"#,
                                                         sdk: "srtc-swift/1.0 linux", dataChannel: true, videoCodecs: ["h264;profile-level-id=64001f"])))),
        .request(ClientRequest(id: 21, .publish(PublishRequest(sdp: "v=0\r\na=mid:0\r\n", tracks: [
            PublishTrack(mid: "0", kind: .video, desc: "camera_big", muted: true,
                         layers: [SimulcastLayer(rid: "h", desc: "camera_big", width: 1280, height: 720)], e2ee: true)])))),
        .request(ClientRequest(id: 22, .unpublish(UnpublishRequest(trackId: "TR_1", sdp: "v=0\r\n")))),
        .request(ClientRequest(id: 23, .subscribe(SubscribeRequest(trackId: "TR_1")))),
        .request(ClientRequest(id: 24, .sendMessage(SendMessageRequest(data: "all")))),
        .request(ClientRequest(id: 25, .updateProfile(ProfileUpdate(nickname: "A", custom: "c")))),
        .request(ClientRequest(id: 26, .restartICE(RestartICERequest(transport: .publish, sdp: "v=0\r\n")))),
        .server(.response(id: 30, Response(type: "join", result: .success(.joined({
            var r = JoinResponse(sessionId: "S2", resumed: true, channel: ChannelInfo(channel: "c", createdAt: 1, userCount: 2, metadata: "m"),
                                 me: SignalCodecTests.user, users: [SignalCodecTests.user], reconnectGraceSeconds: 20, serverTime: 9,
                                 subscriptions: [SubscribeRequest(trackId: "TR_1", layer: "camera_small")],
                                 iceServers: [ICEServer(urls: ["turn:h:3478?transport=udp"], username: "u", credential: "p")],
                                 hiddenTracks: [hidden])
            r.moved = true
            r.sealKey = "AAAA"
            return r
        }()))))),
        .server(.response(id: 31, Response(type: "unpublish", result: .success(.answer(PublishResponse(sdp: "v=0", tracks: [])))))),
        .server(.response(id: 32, Response(type: "restart_ice", result: .success(.answer(PublishResponse(sdp: "v=0", tracks: [track])))))),
        .server(.response(id: 33, Response(type: "restart_ice", result: .success(.empty)))),
        .server(.response(id: 34, Response(type: "leave", result: .success(.empty)))),
        .server(.response(id: 35, Response(type: "subscriber_answer", result: .success(.empty)))),
        .server(.response(id: 36, Response(type: "join", result: .failure(SignalError(.invalidToken, "token refused"))))),
        .server(.response(id: 37, Response(type: "dance", result: .failure(SignalError(.malformedBody, "unknown message type 'dance'"))))),
        .server(.event(.userLeft(UserLeft(uid: "bob", reason: .timeout)))),
        .server(.event(.message(CustomMessage(from: "alice", to: ["bob", "carol"], data: "é/\"x\"", timestamp: 6)))),
        .server(.event(.disconnected(Disconnected(reason: .kicked)))),
    ]

    /// Malformed inputs (`C` client request, `S` server message) and what they decode to.
    static let malformed: [(side: Character, text: String)] = [
        ("C", ""), ("C", "null"), ("C", "[]"), ("C", "42"), ("C", "{"), ("C", #"{"id":1}"#), ("C", #"{"type":7,"id":1}"#),
        ("C", #"{"id":4,"type":"dance"}"#), ("C", #"{"type":"dance"}"#), ("C", #"{"type":"ping"}"#), ("C", #"{"type":"ping","id":"1"}"#),
        ("C", #"{"type":"leave","id":2.5}"#),
        ("C", #"{"id":3,"type":"subscribe","data":{}}"#), ("C", #"{"id":3,"type":"subscribe"}"#),
        ("C", #"{"id":3,"type":"subscribe","data":{"track_id":5}}"#), ("C", #"{"id":3,"type":"subscribe","data":null}"#),
        ("C", #"{"type":"subscribe","data":{}}"#), ("C", #"{"id":5,"type":"join","data":{"token":"t"}}"#),
        ("C", #"{"id":6,"type":"restart_ice","data":{"transport":"both"}}"#),
        ("C", #"{"id":7,"type":"publish","data":{"sdp":"v=0","tracks":[{"mid":"0","kind":"text","desc":"x","muted":false,"layers":[]}]}}"#),
        ("C", #"{"id":8,"type":"publish","data":{"sdp":"v=0","tracks":[{"mid":"0"}]}}"#),
        ("C", #"{"id":9,"type":"mute","data":{"track_id":"T","muted":"yes"}}"#),
        ("S", ""), ("S", "{}"), ("S", #"{"type":"dance","data":{}}"#), ("S", #"{"type":"user_left","data":{"uid":"a"}}"#),
        ("S", #"{"type":"user_left","data":{"uid":"a","reason":"bored"}}"#), ("S", #"{"type":"caption"}"#),
        ("S", #"{"id":1,"type":"join","ok":true}"#), ("S", #"{"id":1,"type":"join","ok":true,"data":{"session_id":"S"}}"#),
        ("S", #"{"id":1,"type":"ping","ok":true,"data":{"server_time":"x"}}"#),
        ("S", #"{"id":1,"type":"publish","ok":true,"data":{"sdp":"v=0"}}"#), ("S", #"{"id":1,"type":"publish","ok":true,"data":null}"#),
        ("S", #"{"id":1,"type":"publish","ok":true}"#), ("S", #"{"id":1,"type":"dance","ok":true,"data":{"x":1}}"#),
        ("S", #"{"id":1,"type":"join","ok":false}"#), ("S", #"{"id":1,"type":"join"}"#),
        ("S", #"{"id":1,"type":"join","ok":false,"error":{"code":40101,"message":"no"}}"#),
    ]

    /// What a malformed input decodes to, as one line: the error and the id it can be answered
    /// with, or the message it decoded to.
    static func outcome(_ side: Character, _ text: String) -> String {
        do {
            if side == "C" { return "ok \(try SignalCodec.decodeClientRequest(text))" }
            return "ok \(try SignalCodec.decodeServerMessage(text))"
        } catch {
            return "error id=\(error.requestId.map(String.init) ?? "nil"): \(error.description)"
        }
    }

    static func lines(_ name: String) throws -> [String] {
        try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map(String.init)
    }

    static func record(_ name: String, _ lines: [String]) throws {
        try (lines.joined(separator: "\n") + "\n").write(to: fixtures.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    @Test func everyMessageEncodesToItsGolden() throws {
        let encoded = Self.samples.map(\.encoded)
        if Self.recording { try Self.record("signal-goldens.txt", encoded) }
        let goldens = try Self.lines("signal-goldens.txt")
        #expect(goldens.count == encoded.count)
        for (i, (golden, text)) in zip(goldens, encoded).enumerated() { #expect(text == golden, "sample \(i)") }
    }

    @Test func everyGoldenDecodesToItsMessage() throws {
        let goldens = try Self.lines("signal-goldens.txt")
        for (golden, sample) in zip(goldens, Self.samples) {
            switch sample {
            case .request(let r): #expect(try SignalCodec.decodeClientRequest(golden) == r, "\(golden)")
            case .server(let m): #expect(try SignalCodec.decodeServerMessage(golden) == m, "\(golden)")
            }
        }
    }

    @Test func malformedInputsDecodeToTheirGoldenErrors() throws {
        let outcomes = Self.malformed.map { "\($0.side) \($0.text)\t\(Self.outcome($0.side, $0.text))" }
        if Self.recording { try Self.record("signal-decode-errors.txt", outcomes) }
        let goldens = try Self.lines("signal-decode-errors.txt")
        #expect(goldens.count == outcomes.count)
        for (golden, outcome) in zip(goldens, outcomes) { #expect(outcome == golden) }
    }

    /// The goldens name every type of the wire.
    @Test func goldensCoverEveryType() throws {
        let types = Set(try Self.lines("signal-goldens.txt").compactMap { line -> String? in
            guard let head = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], head["ok"] == nil else { return nil }
            return head["type"] as? String
        })
        #expect(types == Set(SignalCodec.requestTypes + SignalCodec.eventTypes))
    }
}
