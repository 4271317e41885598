/// Browser-shaped SDP for the negotiation tables: sections written as Chromium writes them
/// (every codec it lists, RTX, `a=rid` simulcast or an FID group), so the server's narrowing to
/// Opus and VP8 is exercised on real input.
enum ClientSDP {
    static let fingerprint = "sha-256 4F:7E:AE:63:22:9A:83:1F:9D:28:6B:F5:D7:04:C8:E5:71:49:A9:BA:C5:64:59:59:0A:B1:73:B8:BA:73:24:DF"

    /// One m-section of a client's offer.
    enum Section {
        /// Opus (and the codecs Chrome adds), one SSRC.
        case audio(mid: String, direction: String = "sendonly", ssrc: UInt32 = 1111)
        /// VP8 + RTX and H.264 + RTX, simulcast by rid.
        case simulcast(mid: String, rids: [String])
        /// VP8 + RTX, one stream paired with its RTX by an FID group.
        case video(mid: String, direction: String = "sendonly", ssrc: UInt32 = 2222, rtx: UInt32 = 3333)
        /// H.264 only: nothing the server forwards.
        case h264Only(mid: String)
        /// VP9 profile 2, VP9 profile 0 and VP8, in that order (a browser that prefers VP9).
        case vp9First(mid: String)
        /// AV1 profile 1, AV1 profile 0 (Chromium's fmtp) and VP8, with the Dependency Descriptor
        /// (a browser that prefers AV1).
        case av1First(mid: String)
        /// VP8, VP9 profile 0, VP9 profile 2, AV1, H.264 Constrained Baseline, each with RTX, in
        /// Chromium 156's order when nothing is preferred.
        case chromiumDefault(mid: String)

        var mid: String {
            switch self {
            case .audio(let mid, _, _), .simulcast(let mid, _), .video(let mid, _, _, _), .h264Only(let mid), .vp9First(let mid), .av1First(let mid),
                 .chromiumDefault(let mid): return mid
            }
        }
    }

