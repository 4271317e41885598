"""aiortc (PyPI: a WebRTC stack nobody here wrote) as an SRTC participant that speaks
docs/protocol.md itself: one WebSocket, a publish peer connection (its offer, the server's
answer) and a subscribe peer connection that answers every `subscriber_offer` the moment it
arrives. aiortc starts its ICE checks as soon as that answer is set, before the server has it
(the server answers them from its offer on, RFC 8445 §7.3). Used by test_aiortc.py and
bench_first_frame.py.

aiortc gathers no 127.0.0.1 candidate: on a loopback-only host give `lo` another address
(`reexec_in_loopback_namespace(..., lo_address=...)`).
"""
import asyncio
import json
import time

from srtc_test_support import paint_code_band


class AiortcParticipant:
    """One participant. `tracks` holds every remote TrackInfo seen (join, user_joined,
    track_added) by id; `offers` every `subscriber_offer`'s SDP in order; `events` every event
    with its arrival time (`layer_switched`…); `subscriber` is the
    subscribe RTCPeerConnection (its "track" event gives the received tracks)."""

    def __init__(self, url, token, sdk="aiortc"):
        from aiortc import RTCPeerConnection
        self.ws_url = url.replace("http://", "ws://", 1) + "/rtc/v1/ws"
        self.token, self.sdk = token, sdk
        self.subscriber = RTCPeerConnection()
        self.publisher = None
        self.tracks, self.offers = {}, []
        self.events = []  # every event the server sent: (time.time(), type, data)
        self._next_id, self._pending = 1, {}
        self._tracks_changed = asyncio.Event()
        self.ws = self._reader = None

    async def join(self):
        """Connects and joins; returns the join response's data."""
        import websockets
        self.ws = await websockets.connect(self.ws_url, max_size=None)
        self._reader = asyncio.ensure_future(self._read())
        data = await self.request("join", {"token": self.token, "protocol": 1, "sdk": self.sdk})
        for user in data.get("users", []):
            self._add_tracks(user.get("tracks", []))
        return data

    async def request(self, kind, data):
        """Sends a request and waits for its response; returns its data (raises on `ok: false`)."""
        message = await asyncio.wait_for(self._send(kind, data), 15)
        if not message.get("ok"):
            raise RuntimeError(f"{kind} refused: {message.get('error')}")
        return message.get("data") or {}

    def _send(self, kind, data):
        """Sends a request; returns the future of its response."""
        request_id, self._next_id = self._next_id, self._next_id + 1
        future = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        asyncio.ensure_future(self.ws.send(json.dumps({"id": request_id, "type": kind, "data": data})))
        return future

    async def _read(self):
        async for text in self.ws:
            message = json.loads(text)
            if "id" in message:
                future = self._pending.pop(message["id"], None)
                if future and not future.done():
                    future.set_result(message)
            else:
                await self._event(message["type"], message.get("data") or {})

    async def _event(self, kind, data):
        from aiortc import RTCSessionDescription
        self.events.append((time.time(), kind, data))
        if kind == "user_joined":
            self._add_tracks(data.get("tracks", []))
        elif kind == "track_added":
            self._add_tracks([data["track"]])
        elif kind == "subscriber_offer":
            self.offers.append(data["sdp"])
            await self.subscriber.setRemoteDescription(RTCSessionDescription(sdp=data["sdp"], type="offer"))
            await self.subscriber.setLocalDescription(await self.subscriber.createAnswer())
            # Not awaited here: this task reads the response too.
            self._send("subscriber_answer", {"sdp": self.subscriber.localDescription.sdp, "revision": data["revision"]})

    def _add_tracks(self, tracks):
        for track in tracks:
            self.tracks[track["id"]] = track
        self._tracks_changed.set()

    async def wait_track(self, predicate, timeout=20):
        """The first remote TrackInfo matching `predicate`, once announced."""
        async def find():
            while True:
                for track in self.tracks.values():
                    if predicate(track):
                        return track
                self._tracks_changed.clear()
                await self._tracks_changed.wait()
        return await asyncio.wait_for(find(), timeout)

    async def publish(self, track, desc):
        """Publishes one aiortc track (no simulcast) on a new publish connection; returns its TrackInfo."""
        from aiortc import RTCPeerConnection
        self.publisher = RTCPeerConnection()
        return await self.add_track(track, desc)

    async def add_track(self, track, desc):
        """Publishes one more aiortc track on the publish connection (after `publish`: a
        renegotiation, its new offer with the new section); returns its TrackInfo."""
        from aiortc import RTCSessionDescription
        transceiver = self.publisher.addTransceiver(track, direction="sendonly")
        await self.publisher.setLocalDescription(await self.publisher.createOffer())
        data = await self.request("publish", {"sdp": self.publisher.localDescription.sdp, "tracks": [
            {"mid": transceiver.mid, "kind": track.kind, "desc": desc, "muted": False, "layers": []}]})
        await self.publisher.setRemoteDescription(RTCSessionDescription(sdp=data["sdp"], type="answer"))
        return data["tracks"][0]

    async def close(self):
        if self._reader:
            self._reader.cancel()
        if self.ws:
            await self.ws.close()
        for pc in (self.subscriber, self.publisher):
            if pc:
                await pc.close()


def pattern_track(width=320, height=180):
    """An aiortc video track of numbered test-pattern frames (the code band on mid grey, numbers
    from 1) at aiortc's 30 fps."""
    import av
    import numpy
    from aiortc import VideoStreamTrack

    class PatternTrack(VideoStreamTrack):
        number = 0

        async def recv(self):
            pts, time_base = await self.next_timestamp()
            self.number += 1
            luma = bytearray([128]) * (width * height)
            paint_code_band(luma, width, height, self.number)
            chroma = bytes([128]) * (width * height // 2)
            planes = numpy.frombuffer(bytes(luma) + chroma, dtype=numpy.uint8).reshape(height * 3 // 2, width)
            frame = av.VideoFrame.from_ndarray(planes, format="yuv420p")
            frame.pts, frame.time_base = pts, time_base
            return frame

    return PatternTrack()
