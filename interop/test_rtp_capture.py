#!/usr/bin/env python3
"""interop/rtp_capture.py, the lab's wire capture of RTP headers: its parsers on frames built
field by field (RTP, RTCP, STUN, DTLS and TURN told apart per RFC 5761 §4 and RFC 7983 §7, IPv4
options and fragments, CSRCs and header extensions), malformed and short frames that must never
raise (every truncation of each fixture, seeded random mutations and garbage), the sequence and
timestamp unwrapping (RFC 3550 A.1), the send-time view's windows on a made-up stream, and, as
root in a namespace with only `lo`, a real capture of datagrams sent to 127.0.0.1 with the
kernel's receive times."""
import os
import random
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rtp_capture import (RTPArrival, RTPCapture, SendTimeView, Unwrapper, classify, parse_frame, parse_rtp,  # noqa: E402
                         udp_payload)
from srtc_test_support import expect, ok, reexec_in_loopback_namespace  # noqa: E402


def ipv4_udp(payload, options=b"", fragment=0, protocol=17, udp_length=None, total_length=None):
    """An Ethernet II frame (zero MACs, type 0x0800) with an IPv4 header (RFC 791 §3.1; checksum
    left 0, the parser does not check it) and a UDP header (RFC 768) from port 5000 to 6000."""
    header = 20 + len(options)
    udp = struct.pack("!HHHH", 5000, 6000, udp_length if udp_length is not None else 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s",
                     0x40 | header // 4,          # version 4, IHL in 32-bit words
                     0,                           # DSCP/ECN
                     total_length if total_length is not None else header + len(udp),
                     1, fragment,                 # identification; flags (MF 0x2000) and offset
                     64, protocol, 0,             # TTL, protocol (17 UDP), checksum
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + options
    return bytes(12) + b"\x08\x00" + ip + udp


def rtp(payload_type=111, marker=False, sequence=0xFFFF, timestamp=0x12345678, ssrc=0xCAFEBABE, csrcs=(), extension=None,
        body=b"\x01" * 20):
    """An RTP packet (RFC 3550 §5.1): V=2, P=0, X when `extension` (its words), CC, M, PT."""
    first = 0x80 | (0x10 if extension is not None else 0) | len(csrcs)
    packet = struct.pack("!BBHII", first, (0x80 if marker else 0) | payload_type, sequence, timestamp, ssrc)
    packet += b"".join(struct.pack("!I", c) for c in csrcs)
    if extension is not None:
        packet += struct.pack("!HH", 0xBEDE, len(extension) // 4) + extension  # RFC 8285 §4.2 one-byte form
    return packet + body


SR = bytes([0x80, 200, 0, 6]) + bytes(24)            # RTCP sender report (V=2, PT=200, length 6)
RR_LOW = bytes([0x80, 192, 0, 1]) + bytes(4)         # 192: the RTCP range's first (FIR, RFC 2032)
RR_HIGH = bytes([0x81, 223, 0, 1]) + bytes(4)        # 223: the range's last
BINDING = bytes([0x00, 0x01, 0, 0, 0x21, 0x12, 0xA4, 0x42]) + bytes(12)  # STUN Binding request, magic cookie
DTLS = bytes([22, 0xFE, 0xFD]) + bytes(10)           # DTLS 1.2 handshake record
TURN = bytes([0x40, 0x00, 0, 4, 1, 2, 3, 4])         # TURN ChannelData, channel 0x4000

FIXTURES = [
    ("plain RTP", ipv4_udp(rtp()), (6000, 111, False, 0xFFFF, 0x12345678, 0xCAFEBABE)),
    ("RTP PT 96 with the marker (second octet 224, above RTCP's range)", ipv4_udp(rtp(96, True)),
     (6000, 96, True, 0xFFFF, 0x12345678, 0xCAFEBABE)),
    ("RTP with two CSRCs and a two-word extension", ipv4_udp(rtp(csrcs=(1, 2), extension=bytes(8), body=b"")),
     (6000, 111, False, 0xFFFF, 0x12345678, 0xCAFEBABE)),
    ("RTP behind IPv4 options (IHL 6)", ipv4_udp(rtp(sequence=7), options=bytes(4)), (6000, 111, False, 7, 0x12345678, 0xCAFEBABE)),
    ("RTP in an Ethernet frame with trailing padding", ipv4_udp(rtp(sequence=8)) + bytes(6),
     (6000, 111, False, 8, 0x12345678, 0xCAFEBABE)),
    ("RTCP SR", ipv4_udp(SR), None),
    ("RTCP, second octet 192", ipv4_udp(RR_LOW), None),
    ("RTCP, second octet 223", ipv4_udp(RR_HIGH), None),
    ("STUN", ipv4_udp(BINDING), None),
    ("DTLS", ipv4_udp(DTLS), None),
    ("TURN ChannelData", ipv4_udp(TURN), None),
    ("RTP header cut inside the CSRC list", ipv4_udp(rtp(csrcs=(1, 2, 3), body=b"")[:20]), None),
    ("RTP extension longer than the packet", ipv4_udp(rtp(extension=bytes(8), body=b"")[:-4]), None),
    ("a fragment (MF)", ipv4_udp(rtp(), fragment=0x2000), None),
    ("a later fragment (offset 1)", ipv4_udp(rtp(), fragment=1), None),
    ("TCP", ipv4_udp(rtp(), protocol=6), None),
    ("UDP length past the IP datagram", ipv4_udp(rtp(), udp_length=200), None),
    ("IP total length past the frame", ipv4_udp(rtp(), total_length=1500), None),
    ("IPv6 Ethernet type", ipv4_udp(rtp())[:12] + b"\x86\xdd" + ipv4_udp(rtp())[14:], None),
]


def check_fixtures():
    for name, frame, expected in FIXTURES:
        found = parse_frame(frame)
        got = None if found is None else (found[0], found[1].payload_type, found[1].marker, found[1].sequence, found[1].timestamp,
                                          found[1].ssrc)
        expect(got == expected, f"{name}: {expected}" + ("" if got == expected else f" (got {got})"))
    kinds = [classify(p) for p in (rtp(), SR, RR_LOW, RR_HIGH, BINDING, DTLS, TURN, bytes([17]), bytes([200]), b"", bytes([0x80]))]
    expect(kinds == ["rtp", "rtcp", "rtcp", "rtcp", "stun", "dtls", "turn", "zrtp", None, None, None],
           f"RFC 7983 §7 and RFC 5761 §4 tell RTP, RTCP, STUN, DTLS, TURN and ZRTP apart ({kinds})")


def check_never_raises():
    """The parsers themselves (not `parse_frame`, which would hide an exception) on every
    truncation of each fixture, 20000 seeded mutations of them and 5000 random frames."""
    rng = random.Random(26)
    frames = [frame for _, frame, _ in FIXTURES]
    cases = [frame[:n] for frame in frames for n in range(len(frame) + 1)]
    for _ in range(20000):
        frame = bytearray(rng.choice(frames))
        for _ in range(rng.randint(1, 4)):
            frame[rng.randrange(len(frame))] = rng.randrange(256)
        cases.append(bytes(frame[:rng.randint(0, len(frame))]) if rng.random() < 0.3 else bytes(frame))
    cases += [bytes(rng.randrange(256) for _ in range(rng.randint(0, 80))) for _ in range(5000)]
    cases += [b"\x00" * 14 + b"\x45", bytes(12) + b"\x08\x00" + bytes([0x4F]) + bytes(60)]  # IHL 15 past a short frame
    parsed = 0
    for frame in cases:
        found = udp_payload(frame)
        if found is not None:
            header = parse_rtp(found[2])
            parsed += header is not None
            classify(found[2])
        parse_rtp(frame)
        classify(frame)
    ok(f"{len(cases)} short, mutated and random frames parsed without an exception ({parsed} read as RTP)")


def check_unwrapping():
    sequences = Unwrapper(16)
    got = [sequences.extend(n) for n in (65534, 65535, 0, 1, 65535, 2, 30000, 10)]
    expect(got == [65534, 65535, 65536, 65537, 65535, 65538, 95536, 65546],
           f"16-bit numbers unwrapped across the wrap, a late one kept before it ({got})")
    timestamps = Unwrapper(32)
    got = [timestamps.extend(t) for t in (0xFFFFF000, 0x00000C40, 0xFFFFFC40)]
    expect(got == [0xFFFFF000, 0x100000C40, 0xFFFFFC40], f"32-bit timestamps unwrapped ({[hex(t) for t in got]})")


def check_send_time_view():
    """100 packets 20 ms apart from t = 1000 s (48 kHz, 960 a packet), 5 ms on the wire; from #30
    a queue of 350 ms that drains by 17.5 ms a packet (in order, as a FIFO does); #30 lost and
    resent 300 ms after it was due, #70 never arriving, #80 arriving twice."""
    packets = []
    for n in range(100):
        sent = 1000 + n * 0.02
        delay = 0.005 + (0.35 - 0.0175 * (n - 30) if 30 <= n < 50 else 0)
        if n == 70:
            continue
        packets.append(RTPArrival(sent + delay + (0.3 if n == 30 else 0), 500 + n, n * 960, 111, 100))
        if n == 80:
            packets.append(RTPArrival(sent + 0.1, 500 + n, n * 960, 111, 100))
    packets.sort(key=lambda p: p.arrival)
    view = SendTimeView(packets)
    expect(abs(view.send_time(view.packets[0]) - 1000.005) < 1e-9 and abs(view.delay(view.packets[0])) < 1e-9,
           "send time on the wall clock at the least delay (5 ms on the wire reads as 0)")
    expect([n for n, _ in view.missing] == [570] and abs(view.missing[0][1] - 1001.405) < 1e-9,
           f"#570 never arrived, sent at 1001.405 s between its neighbours ({view.missing})")
    expect([p.sequence for p in view.resent] == [580] and [p.sequence for p in view.filled] == [530],
           f"#580 came twice, #530 after higher numbers ({[p.sequence for p in view.resent]}, {[p.sequence for p in view.filled]})")
    windows = view.windows(1000.0, 1002.0)
    got = [(w.start - 1000, w.arrived, w.in_time) for w in windows]
    expect(got == [(0, 50, 47), (0.25, 50, 47), (0.5, 49, 46), (0.75, 49, 49), (1.0, 49, 49)],
           f"per 1 s of send time every 250 ms: arrived, and arrived within 300 ms ({got})")
    worst, at = view.worst_delay(1000, 1002)
    expect(abs(worst - 0.65) < 1e-9 and abs(at - 1000.605) < 1e-9, f"the worst delay is #530's 650 ms ({worst:.3f} s at {at:.3f})")
    curve = view.delay_curve(1000.5, 1001.0)
    expect([round(d * 1000) for d in curve] == [650, 210], f"the worst delay per 250 ms of send time ({curve})")


def check_live_capture():
    """As root in a namespace of its own: datagrams to 127.0.0.1 (RTP of one SSRC across the
    wrap, RTCP, STUN) read back from `lo` with their kernel times, each once."""
    if os.geteuid() != 0 or not os.environ.get("SRTC_IN_NETNS"):
        print("skipped the live capture: needs root and a namespace of its own")
        return
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    capture = RTPCapture("lo").start()
    before = time.time()
    for n in (65534, 65535, 0):
        sender.sendto(rtp(sequence=n, timestamp=n * 960 & 0xFFFFFFFF, ssrc=77), receiver.getsockname())
    for other in (SR, BINDING, rtp(ssrc=78)):
        sender.sendto(other, receiver.getsockname())
    time.sleep(0.3)
    after = time.time()
    capture.stop()
    stream = capture.stream(77)
    expect([p.sequence for p in stream] == [65534, 65535, 65536] and all(before <= p.arrival <= after for p in stream),
           f"the capture on lo read each RTP packet of SSRC 77 once, in order, with its kernel time "
           f"({[p.sequence for p in stream]}, {capture.dropped} dropped)")
    expect(dict(capture.ssrcs()) == {77: 3, 78: 1}, f"RTCP and STUN were not taken for RTP ({dict(capture.ssrcs())})")


def main():
    reexec_in_loopback_namespace(__file__)
    try:
        check_fixtures()
        check_never_raises()
        check_unwrapping()
        check_send_time_view()
        check_live_capture()
    except Exception as error:
        print(f"FAIL: {type(error).__name__}: {error}")
        return 1
    print("rtp capture: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
