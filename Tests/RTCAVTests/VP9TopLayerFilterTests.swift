import Foundation
import MediaTestSupport
import RTCAV
import RTCMedia
import TestRandom
import TestWait
import Testing

/// libvpx's VP9 SVC pictures (`L2T3_KEY`, as the Swift SDK sends them) as a recorder stores them
/// (docs/egress.md, "VP9 with spatial layers"): `VP9TopLayerFilter` keeps each picture's top
/// layer frame and, in key pictures, the lower layer's key frame not shown; a WebM of them plays
/// at the top layer's size with one frame per picture in FFmpeg, and libvpx decodes the same.
/// The pictures written whole with their superframe index (what a receiver hands a recorder) make
/// FFmpeg show every layer frame in turn: what the filter is for.
@Suite struct VP9TopLayerFilterTests {
    static let width = 640, height = 360, fps = 30

    /// `count` pictures of the test pattern from libvpx in L2T3_KEY, each as a receiver hands it on
    /// (its layer frames, lowest first, then their superframe index), with a key picture at `keys`.
    static func pictures(count: Int, keys: Set<Int> = [0]) throws -> [(data: [UInt8], key: Bool)] {
        var configuration = VPXEncoder.Configuration(width: width, height: height, codec: .vp9)
        configuration.bitrate = 800_000
        configuration.frameRate = fps
        configuration.keyFrameInterval = 3_000
        configuration.scalabilityMode = .l2t3Key
        let encoder = try VPXEncoder(configuration: configuration)
        let pattern = try TestPatternGenerator(width: width, height: height, frameRate: fps)
        return try (0 ..< count).map { number in
            let picture = try #require(try encoder.encode(pattern.videoFrame(number: number), forceKeyFrame: keys.contains(number)))
            #expect(picture.layerFrames.map(\.spatialID) == [0, 1], "picture \(number)")
            var data: [UInt8] = []
            for layer in picture.layerFrames { data += picture.data[layer.range] }
            VP9Superframe.appendIndex(frameSizes: picture.layerFrames.map(\.range.count), to: &data)
            return (data, picture.isKeyFrame)
        }
    }

