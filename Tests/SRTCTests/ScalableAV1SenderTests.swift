import RTCMedia
import RTCWire
import Testing
@testable import SRTCCore

/// A scalable AV1 unit (L2T3_KEY) leaves the sender as one RTP stream: each layer frame is a frame
/// of its own in the Dependency Descriptor (start and end of frame, its template, frame numbers one
/// apart), every packet of the unit has its timestamp, only the unit's last packet the marker, and
/// a key frame's first descriptor carries the structure in RFC 8285's two-byte form (it exceeds
/// 16 bytes). What an SFU keeps of one spatial layer reassembles into units dav1d decodes.
@Suite struct ScalableAV1SenderTests {
    /// An AV1 sender with the descriptor negotiated (id 11), a 320×240 pattern and an `L2T3_KEY` encoder.
    static func scalableSender(bitrate: Int) throws -> (RTPStreamSender, TestPatternGenerator, AV1Encoder) {
        var parameters = RTPStreamSender.Parameters(ssrc: 5, payloadType: 45, clockRate: 90_000, mid: "0", rid: nil,
                                                    midID: 4, ridID: nil, audioLevelID: nil)
        parameters.videoCodec = .av1
        parameters.dependencyDescriptorID = 11
        var configuration = AV1Encoder.Configuration(width: 320, height: 240)
        configuration.bitrate = bitrate
        configuration.scalabilityMode = .l2t3Key
        return (RTPStreamSender(kind: .video, parameters: parameters), try TestPatternGenerator(width: 320, height: 240),
                try AV1Encoder(configuration: configuration))
    }

    @Test func layerFramesAreFramesOfTheirOwn() throws {
        let (sender, pattern, encoder) = try Self.scalableSender(bitrate: 1_000_000)
        var reader = DependencyDescriptorReader()
        let small = try AV1Decoder()
        var frameNumbers: [UInt16] = [], smallNumbers: [Int?] = []
        for number in 0 ..< 8 {
            let unit = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            let (first, count) = sender.packetize(video: unit)
            let packets: [RTPPacket] = try (0 ..< count).map { i in try RTPPacket(parsing: try #require(sender.cachedPacket(first &+ UInt16(i)))) }
            #expect(Set(packets.map(\.timestamp)).count == 1)
            #expect(packets.map(\.marker) == (0 ..< count).map { $0 == count - 1 })
            var s0: [UInt8] = []
            var depacketizer = AV1Depacketizer()
            var previousEnd = true
            for (index, packet) in packets.enumerated() {
                let value = try #require(packet.extensionValue(id: 11))
                if number == 0 && index == 0 {
                    #expect(value.count > 16, "the structure needs the two-byte form")
                    #expect(packet.extensionProfile?.isTwoByte == true)
                }
                let d = try reader.read(value)
                #expect(d.startOfFrame == previousEnd, "packet \(index) of unit \(number)")
                previousEnd = d.endOfFrame
                if d.startOfFrame {
                    frameNumbers.append(d.frameNumber)
                    depacketizer.reset()
                }
                #expect(d.carriesStructure == (number == 0 && index == 0))
                // An SFU forwarding decode target S0T2 keeps S0's frames.
                if d.spatialID == 0 { try packet.payload.withUnsafeBytes { try depacketizer.append($0, to: &s0) } }
            }
            #expect(previousEnd)
            smallNumbers.append(try small.decode(s0, timestampUs: 0).flatMap(TestPatternReader.frameNumber(in:)))
        }
        #expect(reader.structure == ScalabilityMode.l2t3Key.structure)
        #expect(frameNumbers == (0 ..< 16).map { frameNumbers[0] &+ UInt16($0) })
        #expect(smallNumbers.compactMap { $0 }.count >= 6, "\(smallNumbers)")
    }

    /// Dynacast pauses S1 (`setActiveSpatialLayers(1)`): every packet of every unit then says
    /// only S0's decode targets are active (av1-rtp-spec §A.4), a key frame's too; when S1 comes
    /// back (at a key picture), that unit's packets say all are active again and later ones
    /// carry no mask.
    @Test func pausedSpatialLayersAreSaidOffInTheDescriptors() throws {
        let (sender, pattern, encoder) = try Self.scalableSender(bitrate: 600_000)
        var reader = DependencyDescriptorReader()
        var number = 0
        /// Encodes and sends one unit; returns its packets' (spatial id, mask, reader's active targets).
        func unit() throws -> (frame: EncodedVideoFrame, packets: [(spatial: UInt8, mask: UInt32?, active: UInt32)]) {
            let frame = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            number += 1
            let (first, count) = sender.packetize(video: frame)
            let packets = try (0 ..< count).map { i in
                let packet = try RTPPacket(parsing: try #require(sender.cachedPacket(first &+ UInt16(i))))
                let d = try reader.read(try #require(packet.extensionValue(id: 11)))
                return (d.spatialID, d.activeDecodeTargets, reader.activeDecodeTargets)
            }
            return (frame, packets)
        }
        for _ in 0 ..< 4 {
            let both = try unit()
            #expect(both.packets.allSatisfy { $0.mask == nil && $0.active == 0b111_111 })
        }
        try encoder.setActiveSpatialLayers(1)
        encoder.requestKeyFrame()
        for index in 0 ..< 6 {
            let paused = try unit()
            #expect(paused.frame.activeSpatialLayers == 1)
            if index == 0 { #expect(paused.frame.isKeyFrame, "the key frame asked for while paused") }
            #expect(!paused.packets.isEmpty && paused.packets.allSatisfy { $0.spatial == 0 && $0.mask == 0b000_111 && $0.active == 0b000_111 },
                    "unit \(index): \(paused.packets)")
        }
        try encoder.setActiveSpatialLayers(2)
        let resumed = try unit()
        #expect(resumed.frame.isKeyFrame && resumed.frame.activeSpatialLayers == 2)
        #expect(Set(resumed.packets.map(\.spatial)) == [0, 1])
        #expect(resumed.packets.allSatisfy { $0.mask == 0b111_111 && $0.active == 0b111_111 }, "\(resumed.packets)")
        let after = try unit()
        #expect(after.packets.allSatisfy { $0.mask == nil && $0.active == 0b111_111 }, "\(after.packets)")
    }
}
