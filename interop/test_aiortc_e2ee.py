#!/usr/bin/env python3
"""End-to-end encryption seen by a raw client (docs/e2ee.md, "Frame format"): aiortc (PyPI, a
WebRTC stack nobody here wrote), joined with an ordinary channel token and speaking
docs/protocol.md itself (aiortc_participant.py), subscribes to the camera and the 440 Hz tone of
`srtc join --e2ee-key`. It gets the packets, as the server forwards them to anyone in the channel,
and they do not decode:

- aiortc's VP8 decoder reads no frame number from the camera (unencrypted, test_aiortc.py reads
  them from the same bot's frames);
- aiortc's Opus decoder does not give the tone;
- every audio payload is, as docs/e2ee.md lays it out, the Opus TOC byte in the clear, an SFrame
  header (RFC 9605 §4.3) in its shortest form, and at least the 16-byte tag; all of them carry one
  key id (key index 0 in its top bits) and counters that only grow.

Three more `srtc join --record` bots receive the same camera and tone: with the passphrase, its
files hold the frame numbers in order and the audio; with another passphrase, and without
`--e2ee-key` at all, a bot records nothing (docs/e2ee.md: "a bot without the key records nothing
it cannot decrypt").

Runs in a loopback-only network namespace when `unshare -n` is allowed, with a second address on
`lo` (aiortc gathers no 127.0.0.1 candidate).
"""
import asyncio
import glob
import logging
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import (ROOT, JoinBot, Server, expect, ok, read_code_band, reexec_in_loopback_namespace, report_failure,  # noqa: E402
                               y4m_frame_numbers)
from aiortc_participant import AiortcParticipant  # noqa: E402

CHANNEL = "aiortce2ee"
PASSPHRASE = "correct horse battery staple"
WAIT = 30
LISTEN_SECONDS = 6


def sframe_header(data):
    """(key id, counter, header length) of the SFrame header at the start of `data` (RFC 9605
    §4.3: config byte X|K|Y|C, then KLEN key id bytes and CLEN counter bytes, big-endian); None
    when it is not one in the shortest form docs/e2ee.md requires."""
    if not data:
        return None
    config = data[0]
    values, offset = [], 1
    for extended, bits in ((config >> 7 & 1, config >> 4 & 7), (config >> 3 & 1, config & 7)):
        if not extended:
            values.append(bits)
            continue
        length = bits + 1
        if offset + length > len(data):
            return None
        value = int.from_bytes(data[offset:offset + length], "big")
        if value < 8 or (length > 1 and value < 1 << (8 * (length - 1))):
            return None  # a longer form than needed
        values.append(value)
        offset += length
    return values[0], values[1], offset


class PacketTap:
    """Keeps every RTP packet aiortc's receivers get, by kind, before its jitter buffers."""

    def __init__(self):
        from aiortc.rtcrtpreceiver import RTCRtpReceiver
        self.packets = {"audio": [], "video": []}
        original = RTCRtpReceiver._handle_rtp_packet
        tap = self

        async def handle(receiver, packet, arrival_time_ms):
            kind = getattr(receiver, "_RTCRtpReceiver__kind", None)
            if kind in tap.packets and packet.payload:
                tap.packets[kind].append((packet.payload_type, packet.sequence_number, bytes(packet.payload)))
            return await original(receiver, packet, arrival_time_ms)
        RTCRtpReceiver._handle_rtp_packet = handle


class DecodeErrors(logging.Handler):
    """Counts aiortc's "failed to decode" warnings."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record):
        if "failed to decode" in record.getMessage():
            self.count += 1


async def drain(track, seconds, on_frame):
    """Hands every frame `track` decodes within `seconds` to `on_frame`."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            frame = await asyncio.wait_for(track.recv(), left)
        except asyncio.TimeoutError:
            return
        on_frame(frame)


def zero_crossing_hz(samples, rate=48_000):
    crossings = sum(1 for a, b in zip(samples, samples[1:]) if (a < 0) != (b < 0))
    return crossings * rate / (2 * len(samples)) if len(samples) > rate // 10 else None


