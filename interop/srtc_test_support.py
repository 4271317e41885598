"""Helpers shared by the interop tests: locating built binaries, free ports, signed calls (stdlib only)."""
import hashlib
import hmac
import json
import os
import secrets
import socket
import subprocess
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bin_path(name):
    """Path of a SwiftPM product built by `swift build` (debug unless SRTC_BIN_DIR says otherwise)."""
    base = os.environ.get("SRTC_BIN_DIR")
    if not base:
        base = subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=ROOT, text=True).strip()
    path = os.path.join(base, name)
    if not os.path.exists(path):
        raise SystemExit(f"{path} is missing: run `swift build` first")
    return path


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sign(app_id, app_key, method, path, body, nonce=None, timestamp=None):
    nonce = nonce or secrets.token_hex(16)
    timestamp = str(timestamp if timestamp is not None else int(time.time()))
    to_sign = "\n".join([app_id, nonce, timestamp, method, path, hashlib.sha256(body).hexdigest()])
    signature = hmac.new(app_key.encode(), to_sign.encode(), hashlib.sha256).hexdigest()
    return {"app_id": app_id, "nonce": nonce, "timestamp": timestamp, "signature": signature}


def call(base, app_id, app_key, method, path, payload=None, **sign_args):
    """A signed call; returns (status, parsed JSON body)."""
    body = b"" if payload is None else json.dumps(payload).encode()
    headers = sign(app_id, app_key, method, path, body, **sign_args)
    headers["Content-Type"] = "application/json"
    req = urllib.request.Request(base + path, data=body if payload is not None else None, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


class Server:
    """A real srtc-server process on free loopback ports with fixed credentials."""

    def __init__(self, app_id="app_interop", app_key="interop_key_0123456789", extra_args=()):
        import tempfile
        self.app_id, self.app_key = app_id, app_key
        self.http_port, self.udp_port = free_port(), free_port(socket.SOCK_DGRAM)
        self.data_dir = tempfile.mkdtemp(prefix="srtc-interop-")
        env = dict(os.environ, SRTC_APP_ID=app_id, SRTC_APP_KEY=app_key)
        self.log_path = os.path.join(self.data_dir, "server.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [bin_path("srtc-server"), "--http-port", str(self.http_port), "--udp-port", str(self.udp_port),
             "--data-dir", self.data_dir, *extra_args],
            env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.base = f"http://127.0.0.1:{self.http_port}"
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit("srtc-server exited early:\n" + self.read_log())
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("srtc-server did not become healthy:\n" + self.read_log())

    def read_log(self):
        self.log.flush()
        with open(self.log_path) as f:
            return f.read()

    def call(self, method, path, payload=None, **kw):
        return call(self.base, self.app_id, self.app_key, method, path, payload, **kw)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class JoinBot:
    """`srtc join` (the Swift SDK) as a participant of `channel` on `server`, with the app's
    credentials; its output goes to `log_path`. Stops with SIGINT (it leaves), then SIGKILL."""

    def __init__(self, server, channel, uid, *args):
        import tempfile
        self.log_path = os.path.join(tempfile.mkdtemp(prefix="srtc-bot-"), f"{uid}.log")
        env = dict(os.environ, SRTC_APP_ID=server.app_id, SRTC_APP_KEY=server.app_key)
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen([bin_path("srtc"), "join", "--url", server.base, "--channel", channel, "--uid", uid, *args],
                                         env=env, stdout=log, stderr=subprocess.STDOUT)

    def read_log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def stop(self):
        stop_gently(self.proc)


def stop_gently(proc):
    """SIGINT (an `srtc` command leaves its channel or logs out), then SIGKILL after 10 s."""
    import signal
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


# ---- Browser tests -----------------------------------------------------------------------------

class CheckFailed(Exception):
    """A check of a browser test failed; the message says which."""


def ok(text):
    print(f"ok  {text}")


def expect(condition, text):
    if not condition:
        raise CheckFailed(text)
    ok(text)


def reexec_in_loopback_namespace(script):
    """Re-runs `script` in a new network namespace that has only `lo` (up), so browser media
    stays on 127.0.0.1. Returns at once when already inside one, or when `unshare -n` is not
    allowed (the test then runs in the current namespace)."""
    import shutil
    import sys
    if os.environ.get("SRTC_IN_NETNS") or not shutil.which("unshare") or not shutil.which("ip"):
        return
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        print("note: unshare -n not allowed; running in the current network namespace")
        return
    env = dict(os.environ, SRTC_IN_NETNS="1")
    if "SRTC_BIN_DIR" not in env:  # resolve before entering the namespace (swift may want the network)
        env["SRTC_BIN_DIR"] = subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=ROOT, text=True).strip()
    cmd = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', sys.executable, os.path.abspath(script)]
    sys.exit(subprocess.run(cmd, env=env).returncode)


def make_driver(script_timeout=30, extra_flags=()):
    """Headless Chromium (Debian's chromium + chromedriver) with fake camera and microphone;
    `extra_flags` are added to the command line."""
    import shutil
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--use-fake-ui-for-media-stream",
                 "--use-fake-device-for-media-stream", "--disable-gpu", "--disable-dev-shm-usage",
                 "--allow-loopback-in-peer-connection", "--disable-background-timer-throttling",
                 "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows",
                 "--autoplay-policy=no-user-gesture-required", *extra_flags):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(script_timeout)
    return driver


def dump_browsers(driver, names, server, output_dir=None):
    """After a failure: a screenshot of each window (into `output_dir`), its console, the server log."""
    for handle, name in zip(driver.window_handles, names):
        driver.switch_to.window(handle)
        if output_dir:
            try:
                driver.save_screenshot(os.path.join(output_dir, f"failure-{name.lower()}.png"))
            except Exception as error:
                print(f"(no screenshot of {name}: {error})")
        print(f"--- browser console of {name} ---")
        try:
            for entry in driver.get_log("browser")[-60:]:
                print(entry.get("message"))
        except Exception as error:
            print(f"(no console log: {error})")
    print("--- server log ---")
    print(server.read_log()[-8000:])
