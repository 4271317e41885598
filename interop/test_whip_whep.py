#!/usr/bin/env python3
"""WHIP (RFC 9725) and WHEP (draft-ietf-wish-whep) against a real srtc-server, with aiortc (PyPI)
as the HTTP-only client that knows nothing of our signaling (docs/ingress.md):

- an aiortc WHIP publisher sends numbered test-pattern frames (VP8) and a 440 Hz tone; a Swift
  SDK participant (`srtc join`) in the channel sees the user join, decodes the frames (their
  numbers, read back from its recording, in order) and hears the tone (its frequency, from the
  recording); a trickle `PATCH` is accepted (204), a `PATCH` with a stale `If-Match` is refused
  (412), an ICE restart `PATCH` answers new credentials (200, new `ETag`);
  `DELETE` removes the user (the server's user list no longer has it); a publisher that vanishes
  without `DELETE` is removed once its ICE consent expires, and its resource is gone (404);
- an aiortc WHEP player plays the Swift participant's camera and reads its frame numbers in order,
  and a composite of the channel (`/whep/v1/{channel}/composite/{id}`), reading the numbers of
  the Swift participant's picture inside it;
- `srtc whip` (the Swift SDK's `WHIPPublisher`) publishes its test pattern and tone to our own
  endpoint: the Swift participant decodes its frames (numbers from 5000, in order), hears the tone,
  and sees it leave when `srtc whip` stops (its DELETE);
- the refusals: no token 401, a token without publish (or subscribe) rights 403, another
  channel's token 403, a malformed offer 400 with the documented JSON body, a wrong content type
  415, a huge body 413, an unknown session 404; a CORS preflight answers 204.

Runs in a loopback-only network namespace when `unshare -n` is allowed, with a second address on
`lo` (aiortc gathers no 127.0.0.1 candidate).
"""
import asyncio
import fractions
import glob
import json
import math
import os
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import JoinBot, Server, expect, ok, read_code_band, reexec_in_loopback_namespace, report_failure, wait_until  # noqa: E402
from aiortc_participant import pattern_track  # noqa: E402

CHANNEL = "whip"
WAIT = 30


