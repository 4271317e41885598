import Foundation
import RTCMedia
import RTCWire
@testable import SFU
@testable import SRTCCore
import SRTCLab
@testable import SRTCServer
import SRTCTestSupport
import TestWait
import Testing

/// The server never holds plaintext (docs/e2ee.md, "Threat model"), seen from inside it: a
/// test-only tap reads the packets the SFU keeps on its forwarding path (each video producer's
/// packet cache, which answers subscribers' NACKs: the RTP packets as the SFU received them, SRTP
/// removed), reassembles their frames, and compares them with what the publisher encoded (the
/// frames a keyed viewer is handed after decryption). A plain publisher in the same channel is
/// the tap's control: its frames are found there as its viewer gets them.
@Suite struct SDKE2EEServerTapTests {
    /// The VP8 frames in the packets every video producer of `server` keeps, per stream (a
    /// simulcast producer has one per layer).
    static func framesTheSFUHolds(_ server: SDKTestServer) async throws -> [[[UInt8]]] {
        var result: [[[UInt8]]] = []
        for worker in server.app.mediaWorkers {
            let packets = try await worker.sfu.perform { core, _ in
                core.producers.values.filter { $0.kind == .video }.flatMap { producer in
                    producer.streams.compactMap(\.cache).map { cache in
                        (0...UInt16.max).compactMap { seq in cache.packet(sequenceNumber: seq).map { Array($0) } }
                    }
                }
            }
            for stream in packets {
                let parsed = stream.compactMap { try? RTPPacket(parsing: $0) }.filter { !$0.payload.isEmpty }
                // The cache holds the newest 512 packets, a span far below half the sequence
                // space: in order relative to any one of them.
                guard let reference = parsed.first?.sequenceNumber else { continue }
                let ordered = parsed.sorted { Int16(bitPattern: $0.sequenceNumber &- reference) < Int16(bitPattern: $1.sequenceNumber &- reference) }
                var assembler = VP8FrameAssembler()
                var frames: [[UInt8]] = []
                for p in ordered {
                    if let frame = try? assembler.push(payload: p.payload, sequenceNumber: p.sequenceNumber, timestamp: p.timestamp, marker: p.marker).frame {
                        frames.append(frame.data)
                    }
                }
                result.append(frames)
            }
        }
        return result
    }

    @Test func theSFUsForwardingPathHoldsNoFrameThePublisherEncoded() async throws {
        let server = try SDKTestServer()
        let shared = E2EEKeyProvider.sharedKey(passphrase: "correct horse battery staple")
        let publisher = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared)), control = SDKPeer()
        let keyed = SDKPeer(e2ee: E2EEConfiguration(keyProvider: shared)), plain = SDKPeer()
        let (keyedSubscriber, plainSubscriber) = (SDKAutoSubscriber(), SDKAutoSubscriber())
        keyed.channel.delegates.add(delegate: keyedSubscriber)
        plain.channel.delegates.add(delegate: plainSubscriber)
        for (peer, uid) in [(publisher, "pub"), (control, "control"), (keyed, "keyed"), (plain, "plain")] {
            try await peer.channel.join(url: server.url, token: server.token(uid: uid, channel: "tap"))
        }
        let preset = VideoPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 400_000)
        let (secret, open) = (publisher.engine.createLocalCustomVideoTrack(desc: "camera", preset: preset),
                              control.engine.createLocalCustomVideoTrack(desc: "camera", preset: preset))
        try await publisher.channel.publishLocalTrack(secret)
        try await control.channel.publishLocalTrack(open)
        // What the publisher encoded, as the keyed viewer decrypts it; the control's frames, as
        // the viewer without E2EE gets them (a client with E2EE refuses a plain track).
        let (encoded, controlFrames) = (SDKE2EETests.FrameTap(), SDKE2EETests.FrameTap())
        for (peer, uid, tap) in [(keyed, "pub", encoded), (plain, "control", controlFrames)] {
            try await eventually("\(peer.channel.uid ?? "?") knows \(uid)'s camera") { peer.channel.remoteTrack(uid: uid, desc: "camera") != nil }
            peer.channel.remoteTrack(uid: uid, desc: "camera")?.add(encodedFrameRenderer: tap)
        }
        let pushers = try [SDKMediaPusher(video: secret, audio: nil, width: 320, height: 180),
                           SDKMediaPusher(video: open, audio: nil, width: 320, height: 180, firstNumber: 100_000)]
        defer { for pusher in pushers { pusher.stop() } }
        try await eventually(timeout: 20, "both cameras decode") {
            keyedSubscriber.collector.numbers.count > 60 && plainSubscriber.collector.numbers.filter { $0 >= 100_000 }.count > 60
        }
        for pusher in pushers { pusher.stop() }
        try await Task.sleep(for: .milliseconds(500))

        let held = try await Self.framesTheSFUHolds(server)
        let plaintext = encoded.all, controlSet = Set(controlFrames.all)
        #expect(held.count >= 2 && held.allSatisfy { !$0.isEmpty }, "frames held in every stream of the two cameras: \(held.map(\.count))")
        // The control: the tap does see frames as they are, when they are plain.
        let controlFound = held.map { $0.filter(controlSet.contains).count }.max() ?? 0
        #expect(controlFound > 30, "the control's frames found on the forwarding path: \(controlFound)")
        // The encrypted publisher: no frame it encoded, and no 32-byte run of one past its clear
        // bytes (10 on a VP8 key frame), is in anything the SFU holds.
        let plaintextSet = Set(plaintext)
        let equal = held.joined().filter(plaintextSet.contains).count
        #expect(equal == 0, "\(equal) frames the SFU holds equal frames the publisher encoded")
        let runs = Set(plaintext.filter { $0.count >= 48 }.map { Array($0[10 ..< 42]) })
        let leaks = held.joined().filter { frame in frame.count >= 32 && (0 ... frame.count - 32).contains { runs.contains(Array(frame[$0 ..< $0 + 32])) } }
        #expect(leaks.isEmpty, "\(leaks.count) frames the SFU holds contain a 32-byte run of a plaintext frame")
        print("SFU tap: \(held.map(\.count)) frames held per stream; the control's found \(controlFound) times; "
              + "\(plaintext.count) plaintext frames of the encrypted publisher: \(equal) equal, \(leaks.count) with a plaintext run")

        for peer in [plain, keyed, control, publisher] { await peer.channel.leave() }
        await server.stop()
    }
}
