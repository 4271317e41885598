import RTCWire
import Testing
@testable import RTCMedia

/// libvpx's VP9 SVC as the SDK uses it (`L2T3_KEY`): each picture holds one layer frame per
/// spatial layer with the 0212 temporal pattern, a VP9 decoder fed only the layer frames an SFU
/// forwards for one spatial layer decodes every picture at that layer's size with the test
/// pattern's numbers, the packetizer writes the RFC 9628 descriptors (layer indices, TL0PICIDX,
/// the SS on key pictures), and dynacast leaves the upper layer out and brings it back at a key
/// picture.
@Suite struct VP9ScalableEncoderTests {
    private func encoder(width: Int = 320, height: Int = 240) throws -> VPXEncoder {
        var configuration = VPXEncoder.Configuration(width: width, height: height, codec: .vp9)
        configuration.bitrate = 800_000
        configuration.keyFrameInterval = 3_000
        configuration.scalabilityMode = .l2t3Key
        return try VPXEncoder(configuration: configuration)
    }

    @Test func l2t3KeyDecodesPerSpatialLayer() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        let encoder = try encoder()
        let small = try VPXDecoder(codec: .vp9), big = try VPXDecoder(codec: .vp9), whole = try VPXDecoder(codec: .vp9)
        var smallNumbers: [Int?] = [], bigNumbers: [Int?] = [], sizes: Set<String> = [], temporal: [Int] = []
        for number in 0 ..< 24 {
            let picture = try #require(try encoder.encode(pattern.videoFrame(number: number), forceKeyFrame: number == 12))
            let key = number == 0 || number == 12
            #expect(picture.scalabilityMode == .l2t3Key)
            #expect(picture.layerFrames.map(\.spatialID) == [0, 1], "picture \(number)")
            #expect(picture.isKeyFrame == key, "picture \(number)")
            temporal.append(picture.layerFrames[0].temporalID)
            #expect(picture.layerFrames[1].temporalID == picture.layerFrames[0].temporalID)
            let s0 = Array(picture.data[picture.layerFrames[0].range]), s1 = Array(picture.data[picture.layerFrames[1].range])
            // The lower layer alone: what a camera_small subscriber gets.
            let low = try #require(try small.decode(s0), "S0 of picture \(number)")
            sizes.insert("\(low.width)x\(low.height)")
            smallNumbers.append(TestPatternReader.frameNumber(in: low))
            // `_KEY`: the key picture's S0 frame and then S1 frames alone (camera_big).
            let high = try #require(try big.decode(key ? s0 + s1 : s1), "S1 of picture \(number)")
            #expect(high.width == 320 && high.height == 240)
            bigNumbers.append(TestPatternReader.frameNumber(in: high))
            let top = try #require(try whole.decode(picture.data))
            #expect(top.width == 320 && top.height == 240)
            print("VP9ScalableEncoderTests: picture \(number) T\(picture.layerFrames[0].temporalID) S0 \(s0.count) bytes, S1 \(s1.count) bytes")
        }
        #expect(sizes == ["160x120"])
        #expect(bigNumbers == (0 ..< 24).map { $0 })
        #expect(smallNumbers.compactMap { $0 }.count >= 20, "small numbers \(smallNumbers)")
        // 0212 from each key picture.
        #expect(Array(temporal.prefix(8)) == [0, 2, 1, 2, 0, 2, 1, 2], "temporal \(temporal)")
        #expect(temporal[12] == 0)
    }

    @Test func descriptorsCarryLayersAndTheStructure() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        let encoder = try encoder()
        var packetizer = VP9Packetizer(maxPayloadSize: 400, initialPictureID: 100)
        var tl0: [UInt8] = []
        for number in 0 ..< 8 {
            let picture = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            let payloads = packetizer.packetize(picture)
            let parsed = try payloads.map { try VP9PayloadDescriptor.parse($0) }
            let descriptors = parsed.map(\.descriptor)
            #expect(payloads.allSatisfy { $0.count <= 400 })
            #expect(descriptors.allSatisfy { $0.pictureID == UInt16(100 + number) && !$0.flexibleMode })
            #expect(descriptors.allSatisfy { $0.interPicturePredicted == (number != 0) })
            #expect(descriptors.allSatisfy { Int($0.temporalLayer) == picture.layerFrames[0].temporalID })
            #expect(descriptors.allSatisfy { $0.switchingUpPoint == ($0.temporalLayer > 0) })
            // Each layer frame is its own sequence: B on its first payload, E on its last.
            for spatial in 0 ..< 2 {
                let layer = descriptors.filter { $0.spatialLayer == spatial }
                #expect(!layer.isEmpty && layer.first!.beginningOfFrame && layer.last!.endOfFrame)
                #expect(layer.filter(\.beginningOfFrame).count == 1 && layer.filter(\.endOfFrame).count == 1)
                #expect(layer.allSatisfy { $0.interLayerDependency == (number == 0 && spatial == 1) })
            }
            #expect(descriptors.map(\.spatialLayer) == descriptors.map(\.spatialLayer).sorted())
            #expect(VP9.isKeyFrame(payload: payloads[0]) == (number == 0))
            tl0.append(descriptors[0].tl0PicIndex ?? 0)
            // The SS: only in the key picture's first payload, two layers with their sizes and the 0212 group.
            let withStructure = parsed.indices.filter { parsed[$0].descriptor.scalabilityStructureRange != nil }
            #expect(withStructure == (number == 0 ? [0] : []))
            if number == 0, let range = parsed[0].descriptor.scalabilityStructureRange {
                let structure = try VP9ScalabilityStructure.parse(Array(payloads[0][range]))
                #expect(structure.spatialLayers == 2)
                #expect(structure.resolutions.map { "\($0.width)x\($0.height)" } == ["160x120", "320x240"])
                #expect(structure.pictureGroup?.map(\.temporalID) == [0, 2, 1, 2])
                #expect(structure.pictureGroup?.map(\.references) == [[4], [1], [2], [1]])
            }
            // Reassembled per layer, the payloads are the layer frames.
            var bytes: [UInt8] = []
            for (payload, (_, length)) in zip(payloads, parsed) { bytes += payload[length...] }
            let layerBytes = picture.layerFrames.flatMap { Array(picture.data[$0.range]) }
            #expect(bytes == layerBytes)
        }
        // TL0PICIDX rises at each T0 picture (0 and 4).
        #expect(tl0[1] == tl0[0] && tl0[3] == tl0[0] && tl0[4] == tl0[0] &+ 1 && tl0[7] == tl0[4])
    }

    /// Dynacast inside SVC: with one active layer the pictures hold S0 alone (still decodable at
    /// the small size, the same stream); raising it again makes the next picture a key picture
    /// from which S1 decodes.
    @Test func theUpperLayerStopsAndComesBackAtAKeyPicture() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        let encoder = try encoder()
        let small = try VPXDecoder(codec: .vp9), big = try VPXDecoder(codec: .vp9)
        var layers: [[Int]] = [], keys: [Bool] = [], smallNumbers: [Int?] = [], bigNumbers: [Int] = []
        for number in 0 ..< 30 {
            if number == 8 { try encoder.setActiveSpatialLayers(1) }
            if number == 20 { try encoder.setActiveSpatialLayers(2) }
            let picture = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            layers.append(picture.layerFrames.map(\.spatialID))
            keys.append(picture.isKeyFrame)
            let s0 = Array(picture.data[picture.layerFrames[0].range])
            smallNumbers.append(try small.decode(s0).flatMap(TestPatternReader.frameNumber(in:)))
            if picture.isKeyFrame || number < 8 {
                if picture.layerFrames.count == 2 {
                    let s1 = Array(picture.data[picture.layerFrames[1].range])
                    if let frame = try big.decode(picture.isKeyFrame ? s0 + s1 : s1), let n = TestPatternReader.frameNumber(in: frame) {
                        #expect(frame.width == 320)
                        bigNumbers.append(n)
                    }
                }
            } else if number > 20, picture.layerFrames.count == 2 {
                let s1 = Array(picture.data[picture.layerFrames[1].range])
                if let frame = try big.decode(s1), let n = TestPatternReader.frameNumber(in: frame) { bigNumbers.append(n) }
            }
        }
        print("VP9ScalableEncoderTests dynacast: layers \(layers), keys \(keys.indices.filter { keys[$0] })")
        #expect(layers[0 ..< 8].allSatisfy { $0 == [0, 1] })
        #expect(layers[8 ..< 20].allSatisfy { $0 == [0] }, "\(layers)")
        #expect(layers[20 ..< 30].allSatisfy { $0 == [0, 1] }, "\(layers)")
        #expect(keys.indices.filter { keys[$0] } == [0, 20])
        #expect(smallNumbers.compactMap { $0 }.count >= 25, "small \(smallNumbers)")
        #expect(bigNumbers == Array(0 ..< 8) + Array(20 ..< 30), "big \(bigNumbers)")
    }

    /// The superframe index reader takes what it is given: an index that does not add up, a
    /// truncated one or bytes without one are one frame, never a range outside the data.
    @Test func superframeIndexRobustness() {
        // Two frames of 3 and 2 bytes, one byte per size: marker 0b110_00_001.
        let good: [UInt8] = [1, 2, 3, 4, 5, 0xC1, 3, 2, 0xC1]
        var ranges: [Range<Int>] = []
        good.withUnsafeBytes { VP9Superframe.forEachFrame(in: $0) { ranges.append($0) } }
        #expect(ranges == [0 ..< 3, 3 ..< 5])
        let cases: [[UInt8]] = [[], [0xC1], [0xC1, 3, 2], [1, 0xC1, 9, 9, 0xC1], [1, 2, 0xC1, 0, 2, 0xC1], [0xC0, 0xC0], [0xDF]]
        for bytes in cases {
            var seen: [Range<Int>] = []
            bytes.withUnsafeBytes { VP9Superframe.forEachFrame(in: $0) { seen.append($0) } }
            #expect(seen.allSatisfy { $0.lowerBound >= 0 && $0.upperBound <= bytes.count }, "\(bytes) → \(seen)")
        }
        var state: UInt32 = 12_345
        for _ in 0 ..< 2_000 {
            let count = Int(state % 24)
            var bytes: [UInt8] = []
            for _ in 0 ..< count {
                state = state &* 1_103_515_245 &+ 12_345
                bytes.append(UInt8(truncatingIfNeeded: state >> 16))
            }
            if count > 2 && state & 1 == 0 { bytes[count - 1] = 0xC0 | bytes[count - 1] & 0x1F }
            bytes.withUnsafeBytes { raw in
                VP9Superframe.forEachFrame(in: raw) { range in #expect(range.lowerBound >= 0 && range.upperBound <= raw.count) }
            }
        }
    }
}
