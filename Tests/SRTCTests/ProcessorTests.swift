import Foundation
import RTCMedia
import Synchronization
import Testing
@testable import SRTCCore

/// Appends its tag to a log and marks the frame by adding `mark` to its first luma byte.
final class TaggingProcessor: VideoProcessor, @unchecked Sendable {
    let tag: String
    let log: EventLog
    let mark: UInt8
    let dropWhen: @Sendable (Int) -> Bool
    private var seen = 0

    init(_ tag: String, log: EventLog, mark: UInt8, dropWhen: @escaping @Sendable (Int) -> Bool = { _ in false }) {
        self.tag = tag
        self.log = log
        self.mark = mark
        self.dropWhen = dropWhen
    }

    func processVideoFrame(_ frame: VideoFrame) -> VideoFrame? {
        seen += 1
        log.append(tag)
        if dropWhen(seen) { return nil }
        var out = frame
        out.buffer.withMutablePlane(0) { $0[0] &+= mark }
        return out
    }
}

final class FrameCollector: VideoRenderer, @unchecked Sendable {
    let frames = Mutex<[VideoFrame]>([])
    func render(frame: VideoFrame) { frames.withLock { $0.append(frame) } }
    var count: Int { frames.withLock { $0.count } }
}

final class EncodedCollector: EncodedVideoSink, @unchecked Sendable {
    let videoCodec: VideoCodec
    let frames = Mutex<[(layer: Int, frame: EncodedVideoFrame)]>([])
    /// The layers it needs (dynacast); nil: every one.
    let needed = Mutex<Set<Int>?>(nil)
    init(codec: VideoCodec = .vp8) { videoCodec = codec }
    func send(_ frame: EncodedVideoFrame, layer: Int) { frames.withLock { $0.append((layer, frame)) } }
    func needs(layer: Int) -> Bool { needed.withLock { $0?.contains(layer) ?? true } }
    func layer(_ index: Int) -> [EncodedVideoFrame] { frames.withLock { $0.filter { $0.layer == index }.map(\.frame) } }
}