def http(method, url, body=b"", headers=None):
    """(status, headers, body bytes) of one request, errors included."""
    req = urllib.request.Request(url, data=body if method in ("POST", "PATCH") else None, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def tone_track(frequency=440):
    """An aiortc audio track of a sine tone, 20 ms frames of 48 kHz mono s16."""
    import av
    import numpy
    from aiortc import MediaStreamTrack

    class ToneTrack(MediaStreamTrack):
        kind = "audio"
        samples = 0

        async def recv(self):
            if self.samples == 0:
                self.start = asyncio.get_running_loop().time()
            wait = self.start + self.samples / 48000 - asyncio.get_running_loop().time()
            if wait > 0:
                await asyncio.sleep(wait)
            t = (numpy.arange(960) + self.samples) / 48000
            pcm = (numpy.sin(2 * math.pi * frequency * t) * 8000).astype(numpy.int16).reshape(1, -1)
            frame = av.AudioFrame.from_ndarray(pcm, format="s16", layout="mono")
            frame.sample_rate, frame.pts, frame.time_base = 48000, self.samples, fractions.Fraction(1, 48000)
            self.samples += 960
            return frame

    return ToneTrack()


def y4m_numbers(path):
    """Frame numbers read from a Y4M file's frames (None where unreadable)."""
    with open(path, "rb") as f:
        data = f.read()
    header_end = data.index(b"\n")
    fields = data[:header_end].split()
    width = int(next(x for x in fields if x.startswith(b"W"))[1:])
    height = int(next(x for x in fields if x.startswith(b"H"))[1:])
    size = width * height * 3 // 2
    numbers, offset = [], header_end + 1
    while offset < len(data):
        start = data.index(b"\n", offset) + 1  # FRAME line
        luma = data[start:start + width * height]
        if len(luma) < width * height:
            break
        numbers.append(read_code_band(luma, width, width, height))
        offset = start + size
    return numbers


def wav_frequency(path):
    """The dominant frequency of a 16-bit WAV file's first channel, from its zero crossings."""
    import wave
    with wave.open(path) as w:
        rate, channels, frames = w.getframerate(), w.getnchannels(), w.readframes(w.getnframes())
    samples = [int.from_bytes(frames[i:i + 2], "little", signed=True) for i in range(0, len(frames), 2 * channels)]
    samples = samples[len(samples) // 4:]  # past the start
    crossings = sum(1 for a, b in zip(samples, samples[1:]) if a < 0 <= b)
    return crossings * rate / max(len(samples), 1)


async def whip_publish(server, token, channel=CHANNEL):
    """An aiortc WHIP publisher to `channel`: (peer connection, Location URL, ETag, its offer)."""
    from aiortc import RTCPeerConnection, RTCSessionDescription
    pc = RTCPeerConnection()
    pc.addTransceiver(pattern_track(), direction="sendonly")
    pc.addTransceiver(tone_track(), direction="sendonly")
    await pc.setLocalDescription(await pc.createOffer())
    offer = pc.localDescription.sdp
    started = time.monotonic()
    status, headers, body = await asyncio.to_thread(
        http, "POST", f"{server.base}/whip/v1/{channel}", offer.encode(),
        {"Content-Type": "application/sdp", "Authorization": f"Bearer {token}"})
    print(f"figure: WHIP POST answered {status} in {(time.monotonic() - started) * 1000:.1f} ms (join, publish, answer)")
    expect(status == 201, f"WHIP POST answers 201 Created ({status} {body[:300]!r})")
    expect(headers["Content-Type"] == "application/sdp" and headers["Location"].startswith(f"/whip/v1/{channel}/")
           and headers["ETag"], f"with the answer, a Location and an ETag ({headers['Location']}, {headers['ETag']})")
    await pc.setRemoteDescription(RTCSessionDescription(body.decode(), "answer"))
    return pc, server.base + headers["Location"], headers["ETag"], offer


def users(server):
    status, body = server.call("POST", "/server/v1/channel/users", {"channel": CHANNEL})
    return [u["uid"] for u in body.get("users", [])] if status == 200 else []


def check_refusals(server, publish_token):
    base = f"{server.base}/whip/v1/{CHANNEL}"
    sdp = {"Content-Type": "application/sdp"}

    status, headers, body = http("OPTIONS", base, headers={"Origin": "http://example.test", "Access-Control-Request-Method": "POST"})
    expect(status == 204 and headers["Access-Control-Allow-Origin"] == "*" and "POST" in headers["Access-Control-Allow-Methods"]
           and "Authorization" in headers["Access-Control-Allow-Headers"], f"a CORS preflight answers 204 ({status}, {dict(headers)})")

    def refused(expected_status, expected_code, what, url=base, method="POST", body=b"v=0\r\n", headers=None):
        status, h, raw = http(method, url, body, headers)
        parsed = json.loads(raw or b"{}")
        expect(status == expected_status and parsed.get("code") == expected_code and parsed.get("message") and "server_time" in parsed,
               f"{what}: {status} with {{code: {parsed.get('code')}, message}} ({parsed.get('message')})")
        return h

    h = refused(401, 40106, "no token", headers=sdp)
    expect(h["WWW-Authenticate"] == "Bearer", "a 401 says WWW-Authenticate: Bearer")
    refused(401, 40106, "a forged token", headers={**sdp, "Authorization": "Bearer not.a.token"})
    viewer = server.channel_token(CHANNEL, "viewer", permissions={"publish": False})
    refused(403, 40301, "a token without publish rights", headers={**sdp, "Authorization": f"Bearer {viewer}"})
    other = server.channel_token("elsewhere", "someone")
    refused(403, 40301, "another channel's token", headers={**sdp, "Authorization": f"Bearer {other}"})
    auth = {"Authorization": f"Bearer {publish_token}"}
    refused(400, 40002, "a malformed offer", body=b"this is not SDP", headers={**sdp, **auth})
    refused(400, 40002, "an offer without media", body=b"v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n", headers={**sdp, **auth})
    refused(415, 41501, "a JSON body", body=b"{}", headers={"Content-Type": "application/json", **auth})
    refused(415, 41501, "no content type", headers=auth)
    refused(413, 41301, "a 100 KB offer", body=b"a" * 100_000, headers={**sdp, **auth})
    frag = {"Content-Type": "application/trickle-ice-sdpfrag"}
    refused(404, 40401, "PATCH of an unknown session", url=f"{base}/WHIP_nosuchsession", method="PATCH", body=b"a=end-of-candidates\r\n", headers=frag)
    refused(404, 40401, "DELETE of an unknown session", url=f"{base}/WHIP_nosuchsession", method="DELETE")
    ok("WHIP refusals: 401, 403 (rights, channel), 400, 415, 413, 404; CORS preflight 204")


async def run(server, bot, record_dir):
    publish_token = server.channel_token(CHANNEL, "whipper")
    await asyncio.to_thread(check_refusals, server, publish_token)

    pc, location, etag, offer = await whip_publish(server, publish_token)
    try:
        await asyncio.to_thread(wait_until, lambda: "whipper" in users(server), "the WHIP user in the channel", WAIT)
        ok("the WHIP publisher is a user of the channel (server API user list)")
        frames, _ = await asyncio.to_thread(bot.wait_stats, "whipper", "camera_big", lambda s: s[0] > 60,
                                             "the Swift participant decoding the WHIP camera", WAIT)
        _, packets = await asyncio.to_thread(bot.wait_stats, "whipper", "mic", lambda s: s[1] > 50,
                                              "the Swift participant receiving the WHIP tone", WAIT)
        ok(f"the Swift participant decodes the WHIP camera ({frames} frames) and receives its audio ({packets} packets)")

        # Trickle: a candidate of aiortc's offer, with the session's ETag (RFC 9725 §4.3.1).
        candidate = next(line for line in offer.splitlines() if line.startswith("a=candidate:"))
        ufrag = next(line for line in offer.splitlines() if line.startswith("a=ice-ufrag:"))
        pwd = next(line for line in offer.splitlines() if line.startswith("a=ice-pwd:"))
        fragment = f"{ufrag}\r\n{pwd}\r\nm=video 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:0\r\n{candidate}\r\na=end-of-candidates\r\n"
        frag = {"Content-Type": "application/trickle-ice-sdpfrag"}
        status, _, body = await asyncio.to_thread(http, "PATCH", location, fragment.encode(), {**frag, "If-Match": etag})
        expect(status == 204, f"a trickle PATCH is accepted: 204 ({status} {body[:200]!r})")
        status, _, body = await asyncio.to_thread(http, "PATCH", location, fragment.encode(), {**frag, "If-Match": '"stale"'})
        expect(status == 412 and json.loads(body)["code"] == 41201, f"a PATCH with a stale If-Match: 412 ({status} {body[:200]!r})")
        status, _, body = await asyncio.to_thread(http, "PATCH", location, b"garbage", frag)
        expect(status == 400 and json.loads(body)["code"] == 40001, f"a PATCH that is no sdpfrag: 400 ({status})")
        # An ICE restart (new credentials) answers the server's new ones and a new ETag.
        restart = "a=ice-ufrag:rstrt\r\na=ice-pwd:restartrestartrestart0123\r\n"
        status, headers, body = await asyncio.to_thread(http, "PATCH", location, restart.encode(), {**frag, "If-Match": "*"})
        text = body.decode(errors="replace")
        expect(status == 200 and headers["Content-Type"] == "application/trickle-ice-sdpfrag" and "a=ice-ufrag:" in text
               and "a=ice-pwd:" in text and headers["ETag"] and headers["ETag"] != etag,
               f"an ICE restart PATCH answers 200 with the server's new credentials and a new ETag ({status} {text!r})")

        # The recording holds the WHIP frames: their numbers in order.
        await asyncio.sleep(1)
        status, _, _ = await asyncio.to_thread(http, "DELETE", location)
        expect(status == 200, f"DELETE ends the session: 200 ({status})")
        await asyncio.to_thread(wait_until, lambda: "whipper" not in users(server), "the WHIP user gone", WAIT)
        ok("after DELETE the WHIP user has left the channel")
        status, _, _ = await asyncio.to_thread(http, "DELETE", location)
        expect(status == 404, f"the deleted session is gone: DELETE again 404 ({status})")
    finally:
        await pc.close()


async def whep_player():
    """An aiortc player receiving audio and video: (peer connection, future of its video track), offer made."""
    from aiortc import RTCPeerConnection
    pc = RTCPeerConnection()
    received = asyncio.get_running_loop().create_future()
    pc.on("track", lambda track: track.kind == "video" and not received.done() and received.set_result(track))
    pc.addTransceiver("audio", direction="recvonly")
    pc.addTransceiver("video", direction="recvonly")
    await pc.setLocalDescription(await pc.createOffer())
    return pc, received


async def frame_numbers(track, count=40):
    """The frame numbers readable in `count` decoded frames of `track`."""
    numbers = []
    while len(numbers) < count:
        frame = await asyncio.wait_for(track.recv(), WAIT)
        luma = frame.planes[0]
        numbers.append(read_code_band(bytes(luma), luma.line_size, frame.width, frame.height))
    return [n for n in numbers if n is not None]


async def run_whep_composite(server):
    """A composite of the channel (the egress worker, docs/egress.md) played over WHEP."""
    from aiortc import RTCSessionDescription
    status, body = server.call("POST", "/server/v1/channel/composite/start",
                               {"channel": CHANNEL, "uid": "mcu", "width": 320, "height": 180, "frame_rate": 30})
    expect(status == 200, f"a composite of the channel started ({status} {body})")
    token = server.channel_token(CHANNEL, "compositeviewer", permissions={"publish": False})
    pc, received = await whep_player()
    try:
        async def post():
            return await asyncio.to_thread(http, "POST", f"{server.base}/whep/v1/{CHANNEL}/composite/mcu", pc.localDescription.sdp.encode(),
                                           {"Content-Type": "application/sdp", "Authorization": f"Bearer {token}"})
        # The worker joins and publishes a moment after the start call: 404 until then.
        deadline = asyncio.get_running_loop().time() + WAIT
        status, headers, body = await post()
        while status == 404 and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.5)
            status, headers, body = await post()
        expect(status == 201 and headers["Location"].startswith(f"/whep/v1/{CHANNEL}/composite/mcu/"),
               f"WHEP POST of the composite: 201 ({status} {body[:200]!r})")
        await pc.setRemoteDescription(RTCSessionDescription(body.decode(), "answer"))
        readable = await frame_numbers(await asyncio.wait_for(received, WAIT))
        expect(len(readable) >= 30 and readable == sorted(readable),
               f"the WHEP player decodes the composite (the Swift participant's picture): frame numbers in order ({readable[:3]}…{readable[-3:]})")
        status, _, _ = await asyncio.to_thread(http, "DELETE", server.base + headers["Location"])
        expect(status == 200, f"WHEP DELETE of the composite player: 200 ({status})")
        status, _, body = await asyncio.to_thread(http, "POST", f"{server.base}/whep/v1/{CHANNEL}/composite/swiftbot", pc.localDescription.sdp.encode(),
                                                  {"Content-Type": "application/sdp", "Authorization": f"Bearer {token}"})
        expect(status == 404, f"a user is no composite: 404 ({status})")
    finally:
        await pc.close()
        server.call("POST", "/server/v1/channel/composite/stop", {"channel": CHANNEL, "uid": "mcu"})


async def run_vanished(server):
    """A WHIP publisher that closes without DELETE: the server ends it when consent expires (RFC 7675)."""
    pc, location, _, _ = await whip_publish(server, server.channel_token(CHANNEL, "ghost"))
    await asyncio.to_thread(wait_until, lambda: "ghost" in users(server), "the vanishing publisher in the channel", WAIT)
    await pc.close()
    await asyncio.to_thread(wait_until, lambda: "ghost" not in users(server), "the vanished publisher removed", 90, 0.5)
    status, _, _ = await asyncio.to_thread(http, "DELETE", location)
    expect(status == 404, f"a vanished publisher's session is gone: DELETE 404 ({status})")
    ok("a WHIP publisher that vanished without DELETE was removed when its media failed")


async def run_whep(server):
    """An aiortc WHEP player of the Swift participant's camera."""
    from aiortc import RTCSessionDescription
    token = server.channel_token(CHANNEL, "player", permissions={"publish": False})
    pc, received = await whep_player()
    try:
        status, headers, body = await asyncio.to_thread(
            http, "POST", f"{server.base}/whep/v1/{CHANNEL}/swiftbot", pc.localDescription.sdp.encode(),
            {"Content-Type": "application/sdp", "Authorization": f"Bearer {token}"})
        expect(status == 201 and headers["Location"].startswith(f"/whep/v1/{CHANNEL}/swiftbot/") and headers["ETag"],
               f"WHEP POST answers 201 with a Location and an ETag ({status} {body[:300]!r})")
        await pc.setRemoteDescription(RTCSessionDescription(body.decode(), "answer"))
        readable = await frame_numbers(await asyncio.wait_for(received, WAIT))
        expect(len(readable) >= 30 and readable == sorted(readable) and len(set(readable)) >= 25,
               f"the WHEP player decodes the Swift participant's camera, frame numbers in order ({readable[:5]}…{readable[-5:]})")
        # Trickle, then an ICE restart of the player's session: the server's new credentials, a new ETag.
        resource = server.base + headers["Location"]
        frag = {"Content-Type": "application/trickle-ice-sdpfrag", "If-Match": headers["ETag"]}
        status, _, _ = await asyncio.to_thread(http, "PATCH", resource, b"a=end-of-candidates\r\n", frag)
        expect(status == 204, f"a WHEP trickle PATCH: 204 ({status})")
        restart = b"a=ice-ufrag:wheprs\r\na=ice-pwd:restartrestartrestart0123\r\n"
        status, restarted, body = await asyncio.to_thread(http, "PATCH", resource, restart, frag)
        server_ufrag = next((line for line in body.decode(errors="replace").splitlines() if line.startswith("a=ice-ufrag:")), "")
        expect(status == 200 and server_ufrag and server_ufrag not in pc.remoteDescription.sdp and restarted["ETag"] != headers["ETag"],
               f"a WHEP ICE restart PATCH: 200 with new server credentials ({status} {body!r})")
        status, _, _ = await asyncio.to_thread(http, "DELETE", resource)
        expect(status == 200, f"WHEP DELETE: 200 ({status})")

        no_subscribe = server.channel_token(CHANNEL, "deaf", permissions={"subscribe": False})
        status, _, body = await asyncio.to_thread(
            http, "POST", f"{server.base}/whep/v1/{CHANNEL}/swiftbot", pc.localDescription.sdp.encode(),
            {"Content-Type": "application/sdp", "Authorization": f"Bearer {no_subscribe}"})
        expect(status == 403, f"WHEP with a token without subscribe rights: 403 ({status})")
        status, _, body = await asyncio.to_thread(
            http, "POST", f"{server.base}/whep/v1/{CHANNEL}/nobody", pc.localDescription.sdp.encode(),
            {"Content-Type": "application/sdp", "Authorization": f"Bearer {token}"})
        expect(status == 404 and json.loads(body)["code"] == 40401, f"WHEP of a user not in the channel: 404 ({status})")
    finally:
        await pc.close()


async def run_whep_late(server):
    """A WHEP player of a user that publishes its camera after the player connected
    (docs/ingress.md, "Tracks published later"): aiortc joins through signaling and publishes a
    tone; the player's POST gets the audio and a waiting video section (sendonly, no SSRC); the
    user then adds its camera, and the player decodes its frame numbers in order, with no new
    offer. A user with no tracks at all is 404 (the player posts again)."""
    from aiortc import RTCSessionDescription
    from aiortc_participant import AiortcParticipant
    publisher = AiortcParticipant(server.base, server.channel_token(CHANNEL, "latecomer"))
    token = server.channel_token(CHANNEL, "lateplayer", permissions={"publish": False})
    pc, received = await whep_player()
    try:
        await publisher.join()
        await publisher.publish(tone_track(), "mic")
        status, headers, body = await asyncio.to_thread(
            http, "POST", f"{server.base}/whep/v1/{CHANNEL}/latecomer", pc.localDescription.sdp.encode(),
            {"Content-Type": "application/sdp", "Authorization": f"Bearer {token}"})
        expect(status == 201, f"WHEP POST of a user with only a tone: 201 ({status} {body[:300]!r})")
        answer = body.decode()
        sections = ["m=" + part for part in answer.split("\nm=")[1:]]
        audio = next(part for part in sections if part.startswith("m=audio"))
        video = next(part for part in sections if part.startswith("m=video"))
        expect("a=sendonly" in video and "a=ssrc:" not in video and "a=ssrc:" in audio,
               f"the answer plays the audio and keeps the video section waiting: sendonly, no SSRC ({video[:400]!r})")
        await pc.setRemoteDescription(RTCSessionDescription(answer, "answer"))
        await asyncio.to_thread(wait_until, lambda: "lateplayer" in users(server), "the late player in the channel", WAIT)
        await publisher.add_track(pattern_track(), "camera_big")
        started = time.monotonic()
        track = await asyncio.wait_for(received, WAIT)
        readable = await frame_numbers(track)
        print(f"figure: first 40 frames of the camera published after the WHEP POST decoded {time.monotonic() - started:.1f} s after it was added")
        expect(len(readable) >= 30 and readable == sorted(readable) and len(set(readable)) >= 25,
               f"the WHEP player decodes the camera published after it connected, frame numbers in order ({readable[:5]}…{readable[-5:]})")
        status, _, _ = await asyncio.to_thread(http, "DELETE", server.base + headers["Location"])
        expect(status == 200, f"WHEP DELETE of the late player: 200 ({status})")
        ok("a WHEP player got the camera its user published after the player connected")
    finally:
        await pc.close()
        await publisher.close()


def run_cli(server, bot):
    """`srtc whip` against our endpoint, seen by the Swift participant; stopped with SIGINT (DELETE)."""
    import subprocess
    from srtc_test_support import bin_path, stop_gently
    token = server.channel_token(CHANNEL, "clibot")
    log_path = os.path.join(tempfile.mkdtemp(prefix="srtc-whip-cli-"), "whip.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen([bin_path("srtc"), "whip", f"{server.base}/whip/v1/{CHANNEL}", "--token", token, "--size", "320x180",
                                 "--pattern-start", "5000", "--duration", "120"], stdout=log, stderr=subprocess.STDOUT)
    try:
        frames, _ = bot.wait_stats("clibot", "camera_big", lambda s: s[0] > 60, "the Swift participant decoding `srtc whip`", WAIT)
        _, packets = bot.wait_stats("clibot", "mic", lambda s: s[1] > 50, "the Swift participant receiving `srtc whip`'s tone", WAIT)
        ok(f"`srtc whip` is seen by the Swift participant: {frames} frames, {packets} audio packets")
        stop_gently(proc)
        wait_until(lambda: "clibot" not in users(server), "`srtc whip` gone after it stopped (DELETE)", WAIT)
        with open(log_path) as f:
            output = f.read()
        expect(f"publishing at {server.base}/whip/v1/{CHANNEL}/WHIP_" in output and "stopped" in output,
               f"`srtc whip` printed its resource and stopped ({output.strip()[-300:]!r})")
    finally:
        stop_gently(proc)


