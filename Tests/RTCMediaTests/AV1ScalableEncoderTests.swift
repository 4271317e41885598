import RTCWire
import Testing
@testable import RTCMedia

/// libaom's SVC controls give the layers `ScalabilityMode` describes: each temporal unit holds one
/// frame per spatial layer with the pattern's temporal id and template, and a dav1d decoder fed
/// only the frames of one decode target (what an SFU forwards) decodes every one of them, at that
/// layer's size, with the test pattern's numbers intact.
@Suite struct AV1ScalableEncoderTests {
    private func encoder(_ mode: ScalabilityMode, width: Int = 320, height: Int = 240, keyFrameInterval: Int = 3_000) throws -> AV1Encoder {
        var configuration = AV1Encoder.Configuration(width: width, height: height)
        configuration.bitrate = 800_000
        configuration.keyFrameInterval = keyFrameInterval
        configuration.scalabilityMode = mode
        return try AV1Encoder(configuration: configuration)
    }

    @Test func l2t3KeyDecodesPerSpatialLayer() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        let encoder = try encoder(.l2t3Key)
        let small = try AV1Decoder(), big = try AV1Decoder(), whole = try AV1Decoder()
        var smallNumbers: [Int?] = [], bigNumbers: [Int?] = [], sizes: Set<String> = []
        for number in 0 ..< 24 {
            let unit = try #require(try encoder.encode(pattern.videoFrame(number: number), forceKeyFrame: number == 12))
            let key = number == 0 || number == 12
            let position = key ? 0 : (number % 12) & 3
            #expect(unit.scalabilityMode == .l2t3Key)
            #expect(unit.layerFrames.map(\.spatialID) == [0, 1], "unit \(number)")
            #expect(unit.layerFrames.map(\.temporalID) == [ScalabilityMode.temporalPattern[position], ScalabilityMode.temporalPattern[position]])
            #expect(unit.layerFrames.map(\.templateID) == [0, 1].map { ScalabilityMode.l2t3Key.templateID(spatialID: $0, position: position, keyPicture: key) })
            #expect(unit.layerFrames.map(\.isKeyFrame) == [key, false] && unit.isKeyFrame == key)
            let s0 = Array(unit.data[unit.layerFrames[0].range]), s1 = Array(unit.data[unit.layerFrames[1].range])
            // Decode target S0T2: every S0 frame. Decode target S1T2 (`_KEY`): the key S0 frame, then S1 alone.
            let low = try #require(try small.decode(s0, timestampUs: 0), "S0 of unit \(number)")
            sizes.insert("\(low.width)x\(low.height)")
            smallNumbers.append(TestPatternReader.frameNumber(in: low))
            if key { _ = try big.decode(s0, timestampUs: 0) }
            let high = try #require(try big.decode(s1, timestampUs: 0), "S1 of unit \(number)")
            #expect(high.width == 320 && high.height == 240)
            bigNumbers.append(TestPatternReader.frameNumber(in: high))
            // The whole unit decodes to the top layer.
            let top = try #require(try whole.decode(unit.data, timestampUs: 0))
            #expect(top.width == 320 && top.height == 240)
            print("AV1ScalableEncoderTests: unit \(number) S0 \(s0.count) bytes, S1 \(s1.count) bytes")
        }
        #expect(sizes == ["160x120"])
        #expect(bigNumbers == (0 ..< 24).map { $0 })
        // The half-size pattern still carries its number.
        #expect(smallNumbers.compactMap { $0 }.count >= 20, "small numbers \(smallNumbers)")
    }

    @Test func l1t3KeepsTheTemporalPattern() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        let encoder = try encoder(.l1t3)
        let base = try AV1Decoder()
        var temporal: [Int] = [], decodedBase: [Int?] = []
        for number in 0 ..< 16 {
            let unit = try #require(try encoder.encode(pattern.videoFrame(number: number)))
            let layer = try #require(unit.layerFrames.first)
            #expect(unit.layerFrames.count == 1 && layer.spatialID == 0)
            #expect(layer.templateID == ScalabilityMode.l1t3.templateID(spatialID: 0, position: number & 3, keyPicture: number == 0))
            temporal.append(layer.temporalID)
            // Decode target T0 (7.5 fps of 30): only the T0 frames, each decodes.
            if layer.temporalID == 0 { decodedBase.append(try base.decode(unit.data, timestampUs: 0).flatMap(TestPatternReader.frameNumber(in:))) }
        }
        #expect(temporal == [0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2, 0, 2, 1, 2])
        #expect(decodedBase == [0, 4, 8, 12])
    }

    /// Dynacast inside SVC from the first unit on, as a publisher whose only subscriber takes the
    /// small layer starts: the upper layer is off for the first units, then on and off every six.
    /// libaom 3.6 corrupted its heap when the upper layer first came back (it had never encoded
    /// it: a note in `AV1Encoder+Scalability.swift`); the process aborted in glibc or valgrind
    /// reported the writes. Every unit holds the active layers only, each raise is a key picture,
    /// and both a decoder of S0 alone and one of whole units decode every unit they get.
    @Test func theUpperLayerOffFromTheFirstUnitComesBackAndGoesAgain() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        let encoder = try encoder(.l2t3Key)
        let small = try AV1Decoder(), whole = try AV1Decoder()
        var layers: [[Int]] = [], keys: [Int] = [], smallSizes: Set<String> = [], bigNumbers: [Int] = [], smallDecoded = 0
        for number in 0 ..< 48 {
            let upper = number / 6 % 2 == 1
            try encoder.setActiveSpatialLayers(upper ? 2 : 1)
            let unit = try #require(try encoder.encode(pattern.videoFrame(number: number)), "unit \(number)")
            layers.append(unit.layerFrames.map(\.spatialID))
            if unit.isKeyFrame { keys.append(number) }
            if let low = try small.decode(Array(unit.data[unit.layerFrames[0].range]), timestampUs: 0) {
                smallDecoded += 1
                smallSizes.insert("\(low.width)x\(low.height)")
            }
            // A subscriber to the big layer gets whole units: S0 alone while S1 is off.
            let top = try #require(try whole.decode(unit.data, timestampUs: 0), "whole unit \(number)")
            #expect(top.width == (upper ? 320 : 160), "unit \(number) decoded \(top.width)x\(top.height)")
            if upper, let n = TestPatternReader.frameNumber(in: top) { bigNumbers.append(n) }
        }
        print("AV1ScalableEncoderTests dynacast: layers \(layers), keys \(keys)")
        #expect(layers == (0 ..< 48).map { $0 / 6 % 2 == 1 ? [0, 1] : [0] })
        #expect(keys == [0, 6, 18, 30, 42])
        #expect(smallDecoded == 48 && smallSizes == ["160x120"])
        #expect(bigNumbers == (0 ..< 48).filter { $0 / 6 % 2 == 1 })
    }

    /// Key pictures only on request (interval 0, as the load generator's loops ask): libaom's SVC
    /// path crashed with a key-frame distance of 0; the first unit is the only key picture.
    @Test func keyPicturesOnlyOnRequest() throws {
        let pattern = try TestPatternGenerator(width: 320, height: 240)
        let encoder = try encoder(.l2t3Key, keyFrameInterval: 0)
        var keys: [Bool] = []
        for number in 0 ..< 10 {
            let unit = try #require(try encoder.encode(pattern.videoFrame(number: number), forceKeyFrame: number == 8))
            keys.append(unit.isKeyFrame)
        }
        #expect(keys == (0 ..< 10).map { $0 == 0 || $0 == 8 })
    }
}
