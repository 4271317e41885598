#!/usr/bin/env python3
"""The reverse-proxy recipe of docs/deploy.md ("HTTPS in front: a reverse proxy", nginx), run as
written: the test reads the ```nginx block from the doc, swaps in a test CA's certificate and free
loopback ports, and starts Debian's nginx (`nginx -p DIR -c FILE -g 'daemon off;'`) in front of a
plain srtc-server started with the recipe's flags. Through nginx, verified against the test CA:

- `GET https://…/healthz` answers the server's own health JSON;
- two signaling WebSockets (`wss://…/rtc/v1/ws`) join one channel, and the first is told of the
  second (`user_joined`): the upgrade and both directions pass the proxy;
- a signed server-API call (`POST /server/v1/channel/grant`) keeps its signature valid through it;
- `srtc join --ca-file` (the Swift SDK) grants itself a token and joins through it;
- the plain-HTTP server block answers 308 to https with the same path.
"""
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT, CheckFailed, Server, TestCA, bin_path, call, expect, free_port  # noqa: E402

DEPLOY_DOC = os.path.join(ROOT, "docs", "deploy.md")


def recipe():
    """The ```nginx block of the nginx section of docs/deploy.md."""
    with open(DEPLOY_DOC) as f:
        text = f.read()
    section = text.split("### nginx\n", 1)
    if len(section) != 2:
        raise CheckFailed("docs/deploy.md has no '### nginx' section")
    match = re.search(r"```nginx\n(.*?)```", section[1], re.S)
    if not match:
        raise CheckFailed("the nginx section of docs/deploy.md has no ```nginx block")
    return match.group(1)


def replace(text, old, new):
    if old not in text:
        raise CheckFailed(f"the nginx recipe no longer contains {old!r}: update this test with the doc")
    return text.replace(old, new)


def nginx_config(prefix, https_port, http_port, upstream_port, cert, key):
    """The recipe with test files and ports, inside the main-context lines a whole nginx.conf needs."""
    site = recipe()
    site = replace(site, "listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;")
    site = replace(site, "listen 80;", f"listen 127.0.0.1:{http_port};")
    site = replace(site, "/etc/letsencrypt/live/rtc.example.com/fullchain.pem", cert)
    site = replace(site, "/etc/letsencrypt/live/rtc.example.com/privkey.pem", key)
    site = replace(site, "proxy_pass http://127.0.0.1:7880;", f"proxy_pass http://127.0.0.1:{upstream_port};")
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers must read the temp dirs made here
    return f"""{user}worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
{site}
}}
"""


class Nginx:
    """nginx in the foreground on the config above; stopped with SIGQUIT (graceful), then SIGKILL."""

    def __init__(self, prefix, config):
        self.prefix = prefix
        path = os.path.join(prefix, "nginx.conf")
        with open(path, "w") as f:
            f.write(config)
        check = subprocess.run([shutil.which("nginx") or "/usr/sbin/nginx", "-t", "-p", prefix, "-c", path, "-g", "daemon off;"],
                               capture_output=True, text=True)
        if check.returncode != 0:
            raise CheckFailed(f"nginx -t refused the recipe:\n{check.stderr}")
        self.proc = subprocess.Popen([shutil.which("nginx") or "/usr/sbin/nginx", "-p", prefix, "-c", path, "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

    def log(self):
        try:
            with open(os.path.join(self.prefix, "error.log")) as f:
                return f.read()
        except OSError:
            return ""

    def close(self):
        if self.proc.poll() is None:
            self.proc.send_signal(3)  # SIGQUIT: graceful shutdown
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def get_when_listening(url, context, timeout=20):
    """(status, body) of GET `url`, retried until something listens."""
    deadline = time.time() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2, context=context) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()
        except OSError:
            if time.time() > deadline:
                raise CheckFailed(f"nothing answers {url}")
            time.sleep(0.1)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


async def join(url, token, context):
    """Opens a signaling WebSocket and joins; returns (socket, join response)."""
    import websockets
    socket = await websockets.connect(url, ssl=context, max_size=None)
    await socket.send(json.dumps({"id": 1, "type": "join", "data": {"token": token, "protocol": 1, "sdk": "nginx-interop"}}))
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 15))
        if message.get("id") == 1:
            return socket, message