def recorded(directory):
    """{file name: (frames or samples bytes)} of what an `srtc join --record` bot wrote."""
    out = {}
    for path in glob.glob(os.path.join(directory, "*")):
        if path.endswith(".y4m"):
            out[os.path.basename(path)] = y4m_frame_numbers(path)[2]
        elif path.endswith(".wav"):
            out[os.path.basename(path)] = max(0, os.path.getsize(path) - 44)
    return out


def check_recorders(recorders):
    """The bot with the passphrase recorded the camera's frame numbers in order and the tone's
    audio; the others recorded nothing."""
    keyed = recorded(recorders["keyed"][1])
    videos = [numbers for name, numbers in keyed.items() if name.startswith("swiftbot-camera") and name.endswith(".y4m")]
    audio = [size for name, size in keyed.items() if name.startswith("swiftbot-") and name.endswith(".wav")]
    # A new subscription starts on the small layer and is raised (docs/network.md): a switch after
    # the first frames starts a second file of the other size, so the longest file is the camera's
    # recording, and every file must be in order.
    files = [[n for n in v if n is not None] for v in videos]
    numbers = max(files, key=len, default=[])
    expect(all(f == sorted(f) for f in files), f"the bot with the passphrase recorded each camera file in order ({sorted(keyed)})")
    expect(len(numbers) > 60 and numbers == sorted(numbers), f"the bot with the passphrase recorded the camera in order ({sorted(keyed)}: {numbers[:5]}…{numbers[-5:]})")
    expect(audio and audio[0] > 48_000, f"and the tone ({audio} bytes)")
    ok(f"srtc join --e2ee-key --record (the passphrase): {len(numbers)} numbered frames {numbers[0]}…{numbers[-1]}, {audio[0]} bytes of audio")
    for name in ("wrong", "nokey"):
        bot, directory = recorders[name]
        files = recorded(directory)
        written = {file: (len(v) if isinstance(v, list) else v) for file, v in files.items() if file.startswith("swiftbot-")}
        expect(all(v == 0 for v in written.values()), f"the bot {name!r} recorded nothing of the encrypted tracks ({written})")
        ok(f"srtc join --record ({'another passphrase' if name == 'wrong' else 'no --e2ee-key'}): nothing recorded ({written or 'no file'})")
    expect("swiftbot's media: decryptionFailed" in recorders["wrong"][0].read_log(), "the bot with another passphrase says whose media and why")


