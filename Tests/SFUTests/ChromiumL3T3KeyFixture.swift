// Dependency Descriptors captured from Chromium 156 publishing AV1 with `scalabilityMode:
// 'L3T3_KEY'` (interop/test_browser_av1_svc.py's 1280×720 numbered pattern) through this SFU: each
// packet's sequence number and RTP timestamp (relative to the first), marker, AV1 aggregation
// header (av1-rtp-spec §4.4: 0x10 one OBU element, 0x18 with N, the key frame's first packet) and
// the extension's bytes as sent. The comments are what the values say (av1-rtp-spec Appendix A).

/// Real descriptor bytes for the AV1 SVC tests.
enum ChromiumL3T3Key {
    struct Packet {
        var seq: UInt16
        var ts: UInt32
        var marker: Bool
        /// The payload's first byte, the AV1 aggregation header.
        var header: UInt8
        var dd: String

        var descriptor: [UInt8] {
            stride(from: 0, to: dd.count, by: 2).map { i in
                let start = dd.index(dd.startIndex, offsetBy: i)
                return UInt8(dd[start ..< dd.index(start, offsetBy: 2)], radix: 16)!
            }
        }
    }

    /// From a key frame on, with all three spatial layers active: the key frame's first packet carries the
    /// L3T3_KEY structure (9 decode targets S0T0…S2T2, 3 chains, 320×180 / 640×360 / 1280×720) and every
    /// decode target is active.
    static let threeLayers: [Packet] = [
        Packet(seq: 0, ts: 0, marker: false, header: 0x28, dd: "c004ef80081485214eaaaaa8000600004000100002aa80a8000600004000100002a000a800060000400016d549241b5524906d54923157e001974ca864330e222396eca8655304224390eca87753013f00b3027f016704ff02cf"),   // frame 1263, S0 T0: start, end, key, structure
        Packet(seq: 1, ts: 0, marker: false, header: 0x10, dd: "c504f0"),   // frame 1264, S1 T0: start, end
        Packet(seq: 2, ts: 0, marker: false, header: 0x50, dd: "8a04f1"),   // frame 1265, S2 T0: start
        Packet(seq: 3, ts: 0, marker: false, header: 0xD0, dd: "0a04f1"),   // frame 1265, S2 T0: 
        Packet(seq: 4, ts: 0, marker: true, header: 0x90, dd: "4a04f1"),   // frame 1265, S2 T0: end, marker
        Packet(seq: 5, ts: 2970, marker: false, header: 0x10, dd: "c304f2"),   // frame 1266, S0 T2: start, end
        Packet(seq: 6, ts: 2970, marker: false, header: 0x10, dd: "c804f3"),   // frame 1267, S1 T2: start, end
        Packet(seq: 7, ts: 2970, marker: true, header: 0x10, dd: "cd04f4"),   // frame 1268, S2 T2: start, end, marker
        Packet(seq: 8, ts: 5940, marker: false, header: 0x10, dd: "c204f5"),   // frame 1269, S0 T1: start, end
        Packet(seq: 9, ts: 5940, marker: false, header: 0x10, dd: "c704f6"),   // frame 1270, S1 T1: start, end
        Packet(seq: 10, ts: 5940, marker: true, header: 0x10, dd: "cc04f7"),   // frame 1271, S2 T1: start, end, marker
        Packet(seq: 17, ts: 8910, marker: false, header: 0x10, dd: "c404f8"),   // frame 1272, S0 T2: start, end
        Packet(seq: 18, ts: 8910, marker: false, header: 0x10, dd: "c904f9"),   // frame 1273, S1 T2: start, end
        Packet(seq: 19, ts: 8910, marker: true, header: 0x10, dd: "ce04fa"),   // frame 1274, S2 T2: start, end, marker
        Packet(seq: 28, ts: 11880, marker: false, header: 0x10, dd: "c104fb"),   // frame 1275, S0 T0: start, end
        Packet(seq: 29, ts: 11880, marker: false, header: 0x10, dd: "c604fc"),   // frame 1276, S1 T0: start, end
        Packet(seq: 30, ts: 11880, marker: true, header: 0x10, dd: "cb04fd"),   // frame 1277, S2 T0: start, end, marker
        Packet(seq: 37, ts: 14850, marker: false, header: 0x10, dd: "c304fe"),   // frame 1278, S0 T2: start, end
        Packet(seq: 38, ts: 14850, marker: false, header: 0x10, dd: "c804ff"),   // frame 1279, S1 T2: start, end
        Packet(seq: 39, ts: 14850, marker: true, header: 0x10, dd: "cd0500"),   // frame 1280, S2 T2: start, end, marker
        Packet(seq: 48, ts: 17820, marker: false, header: 0x10, dd: "c20501"),   // frame 1281, S0 T1: start, end
        Packet(seq: 49, ts: 17820, marker: false, header: 0x10, dd: "c70502"),   // frame 1282, S1 T1: start, end
        Packet(seq: 50, ts: 17820, marker: true, header: 0x10, dd: "cc0503"),   // frame 1283, S2 T1: start, end, marker
    ]