    /// An offer over `sections` (CRLF line ends).
    static func offer(_ sections: [Section], ufrag: String = "Hk3v", pwd: String = "rJyKpWvz8mOqk5P3tGh0YbN2",
                      setup: String = "actpass", fingerprint: String? = fingerprint) -> String {
        var lines = ["v=0", "o=- 4215775240449105457 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
                     "a=group:BUNDLE " + sections.map(\.mid).joined(separator: " "), "a=extmap-allow-mixed", "a=msid-semantic: WMS s"]
        for section in sections {
            let transport = ["c=IN IP4 0.0.0.0", "a=rtcp:9 IN IP4 0.0.0.0", "a=ice-ufrag:" + ufrag, "a=ice-pwd:" + pwd,
                             "a=ice-options:trickle"] + (fingerprint.map { ["a=fingerprint:" + $0] } ?? []) + ["a=setup:" + setup]
            switch section {
            case .audio(let mid, let direction, let ssrc):
                lines += ["m=audio 9 UDP/TLS/RTP/SAVPF 111 63 0"] + transport + [
                    "a=mid:" + mid,
                    "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level",
                    "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
                    "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
                    "a=extmap:14 urn:ietf:params:rtp-hdrext:toffset",
                    "a=" + direction, "a=msid:s a\(mid)", "a=rtcp-mux", "a=rtcp-rsize",
                    "a=rtpmap:111 opus/48000/2", "a=rtcp-fb:111 transport-cc", "a=fmtp:111 minptime=10;useinbandfec=1",
                    "a=rtpmap:63 red/48000/2", "a=fmtp:63 111/111", "a=rtpmap:0 PCMU/8000",
                    "a=ssrc:\(ssrc) cname:client", "a=ssrc:\(ssrc) msid:s a\(mid)",
                ]
            case .simulcast(let mid, let rids):
                lines += ["m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103"] + transport + ["a=mid:" + mid] + videoLines(direction: "sendonly", mid: mid)
                    + ["a=rtpmap:102 H264/90000", "a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f",
                       "a=rtpmap:103 rtx/90000", "a=fmtp:103 apt=102"]
                    + rids.map { "a=rid:\($0) send" } + ["a=simulcast:send " + rids.joined(separator: ";")]
            case .video(let mid, let direction, let ssrc, let rtx):
                lines += ["m=video 9 UDP/TLS/RTP/SAVPF 96 97"] + transport + ["a=mid:" + mid] + videoLines(direction: direction, mid: mid)
                    + ["a=ssrc-group:FID \(ssrc) \(rtx)",
                       "a=ssrc:\(ssrc) cname:client", "a=ssrc:\(rtx) cname:client"]
            case .h264Only(let mid):
                lines += ["m=video 9 UDP/TLS/RTP/SAVPF 102"] + transport + [
                    "a=mid:" + mid, "a=sendonly", "a=rtcp-mux", "a=rtpmap:102 H264/90000",
                    "a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f",
                ]
            case .vp9First(let mid):
                lines += ["m=video 9 UDP/TLS/RTP/SAVPF 100 98 96"] + transport + [
                    "a=mid:" + mid, "a=sendonly", "a=rtcp-mux",
                    "a=rtpmap:100 VP9/90000", "a=fmtp:100 profile-id=2", "a=rtcp-fb:100 nack",
                    "a=rtpmap:98 VP9/90000", "a=fmtp:98 profile-id=0", "a=rtcp-fb:98 nack", "a=rtcp-fb:98 nack pli",
                    "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack",
                    "a=ssrc:4444 cname:client",
                ]
            case .av1First(let mid):
                lines += ["m=video 9 UDP/TLS/RTP/SAVPF 47 45 96"] + transport + [
                    "a=mid:" + mid, "a=sendonly", "a=rtcp-mux",
                    "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
                    "a=extmap:13 https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension",
                    "a=rtpmap:47 AV1/90000", "a=fmtp:47 level-idx=5;profile=1;tier=0", "a=rtcp-fb:47 nack",
                    "a=rtpmap:45 AV1/90000", "a=fmtp:45 level-idx=5;profile=0;tier=0", "a=rtcp-fb:45 nack", "a=rtcp-fb:45 nack pli",
                    "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack",
                    "a=ssrc:5555 cname:client",
                ]
            case .chromiumDefault(let mid):
                lines += ["m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99 100 101 45 46 102 103"] + transport + ["a=mid:" + mid]
                    + videoLines(direction: "sendonly", mid: mid) + [
                    "a=rtpmap:98 VP9/90000", "a=rtcp-fb:98 nack", "a=rtcp-fb:98 nack pli", "a=fmtp:98 profile-id=0",
                    "a=rtpmap:99 rtx/90000", "a=fmtp:99 apt=98",
                    "a=rtpmap:100 VP9/90000", "a=rtcp-fb:100 nack", "a=fmtp:100 profile-id=2",
                    "a=rtpmap:101 rtx/90000", "a=fmtp:101 apt=100",
                    "a=rtpmap:45 AV1/90000", "a=rtcp-fb:45 nack", "a=rtcp-fb:45 nack pli", "a=fmtp:45 level-idx=5;profile=0;tier=0",
                    "a=rtpmap:46 rtx/90000", "a=fmtp:46 apt=45",
                    "a=rtpmap:102 H264/90000", "a=rtcp-fb:102 nack", "a=rtcp-fb:102 nack pli",
                    "a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
                    "a=rtpmap:103 rtx/90000", "a=fmtp:103 apt=102",
                    "a=ssrc-group:FID 6666 7777", "a=ssrc:6666 cname:client", "a=ssrc:7777 cname:client",
                ]
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private static func videoLines(direction: String, mid: String) -> [String] {
        [
            "a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time",
            "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
            "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid",
            "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id",
            "a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id",
            "a=extmap:13 urn:3gpp:video-orientation",
            "a=" + direction, "a=msid:s v\(mid)", "a=rtcp-mux", "a=rtcp-rsize",
            "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 goog-remb", "a=rtcp-fb:96 transport-cc", "a=rtcp-fb:96 ccm fir",
            "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
        ]
    }
}
