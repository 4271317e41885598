#!/usr/bin/env python3
"""The meeting app over HTTPS/WSS served by srtc-server itself (`--tls-cert`, `--tls-key`), at an
address that is not loopback, where only a secure context may open the camera.

The test runs in a network namespace of its own (made here, gone when the test ends, failed or
not) whose only address besides 127.0.0.1 is 10.213.25.1. A test CA (the `openssl` command line)
issues the server a certificate for that address; Chromium trusts it through
`--ignore-certificate-errors-spki-list` (the certificate's key hash). Then:

- the redirect port (`--http-redirect-port`) sends the browser from `http://10.213.25.1:…/meet/`
  to the same page on `https://` (308), and that page is a secure context (`isSecureContext`);
- the pre-join screen gets the fake camera (getUserMedia, refused on plain http at this address)
  and shows its preview;
- the host starts a meeting; a second window enters it by number over the same wss:// meeting
  WebSocket (a page on https may not open ws://) and decodes the host's camera: its tile's
  inbound-rtp `framesDecoded` rises.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import TestCA, expect, free_port, ok, reexec_in_loopback_namespace, run_browser_test  # noqa: E402
from test_browser_meet import Participant, enter_by_number, remote_tiles_decode, sign_in  # noqa: E402

ADDRESS = "10.213.25.1"
WAIT_SECONDS = 25


def run(server, driver, redirect_port):
    driver.set_window_size(1280, 800)
    host = Participant(driver, driver.current_window_handle, "Host")
    driver.switch_to.new_window("window")
    driver.set_window_size(1280, 800)
    member = Participant(driver, driver.current_window_handle, "Member")

    # Plain http at the redirect port lands on the https page.
    host.focus()
    driver.get(f"http://{ADDRESS}:{redirect_port}/meet/?quality=low")
    host.wait_true("return document.readyState === 'complete'", "the page after the redirect")
    url = host.run("return location.href")
    expect(url == f"{server.base}/meet/?quality=low", f"the redirect port sent the browser to https ({url})")
    expect(host.run("return window.isSecureContext"), f"{server.base} is a secure context: the browser accepted the certificate")

    # The camera opens (getUserMedia needs the secure context at a non-loopback address).
    host.wait_true("return document.getElementById('camera-select').options.length > 0 && document.getElementById('preview-video').videoWidth > 0",
                   "the camera preview")
    ok("the pre-join screen shows the fake camera's preview")
    host.type("#display-name", "Hana Host")
    host.click("#prejoin-continue")
    host.wait_true("return !document.getElementById('home').hidden", "the home screen")
    host.type("#start-title-input", "Over TLS")
    host.click("#start-button")
    host.wait_true("return !document.getElementById('meeting').hidden && document.getElementById('room-no').textContent.length > 0", "the meeting screen")
    room_no = host.text("#room-no").replace(" ", "")
    ok(f"the host started meeting {room_no}")

    sign_in(member, server.base, "Mia")
    enter_by_number(member, room_no, "")
    member.wait_true("return !document.getElementById('meeting').hidden && window.meetApp.meeting.isInRoom", "the member in the meeting")
    remote_tiles_decode(member, 1, "the host's camera over a call set up on wss://")
    ok("the member decodes the host's camera")


def main():
    reexec_in_loopback_namespace(__file__, lo_address=ADDRESS)
    if not os.environ.get("SRTC_IN_NETNS"):
        print("skip: needs a network namespace of its own (unshare -n) for the address", ADDRESS)
        return 0
    directory = tempfile.mkdtemp(prefix="srtc-browser-tls-")
    try:
        ca = TestCA(directory)
        cert, key = ca.issue("server", ip_addresses=(ADDRESS,))
        redirect_port = free_port()
        return run_browser_test(
            "meeting app over HTTPS", lambda server, driver: run(server, driver, redirect_port),
            server_args=("--demo-auth", "on", "--http-redirect-port", str(redirect_port)),
            driver_flags=(f"--ignore-certificate-errors-spki-list={TestCA.spki_sha256(cert)}",),
            wait_seconds=WAIT_SECONDS, server_options={"host": ADDRESS, "tls": (cert, key, ca.ssl_context())})
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