    static func frames(of chunk: [UInt8]) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        chunk.withUnsafeBytes { data in _ = VP9Superframe.forEachFrame(in: data) { frames.append(Array(data[$0])) } }
        return frames
    }

    @Test func keyPicturesKeepTheHiddenLowerKeyFrameAndOthersTheTopFrameAlone() throws {
        let pictures = try Self.pictures(count: 12, keys: [0, 8])
        var filter = VP9TopLayerFilter()
        let decoder = try VPXDecoder(codec: .vp9)
        var numbers: [Int?] = []
        for (number, picture) in pictures.enumerated() {
            let filtered = filter.filter(picture.data)
            let out = try #require(filtered)
            let frames = Self.frames(of: out)
            let headers = frames.map { $0.withUnsafeBytes { VP9FrameHeader.parse($0) } }
            if picture.key {
                #expect(frames.count == 2, "key picture \(number): the lower key frame and the top frame")
                #expect(headers[0]?.isKeyFrame == true && headers[0]?.showFrame == false, "\(String(describing: headers[0]))")
                #expect(headers[1]?.isKeyFrame == false && headers[1]?.showFrame == true && headers[1]?.referencedSlots != 0)
            } else {
                #expect(frames.count == 1 && out == Self.frames(of: picture.data)[1], "picture \(number): its top frame alone")
                #expect(headers[0]?.showFrame == true)
            }
            let decoded = try #require(try decoder.decode(out), "picture \(number)")
            #expect(decoded.width == Self.width && decoded.height == Self.height)
            numbers.append(TestPatternReader.frameNumber(in: decoded))
        }
        #expect(numbers == (0 ..< 12).map { $0 })
    }

    /// The same pictures in WebM, read by FFmpeg (libavformat and its own VP9 decoder) and ffprobe.
    @Test func aWebMOfTheFilteredPicturesPlaysTheTopLayerFrameByFrame() async throws {
        let count = 60
        let pictures = try Self.pictures(count: count, keys: [0, 30])
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        var filter = VP9TopLayerFilter()
        var chunks: [[UInt8]] = []
        for picture in pictures {
            let out = filter.filter(picture.data)
            chunks.append(try #require(out))
        }
        let filtered = chunks
        let (probe, decoded, whole) = try await offPool {
            for (name, chunks) in [("top.webm", filtered), ("whole.webm", pictures.map(\.data))] {
                let muxer = try MediaMuxer(url: dir.file(name), container: .webm)
                let stream = try muxer.addStream(.video(.vp9, width: Self.width, height: Self.height, frameRate: Self.fps))
                try muxer.start()
                for (number, chunk) in chunks.enumerated() {
                    try muxer.write(stream: stream, bytes: chunk, ptsUs: Int64(number) * 1_000_000 / Int64(Self.fps), isKeyFrame: pictures[number].key)
                }
                try muxer.finish()
            }
            return (try MediaProbe(dir.file("top.webm")), try DecodedMediaFile(url: dir.file("top.webm")),
                    try DecodedMediaFile(url: dir.file("whole.webm")))
        }
        print("VP9TopLayerFilterTests: filtered: ffprobe \(probe.videoFrames ?? -1) frames, \(decoded.videoTimesUs.count) decoded, "
              + "sizes \(Set(decoded.videoFrameSizes)); whole pictures: \(whole.videoTimesUs.count) decoded, sizes \(Set(whole.videoFrameSizes))")
        #expect(probe.codecs == ["vp9"] && probe.videoFrames == count)
        #expect(decoded.videoTimesUs.count == count && Set(decoded.videoFrameSizes) == ["\(Self.width)x\(Self.height)"])
        #expect(decoded.frameNumbers == (0 ..< count).map { $0 })
        let stream = decoded.streams.first { $0.isVideo }
        #expect(stream?.width == Self.width && stream?.height == Self.height, "\(String(describing: stream))")
        // Unfiltered, FFmpeg shows both layer frames of every picture.
        #expect(whole.videoTimesUs.count == 2 * count && Set(whole.videoFrameSizes) == ["\(Self.width / 2)x\(Self.height / 2)", "\(Self.width)x\(Self.height)"])
    }

    /// The top layer stops arriving (the recorder moved down to the lower layer): the lower
    /// layer's frames read slots whose frames were left out, so nothing is stored until the next
    /// key picture, and what is stored decodes without error, numbers in order.
    @Test func aLowerLayerAfterItsFramesWereLeftOutWaitsForAKeyPicture() throws {
        let pictures = try Self.pictures(count: 24, keys: [0, 16])
        var filter = VP9TopLayerFilter()
        let decoder = try VPXDecoder(codec: .vp9)
        var stored: [Int] = [], numbers: [Int] = [], sizes: Set<String> = []
        for (number, picture) in pictures.enumerated() {
            let frames = Self.frames(of: picture.data)
            // Both layers up to picture 7, then the lower layer's frame alone.
            let received = number < 8 ? picture.data : frames[0]
            guard let out = filter.filter(received) else { continue }
            stored.append(number)
            let decoded = try #require(try decoder.decode(out), "picture \(number)")
            sizes.insert("\(decoded.width)x\(decoded.height)")
            if let n = TestPatternReader.frameNumber(in: decoded) { numbers.append(n) }
        }
        #expect(stored == Array(0 ..< 8) + Array(16 ..< 24), "stored \(stored)")
        #expect(sizes == ["\(Self.width)x\(Self.height)", "\(Self.width / 2)x\(Self.height / 2)"])
        #expect(numbers == stored, "numbers \(numbers)")
    }

    /// Bytes that are not VP9 pictures: nothing crashes, a picture that does not parse goes
    /// through unchanged, a truncated header is no header.
    @Test func randomAndTruncatedInputAreHandled() {
        var random = SeededRandom(seed: 9)
        var filter = VP9TopLayerFilter()
        for _ in 0 ..< 2_000 {
            let bytes = random.bytes(Int.random(in: 0 ... 40, using: &random))
            _ = bytes.withUnsafeBytes { VP9FrameHeader.parse($0) }
            _ = filter.filter(bytes)
        }
        let inter: [UInt8] = [0x86, 0x00, 0x40, 0x92, 0x00]
        for length in 0 ..< 4 { #expect(inter.prefix(length).withUnsafeBytes { VP9FrameHeader.parse($0) } == nil, "\(length) bytes") }
        let header = inter.withUnsafeBytes { VP9FrameHeader.parse($0) }
        #expect(header?.isKeyFrame == false && header?.showFrame == true && header?.refreshedSlots == 0x01)
        #expect(header?.referencedSlots == 0b111, "ref_frame_idx 0, 1, 2: \(String(describing: header))")
        var fresh = VP9TopLayerFilter()
        let notVP9: [UInt8] = [0x30, 0x01, 0x02, 0x03, 0xC0, 0x04, 0xC0]
        #expect(fresh.filter(notVP9) == notVP9)
    }
}
