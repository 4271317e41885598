"""What reaches a client's network device, read off the wire: an AF_PACKET raw socket (stdlib,
root) on one interface records every incoming UDP datagram that is RTP, with the kernel's receive
time (SO_TIMESTAMPNS, CLOCK_REALTIME: the wall clock `time.time()` reads) and the fields of its
RTP header, which SRTP leaves in the clear (RFC 3711 §3.1). Nothing is decrypted. Used by the
network lab's Chromium scripts (docs/network.md, "The lab"), whose process is in the client's
namespace: `RTPCapture(lab.client_device)` sees what the tbf let through, before the browser.

    capture = RTPCapture(lab.client_device).start()
    ...
    capture.stop()
    audio = capture.stream(ssrc)          # [RTPArrival], in arrival order, resends included

`parse_frame` (an Ethernet frame → `RTPHeader` or None) never raises on any input
(`interop/test_rtp_capture.py`). `send_time_windows` counts, per 1 s of the sender's clock, the
packets of one stream that arrived."""
import collections
import socket
import struct
import threading
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4  # sll_pkttype of what this host sent (linux/if_packet.h)
SO_TIMESTAMPNS = 35  # asm-generic/socket.h; its control message is a struct timespec
SO_RCVBUFFORCE = 33

RTPHeader = collections.namedtuple("RTPHeader", "payload_type marker sequence timestamp ssrc size")
RTPArrival = collections.namedtuple("RTPArrival", "arrival sequence timestamp payload_type size")


# MARK: - Parsing (pure; never raises)

def classify(payload):
    """What a UDP payload of a WebRTC transport is, by its first octet (RFC 7983 §7: 0–3 STUN,
    16–19 ZRTP, 20–63 DTLS, 64–79 TURN channel data, 128–191 RTP or RTCP) and, for RTP/RTCP, its
    second (RFC 5761 §4: 192–223 is an RTCP packet type, 200–204 and the feedback types, which a
    payload type of an RTP stream sharing the port must not take). Returns "stun", "zrtp",
    "dtls", "turn", "rtcp", "rtp" or None."""
    if not payload:
        return None
    first = payload[0]
    if first <= 3:
        return "stun"
    if 16 <= first <= 19:
        return "zrtp"
    if 20 <= first <= 63:
        return "dtls"
    if 64 <= first <= 79:
        return "turn"
    if 128 <= first <= 191:
        if len(payload) < 2:
            return None
        return "rtcp" if 192 <= payload[1] <= 223 else "rtp"
    return None


def parse_rtp(payload):
    """The fixed header of an RTP packet (RFC 3550 §5.1) as an `RTPHeader`, or None when
    `payload` is not RTP or too short for its CSRC list and header extension (§5.3.1). Padding is
    not checked: SRTP encrypts the octet that counts it."""
    if classify(payload) != "rtp" or len(payload) < 12:
        return None
    first, second, sequence, timestamp, ssrc = struct.unpack_from("!BBHII", payload)
    length = 12 + 4 * (first & 0x0F)
    if first & 0x10:  # X: a 4-octet extension header, then `length` 32-bit words
        if len(payload) < length + 4:
            return None
        length += 4 + 4 * struct.unpack_from("!H", payload, length + 2)[0]
    if len(payload) < length:
        return None
    return RTPHeader(second & 0x7F, bool(second & 0x80), sequence, timestamp, ssrc, len(payload))