async def wait_event(socket, kind, timeout=15):
    deadline = time.time() + timeout
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), max(0.1, deadline - time.time())))
        if message.get("type") == kind and "id" not in message:
            return message


async def signaling(base_wss, server, context):
    alice, answer = await join(base_wss + "/rtc/v1/ws", server.channel_token("proxied", "alice"), context)
    expect(answer.get("ok") is True, f"alice joined through nginx over wss ({str(answer)[:120]})")
    bob, answer = await join(base_wss + "/rtc/v1/ws", server.channel_token("proxied", "bob"), context)
    expect(answer.get("ok") is True and [u["uid"] for u in answer["data"]["users"]] == ["alice"],
           "bob joined through nginx and sees alice")
    event = await wait_event(alice, "user_joined")
    expect(event["data"]["uid"] == "bob", "alice's WebSocket, through nginx, is told that bob joined")
    await alice.close()
    await bob.close()


def main():
    if not shutil.which("nginx") and not os.path.exists("/usr/sbin/nginx"):
        print("FAIL: nginx is not installed (scripts/install-deps installs it)")
        return 1
    directory = tempfile.mkdtemp(prefix="srtc-nginx-")
    ca = TestCA(directory)
    cert, key = ca.issue("proxy", ip_addresses=("127.0.0.1",))
    context = ca.ssl_context()
    https_port, http_port = free_port(), free_port()
    nginx = None
    # The server as the recipe runs it: plain HTTP on loopback, per-address limits off.
    with Server(extra_args=("--max-connections-per-address", "0", "--address-joins-per-second", "0")) as server:
        try:
            nginx = Nginx(directory, nginx_config(directory, https_port, http_port, server.http_port, cert, key))
            base = f"https://127.0.0.1:{https_port}"
            status, raw = get_when_listening(base + "/healthz", context)
            body = json.loads(raw)
            expect(status == 200 and body.get("status") == "ok", f"GET {base}/healthz through nginx, verified against the test CA: {body}")

            status, grant = call(base, server.app_id, server.app_key, "POST", "/server/v1/channel/grant",
                                 {"channel": "proxied", "uid": "carol"}, context=context)
            expect(status == 200 and "token" in grant, f"a signed server-API call through nginx is accepted ({status})")

            asyncio.run(signaling(f"wss://127.0.0.1:{https_port}", server, context))

            env = dict(os.environ, SRTC_APP_ID=server.app_id, SRTC_APP_KEY=server.app_key)
            joined = subprocess.run([bin_path("srtc"), "join", "--url", base, "--ca-file", ca.certificate, "--channel", "proxied",
                                     "--uid", "cli", "--video", "none", "--audio", "none", "--no-subscribe", "--duration", "1"],
                                    env=env, capture_output=True, text=True, timeout=60)
            expect(joined.returncode == 0 and "joined channel proxied as cli" in joined.stdout,
                   f"srtc join --ca-file joined through nginx ({joined.stdout.strip()[:200]} {joined.stderr.strip()[:300]})")

            opener = urllib.request.build_opener(NoRedirect)
            try:
                opener.open(f"http://127.0.0.1:{http_port}/meet/?room=1", timeout=5)
                raise CheckFailed("the port-80 block did not redirect")
            except urllib.error.HTTPError as error:
                location = error.headers.get("Location")
                expect(error.code == 308 and location == "https://127.0.0.1/meet/?room=1",
                       f"plain HTTP is sent to https with its path ({error.code} {location})")
            print("nginx reverse proxy recipe: all checks passed")
            return 0
        except Exception as error:
            print(f"FAIL: {type(error).__name__}: {error}")
            print("--- nginx error log ---")
            print(nginx.log()[-4000:] if nginx else "(not started)")
            print("--- server log ---")
            print(server.read_log()[-4000:])
            return 1
        finally:
            if nginx:
                nginx.close()
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