@Suite struct VideoProcessorTests {
    let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "test")))

    func blackFrame(_ time: Int64) throws -> VideoFrame {
        VideoFrame(buffer: try VideoPixelBuffer.black(width: 64, height: 48), timestampUs: time)
    }

    @Test func processorsRunSeriallyInArrayOrderOnEachFrame() throws {
        let log = EventLog()
        let track = engine.createLocalCustomVideoTrack(desc: "canvas", preset: .h180p)
        track.videoProcessors = [TaggingProcessor("a", log: log, mark: 1), TaggingProcessor("b", log: log, mark: 10)]
        let preview = FrameCollector()
        track.add(videoRenderer: preview)
        let input = try blackFrame(0)
        #expect(track.pushFrame(input))
        #expect(log.all == ["a", "b"])
        // Both marks applied, in order, to the frame the preview saw.
        let luma = preview.frames.withLock { $0[0].buffer.withPlane(0) { $0[0] } }
        #expect(luma == input.buffer.withPlane(0) { $0[0] } &+ 11)
    }

    @Test func aProcessorReturningNilDropsTheFrameAndStopsTheChain() throws {
        let log = EventLog()
        let track = engine.createLocalCustomVideoTrack(desc: "canvas", preset: .h180p)
        // "a" drops every other frame; "b" must only see the frames "a" kept.
        track.videoProcessors = [TaggingProcessor("a", log: log, mark: 0, dropWhen: { $0 % 2 == 0 }),
                                 TaggingProcessor("b", log: log, mark: 0)]
        let preview = FrameCollector()
        track.add(videoRenderer: preview)
        var kept = 0
        for i in 0..<6 where track.pushFrame(try blackFrame(Int64(i) * 33_333)) { kept += 1 }
        #expect(kept == 3)
        #expect(preview.count == 3)
        #expect(log.all == ["a", "b", "a", "a", "b", "a", "a", "b", "a"])
    }

    @Test func droppedFramesAreNotEncoded() throws {
        let log = EventLog()
        let track = engine.createLocalCustomVideoTrack(desc: "canvas", preset: VideoPreset(width: 64, height: 48, frameRate: 30, maxBitrate: 200_000))
        track.videoProcessors = [TaggingProcessor("a", log: log, mark: 0, dropWhen: { $0 % 2 == 0 })]
        let sink = EncodedCollector()
        track.sendPipeline.attach(sink)
        for i in 0..<10 { track.pushFrame(try blackFrame(Int64(i) * 33_334)) }
        #expect(sink.layer(0).count == 5)
        #expect(sink.layer(0).first?.isKeyFrame == true)
    }

    @Test func cameraTracksEncodeTwoLayersAQuarterApart() throws {
        let track = engine.createLocalCustomVideoTrack(desc: "camera_big", preset: .h720p)
        #expect(track.simulcast)
        #expect(track.layers.map(\.rid) == ["h", "l"])
        #expect(track.layers.map(\.desc) == ["camera_big", "camera_small"])
        let sink = EncodedCollector()
        track.sendPipeline.attach(sink)
        let pattern = try TestPatternGenerator(width: 1280, height: 720)
        for n in 0..<4 { track.pushFrame(pattern.videoFrame(number: n)) }
        // The big layer takes every 30 fps frame; the small one runs at 15 fps.
        #expect(sink.layer(0).count == 4)
        #expect(sink.layer(1).count == 2)
        #expect(sink.layer(0).first.map { ($0.width, $0.height) } ?? (0, 0) == (1280, 720))
        #expect(sink.layer(1).first.map { ($0.width, $0.height) } ?? (0, 0) == (320, 180))
        let custom = engine.createLocalCustomVideoTrack(desc: "canvas")
        #expect(!custom.simulcast && custom.layers.isEmpty)
    }

    @Test func keyFrameRequestMakesTheNextFrameAKeyFrame() throws {
        let track = engine.createLocalCustomVideoTrack(desc: "canvas", preset: VideoPreset(width: 64, height: 48, frameRate: 30, maxBitrate: 200_000))
        let sink = EncodedCollector()
        track.sendPipeline.attach(sink)
        for i in 0..<3 { track.pushFrame(try blackFrame(Int64(i) * 33_334)) }
        track.sendPipeline.requestKeyFrame(layer: 0)
        track.pushFrame(try blackFrame(3 * 33_334))
        track.pushFrame(try blackFrame(4 * 33_334))
        #expect(sink.layer(0).map(\.isKeyFrame) == [true, false, false, true, false])
    }

    @Test func aLayerNoSinkNeedsIsNotEncodedAndComesBackWithAKeyFrame() throws {
        let track = engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 300_000))
        #expect(track.simulcast)
        let smallOnly = EncodedCollector(), both = EncodedCollector()
        smallOnly.needed.withLock { $0 = [1] }
        track.sendPipeline.attach(smallOnly)
        track.sendPipeline.attach(both)
        func push(_ range: Range<Int>) throws { for i in range { track.pushFrame(try blackFrame(Int64(i) * 33_334)) } }
        try push(0..<4)
        #expect(both.layer(0).count == 4 && smallOnly.layer(0).isEmpty)
        // Nobody needs the big layer now: it is not encoded; the small one goes on.
        both.needed.withLock { $0 = [1] }
        try push(4..<10)
        #expect(both.layer(0).count == 4 && both.layer(1).count == 5)
        #expect(track.sendPipeline.stats.pausedLayers == [0])
        #expect(track.sendPipeline.stats.framesEncoded[0] == 4)
        // Needed again: its first frame is a key frame.
        both.needed.withLock { $0 = nil }
        try push(10..<13)
        #expect(both.layer(0).suffix(3).map(\.isKeyFrame) == [true, false, false])
        #expect(track.sendPipeline.stats.pausedLayers.isEmpty)
        // No sink needs any layer: nothing is encoded.
        both.needed.withLock { $0 = [] }
        smallOnly.needed.withLock { $0 = [] }
        let encoded = track.sendPipeline.stats.framesEncoded
        try push(13..<17)
        #expect(track.sendPipeline.stats.framesEncoded == encoded && track.sendPipeline.stats.pausedLayers == [0, 1])
    }

    /// One track published in two channels: the second channel's sink starts needing the big
    /// layer while the first already receives it. Its first big frame must be a key frame (its
    /// subscribers' decoders start there); before, it got the running stream's delta frames and its
    /// SFU waited for a key frame the SDK never made (MediaWorkersEndToEndTests, CI of stop 36).
    @Test func aSinkThatStartsNeedingARunningLayerGetsAKeyFrame() throws {
        let track = engine.createLocalCustomVideoTrack(desc: "camera_big", preset: VideoPreset(width: 320, height: 180, frameRate: 30, maxBitrate: 300_000))
        let first = EncodedCollector(), second = EncodedCollector()
        second.needed.withLock { $0 = [] }
        track.sendPipeline.attach(first)
        track.sendPipeline.attach(second)
        func push(_ range: Range<Int>) throws { for i in range { track.pushFrame(try blackFrame(Int64(i) * 33_334)) } }
        try push(0..<4)
        #expect(first.layer(0).map(\.isKeyFrame) == [true, false, false, false] && second.layer(0).isEmpty)
        second.needed.withLock { $0 = [0] }
        try push(4..<7)
        #expect(second.layer(0).map(\.isKeyFrame) == [true, false, false])
        // The same frames reach both sinks (one encoder): the first one's stream gets the key frame too.
        #expect(first.layer(0).suffix(3).map(\.isKeyFrame) == [true, false, false])
        // A sink leaving the layer costs nobody a key frame.
        second.needed.withLock { $0 = [] }
        try push(7..<10)
        #expect(first.layer(0).suffix(3).map(\.isKeyFrame) == [false, false, false])
    }

    @Test func smallLayerIsABoxFilteredQuarter() throws {
        var big = try VideoPixelBuffer(format: .i420, width: 8, height: 8)
        big.withMutablePlane(0) { luma in for i in 0..<64 { luma[i] = UInt8(i % 8 < 4 ? 0 : 200) } }
        let small = big.scaled(width: 2, height: 2)
        #expect(small.width == 2 && small.height == 2)
        #expect(small.withPlane(0) { Array($0) } == [0, 200, 0, 200])
    }
}

