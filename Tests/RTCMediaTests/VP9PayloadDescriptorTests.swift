import Testing
@testable import RTCMedia
import TestRandom

/// Fixtures follow the layout of RFC 9628 §4.2 (descriptor) and §4.2.1 (scalability structure).
@Suite struct VP9PayloadDescriptorTests {
    @Test func nonFlexibleKeyPictureWithScalabilityStructure() throws {
        let payload: [UInt8] = [
            0xAE,         // I=1 P=0 L=1 F=0 B=1 E=1 V=1 Z=0
            0x81, 0x02,   // M=1 PICTURE ID=0x0102 (258)
            0x10,         // TID=0 U=1 SID=0 D=0
            0x07,         // TL0PICIDX=7
            0x58,         // SS: N_S=2 (3 spatial layers) Y=1 G=1
            0x00, 0xA0, 0x00, 0x5A,   // 160 × 90
            0x01, 0x40, 0x00, 0xB4,   // 320 × 180
            0x02, 0x80, 0x01, 0x68,   // 640 × 360
            0x04,         // N_G=4
            0x04, 0x04,   // TID=0 U=0 R=1, P_DIFF=4
            0x54, 0x01,   // TID=2 U=1 R=1, P_DIFF=1
            0x34, 0x02,   // TID=1 U=1 R=1, P_DIFF=2
            0x54, 0x01,   // TID=2 U=1 R=1, P_DIFF=1
            0x82, 0x49,   // VP9 data
        ]
        let (descriptor, length) = try VP9PayloadDescriptor.parse(payload)
        #expect(length == 27)
        #expect(descriptor.pictureID == 258 && descriptor.longPictureID)
        #expect(!descriptor.interPicturePredicted && !descriptor.flexibleMode)
        #expect(descriptor.beginningOfFrame && descriptor.endOfFrame && !descriptor.notReferenceForUpperLayers)
        #expect(descriptor.temporalID == 0 && descriptor.switchingUpPoint && descriptor.spatialID == 0 && !descriptor.interLayerDependency)
        #expect(descriptor.tl0PicIndex == 7)
        #expect(descriptor.isKeyFrameStart && VP9.isKeyFrame(payload: payload))
        let range = try #require(descriptor.scalabilityStructureRange)
        #expect(range == 5 ..< 27)
        let structure = try VP9ScalabilityStructure.parse(Array(payload[range]))
        #expect(structure.spatialLayers == 3)
        #expect(structure.resolutions.map { [$0.width, $0.height] } == [[160, 90], [320, 180], [640, 360]])
        #expect(structure.pictureGroup == [
            .init(temporalID: 0, switchingUpPoint: false, references: [4]),
            .init(temporalID: 2, switchingUpPoint: true, references: [1]),
            .init(temporalID: 1, switchingUpPoint: true, references: [2]),
            .init(temporalID: 2, switchingUpPoint: true, references: [1]),
        ])
        #expect(descriptor.bytes(structure: structure) == Array(payload[0 ..< 27]))
    }

    @Test func upperSpatialLayerOfAnInterPicture() throws {
        let payload: [UInt8] = [
            0x6C,   // I=0 P=1 L=1 F=0 B=1 E=1 V=0 Z=0
            0x45,   // TID=2 U=0 SID=2 D=1
            0x09,   // TL0PICIDX=9
            0x01,   // VP9 data
        ]
        let (descriptor, length) = try VP9PayloadDescriptor.parse(payload)
        #expect(length == 3)
        #expect(descriptor.pictureID == nil && descriptor.interPicturePredicted)
        #expect(descriptor.temporalID == 2 && !descriptor.switchingUpPoint && descriptor.spatialID == 2 && descriptor.interLayerDependency)
        #expect(descriptor.tl0PicIndex == 9 && descriptor.scalabilityStructureRange == nil)
        #expect(!descriptor.isKeyFrameStart && !VP9.isKeyFrame(payload: payload))
        #expect(descriptor.bytes() == Array(payload[0 ..< 3]))
    }

    @Test func flexibleModeWithThreeReferencesAndSevenBitPictureID() throws {
        let payload: [UInt8] = [
            0xF9,   // I=1 P=1 L=1 F=1 B=1 E=0 V=0 Z=1
            0x11,   // M=0 PICTURE ID=17
            0x22,   // TID=1 U=0 SID=1 D=0 (no TL0PICIDX in flexible mode)
            0x03,   // P_DIFF=1 N=1
            0x05,   // P_DIFF=2 N=1
            0x08,   // P_DIFF=4 N=0
            0xFF,   // VP9 data
        ]
        let (descriptor, length) = try VP9PayloadDescriptor.parse(payload)
        #expect(length == 6)
        #expect(descriptor.pictureID == 17 && !descriptor.longPictureID)
        #expect(descriptor.flexibleMode && descriptor.notReferenceForUpperLayers && !descriptor.endOfFrame)
        #expect(descriptor.tl0PicIndex == nil)
        #expect(descriptor.references == [1, 2, 4])
        #expect(descriptor.bytes() == Array(payload[0 ..< 6]))
    }

    @Test func withoutLayerIndicesEverythingIsLayerZero() throws {
        let payload: [UInt8] = [
            0x88, 0x05,   // I=1 B=1; PICTURE ID=5 (7 bits)
            0x00,         // VP9 data
        ]
        let (descriptor, _) = try VP9PayloadDescriptor.parse(payload)
        #expect(descriptor.spatialID == nil && descriptor.spatialLayer == 0 && descriptor.temporalLayer == 0)
        #expect(descriptor.isKeyFrameStart)
    }

    @Test func structureWithoutResolutionsOrGroup() throws {
        let structure = try VP9ScalabilityStructure.parse([0x20])   // N_S=1 (2 layers) Y=0 G=0
        #expect(structure == VP9ScalabilityStructure(spatialLayers: 2))
        #expect(structure.pictureGroup == nil && structure.resolutions.isEmpty)
    }

    // MARK: - Robustness

    @Test(arguments: [
        ([], RTPPayloadError.emptyPayload),
        ([0x80], .truncatedDescriptor(needed: 2, available: 1)),                  // I=1, no picture id
        ([0x80, 0x81], .truncatedDescriptor(needed: 3, available: 2)),            // M=1, no second byte
        ([0x20, 0x00], .truncatedDescriptor(needed: 3, available: 2)),            // L=1 F=0, no TL0PICIDX
        ([0x50, 0x03, 0x03, 0x03, 0x00], .vp9TooManyReferences),                  // P=1 F=1, N on the third P_DIFF
        ([0x50, 0x03], .truncatedDescriptor(needed: 3, available: 2)),            // N=1, no second P_DIFF
        ([0x02], .vp9TruncatedScalabilityStructure),                              // V=1, no SS
        ([0x02, 0x50, 0x00, 0xA0], .vp9TruncatedScalabilityStructure),            // 3 resolutions announced
        ([0x02, 0x08, 0x02, 0x04], .vp9TruncatedScalabilityStructure),            // N_G=2, one picture, R=1 with no P_DIFF
        ([0x22, 0x02, 0x00, 0x00, 0x00], .vp9SpatialIDOutOfRange),                // SID=1, SS says 1 layer
        ([0x88, 0x05], .vp9MissingFrameData),                                     // a descriptor and nothing else
    ] as [([UInt8], RTPPayloadError)])
    func malformedDescriptorsAreRejectedByName(payload: [UInt8], error: RTPPayloadError) {
        #expect(throws: error) { try VP9PayloadDescriptor.parse(payload) }
        #expect(!VP9.isKeyFrame(payload: payload))
    }

    @Test func randomBytesNeverCrashAndParsedDescriptorsRoundTrip() throws {
        var random = SeededRandom(seed: 9628)
        for _ in 0 ..< 20_000 {
            let count = Int.random(in: 0 ... 40, using: &random)
            let payload = (0 ..< count).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            guard let (descriptor, length) = try? VP9PayloadDescriptor.parse(payload) else { continue }
            #expect(length < payload.count)
            var structure: VP9ScalabilityStructure?
            if let range = descriptor.scalabilityStructureRange {
                structure = try VP9ScalabilityStructure.parse(Array(payload[range]))
            }
            let again = try VP9PayloadDescriptor.parse(descriptor.bytes(structure: structure) + [0])
            #expect(again.descriptor.pictureID == descriptor.pictureID && again.descriptor.spatialID == descriptor.spatialID
                    && again.descriptor.references == descriptor.references && again.descriptor.tl0PicIndex == descriptor.tl0PicIndex)
        }
    }
}