    /// The first seconds of a call, while Chromium's bandwidth estimate carries two spatial layers only:
    /// the key frame sets the active decode targets to S0 and S1 (0b000111111), and the frames that
    /// follow have custom frame diffs and chains (their pattern differs from the templates).
    static let twoLayersActive: [Packet] = [
        Packet(seq: 0, ts: 0, marker: false, header: 0x28, dd: "c00001c0081485214eaaaaa8000600004000100002aa80a8000600004000100002a000a800060000400016d549241b5524906d54923157e001974ca864330e222396eca8655304224390eca87753013f00b3027f016704ff02cf1f80"),   // frame 1, S0 T0: start, end, key, structure, active 0b111111
        Packet(seq: 1, ts: 0, marker: true, header: 0x10, dd: "c50002"),   // frame 2, S1 T0: start, end, marker
        Packet(seq: 7, ts: 2430, marker: false, header: 0x10, dd: "c300031a20100800"),   // frame 3, S0 T2: start, end, custom fdiffs [2], custom chains [2, 1, 0]
        Packet(seq: 8, ts: 2430, marker: true, header: 0x10, dd: "c800041a20181000"),   // frame 4, S1 T2: start, end, marker, custom fdiffs [2], custom chains [3, 2, 0]
        Packet(seq: 17, ts: 5400, marker: false, header: 0x10, dd: "c200051a60201800"),   // frame 5, S0 T1: start, end, custom fdiffs [4], custom chains [4, 3, 0]
        Packet(seq: 18, ts: 5400, marker: true, header: 0x10, dd: "c700061a60282000"),   // frame 6, S1 T1: start, end, marker, custom fdiffs [4], custom chains [5, 4, 0]
        Packet(seq: 19, ts: 8460, marker: false, header: 0x10, dd: "c300071a20302800"),   // frame 7, S0 T2: start, end, custom fdiffs [2], custom chains [6, 5, 0]
        Packet(seq: 20, ts: 8460, marker: true, header: 0x10, dd: "c800081a20383000"),   // frame 8, S1 T2: start, end, marker, custom fdiffs [2], custom chains [7, 6, 0]
        Packet(seq: 21, ts: 11700, marker: false, header: 0x10, dd: "c100091ae0403800"),   // frame 9, S0 T0: start, end, custom fdiffs [8], custom chains [8, 7, 0]
        Packet(seq: 22, ts: 11700, marker: true, header: 0x10, dd: "c6000a1ae0084000"),   // frame 10, S1 T0: start, end, marker, custom fdiffs [8], custom chains [1, 8, 0]
        Packet(seq: 23, ts: 14760, marker: false, header: 0x10, dd: "c3000b1a20100800"),   // frame 11, S0 T2: start, end, custom fdiffs [2], custom chains [2, 1, 0]
        Packet(seq: 24, ts: 14760, marker: true, header: 0x10, dd: "c8000c1a20181000"),   // frame 12, S1 T2: start, end, marker, custom fdiffs [2], custom chains [3, 2, 0]
        Packet(seq: 25, ts: 17280, marker: false, header: 0x10, dd: "c2000d1a60201800"),   // frame 13, S0 T1: start, end, custom fdiffs [4], custom chains [4, 3, 0]
        Packet(seq: 26, ts: 17280, marker: true, header: 0x10, dd: "c7000e1a60282000"),   // frame 14, S1 T1: start, end, marker, custom fdiffs [4], custom chains [5, 4, 0]
        Packet(seq: 29, ts: 20250, marker: false, header: 0x10, dd: "c3000f1a20302800"),   // frame 15, S0 T2: start, end, custom fdiffs [2], custom chains [6, 5, 0]
        Packet(seq: 30, ts: 20250, marker: true, header: 0x10, dd: "c800101a20383000"),   // frame 16, S1 T2: start, end, marker, custom fdiffs [2], custom chains [7, 6, 0]
        Packet(seq: 34, ts: 23220, marker: false, header: 0x10, dd: "c100111ae0403800"),   // frame 17, S0 T0: start, end, custom fdiffs [8], custom chains [8, 7, 0]
        Packet(seq: 35, ts: 23220, marker: true, header: 0x10, dd: "c600121ae0084000"),   // frame 18, S1 T0: start, end, marker, custom fdiffs [8], custom chains [1, 8, 0]
    ]
}