def main():
    reexec_in_loopback_namespace(__file__, lo_address="10.213.0.1")
    record_dir = tempfile.mkdtemp(prefix="srtc-whip-")
    with Server() as server:
        bot = JoinBot(server, CHANNEL, "swiftbot", "--size", "320x180", "--duration", "180", "--stats-interval", "1",
                      "--record", record_dir)
        try:
            asyncio.run(run(server, bot, record_dir))
            asyncio.run(run_whep(server))
            asyncio.run(run_whep_late(server))
            asyncio.run(run_vanished(server))
            asyncio.run(run_whep_composite(server))
            run_cli(server, bot)
            bot.stop()
            videos = glob.glob(os.path.join(record_dir, "whipper-camera_big*.y4m"))
            numbers = [n for path in sorted(videos) for n in y4m_numbers(path) if n is not None]
            expect(len(numbers) >= 60 and numbers == sorted(numbers) and len(set(numbers)) >= 50,
                   f"the Swift participant's recording of the WHIP camera: {len(numbers)} frames, numbers in order "
                   f"({numbers[:3]}…{numbers[-3:]})")
            cli = [n for path in sorted(glob.glob(os.path.join(record_dir, "clibot-camera_big*.y4m"))) for n in y4m_numbers(path) if n is not None]
            expect(len(cli) >= 60 and cli == sorted(cli) and cli[0] >= 5000,
                   f"the recording of `srtc whip`'s camera: {len(cli)} frames, numbers from 5000 in order ({cli[:3]}…{cli[-3:]})")
            audios = glob.glob(os.path.join(record_dir, "whipper-mic*.wav"))
            expect(audios, f"the Swift participant recorded the WHIP audio ({os.listdir(record_dir)})")
            frequency = wav_frequency(audios[0])
            expect(abs(frequency - 440) < 20, f"the recorded WHIP audio is the 440 Hz tone ({frequency:.1f} Hz)")
            cli_audio = glob.glob(os.path.join(record_dir, "clibot-mic*.wav"))
            frequency = wav_frequency(cli_audio[0]) if cli_audio else 0
            expect(abs(frequency - 440) < 20, f"the recorded `srtc whip` audio is its 440 Hz tone ({frequency:.1f} Hz)")
            print("WHIP and WHEP: all checks passed")
            return 0
        except Exception as error:
            return report_failure(error, bot, server, server_tail=8000)
        finally:
            bot.stop()


if __name__ == "__main__":
    sys.exit(main())
