#!/usr/bin/env python3
"""Browser echo interop: headless Chromium sends its fake camera and microphone to our Swift
WebRTC stack (interop-echo: ICE-lite, DTLS server, SRTP, BUNDLE, rtcp-mux) and must decode the
video and receive the audio that the endpoint echoes back.

Run by `make test` (after `swift build --build-tests`). The browser and the endpoint run in a
fresh network namespace with only loopback when `unshare -n` is allowed, so all media stays on
127.0.0.1; otherwise they run as they are, still against a loopback-only endpoint.
"""
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import make_driver, reexec_in_loopback_namespace  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WAIT_SECONDS = 20


PAGE = """<!doctype html><html><body><script>
window.result = {state: 'starting', log: []};
function note(text) { window.result.log.push(text); console.log(text); }
async function run() {
  const stream = await navigator.mediaDevices.getUserMedia({audio: true, video: {width: 320, height: 240}});
  const pc = new RTCPeerConnection({bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require'});
  window.pc = pc;
  for (const track of stream.getTracks()) pc.addTrack(track, stream);
  pc.oniceconnectionstatechange = () => note('ice: ' + pc.iceConnectionState);
  pc.onconnectionstatechange = () => note('connection: ' + pc.connectionState);
  pc.ontrack = (e) => note('track: ' + e.track.kind);
  const offer = await pc.createOffer();
  await pc.setLocalDescription(offer);
  const response = await fetch('/offer', {method: 'POST', body: JSON.stringify({type: 'offer', sdp: pc.localDescription.sdp})});
  const answer = await response.json();
  if (answer.type !== 'answer') throw new Error('endpoint: ' + JSON.stringify(answer));
  window.result.answer = answer.sdp;
  await pc.setRemoteDescription(answer);
  window.result.state = 'negotiated';
}
async function poll() {
  if (!window.pc) return;
  const stats = await window.pc.getStats();
  const out = {video: null, audio: null, srtpCipher: null, dtlsCipher: null, dtlsState: null};
  stats.forEach((r) => {
    if (r.type === 'inbound-rtp' && r.kind === 'video') out.video = {framesDecoded: r.framesDecoded || 0, packetsReceived: r.packetsReceived || 0};
    if (r.type === 'inbound-rtp' && r.kind === 'audio') out.audio = {packetsReceived: r.packetsReceived || 0};
    if (r.type === 'transport') { out.srtpCipher = r.srtpCipher; out.dtlsCipher = r.dtlsCipher; out.dtlsState = r.dtlsState; }
  });
  window.result.stats = out;
}
run().catch((e) => { window.result.state = 'error'; note('error: ' + e); });
setInterval(() => poll().catch((e) => note('stats error: ' + e)), 250);
</script></body></html>"""


class Echo:
    """The Swift endpoint, driven over stdin/stdout; its stderr is kept for the report."""

    def __init__(self, binary, profiles=None):
        env = dict(os.environ)
        if profiles:
            env["ECHO_SRTP_PROFILES"] = profiles
        self.proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, env=env)
        self.log = []
        self.lock = threading.Lock()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            self.log.append(line.rstrip())

    def offer(self, sdp):
        with self.lock:
            self.proc.stdin.write(json.dumps({"type": "offer", "sdp": sdp}) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        if not line:
            return {"type": "error", "message": "endpoint exited"}
        return json.loads(line)

    def stop(self):
        try:
            self.proc.stdin.write(json.dumps({"type": "quit"}) + "\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


def serve(echo):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            body = PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            offer = json.loads(self.rfile.read(length))
            body = json.dumps(echo.offer(offer["sdp"])).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def find_binary():
    for config in ("debug", "release"):
        path = os.path.join(ROOT, ".build", config, "interop-echo")
        if os.path.exists(path):
            return path
    subprocess.run(["swift", "build", "--product", "interop-echo"], cwd=ROOT, check=True)
    return os.path.join(ROOT, ".build", "debug", "interop-echo")


def run_case(binary, name, profiles, expected_profile):
    """One browser session against a fresh endpoint; True when the echo decoded with `expected_profile`."""
    print("-- case %s" % name)
    echo = Echo(binary, profiles)
    httpd = serve(echo)
    driver = None
    ok = False
    result = {}
    try:
        driver = make_driver(WAIT_SECONDS + 10)
        driver.get("http://127.0.0.1:%d/" % httpd.server_address[1])
        deadline = time.time() + WAIT_SECONDS
        while time.time() < deadline:
            result = driver.execute_script("return window.result") or {}
            stats = result.get("stats") or {}
            video, audio = stats.get("video") or {}, stats.get("audio") or {}
            if result.get("state") == "error":
                break
            if video.get("framesDecoded", 0) > 0 and audio.get("packetsReceived", 0) > 0:
                ok = True
                break
            time.sleep(0.25)
        stats = result.get("stats") or {}
        print("negotiated SRTP profile (browser getStats srtpCipher): %s; DTLS cipher: %s"
              % (stats.get("srtpCipher"), stats.get("dtlsCipher")))
        print("echoed video: %s; echoed audio: %s" % (stats.get("video"), stats.get("audio")))
        endpoint_profile = [line for line in echo.log if "SRTP profile " + expected_profile in line]
        for line in echo.log:
            if "state: connected" in line:
                print("endpoint: " + line)
        if ok and not endpoint_profile:
            print("FAIL: the endpoint did not report SRTP profile %s" % expected_profile)
            ok = False
        if not ok:
            print("FAIL: echoed video not decoded / audio not received within %d s" % WAIT_SECONDS)
            print("--- page log ---")
            for line in result.get("log", []):
                print(line)
            print("--- browser console ---")
            try:
                for entry in driver.get_log("browser"):
                    print(entry.get("message"))
            except Exception as error:  # the log may be unavailable
                print("(no console log: %s)" % error)
            print("--- endpoint log ---")
            for line in echo.log:
                print(line)
            if result.get("answer"):
                print("--- answer SDP ---")
                print(result["answer"])
    except Exception as error:
        print("FAIL: %s" % error)
        for line in echo.log:
            print(line)
    finally:
        if driver:
            driver.quit()
        httpd.shutdown()
        echo.stop()
    return ok


def main():
    reexec_in_loopback_namespace(__file__)
    binary = find_binary()
    cases = [
        # Our preference: AEAD AES-128-GCM, which Chromium offers.
        ("default profiles", None, "SRTP_AEAD_AES_128_GCM"),
        # The endpoint accepts only AES-CM with HMAC-SHA1-80.
        ("AES-CM only", "SRTP_AES128_CM_SHA1_80", "SRTP_AES128_CM_SHA1_80"),
    ]
    passed = sum(1 for case in cases if run_case(binary, *case))
    print("browser echo: %d passed, %d failed" % (passed, len(cases) - passed))
    return 0 if passed == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
