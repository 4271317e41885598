// swift-tools-version:6.0
// SRTC: a self-hostable real-time audio/video platform. Module layering follows docs/architecture.md:
// C shims → RTCCrypto → RTCWire / RTCNet → RTCTransport / RTCMedia → SFU / SRTCProtocol → SRTCServer / SRTC.
import PackageDescription

let package = Package(
    name: "SRTC",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "SRTC", targets: ["SRTC"]),
        .library(name: "SMeeting", targets: ["SMeeting"]),
        .library(name: "SRTCAgents", targets: ["SRTCAgents"]),
        .executable(name: "srtc-server", targets: ["srtc-server"]),
        .executable(name: "srtc", targets: ["srtc"]),
    ],
    targets: [
        // MARK: - C shims (module map + header only)
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .systemLibrary(name: "CAOM", pkgConfig: "aom", providers: [.apt(["libaom-dev"])]),
        .systemLibrary(name: "CDav1d", pkgConfig: "dav1d", providers: [.apt(["libdav1d-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSystem"),
        .systemLibrary(name: "CUsrSCTP", pkgConfig: "usrsctp", providers: [.apt(["libusrsctp-dev"])]),
        .systemLibrary(name: "COpenH264", pkgConfig: "openh264", providers: [.apt(["libopenh264-dev"])]),
        .systemLibrary(name: "CPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        // Linux devices: audio (PulseAudio / PipeWire), X11 screen capture and windows, V4L2
        // cameras, MJPEG decoding. Linked on Linux only (Apple platforms use AVFoundation).
        .systemLibrary(name: "CPulse", pkgConfig: "libpulse-simple", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CX11", pkgConfig: "xext", providers: [.apt(["libx11-dev", "libxext-dev"])]),
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // FFmpeg: containers (WebM, MP4, HLS, FLV/RTMP), H.264 and AAC, scaling (egress and the CDN engine).
        .systemLibrary(name: "CAVUtil", pkgConfig: "libavutil", providers: [.apt(["libavutil-dev"])]),
        .systemLibrary(name: "CAVCodec", pkgConfig: "libavcodec", providers: [.apt(["libavcodec-dev"])]),
        .systemLibrary(name: "CAVFormat", pkgConfig: "libavformat", providers: [.apt(["libavformat-dev"])]),
        .systemLibrary(name: "CSWScale", pkgConfig: "libswscale", providers: [.apt(["libswscale-dev"])]),
        .systemLibrary(name: "CSWResample", pkgConfig: "libswresample", providers: [.apt(["libswresample-dev"])]),
        // Agents' engines: speech to text (PocketSphinx) and text to speech (eSpeak NG).
        .systemLibrary(name: "CPocketSphinx", pkgConfig: "pocketsphinx", providers: [.apt(["libpocketsphinx-dev", "pocketsphinx-en-us"])]),
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        // libsrtp's AES-GCM, AES-ICM and HMAC-SHA1 types on OpenSSL EVP (replacing Debian's NSS ones).
        .target(name: "CSRTPCrypto", dependencies: ["COpenSSL", "CSRTP"]),
        // OpenSSL initialised before main() without its atexit cleanup, which freed its locks under
        // threads still using it (a crash at exit; include/COpenSSLRuntime.h).
        .target(name: "COpenSSLRuntime", dependencies: ["COpenSSL"]),

        // MARK: - Libraries
        .target(name: "RTCCrypto", dependencies: ["COpenSSL", "COpenSSLRuntime"]),
        .target(name: "RTCWire", dependencies: ["RTCCrypto"]),
        .target(name: "RTCNet", dependencies: ["CSystem", "COpenSSL", "RTCCrypto"]),
        .target(name: "RTCTransport", dependencies: ["RTCWire", "RTCNet", "RTCCrypto", "COpenSSL", "CSRTP", "CSRTPCrypto", "CUsrSCTP"]),
        .target(name: "RTCMedia", dependencies: ["RTCWire", "RTCCrypto", "COpus", "CVPX", "CAOM", "CDav1d", "COpenH264",
                                                 .target(name: "CTurboJPEG", condition: .when(platforms: [.linux]))]),
        .target(name: "SRTCProtocol", dependencies: ["RTCCrypto"]),
        // FFmpeg's libav* behind Swift types: muxers, H.264/AAC encoders, demuxer and decoders, scaling.
        .target(name: "RTCAV", dependencies: ["RTCMedia", "CAVUtil", "CAVCodec", "CAVFormat", "CSWScale"]),
        .target(name: "SFU", dependencies: ["RTCWire", "RTCNet", "RTCTransport", "RTCMedia"]),
        .target(name: "SRTCServer", dependencies: ["SFU", "SRTCProtocol", "RTCNet", "RTCTransport", "RTCWire", "RTCCrypto", "CSQLite", "CPQ", "CHiredis"]),
        // The Swift SDK's engine (channels, tracks, media, signaling). Its sources stay in
        // Sources/SRTC; the modules of the SDK's other roles depend on it, never the reverse
        // (docs/architecture.md, "The SDK's modules"; SDKModuleRolesTests).
        .target(name: "SRTCCore", dependencies: ["SRTCProtocol", "RTCCrypto", "RTCNet", "RTCTransport", "RTCMedia", "RTCWire"], path: "Sources/SRTC"),
        // The SDK's role modules, on the engine: IM, the network speed test, the CDN engine's player,
        // render (beauty filter, virtual background; in the engine's camera-filter slot), devices
        // (cameras, microphones, speakers, screens, video views; the only users of the device C shims).
        .target(name: "SRTCDevices", dependencies: ["SRTCCore", "RTCMedia",
                                                    .target(name: "CPulse", condition: .when(platforms: [.linux])),
                                                    .target(name: "CX11", condition: .when(platforms: [.linux])),
                                                    .target(name: "CV4L2", condition: .when(platforms: [.linux]))]),
        .target(name: "SRTCIM", dependencies: ["SRTCCore", "SRTCProtocol", "RTCNet"]),
        .target(name: "SRTCSpeedTest", dependencies: ["SRTCCore", "SRTCProtocol", "RTCNet", "RTCWire"]),
        .target(name: "SRTCRender", dependencies: ["SRTCCore", "RTCMedia"]),
        // The CDN engine reads streams with FFmpeg, which Apple's mobile platforms do not have.
        .target(name: "SRTCPlayer", dependencies: ["SRTCCore", "SRTCProtocol", "RTCMedia",
                                                   .target(name: "RTCAV", condition: .when(platforms: [.linux, .macOS]))]),
        // The SDK as apps import it (`import SRTC`): the engine and every role module, re-exported.
        .target(name: "SRTC", dependencies: ["SRTCCore", "SRTCDevices", "SRTCIM", "SRTCSpeedTest", "SRTCPlayer", "SRTCRender"], path: "Sources/SRTCUmbrella"),
        // SMeeting: the meeting layer. Its wire types are shared by the meeting backend and the SDK.
        .target(name: "SMeetingProtocol", dependencies: ["SRTCProtocol"]),
        .target(name: "MeetingServer", dependencies: ["SRTCServer", "SMeetingProtocol", "SRTCProtocol", "RTCNet", "RTCCrypto"]),
        // IM: accounts' messages, call signalling and notifications, outside channels.
        .target(name: "IMServer", dependencies: ["SRTCServer", "SRTCProtocol", "RTCNet", "RTCCrypto"]),
        .target(name: "SMeeting", dependencies: ["SRTC", "SMeetingProtocol", "RTCNet", "RTCCrypto"]),
        // The load generator of `srtc load-test` and `make bench-sfu`: SDK pieces (package access)
        // sending pre-encoded media, against our server or Janus VideoRoom.
        .target(name: "SRTCLoad", dependencies: ["SRTC", "Processes", "SRTCProtocol", "RTCNet", "RTCTransport", "RTCMedia", "RTCWire"]),

        // Agents: programs that hear each participant and speak or write back, on the SDK, with
        // speech-to-text and text-to-speech engines behind protocols (docs/agents.md).
        .target(name: "SRTCAgents", dependencies: ["SRTC", "RTCMedia", "CPocketSphinx", "CEspeakNG", "CSWResample", "CAVUtil"]),

        // Egress: the server-worker conversation, and the worker (composite, recording, live output) on the SDK.
        .target(name: "EgressProtocol", dependencies: ["SRTCProtocol"]),
        // Starting and reaping programs (posix_spawn/waitpid): egress workers, benchmark servers, test daemons.
        .target(name: "Processes", dependencies: ["CSystem"]),
        .target(name: "EgressWorker", dependencies: ["EgressProtocol", "SRTC", "SRTCProtocol", "RTCAV", "RTCMedia", "RTCCrypto", "RTCNet", "CSystem", "SRTCAgents"]),
        .target(name: "EgressServer", dependencies: ["EgressProtocol", "Processes", "SRTCServer", "SRTCProtocol", "RTCNet", "RTCCrypto"]),

        // Seeded randomness shared by every test target (random-input tests replay from their seed).
        .target(name: "TestRandom", path: "Sources/TestRandom"),
        // Waiting for a condition with a deadline (never a blind sleep), shared by every test target.
        .target(name: "TestWait", path: "Sources/TestWait"),

        // Checks of media files shared by the tests: ffprobe, decoding back to frame numbers and PCM.
        .target(name: "MediaTestSupport", dependencies: ["RTCAV", "RTCMedia", "Processes"]),

        // Test harness shared by the server and end-to-end tests: a real server on loopback, a
        // protocol-level signaling client and a media client built on RTCTransport.
        .target(name: "SRTCTestSupport", dependencies: ["SRTCServer", "Processes", "SRTCProtocol", "RTCNet", "RTCTransport", "RTCWire", "RTCMedia", "RTCCrypto", "TestRandom",
                                                       "MeetingServer", "SMeetingProtocol", "TestWait"]),

        // The network lab's calls and scenarios (issue 26): an SDK publisher and subscriber through a
        // kernel-shaped link to a real server, for the lab tests and `srtc-bench lab` alike.
        .target(name: "SRTCLab", dependencies: ["SRTCCore", "SRTCProtocol", "SRTCTestSupport", "RTCMedia", "TestWait"]),

        // MARK: - Executables
        .executableTarget(name: "srtc-server", dependencies: ["SRTCServer", "MeetingServer", "IMServer", "EgressServer", "RTCNet", "SRTCProtocol"]),
        .executableTarget(name: "srtc-egress", dependencies: ["EgressWorker"]),
        .executableTarget(name: "srtc", dependencies: ["SRTC", "SRTCProtocol", "RTCNet", "RTCMedia", "SRTCLoad", "SRTCAgents"]),
        .executableTarget(
            name: "srtc-bench",
            dependencies: ["RTCCrypto", "RTCWire", "RTCNet", "RTCTransport", "RTCMedia", "SRTCProtocol", "SFU", "SRTCServer", "SRTC", "CSRTP", "SRTCTestSupport", "SRTCLoad",
                           "EgressWorker", "EgressProtocol", "EgressServer", "MediaTestSupport", "Processes", "SRTCAgents", "SRTCLab"],
            path: "Benchmarks/srtc-bench"
        ),
        // `make soak`: participants through lossy relays against a real srtc-server process (SoakRunner).
        .executableTarget(name: "srtc-soak", dependencies: ["SRTCTestSupport"]),
        // The network lab's userspace link (loss, bursts, delay, reordering) in the server's namespace (`LabRelay`).
        .executableTarget(name: "srtc-lab-relay", dependencies: ["SRTCTestSupport"]),
        // The Swift end of interop/test_browser_echo.py (echoes a browser's media over RTCTransport).
        .executableTarget(name: "interop-echo", dependencies: ["RTCTransport", "RTCNet", "RTCWire"], path: "interop/echo"),

        // MARK: - Tests
        .testTarget(name: "RTCCryptoTests", dependencies: ["TestRandom", "RTCCrypto", "SRTCTestSupport", "Processes"]),
        .testTarget(name: "RTCWireTests", dependencies: ["TestRandom", "TestWait", "RTCWire"]),
        .testTarget(name: "ProcessesTests", dependencies: ["Processes"]),
        .testTarget(name: "RTCNetTests", dependencies: ["TestRandom", "TestWait", "RTCNet", "Processes"]),
        .testTarget(name: "RTCTransportTests", dependencies: ["TestRandom", "TestWait", "RTCTransport", "RTCWire", "RTCNet", "RTCCrypto", "COpenSSL", "CSRTP", "CSRTPCrypto"]),
        .testTarget(name: "RTCMediaTests", dependencies: ["TestRandom", "RTCMedia", "RTCCrypto", "RTCWire", "COpus"]),
        .testTarget(name: "RTCAVTests", dependencies: ["TestRandom", "TestWait", "Processes", "RTCAV", "RTCMedia", "MediaTestSupport"]),
        .testTarget(name: "EgressWorkerTests", dependencies: ["TestRandom", "EgressWorker", "EgressProtocol", "RTCMedia", "SRTCProtocol"]),
        .testTarget(name: "SRTCProtocolTests", dependencies: ["TestRandom", "SRTCProtocol", "RTCCrypto"], exclude: ["Fixtures"]),
        .testTarget(name: "SFUTests", dependencies: ["TestRandom", "TestWait", "SFU", "RTCWire", "RTCTransport", "RTCMedia", "RTCNet", "SRTCTestSupport"]),
        .testTarget(name: "SRTCServerTests", dependencies: ["TestRandom", "TestWait", "SRTCServer", "SRTCProtocol", "RTCCrypto", "RTCNet", "RTCWire", "RTCTransport", "SFU", "SRTCTestSupport"]),
        .testTarget(name: "SRTCTests", dependencies: ["TestRandom", "TestWait", "SRTCCore", "SRTCProtocol", "SRTCDevices", "SRTCRender", "RTCCrypto", "RTCMedia", "RTCWire", "RTCTransport", "RTCNet"], exclude: ["Fixtures"]),
        .testTarget(name: "MeetingServerTests", dependencies: ["TestRandom", "TestWait", "MeetingServer", "IMServer", "EgressServer", "SMeetingProtocol", "SRTCServer", "SRTCProtocol", "RTCNet", "SRTCTestSupport"]),
        .testTarget(name: "SMeetingTests", dependencies: ["TestRandom", "TestWait", "SMeeting", "SRTC", "MeetingServer", "IMServer", "SRTCServer", "SRTCProtocol", "SMeetingProtocol", "RTCMedia", "SRTCTestSupport",
                                                          "EgressServer", "RTCCrypto", "Processes"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TestRandom", "TestWait", "Processes", "SRTCServer", "SFU", "IMServer", "SRTC", "SRTCCore", "SRTCSpeedTest", "SRTCProtocol", "RTCNet", "RTCMedia", "RTCWire", "RTCTransport", "SRTCTestSupport",
                                                          "EgressServer", "EgressProtocol", "MediaTestSupport", "SRTCAgents", "SRTCLab"]),
        .testTarget(name: "IMServerTests", dependencies: ["TestRandom", "IMServer", "SRTCServer", "SRTCProtocol", "SRTCTestSupport"]),
        .testTarget(name: "EgressServerTests", dependencies: ["EgressServer", "EgressProtocol", "SRTCServer", "SRTCTestSupport"]),
        .testTarget(name: "SRTCAgentsTests", dependencies: ["SRTCAgents", "RTCMedia", "TestRandom"]),
        .testTarget(name: "SRTCLoadTests", dependencies: ["SRTCLoad", "SRTCProtocol", "RTCMedia", "RTCWire", "RTCNet", "SRTCTestSupport"]),
    ]
)