def udp_payload(frame):
    """(source port, destination port, payload) of an Ethernet II frame carrying an unfragmented
    IPv4 UDP datagram (RFC 791 §3.1, RFC 768), or None. Lengths are taken from the headers and
    checked against the frame (an Ethernet frame may carry padding)."""
    if len(frame) < 14 + 20 + 8 or frame[12:14] != b"\x08\x00":
        return None
    ip = 14
    version_ihl, total_length = frame[ip], struct.unpack_from("!H", frame, ip + 2)[0]
    header = 4 * (version_ihl & 0x0F)
    flags_fragment = struct.unpack_from("!H", frame, ip + 6)[0]
    if version_ihl >> 4 != 4 or header < 20 or frame[ip + 9] != 17 or flags_fragment & 0x3FFF:
        return None  # not IPv4, not UDP, or a fragment (MF set or an offset)
    if total_length < header + 8 or ip + total_length > len(frame):
        return None
    udp = ip + header
    source, destination, length = struct.unpack_from("!HHH", frame, udp)
    if length < 8 or length > total_length - header:
        return None
    return source, destination, bytes(frame[udp + 8:udp + length])


def parse_frame(frame):
    """(UDP destination port, `RTPHeader`) of the RTP packet an Ethernet frame carries over IPv4
    UDP, or None."""
    try:
        found = udp_payload(frame)
        header = parse_rtp(found[2]) if found else None
        return (found[1], header) if header else None
    except Exception:  # a parser bug must not stop a capture: `test_rtp_capture.py` looks for one
        return None


class Unwrapper:
    """Extends a wrapping counter (RTP's 16-bit sequence number, its 32-bit timestamp) to an
    unbounded one: each value is taken as the one nearest the highest seen so far, so a value a
    little below it is a late packet and one just past the wrap a new cycle (RFC 3550 A.1 counts
    the cycles the same way)."""

    def __init__(self, bits):
        self.modulus, self.highest = 1 << bits, None

    def extend(self, value):
        if self.highest is None:
            self.highest = value
            return value
        half = self.modulus >> 1
        delta = (value - self.highest + half) % self.modulus - half
        extended = self.highest + delta
        self.highest = max(self.highest, extended)
        return extended


# MARK: - The capture

