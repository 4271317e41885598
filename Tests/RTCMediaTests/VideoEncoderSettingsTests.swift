import Testing
@testable import RTCMedia

/// The settings every real-time encoder shares (`VideoEncoderSettings`): one set of rules, which
/// libvpx, libaom and OpenH264 each enforce with their own error, and one real-time rate control
/// applied to libvpx's and libaom's configurations alike.
struct VideoEncoderSettingsTests {
    /// A setting out of range, and how every encoder names it.
    static let invalid: [(String, @Sendable (inout VideoEncoderSettings) -> Void)] = [
        ("size 1x240", { $0.width = 1 }),
        ("bitrate 5000", { $0.bitrate = 5_000 }),
        ("bitrate 200000000", { $0.bitrate = 200_000_000 }),
        ("frameRate 0", { $0.frameRate = 0 }),
        ("frameRate 241", { $0.frameRate = 241 }),
        ("threads 0", { $0.threads = 0 }),
        ("threads 17", { $0.threads = 17 }),
        ("keyFrameInterval -1", { $0.keyFrameInterval = -1 }),
    ]

    @Test func theDefaultsAreValidAndEachBadSettingIsNamed() {
        #expect(VideoEncoderSettings(width: 320, height: 240).invalidSetting(smallestDimension: 16) == nil)
        for (message, edit) in Self.invalid {
            var settings = VideoEncoderSettings(width: 320, height: 240)
            edit(&settings)
            #expect(settings.invalidSetting(smallestDimension: 16) == message)
        }
        // libvpx takes frames down to 2×2, libaom and OpenH264 from 16×16.
        #expect(VideoEncoderSettings(width: 2, height: 2).invalidSetting(smallestDimension: 2) == nil)
        #expect(VideoEncoderSettings(width: 2, height: 2).invalidSetting(smallestDimension: 16) == "size 2x2")
    }

    @Test func everyEncoderRefusesTheSameBadSettingsWithItsOwnError() {
        for (message, edit) in Self.invalid {
            var vpx = VPXEncoder.Configuration(width: 320, height: 240, codec: .vp9)
            edit(&vpx.settings)
            #expect(throws: VP8CodecError.invalidConfiguration(message)) { try VPXEncoder(configuration: vpx) }
            var av1 = AV1Encoder.Configuration(width: 320, height: 240)
            edit(&av1.settings)
            #expect(throws: AV1CodecError.invalidConfiguration(message)) { try AV1Encoder(configuration: av1) }
            var h264 = H264Encoder.Configuration(width: 320, height: 240)
            edit(&h264.settings)
            #expect(throws: H264CodecError.invalidConfiguration(message)) { try H264Encoder(configuration: h264) }
        }
    }

    @Test func theCommonSettingsReadAndWriteAsTheConfigurationsOwn() {
        var configuration = AV1Encoder.Configuration(width: 640, height: 360)
        configuration.bitrate = 300_000
        configuration.keyFrameInterval = 150
        #expect(configuration.settings.bitrate == 300_000 && configuration.settings.keyFrameInterval == 150)
        #expect(configuration.width == 640 && configuration.frameRate == 30 && configuration.cpuUsed == 9)
    }

    /// A stand-in with the fields libvpx's and libaom's configurations share.
    struct Fields: RealTimeRateControlConfig {
        var g_w: UInt32 = 0, g_h: UInt32 = 0, g_threads: UInt32 = 0, g_lag_in_frames: UInt32 = 25
        var rc_target_bitrate: UInt32 = 0, rc_dropframe_thresh: UInt32 = 30, rc_undershoot_pct: UInt32 = 0
        var rc_overshoot_pct: UInt32 = 0, rc_buf_initial_sz: UInt32 = 0, rc_buf_optimal_sz: UInt32 = 0
        var rc_buf_sz: UInt32 = 0, kf_min_dist: UInt32 = 9, kf_max_dist: UInt32 = 0
    }

    @Test func theRealTimeRateControlIsWhatTheSettingsSay() {
        var settings = VideoEncoderSettings(width: 640, height: 360)
        settings.bitrate = 691_200
        settings.keyFrameInterval = 300
        settings.threads = 2
        var fields = Fields()
        fields.applyRealTime(settings, buffer: RateControlBuffer(undershootPercent: 50, overshootPercent: 15, initialMilliseconds: 500))
        #expect([fields.g_w, fields.g_h, fields.g_threads, fields.g_lag_in_frames] == [640, 360, 2, 0])
        #expect([fields.rc_target_bitrate, fields.rc_dropframe_thresh] == [691, 0])
        #expect([fields.rc_undershoot_pct, fields.rc_overshoot_pct, fields.rc_buf_initial_sz, fields.rc_buf_optimal_sz, fields.rc_buf_sz]
                == [50, 15, 500, 600, 1_000])
        #expect([fields.kf_min_dist, fields.kf_max_dist] == [0, 300])
    }
}