final class RecordingAudioProcessor: AudioProcessor, @unchecked Sendable {
    let calls = Mutex<[String]>([])
    let gain: Float
    init(gain: Float) { self.gain = gain }
    func audioProcessingInitialize(sampleRate sampleRateHz: Int, channels: Int) {
        calls.withLock { $0.append("init \(sampleRateHz) \(channels)") }
    }
    func audioProcessingProcess(audioBuffer: AudioBuffer) {
        calls.withLock { $0.append("process \(audioBuffer.frames)") }
        audioBuffer.withChannel(0) { samples in for i in samples.indices { samples[i] *= gain } }
    }
    func audioProcessingRelease() { calls.withLock { $0.append("release") } }
}

final class OpusCollector: EncodedAudioSink, @unchecked Sendable {
    let packets = Mutex<[(packet: [UInt8], position: UInt32, level: UInt8)]>([])
    func send(opus packet: [UInt8], samplePosition: UInt32, level: UInt8, voiceActivity: Bool) {
        packets.withLock { $0.append((packet, samplePosition, level)) }
    }
}

/// A processor written for stereo, given mono: it writes a loud second channel.
final class StereoOnlyProcessor: AudioProcessor, @unchecked Sendable {
    let silenceRead = Mutex<[Bool]>([])
    func audioProcessingInitialize(sampleRate sampleRateHz: Int, channels: Int) {}
    func audioProcessingProcess(audioBuffer: AudioBuffer) {
        audioBuffer.withChannel(1) { right in
            silenceRead.withLock { $0.append(right.count == audioBuffer.frames && right.allSatisfy { $0 == 0 }) }
            for i in right.indices { right[i] = 1 }
        }
        audioBuffer.withChannel(-1) { samples in silenceRead.withLock { $0.append(samples.allSatisfy { $0 == 0 }) } }
    }
    func audioProcessingRelease() {}
}