class RTPCapture:
    """Records the RTP packets arriving on `interface` (this process's network namespace) from
    `start()` to `stop()`, on a thread of its own: the kernel's time stamps, not the thread's
    wake-ups, give the arrival times. `dropped` is what the socket's buffer lost (PACKET_STATISTICS)."""

    def __init__(self, interface):
        self.interface = interface
        self.headers = []  # (arrival, destination port, RTPHeader), in arrival order
        self.dropped = 0
        self.frames = 0
        self._socket = None
        self._thread = None
        self._stopping = threading.Event()

    def start(self):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        try:
            s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            try:
                s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)  # root: past rmem_max
            except OSError:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
            s.bind((self.interface, ETH_P_ALL))
            s.settimeout(0.2)  # to see `stop()`
        except Exception:
            s.close()
            raise
        self._socket = s
        self._thread = threading.Thread(target=self._run, name=f"rtp capture {self.interface}", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._thread:
            self._stopping.set()
            self._thread.join(5)
            self._thread = None
        if self._socket:
            try:
                packets, drops = struct.unpack("II", self._socket.getsockopt(263, 6, 8))  # SOL_PACKET, PACKET_STATISTICS
                self.dropped += drops
            except OSError:
                pass
            self._socket.close()
            self._socket = None
        return self

    def _run(self):
        space = socket.CMSG_SPACE(16)
        while not self._stopping.is_set():
            try:
                frame, ancillary, _, address = self._socket.recvmsg(2048, space)
            except socket.timeout:
                continue
            except OSError:
                return
            if address[2] == PACKET_OUTGOING:
                continue
            self.frames += 1
            found = parse_frame(frame)
            if found is None:
                continue
            arrival = None
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
                    seconds, nanoseconds = struct.unpack_from("qq", data)
                    arrival = seconds + nanoseconds / 1e9
            self.headers.append((arrival if arrival is not None else time.time(), *found))

    def ssrcs(self):
        """{ssrc: packets} of what was captured."""
        return collections.Counter(header.ssrc for _, _, header in self.headers)

    def stream(self, ssrc):
        """The packets of `ssrc` as `RTPArrival`s in arrival order, their sequence numbers and
        timestamps extended (`Unwrapper`); a resend is there again with its number. Should two
        connections of the namespace carry that SSRC, the port that got most of it is taken."""
        headers = [(arrival, port, header) for arrival, port, header in list(self.headers) if header.ssrc == ssrc]
        port_taken = collections.Counter(port for _, port, _ in headers).most_common(1)[0][0] if headers else None
        sequences, timestamps, found = Unwrapper(16), Unwrapper(32), []
        for arrival, port, header in headers:
            if port == port_taken:
                found.append(RTPArrival(arrival, sequences.extend(header.sequence), timestamps.extend(header.timestamp),
                                        header.payload_type, header.size))
        return found


# MARK: - Send time

SendTimeWindow = collections.namedtuple("SendTimeWindow", "start arrived in_time")


class SendTimeView:
    """One stream's packets laid on the sender's clock: each packet's send time is its RTP
    timestamp / `clock_rate` moved onto the wall clock so that the least delayed packet took no
    time at all (`offset`: arrival − timestamp time, least over the stream). A packet's queueing
    delay is then its first arrival less its send time (0 for the least delayed). Packets a
    number apart share no timestamp, so a number the capture never saw was lost (or is still on
    its way); its send time is interpolated between its neighbours'."""

    def __init__(self, packets, clock_rate=48000):
        first = {}
        self.copies = 0
        for p in packets:
            if p.sequence in first:
                self.copies += 1
            else:
                first[p.sequence] = p
        self.clock_rate = clock_rate
        self.packets = [first[n] for n in sorted(first)]  # each number once, first arrival, by number
        self.offset = min((p.arrival - p.timestamp / clock_rate for p in self.packets), default=0.0)
        self.resent = [p for p in packets if p is not first[p.sequence]]
        # A number whose first copy came after a higher number's: on a path that keeps the order
        # (a veth, a tbf) the original was lost and this is a resend (RFC 4585 §6.2.1 NACK).
        self.filled, highest = [], None
        for p in packets:
            if p is first[p.sequence]:
                if highest is not None and p.sequence < highest:
                    self.filled.append(p)
                highest = p.sequence if highest is None else max(highest, p.sequence)
        self.missing = []  # (sequence, interpolated send time)
        for a, b in zip(self.packets, self.packets[1:]):
            for n in range(a.sequence + 1, b.sequence):
                share = (n - a.sequence) / (b.sequence - a.sequence)
                self.missing.append((n, self.send_time(a) + share * (self.send_time(b) - self.send_time(a))))

    def send_time(self, packet):
        return packet.timestamp / self.clock_rate + self.offset

    def delay(self, packet):
        return packet.arrival - self.send_time(packet)

    def windows(self, start, end, length=1.0, step=0.25, within=0.3):
        """`SendTimeWindow`s (start, packets/s arrived at any time, packets/s arrived within
        `within` s of their send time) of every `length` window of send time from `start`, every
        `step`, that ends by `end` (wall clock, s)."""
        found, at = [], start
        sends = [(self.send_time(p), self.delay(p)) for p in self.packets]
        while at + length <= end:
            inside = [delay for sent, delay in sends if at <= sent < at + length]
            found.append(SendTimeWindow(at, len(inside) / length, sum(1 for d in inside if d <= within) / length))
            at += step
        return found

    def worst_delay(self, start, end):
        """(queueing delay s, send time) of the most delayed packet sent between `start` and `end`."""
        return max(((self.delay(p), self.send_time(p)) for p in self.packets if start <= self.send_time(p) < end),
                   default=(0.0, start))

    def delay_curve(self, start, end, step=0.25):
        """The worst queueing delay (s) of the packets sent in each `step` from `start` to `end`."""
        curve, at = [], start
        while at < end:
            curve.append(max((self.delay(p) for p in self.packets if at <= self.send_time(p) < at + step), default=None))
            at += step
        return curve