async def run(server, bot, recorders):
    tap, errors = PacketTap(), DecodeErrors()
    logging.getLogger("aiortc").addHandler(errors)
    participant = AiortcParticipant(server.base, server.channel_token(CHANNEL, "raw"), sdk="aiortc-e2ee")
    received = {}
    participant.subscriber.on("track", lambda track: received.setdefault(track.kind, track))
    try:
        await participant.join()
        for kind in ("video", "audio"):
            info = await participant.wait_track(lambda t, kind=kind: t["uid"] == "swiftbot" and t["kind"] == kind, WAIT)
            expect(info.get("e2ee") is True, f"the bot's {kind} track is announced end-to-end encrypted ({info})")
            await participant.request("subscribe", {"track_id": info["id"]})
        for _ in range(WAIT * 10):
            if len(received) == 2:
                break
            await asyncio.sleep(0.1)
        expect(set(received) == {"video", "audio"}, f"aiortc receives both tracks ({sorted(received)})")

        numbers, frames, samples = [], [0], []

        def on_video(frame):
            frames[0] += 1
            luma = frame.planes[0]
            number = read_code_band(bytes(luma), luma.line_size, frame.width, frame.height)
            if number is not None:
                numbers.append(number)

        def on_audio(frame):
            # Packed s16: one row, the channels interleaved; the first channel's samples.
            samples.extend(frame.to_ndarray().reshape(-1)[::len(frame.layout.channels)].tolist())
        await asyncio.gather(drain(received["video"], LISTEN_SECONDS, on_video), drain(received["audio"], LISTEN_SECONDS, on_audio))

        video, audio = tap.packets["video"], tap.packets["audio"]
        expect(len(video) > 100 and len(audio) > 100,
               f"aiortc receives the encrypted packets ({len(video)} video, {len(audio)} audio in {LISTEN_SECONDS} s)")
        expect(not numbers, f"aiortc's VP8 decoder reads no frame number from them ({frames[0]} frames out, numbers {numbers[:5]})")
        ok(f"no frame number in what aiortc decoded from {len(video)} video packets: {frames[0]} frames out, "
           f"{errors.count} decode failures")
        tail = samples[-48_000:]
        hz = zero_crossing_hz(tail)
        expect(hz is None or abs(hz - 440) >= 20, f"aiortc's Opus decoder does not give the 440 Hz tone ({hz} Hz from {len(samples)} samples)")
        ok(f"no tone in what aiortc decoded from {len(audio)} audio packets ({len(samples)} samples, "
           f"{'nothing' if hz is None else f'~{hz:.0f} Hz'})")

        # Opus's own payload type (not a retransmission's), in sequence order (unwrapped), once each.
        opus = max({pt for pt, _, _ in audio}, key=lambda pt: sum(1 for p, _, _ in audio if p == pt))
        first = next(seq for pt, seq, _ in audio if pt == opus)
        ordered = sorted({(seq - first + 0x8000) & 0xFFFF: payload for pt, seq, payload in audio if pt == opus}.items())
        headers = [(seq, sframe_header(payload[1:]), len(payload)) for seq, payload in ordered]
        expect(all(h is not None and size >= 1 + h[2] + 16 for _, h, size in headers),
               f"every audio payload is TOC ‖ SFrame header ‖ ciphertext ‖ tag ({[size for _, h, size in headers if h is None][:5]})")
        key_ids = {h[0] for _, h, _ in headers}
        counters = [h[1] for _, h, _ in headers]
        expect(len(key_ids) == 1 and next(iter(key_ids)) >> 40 == 0, f"one key id, key index 0 ({[hex(k) for k in key_ids]})")
        expect(all(b > a for a, b in zip(counters, counters[1:])), f"SFrame counters grow ({counters[:8]}…)")
        ok(f"audio payloads are SFrame frames: key id {hex(next(iter(key_ids)))}, counters {counters[0]}…{counters[-1]}")
        expect("decryptionFailed" not in bot.read_log(), "the bot reports no decryption failure")
        await asyncio.to_thread(check_recorders, recorders)
    finally:
        await participant.close()


def main():
    reexec_in_loopback_namespace(__file__, lo_address="10.213.0.1")
    with Server(extra_args=("--web-dir", os.path.join(ROOT, "web"))) as server:
        bot = JoinBot(server, CHANNEL, "swiftbot", "--e2ee-key", PASSPHRASE, "--desc", "camera", "--size", "320x180",
                      "--duration", "120", "--stats-interval", "1")
        recorders = {}
        for name, key in (("keyed", ("--e2ee-key", PASSPHRASE)), ("wrong", ("--e2ee-key", "another passphrase")), ("nokey", ())):
            directory = tempfile.mkdtemp(prefix=f"srtc-e2ee-{name}-")
            recorders[name] = (JoinBot(server, CHANNEL, f"{name}bot", *key, "--video", "none", "--audio", "none", "--record", directory,
                                       "--duration", "120", "--stats-interval", "1"), directory)
        try:
            asyncio.run(run(server, bot, recorders))
            print("a raw aiortc client in an encrypted channel: all checks passed")
            return 0
        except Exception as error:
            for name, (recorder, _) in recorders.items():
                print(f"--- {name}bot log (tail) ---\n{recorder.read_log()[-3000:]}")
            return report_failure(error, bot, server)
        finally:
            bot.stop()
            for recorder, _ in recorders.values():
                recorder.stop()


if __name__ == "__main__":
    sys.exit(main())