@Suite struct AudioProcessorTests {
    /// Seed 000's processors address channels by index; one that asks for a channel the buffer
    /// does not have reads silence and its writes go nowhere (it used to stop the app).
    @Test func aChannelThatDoesNotExistReadsSilenceAndItsWritesAreDiscarded() throws {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "test")))
        let processor = StereoOnlyProcessor()
        engine.audioCaptureProcessor = processor
        let track = engine.createLocalCustomAudioTrack(desc: "bgm")
        let sink = OpusCollector()
        track.sendPipeline.attach(sink)
        var tone = SineToneGenerator(frequency: 440, amplitude: 0.5)
        track.pushAudioBuffer(tone.next(frameCount: 1920))
        // Two frames; each call read silence twice (channel 1, then channel -1), even after the
        // first frame's writes of 1.0 into channel 1.
        #expect(processor.silenceRead.withLock { $0 } == [true, true, true, true])
        // The mono channel went through untouched: the tone's level (9 dB under full scale).
        #expect(sink.packets.withLock { $0.map(\.level) } == [9, 9])
    }

    @Test func captureProcessorSees20msFramesAndItsChangesAreEncoded() throws {
        let engine = SRTCEngine(independent: .init(delegateQueue: DispatchQueue(label: "test")))
        let silencer = RecordingAudioProcessor(gain: 0)
        engine.audioCaptureProcessor = silencer
        let track = engine.createLocalCustomAudioTrack(desc: "bgm")
        let sink = OpusCollector()
        track.sendPipeline.attach(sink)
        var tone = SineToneGenerator(frequency: 440, amplitude: 0.5)
        track.pushAudioBuffer(tone.next(frameCount: 2400)) // 50 ms: two whole frames, 10 ms left over
        #expect(silencer.calls.withLock { $0 } == ["init 48000 1", "process 960", "process 960"])
        // The processor zeroed the samples: the level says silence (RFC 6464: 127).
        #expect(sink.packets.withLock { $0.map(\.level) } == [127, 127])
        #expect(sink.packets.withLock { $0.map(\.position) } == [0, 960])
        engine.audioCaptureProcessor = RecordingAudioProcessor(gain: 1)
        #expect(silencer.calls.withLock { $0.last } == "release")
        track.pushAudioBuffer(tone.next(frameCount: 960))
        // The tone at amplitude 0.5 has an RMS of 0.354: 9 dB under full scale.
        #expect(sink.packets.withLock { $0.last?.level } == 9)
    }

    @Test func audioLevelFollowsRFC6464() {
        #expect(AudioLevel.measure([]).level == 127)
        #expect(AudioLevel.measure([0, 0, 0]).level == 127)
        #expect(AudioLevel.measure([1, -1, 1, -1]).level == 0)          // full scale: 0 -dBov
        #expect(AudioLevel.measure([0.1, -0.1]).level == 20)            // -20 dBov
        #expect(AudioLevel.measure([0.001, -0.001]).level == 60)
        #expect(AudioLevel.measure([0.1, -0.1]).voiceActivity)
        #expect(!AudioLevel.measure([0.001, -0.001]).voiceActivity)
    }

    @Test func resamplerKeepsToneFrequencyAndDuration() throws {
        var resampler = AudioResampler(outputChannels: 1)
        var tone = SineToneGenerator(frequency: 1000, sampleRate: 16_000, channels: 2)
        var out: [Float] = []
        for _ in 0..<10 { out += resampler.process(tone.next(frameCount: 160)) } // 100 ms in 10 ms pieces
        // The last input frame waits for its right neighbour: at most one input frame (3 output samples) held back.
        #expect((4797...4800).contains(out.count))
        let estimate = try #require(FrequencyEstimator.zeroCrossingFrequency(out, sampleRate: 48_000))
        #expect(abs(estimate - 1000) < 15)
    }

    @Test func remixAveragesDownAndDuplicatesUp() {
        #expect(AudioResampler.remix([1, 0, 0.5, 0.5], from: 2, to: 1) == [0.5, 0.5])
        #expect(AudioResampler.remix([0.25, -1], from: 1, to: 2) == [0.25, 0.25, -1, -1])
    }
}
