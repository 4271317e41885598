// Annotated RTCP byte fixtures shared by the RTCP tests.

enum RTCPFixtures {
    static let senderReport: [UInt8] = [
        0x81, 0xC8, 0x00, 0x0C,  // V=2 P=0 RC=1 | PT=200 (SR) | length=12 (52 bytes)
        0x90, 0x2F, 0x9E, 0x2E,  // SSRC of sender
        0xE6, 0x9B, 0x4C, 0x2E,  // NTP timestamp, most significant word
        0x80, 0x00, 0x00, 0x00,  // NTP timestamp, least significant word (0.5 s)
        0x00, 0x01, 0x5F, 0x90,  // RTP timestamp=90000
        0x00, 0x00, 0x00, 0x64,  // sender's packet count=100
        0x00, 0x00, 0x3A, 0x98,  // sender's octet count=15000
        0x01, 0x02, 0x03, 0x04,  // report block: SSRC_1
        0x40, 0xFF, 0xFF, 0xFE,  // fraction lost=64/256 | cumulative lost=-2 (24-bit signed)
        0x00, 0x01, 0x00, 0x10,  // extended highest sequence: cycles=1, seq=16
        0x00, 0x00, 0x00, 0x20,  // interarrival jitter=32
        0xAB, 0xCD, 0xEF, 0x01,  // LSR
        0x00, 0x01, 0x80, 0x00,  // DLSR=1.5 s (1/65536 units)
    ]

    static let receiverReport: [UInt8] = [
        0x81, 0xC9, 0x00, 0x07,  // V=2 P=0 RC=1 | PT=201 (RR) | length=7 (32 bytes)
        0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender=1
        0x11, 0x22, 0x33, 0x44,  // report block: SSRC_1
        0x00, 0x00, 0x00, 0x05,  // fraction lost=0 | cumulative lost=5
        0x00, 0x00, 0x12, 0x34,  // extended highest sequence=0x1234
        0x00, 0x00, 0x00, 0x10,  // jitter=16
        0x00, 0x00, 0x00, 0x00,  // LSR=0
        0x00, 0x00, 0x00, 0x00,  // DLSR=0
    ]

    static let sourceDescription: [UInt8] = [
        0x81, 0xCA, 0x00, 0x03,  // V=2 P=0 SC=1 | PT=202 (SDES) | length=3 (16 bytes)
        0x90, 0x2F, 0x9E, 0x2E,  // chunk 1: SSRC
        0x01, 0x03, 0x61, 0x62,  // CNAME (1) | length=3 | "ab"
        0x63, 0x00, 0x00, 0x00,  // "c" | null item ends the list, padding to 32 bits
    ]

    static let goodbye: [UInt8] = [
        0x81, 0xCB, 0x00, 0x02,  // V=2 P=0 SC=1 | PT=203 (BYE) | length=2 (12 bytes)
        0x90, 0x2F, 0x9E, 0x2E,  // SSRC
        0x03, 0x62, 0x79, 0x65,  // reason length=3 | "bye"
    ]

    static let nack: [UInt8] = [
        0x81, 0xCD, 0x00, 0x03,  // V=2 P=0 FMT=1 (generic NACK) | PT=205 (RTPFB) | length=3 (16 bytes)
        0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender=1
        0x11, 0x22, 0x33, 0x44,  // SSRC of media source
        0x00, 0x64, 0x00, 0x05,  // PID=100 | BLP=0b101: 101 and 103 lost too
    ]

    static let pictureLossIndication: [UInt8] = [
        0x81, 0xCE, 0x00, 0x02,  // V=2 P=0 FMT=1 (PLI) | PT=206 (PSFB) | length=2 (12 bytes)
        0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender=1
        0x11, 0x22, 0x33, 0x44,  // SSRC of media source
    ]

    static let fullIntraRequest: [UInt8] = [
        0x84, 0xCE, 0x00, 0x04,  // V=2 P=0 FMT=4 (FIR) | PT=206 (PSFB) | length=4 (20 bytes)
        0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender=1
        0x00, 0x00, 0x00, 0x00,  // SSRC of media source (unused, 0)
        0x11, 0x22, 0x33, 0x44,  // FCI: SSRC
        0x07, 0x00, 0x00, 0x00,  // seq nr=7 | reserved
    ]

    static let remb: [UInt8] = [
        0x8F, 0xCE, 0x00, 0x05,  // V=2 P=0 FMT=15 (AFB) | PT=206 (PSFB) | length=5 (24 bytes)
        0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender=1
        0x00, 0x00, 0x00, 0x00,  // SSRC of media source=0
        0x52, 0x45, 0x4D, 0x42,  // "REMB"
        0x01, 0x0B, 0xD0, 0x90,  // num SSRC=1 | exp=2 | mantissa=250000 → 1 000 000 bps
        0x11, 0x22, 0x33, 0x44,  // SSRC feedback
    ]

    static let transportCC: [UInt8] = [
        0xAF, 0xCD, 0x00, 0x06,  // V=2 P=1 FMT=15 | PT=205 (RTPFB) | length=6 (28 bytes)
        0x00, 0x00, 0x00, 0x01,  // SSRC of packet sender=1
        0x11, 0x22, 0x33, 0x44,  // SSRC of media source
        0x00, 0x64, 0x00, 0x05,  // base sequence=100 | packet status count=5
        0x00, 0x00, 0x10, 0x03,  // reference time=16 (×64 ms = 1024 ms) | fb pkt count=3
        0xD4, 0x90,              // two-bit vector: small, small, not received, large, small (+2 not received)
        0x04, 0x08,              // small deltas: 4 ticks (1 ms), 8 ticks (2 ms)
        0x04, 0x00,              // large delta: 1024 ticks (256 ms)
        0x01,                    // small delta: 1 tick (250 µs)
        0x01,                    // RTCP padding: count=1
    ]

    static let all: [[UInt8]] = [
        senderReport, receiverReport, sourceDescription, goodbye, nack, pictureLossIndication,
        fullIntraRequest, remb, transportCC,
    ]
}
