#!/usr/bin/env python3
"""aiortc (PyPI), speaking docs/protocol.md itself (aiortc_participant.py), as a participant
beside the Swift SDK (`srtc join`, a VP8 test pattern) in a real srtc-server:

- aiortc publishes numbered test-pattern frames (VP8); the Swift participant decodes them;
- aiortc subscribes to the Swift participant's camera, answering each `subscriber_offer` at once
  (its ICE checks start before the server has the answer); the received track's id is the
  server's track id, bound from `a=msid` (the offer's `a=msid-semantic: WMS *` makes aiortc
  honour it); aiortc decodes the frames and reads their frame numbers from the pixels, in order;
- every `subscriber_offer` revision (the subscription's, then the unsubscription's) keeps the
  `o=` session id and raises its version by one (RFC 3264 §8).

Runs in a loopback-only network namespace when `unshare -n` is allowed, with a second address on
`lo` (aiortc gathers no 127.0.0.1 candidate).
"""
import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT, JoinBot, Server, expect, ok, read_code_band, reexec_in_loopback_namespace, report_failure  # noqa: E402
from aiortc_participant import AiortcParticipant, pattern_track  # noqa: E402

CHANNEL = "aiortc"
WAIT = 30


async def read_numbers(track, count):
    """Frame numbers read from `count` decoded frames of an aiortc remote track (None: unreadable)."""
    numbers = []
    while len(numbers) < count:
        frame = await track.recv()
        luma = frame.planes[0]
        numbers.append(read_code_band(bytes(luma), luma.line_size, frame.width, frame.height))
    return numbers


async def run(server, bot):
    participant = AiortcParticipant(server.base, server.channel_token(CHANNEL, "aiortc"), sdk="aiortc-interop")
    received = asyncio.get_running_loop().create_future()
    participant.subscriber.on("track", lambda track: received.done() or received.set_result(track))
    try:
        await participant.join()
        ok("aiortc joined")
        published = await participant.publish(pattern_track(), "camera_big")
        expect(published["kind"] == "video" and published["codec"].lower() == "vp8", f"aiortc published its camera ({published})")

        video = await participant.wait_track(lambda t: t["uid"] == "swiftbot" and t["kind"] == "video", WAIT)
        layer = {"layer": "camera_big"} if video["layers"] else {}
        await participant.request("subscribe", {"track_id": video["id"], **layer})
        track = await asyncio.wait_for(received, WAIT)
        expect(track.id == video["id"], f"aiortc's received track has the server's track id from a=msid ({track.id})")
        numbers = [n for n in await asyncio.wait_for(read_numbers(track, 40), WAIT) if n is not None]
        expect(len(numbers) >= 30 and numbers == sorted(numbers) and len(set(numbers)) >= 25,
               f"aiortc decodes the Swift participant's VP8 and reads its frame numbers in order ({numbers[:5]}…{numbers[-5:]})")

        frames, _ = await asyncio.to_thread(bot.wait_stats, "aiortc", "camera_big", lambda s: s[0] > 20,
                                             "the Swift participant decoding aiortc's VP8", WAIT)
        ok(f"the Swift participant decodes aiortc's VP8 ({frames} frames)")

        # One more revision: unsubscribing marks the m-section inactive in a new offer.
        await participant.request("unsubscribe", {"track_id": video["id"]})
        for _ in range(WAIT * 10):
            if len(participant.offers) >= 2:
                break
            await asyncio.sleep(0.1)
        # o=<username> <sess-id> <sess-version> IN IP4 <address> (RFC 4566 §5.2)
        origins = [next(line for line in sdp.splitlines() if line.startswith("o=")).split()[1:3] for sdp in participant.offers]
        versions = [int(version) for _, version in origins]
        expect(len(origins) >= 2 and len({session for session, _ in origins}) == 1 and
               versions == list(range(versions[0], versions[0] + len(versions))),
               f"{len(origins)} subscriber_offer revisions: the same o= session id, the version one higher each ({origins})")
    finally:
        await participant.close()


def main():
    reexec_in_loopback_namespace(__file__, lo_address="10.213.0.1")
    with Server(extra_args=("--web-dir", os.path.join(ROOT, "web"))) as server:
        bot = JoinBot(server, CHANNEL, "swiftbot", "--size", "320x180", "--audio", "none", "--duration", "120",
                      "--stats-interval", "1")
        try:
            asyncio.run(run(server, bot))
            print("aiortc beside the Swift SDK: all checks passed")
            return 0
        except Exception as error:
            return report_failure(error, bot, server)
        finally:
            bot.stop()


if __name__ == "__main__":
    sys.exit(main())
