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


def call(base, app_id, app_key, method, path, payload=None, context=None, **sign_args):
    """A signed call; returns (status, parsed JSON body). `context`: an `ssl.SSLContext` for https."""
    body = b"" if payload is None else json.dumps(payload).encode()
    headers = sign(app_id, app_key, method, path, body, **sign_args)
    headers["Content-Type"] = "application/json"
    req = urllib.request.Request(base + path, data=body if payload is not None else None, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10, context=context) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


class TestCA:
    """A throwaway certificate authority made with the `openssl` command line in `directory`, and
    the server certificates it issues (PEM files, as an operator's CA or Let's Encrypt gives them)."""

    def __init__(self, directory, name="SRTC Interop CA"):
        self.directory = directory
        self.certificate = os.path.join(directory, "ca.pem")
        self.key = os.path.join(directory, "ca.key")
        self._openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                      "-keyout", self.key, "-out", self.certificate, "-days", "2", "-subj", f"/CN={name}",
                      "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    def issue(self, name, ip_addresses=("127.0.0.1",), serial=1):
        """A server certificate for `ip_addresses` (subject alternative names): (cert path, key path)."""
        cert, key = os.path.join(self.directory, f"{name}.pem"), os.path.join(self.directory, f"{name}.key")
        csr, ext = os.path.join(self.directory, f"{name}.csr"), os.path.join(self.directory, f"{name}.ext")
        with open(ext, "w") as f:
            f.write("subjectAltName=" + ",".join(f"IP:{ip}" for ip in ip_addresses) + "\nextendedKeyUsage=serverAuth\n")
        self._openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                      "-keyout", key, "-out", csr, "-subj", f"/CN={name}")
        self._openssl("x509", "-req", "-in", csr, "-CA", self.certificate, "-CAkey", self.key, "-set_serial", str(serial),
                      "-days", "2", "-extfile", ext, "-out", cert)
        return cert, key

    def ssl_context(self):
        """A client context that trusts only this CA (and checks host names and addresses)."""
        import ssl
        return ssl.create_default_context(cafile=self.certificate)

    @staticmethod
    def spki_sha256(cert):
        """base64(SHA-256(SubjectPublicKeyInfo)) of `cert`: Chromium's --ignore-certificate-errors-spki-list form."""
        import base64
        pem = subprocess.run(["openssl", "x509", "-pubkey", "-noout", "-in", cert], check=True, capture_output=True).stdout
        der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pem, check=True, capture_output=True).stdout
        return base64.b64encode(hashlib.sha256(der).digest()).decode()

    @staticmethod
    def _openssl(*args):
        result = subprocess.run(["openssl", *args], capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(f"openssl {args[0]} failed: {result.stderr}")


class Server:
    """A real srtc-server process on free loopback ports with fixed credentials. `binary` (default
    the built one), `env` (more variables) and `data_dir` (default a new temporary one) let a test
    run an installed server with its own config."""

    def __init__(self, app_id="app_interop", app_key="interop_key_0123456789", extra_args=(), binary=None, env=None,
                 data_dir=None, host=None, tls=None, netns=None):
        """`host`: an address to bind and to reach it at (default: the server's own default,
        127.0.0.1); `tls`: (cert, key, ssl.SSLContext that trusts it) to serve HTTPS/WSS, whereupon
        `base` is `https://…` and calls verify the certificate; `netns`: the network namespace to run
        it in (`ip netns exec`, `ClientServerLab`), reached at `host`."""
        import tempfile
        self.app_id, self.app_key = app_id, app_key
        self.http_port, self.udp_port = free_port(), free_port(socket.SOCK_DGRAM)
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="srtc-interop-")
        os.makedirs(self.data_dir, exist_ok=True)
        env = dict(os.environ, SRTC_APP_ID=app_id, SRTC_APP_KEY=app_key, **(env or {}))
        self.log_path = os.path.join(self.data_dir, "server.log")
        self.log = open(self.log_path, "w")
        self.ssl_context = tls[2] if tls else None
        tls_args = ("--tls-cert", tls[0], "--tls-key", tls[1]) if tls else ()
        self.proc = subprocess.Popen(
            [*netns_prefix(netns), binary or bin_path("srtc-server"), *(("--bind", host) if host else ()), "--http-port", str(self.http_port),
             "--udp-port", str(self.udp_port), "--data-dir", self.data_dir, *tls_args, *extra_args],
            env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.base = f"{'https' if tls else 'http'}://{host or '127.0.0.1'}:{self.http_port}"
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit("srtc-server exited early:\n" + self.read_log())
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=1, context=self.ssl_context) as r:
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
        return call(self.base, self.app_id, self.app_key, method, path, payload, context=self.ssl_context, **kw)

    def channel_token(self, channel, uid, **extra):
        """A channel token from the signed grant (`extra`: more grant fields, e.g. `permissions`)."""
        status, body = self.call("POST", "/server/v1/channel/grant", {"channel": channel, "uid": uid, **extra})
        if status != 200:
            raise CheckFailed(f"grant for {uid} in {channel}: {status} {body}")
        return body["token"]

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

    def __init__(self, server, channel, uid, *args, netns=None):
        import tempfile
        self.log_path = os.path.join(tempfile.mkdtemp(prefix="srtc-bot-"), f"{uid}.log")
        env = dict(os.environ, SRTC_APP_ID=server.app_id, SRTC_APP_KEY=server.app_key)
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen([*netns_prefix(netns), bin_path("srtc"), "join", "--url", server.base, "--channel", channel,
                                          "--uid", uid, *args],
                                         env=env, stdout=log, stderr=subprocess.STDOUT)

    def read_log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def stats(self, uid, desc):
        """The last statistics line (`--stats-interval`) for `uid/desc`, "… N frames, … M packets …",
        as (frames, packets); (0, 0) before one."""
        import re
        frames = packets = 0
        for line in self.read_log().splitlines():
            if not line.strip().startswith(f"{uid}/{desc}:"):
                continue
            f_match, p_match = re.search(r"(\d+) frames", line), re.search(r"(\d+) packets", line)
            if f_match and p_match:
                frames, packets = int(f_match.group(1)), int(p_match.group(1))
        return frames, packets

    def tone(self, uid, desc):
        """The tone frequency (Hz) of the last statistics line for `uid/desc` ("~440 Hz"), or None."""
        import re
        found = re.findall(rf"{re.escape(uid)}/{re.escape(desc)}:.*~(\d+) Hz", self.read_log())
        return int(found[-1]) if found else None

    def wait_tone(self, uid, desc, hz, what, timeout=20):
        """Waits until the participant hears `uid/desc` within 20 Hz of `hz`; returns what it heard."""
        heard = [None]

        def check():
            heard[0] = self.tone(uid, desc)
            return heard[0] is not None and abs(heard[0] - hz) < 20
        try:
            wait_until(check, what, timeout, 0.5)
        except CheckFailed:
            raise CheckFailed(f"{what} not reached within {timeout} s (the Swift participant heard {heard[0]} Hz)") from None
        return heard[0]

    def wait_stats(self, uid, desc, predicate, what, timeout=20):
        """Waits until `predicate((frames, packets))` for `uid/desc`; returns them. The last ones are in the failure."""
        last = [(0, 0)]

        def check():
            last[0] = self.stats(uid, desc)
            return predicate(last[0])
        try:
            wait_until(check, what, timeout, 0.5)
        except CheckFailed:
            raise CheckFailed(f"{what} not reached within {timeout} s (the Swift participant: {last[0][0]} frames, "
                              f"{last[0][1]} packets of {uid}/{desc})") from None
        return last[0]

    def stop(self):
        stop_gently(self.proc)


def red_added(server):
    """The server's counts of RED it added toward lossy subscribers (/metrics,
    `srtc_media_red_added_total` by `block` and `srtc_media_red_switches_total` by `to`), as
    {"with": n, "not_previous": n, "not_cached": n, "unfit": n, "on": n, "off": n}. The SFU
    publishes its counters once a second."""
    import re
    with urllib.request.urlopen(server.base + "/metrics", timeout=5, context=server.ssl_context) as r:
        text = r.read().decode()
    found = {}
    for key, value in re.findall(r'^srtc_media_red_(?:added_total\{block|switches_total\{to)="(\w+)"\} (\S+)$', text, re.M):
        found[key] = int(float(value))
    return found


def netns_prefix(netns):
    """The command prefix that runs a program in network namespace `netns` (none for None)."""
    return ["ip", "netns", "exec", netns] if netns else []


class ClientServerLab:
    """The Python side of the network lab (docs/network.md, `NetworkLab+Clients.swift`): a server
    namespace and a client namespace joined straight by a veth pair, 10.x addresses from the process
    id. The server has `server_address` (/32) on its end; the client one /32 address
    (`client_address`) and a route to the server through its end; the server a host route back.
    `move_client()` gives the client a new address (added, made the route's source, the old one
    removed, as a phone leaving Wi-Fi); `limit(rate_bps)` / `unlimit()` shape what the server sends
    the client (tbf). Needs root; `remove()` deletes both namespaces (their veth
    goes with them), also those of a test process that died (`srtcpy-<pid>-…` of a gone pid)."""

    PREFIX = "srtcpy-"

    def __init__(self):
        pid = os.getpid()
        self._remove_stale()
        self.server_ns, self.client_ns = f"{self.PREFIX}{pid}-s", f"{self.PREFIX}{pid}-c"
        base = f"10.{192 + pid % 64}.{250 + pid % 5}"
        self.server_address, self.client_address = f"{base}.1", f"{base}.2"
        self._next_host = 3
        self._base = base
        self._relays = []
        self._server_dev, self._client_dev = f"cs{pid % 100000:05x}", f"ci{pid % 100000:05x}"
        try:
            for ns in (self.server_ns, self.client_ns):
                self._ip("netns", "add", ns)
                self._ip("-n", ns, "link", "set", "lo", "up")
            self._ip("link", "add", self._server_dev, "netns", self.server_ns, "type", "veth", "peer", "name", self._client_dev,
                     "netns", self.client_ns)
            self._ip("-n", self.server_ns, "addr", "add", self.server_address + "/32", "dev", self._server_dev)
            self._ip("-n", self.client_ns, "addr", "add", self.client_address + "/32", "dev", self._client_dev)
            self._ip("-n", self.server_ns, "link", "set", self._server_dev, "up")
            self._ip("-n", self.client_ns, "link", "set", self._client_dev, "up")
            self._ip("-n", self.client_ns, "route", "add", self.server_address + "/32", "dev", self._client_dev, "src", self.client_address)
            self._ip("-n", self.server_ns, "route", "add", self.client_address + "/32", "dev", self._server_dev)
        except Exception:
            self.remove()
            raise

    @staticmethod
    def available():
        import shutil
        return os.geteuid() == 0 and shutil.which("ip") is not None

    @property
    def client_device(self):
        """The client's end of the veth, in the client namespace: where `rtp_capture.RTPCapture`
        (started after `enter_client()`) sees what reaches the client."""
        return self._client_dev

    def enter_client(self):
        """Moves this (single-threaded) process into the client namespace: what it starts from now
        on (a browser and its driver) runs there; `Server` and `JoinBot` with `netns=lab.server_ns`
        run in the server's. The server is reached at `server_address` through the veth."""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        with open(f"/var/run/netns/{self.client_ns}") as ns:
            if libc.setns(ns.fileno(), 0x40000000) != 0:  # CLONE_NEWNET
                raise OSError(ctypes.get_errno(), "setns into the client namespace")

    def move_client(self):
        """The client's new address (the old one is gone afterwards)."""
        old, new = self.client_address, f"{self._base}.{self._next_host}"
        self._next_host += 1
        self._ip("-n", self.client_ns, "addr", "add", new + "/32", "dev", self._client_dev)
        self._ip("-n", self.server_ns, "route", "add", new + "/32", "dev", self._server_dev)
        self._ip("-n", self.client_ns, "route", "replace", self.server_address + "/32", "dev", self._client_dev, "src", new)
        self.client_address = new
        self._ip("-n", self.client_ns, "addr", "del", old + "/32", "dev", self._client_dev)
        subprocess.run(["ip", "-n", self.server_ns, "route", "del", old + "/32"], capture_output=True)
        return new

    def set_client_link(self, up):
        """Takes the client's link down (the server's end down, the client's without carrier) or
        up again, putting back the server's route to the client that the kernel dropped with it."""
        self._ip("-n", self.server_ns, "link", "set", self._server_dev, "up" if up else "down")
        if up:
            self._ip("-n", self.server_ns, "route", "replace", self.client_address + "/32", "dev", self._server_dev)

    def limit(self, rate_bps, burst_bytes=8192, latency_ms=200):
        """Limits what the server sends the client with a token bucket on the server's veth end
        (its egress, in the server's namespace): `rate_bps` bits per second, a bucket of
        `burst_bytes`, a queue of at most `latency_ms` (tc-tbf(8); the parameters of the Swift
        lab's `NetworkLab.limit(_:side: .inside, ...)`). Replaces the limit there was."""
        self._tc("qdisc", "replace", "dev", self._server_dev, "root", "tbf", "rate", f"{rate_bps}bit", "burst", str(burst_bytes),
                 "latency", f"{latency_ms}ms")

    def unlimit(self):
        """Removes the limit `limit` set."""
        self._tc("qdisc", "del", "dev", self._server_dev, "root")

    def queue_statistics(self):
        """What `tc -s qdisc` says about the server's veth end (sent bytes, drops, backlog)."""
        return subprocess.run(["ip", "netns", "exec", self.server_ns, "tc", "-s", "qdisc", "show", "dev", self._server_dev],
                              capture_output=True, text=True).stdout

    def start_relay(self, server):
        """Puts the lab's userspace link (`srtc-lab-relay`, Swift `LabRelay`: loss, loss in bursts,
        delay, reordering, which this kernel has no netem for) in the path of the client's media:
        the relay runs in the server's namespace, and an nftables `redirect` there sends it the UDP
        the client sends to `server`'s media ports (read from its banner). Conntrack gives the
        relay's answers the server's address and port back, so the client keeps the server's ICE
        candidate; the server sees the client's flows from the relay's ports, as behind a NAT.
        Returns the `LabRelay`; `remove()` stops it."""
        import re
        found = wait_until(lambda: re.search(r"UDP ports ([\d, ]+)", server.read_log()), "the server's media ports", timeout=10)
        ports = [int(p) for p in found.group(1).replace(" ", "").split(",") if p]
        relay = LabRelay(self.server_ns, self.server_address, ports)
        self._relays.append(relay)
        rules = "\n".join(f'    iifname "{self._server_dev}" udp dport {port} redirect to :{relay.ports[port]}' for port in ports)
        subprocess.run(["ip", "netns", "exec", self.server_ns, "nft", "-f", "-"], check=True, text=True,
                       input=f"table ip srtclab_relay {{\n  chain prerouting {{\n    type nat hook prerouting priority -100;\n{rules}\n  }}\n}}\n")
        return relay

    def _tc(self, *args):
        result = subprocess.run(["ip", "netns", "exec", self.server_ns, "tc", *args], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"tc {' '.join(args)} failed: {result.stderr.strip()}")

    def remove(self):
        for relay in self._relays:
            relay.stop()
        for ns in (self.server_ns, self.client_ns):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    @classmethod
    def _remove_stale(cls):
        listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        for name in (line.split()[0] for line in listing.splitlines() if line.startswith(cls.PREFIX)):
            pid = name[len(cls.PREFIX):].split("-")[0]
            if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                subprocess.run(["ip", "netns", "del", name], capture_output=True)

    @staticmethod
    def _ip(*args):
        result = subprocess.run(["ip", *args], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"ip {' '.join(args)} failed: {result.stderr.strip()}")


class LabRelay:
    """A running `srtc-lab-relay` (`ClientServerLab.start_relay`). `shape(down=..., up=...)` sets
    what each direction does from now on: None (passed as it comes) or a dict of `loss` (share
    lost at random), `burst` ((length, period): runs of `length` lost in every `period`
    datagrams), `fade` ((ms, period ms): everything lost for `ms` in every `period`, the same
    moments for every flow), `delay` and `jitter` (ms; jitter reorders), `rate` (bit/s) and `queue` (ms); the
    relay's flows all get the same shape and seed, so two clients lose the same positions of
    their own streams. `stats()`: the counters since the last `shape` (`downlink` / `uplink`:
    `offered`, `randomlyLost`, `burstLost`, `queueDropped`; `flows`)."""

    def __init__(self, netns, server_address, ports):
        self.proc = subprocess.Popen(["ip", "netns", "exec", netns, bin_path("srtc-lab-relay"), "--server", server_address,
                                      "--ports", ",".join(map(str, ports))],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        banner = self.proc.stdout.readline().split()
        if not banner or banner[0] != "relay":
            raise RuntimeError(f"srtc-lab-relay did not start: {banner}")
        self.ports = {int(a): int(b) for a, b in (pair.split("=") for pair in banner[1:])}

    def _command(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    @staticmethod
    def _words(shape):
        if not shape:
            return "none"
        words = [f"{key}={value}" for key, value in shape.items() if key not in ("burst", "fade")]
        if "burst" in shape:
            words.append("burst=%d/%d" % shape["burst"])
        if "fade" in shape:
            words.append("fade=%d/%d" % shape["fade"])
        return " ".join(words)

    def shape(self, down=None, up=None):
        for direction, shape in (("down", down), ("up", up)):
            answer = self._command(f"{direction} {self._words(shape)}")
            if answer != "ok":
                raise RuntimeError(f"srtc-lab-relay {direction}: {answer}")

    def stats(self):
        return json.loads(self._command("stats"))

    def trace(self, path):
        """From now on a line per datagram toward the clients, kept or dropped, with its RTP
        header's fields, into `path` (None: stop); `read_relay_trace` reads it."""
        answer = self._command(f"trace {path or 'off'}")
        if answer != "ok":
            raise RuntimeError(f"srtc-lab-relay trace: {answer}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def stop_gently(proc):
    """SIGINT (an `srtc` command leaves its channel or logs out), then SIGKILL after 10 s."""
    import signal
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


# ---- The test pattern's frame-number code band (RTCMedia's TestPatternLayout.swift) ---------------
# 2 rows × 16 cells across the top of the picture, each black (Y 16) or white (Y 235) for one bit:
# a 24-bit frame number then an 8-bit check byte, most significant first.

CODE_BLACK, CODE_WHITE = 16, 235


def code_check(value):
    total = (value & 0xFF) + (value >> 8 & 0xFF) * 3 + (value >> 16 & 0xFF) * 7
    return (total & 0xFF) ^ 0x5A


def code_bits(number):
    word = (number & 0xFFFFFF) << 8 | code_check(number & 0xFFFFFF)
    return [(word >> (31 - i)) & 1 == 1 for i in range(32)]


def code_cells(width, height):
    """(x, y, cell width, cell height) of the 32 code cells of a `width`×`height` picture."""
    cell_w, cell_h = width // 16, max(4, height // 12)
    return [((i % 16) * cell_w, (i // 16) * cell_h, cell_w, cell_h) for i in range(32)]


def paint_code_band(luma, width, height, number):
    """Writes `number`'s code band into `luma` (a bytearray of `width`×`height` luma samples)."""
    for (x0, y0, cell_w, cell_h), bit in zip(code_cells(width, height), code_bits(number)):
        row = bytes([CODE_WHITE if bit else CODE_BLACK]) * cell_w
        for y in range(y0, y0 + cell_h):
            luma[y * width + x0:y * width + x0 + cell_w] = row


def number_from_cells(cells):
    """The frame number of 32 cell brightnesses, or None. As TestPatternReader.swift: a cell clearly
    dark (< 96) or bright (> 160), else unreadable."""
    if any(96 <= c <= 160 for c in cells):
        return None
    word = 0
    for c in cells:
        word = word << 1 | (1 if c > 160 else 0)
    value = word >> 8
    return value if word & 0xFF == code_check(value) else None


def read_code_band(luma, stride, width, height):
    """The frame number in a decoded luma plane (`stride` bytes a row), from each cell's centre half."""
    cells = []
    for x0, y0, cell_w, cell_h in code_cells(width, height):
        xs = range(x0 + cell_w // 4, x0 + cell_w - cell_w // 4)
        ys = range(y0 + cell_h // 4, y0 + cell_h - cell_h // 4)
        cells.append(sum(sum(luma[y * stride + xs.start:y * stride + xs.stop]) for y in ys) / (len(xs) * len(ys)))
    return number_from_cells(cells)


def y4m_frame_numbers(path):
    """(width, height, [frame number or None per frame]) of a YUV4MPEG2 file (4:2:0), as far as
    whole frames are written (the file may still grow)."""
    with open(path, "rb") as f:
        data = f.read()
    header, _, rest = data.partition(b"\n")
    fields = {part[:1]: part[1:] for part in header.split(b" ")[1:]}
    width, height = int(fields[b"W"]), int(fields[b"H"])
    frame_size = width * height + 2 * ((width + 1) // 2) * ((height + 1) // 2)
    numbers, offset = [], 0
    while True:
        marker = rest.find(b"\n", offset)
        if marker < 0 or not rest.startswith(b"FRAME", offset) or marker + 1 + frame_size > len(rest):
            break
        luma = rest[marker + 1:marker + 1 + width * height]
        numbers.append(read_code_band(luma, width, width, height))
        offset = marker + 1 + frame_size
    return width, height, numbers


# ---- Browser tests -----------------------------------------------------------------------------

class CheckFailed(Exception):
    """A check of a browser test failed; the message says which."""


def ok(text):
    print(f"ok  {text}")


def expect(condition, text):
    if not condition:
        raise CheckFailed(text)
    ok(text)


def reexec_in_loopback_namespace(script, lo_address=None):
    """Re-runs `script` in a new network namespace that has only `lo` (up), so browser media
    stays on 127.0.0.1; `lo_address` (e.g. "10.213.0.1") is added to `lo` for clients that do not
    gather 127.0.0.1 (aiortc). Returns at once when already inside one, or when `unshare -n` is not
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
    setup = "ip link set lo up" + (f" && ip addr add {lo_address}/32 dev lo" if lo_address else "")
    cmd = ["unshare", "-n", "sh", "-c", setup + ' && exec "$0" "$@"', sys.executable, os.path.abspath(script)]
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


def dump_browsers(driver, names, output_dir=None):
    """After a failure: a screenshot of each window (into `output_dir`) and its console."""
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


def run_browser_test(title, run, server_args=(), driver_flags=(), wait_seconds=20, dump=None, server_options=None):
    """The frame of a browser test: a real srtc-server serving the checkout's `web/` (plus
    `server_args`) and headless Chromium (plus `driver_flags`), then `run(server, driver)`. On a
    failure, `dump(driver)` prints what the test knows (events, consoles), then the server log's
    tail. Returns the exit status; everything started is stopped."""
    driver = None
    with Server(extra_args=("--web-dir", os.path.join(ROOT, "web"), *server_args), **(server_options or {})) as server:
        try:
            driver = make_driver(wait_seconds + 10, extra_flags=driver_flags)
            started = time.time()
            run(server, driver)
            print(f"{title}: all checks passed in {time.time() - started:.1f} s")
            return 0
        except Exception as error:
            print(f"FAIL: {type(error).__name__}: {error}")
            if driver and dump:
                try:
                    dump(driver)
                except Exception as e:  # a window may be gone
                    print(f"(no dump: {e})")
            print("--- server log ---")
            print(server.read_log()[-8000:])
            return 1
        finally:
            if driver:
                driver.quit()


def run_browser_lab_test(title, run, channel, bot_uid, bot_args, wait_seconds=30, dump=None, browser=True):
    """The frame of a test in the network lab (`ClientServerLab`): this process, and with it
    headless Chromium (unless `browser` is false: then `driver` is None, for a client such as
    aiortc running in this process), in the client namespace; srtc-server (serving `web/`) and
    `srtc join` as `bot_uid` of `channel` with `bot_args` in the server's; then
    `run(lab, server, driver, bot)`. On a failure `dump(driver)` (when given) or the page's
    console, the participant's log and the server log's tail are printed. Skipped (0) without
    root; returns the exit status; the namespaces and everything started are removed."""
    if not ClientServerLab.available():
        print("skipped: needs root and ip netns")
        return 0
    os.environ.setdefault("SRTC_BIN_DIR", subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=ROOT, text=True).strip())
    lab = ClientServerLab()
    server = bot = driver = None
    try:
        lab.enter_client()
        server = Server(host=lab.server_address, netns=lab.server_ns, extra_args=("--web-dir", os.path.join(ROOT, "web")))
        bot = JoinBot(server, channel, bot_uid, *bot_args, netns=lab.server_ns)
        if browser:
            driver = make_driver(wait_seconds + 10, extra_flags=(f"--unsafely-treat-insecure-origin-as-secure={server.base}",))
        started = time.time()
        run(lab, server, driver, bot)
        print(f"{title}: all checks passed in {time.time() - started:.1f} s")
        return 0
    except Exception as error:
        print(f"FAIL: {type(error).__name__}: {error}")
        if dump and not driver:
            dump(None)
        if driver:
            try:
                if dump:
                    dump(driver)
                for line in Tab(driver, driver.current_window_handle, "browser").console()[-50:]:
                    print(line)
            except Exception as e:  # the window may be gone
                print(f"(no page state: {e})")
        if bot:
            print("--- srtc join ---\n" + bot.read_log()[-3000:])
        if server:
            print("--- server log ---\n" + server.read_log()[-4000:])
        return 1
    finally:
        if driver:
            driver.quit()
        if bot:
            bot.stop()
        if server:
            server.close()
        lab.remove()


def run_browser_bot_test(title, run, channel, bot_uid, bot_args, prepare=None, server_args=(), wait_seconds=20):
    """`run_browser_test` with a Swift SDK participant: `prepare(server)` (when given) runs first,
    then `srtc join` joins `channel` as `bot_uid` with `bot_args`, then `run(server, driver, bot)`.
    On a failure every window's events and console and the participant's log are printed."""
    bots = []

    def run_with_bot(server, driver):
        if prepare:
            prepare(server)
        bots.append(JoinBot(server, channel, bot_uid, *bot_args))
        try:
            run(server, driver, bots[0])
        finally:
            bots[0].stop()

    def dump(driver):
        for index, handle in enumerate(driver.window_handles):
            tab = Tab(driver, handle, f"window {index + 1}")
            print(f"--- {tab.name}: events ---")
            for event in (tab.events() or [])[-30:]:
                print(str(event)[:300])
            print(f"--- {tab.name}: console ---")
            for line in tab.console()[-60:]:
                print(line)
        for bot in bots:
            print("--- Swift participant (srtc join) log ---")
            print(bot.read_log()[-6000:])

    return run_browser_test(title, run_with_bot, server_args=server_args, wait_seconds=wait_seconds, dump=dump)


def report_failure(error, bot, server, server_tail=6000):
    """Prints a failed interop check with the Swift participant's and the server's logs; returns 1."""
    print(f"FAIL: {type(error).__name__}: {error}")
    print("--- Swift participant (srtc join) log ---")
    print(bot.read_log()[-6000:])
    print("--- server log ---")
    print(server.read_log()[-server_tail:])
    return 1


def wait_until(predicate, what, timeout=20, interval=0.2):
    """Polls `predicate()` until it returns something true (returned) or `timeout` seconds pass
    (then `CheckFailed` names `what`)."""
    deadline = time.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.time() >= deadline:
            raise CheckFailed(f"{what} not reached within {timeout} s")
        time.sleep(interval)


# Turns anything the SDKs pass to listeners into JSON a test can read: tracks by id, errors by code.
SUMMARIZE_JS = """
window.summarize = (a) => {
  if (a && typeof a === 'object' && 'mediaStreamTrack' in a) return {track: a.id, uid: a.uid, kind: a.kind, desc: a.desc, muted: a.muted, layers: a.layers};
  if (a instanceof Error) return {error: a.message, code: a.code, kind: a.kind};
  try { return JSON.parse(JSON.stringify(a === undefined ? null : a)); } catch (e) { return String(a); }
};
"""

# Runs `body` (an async function body using `ch` and `srtc`, the page's `window.ch` and
# `window.srtc`) and returns {ok, value} or {ok: false, error, code, kind}.
CALL_JS = """
const [body, done] = arguments;
const fn = new Function('ch', 'srtc', 'return (async () => {' + body + '})()');
fn(window.ch, window.srtc).then((value) => done({ok: true, value: window.summarize(value)}),
                                 (e) => done({ok: false, error: e.message, code: e.code, kind: e.kind}));
"""


class Tab:
    """One browser window of a test; every call switches to it first. Pages record SDK events in
    `window.events` as `{name, args}` (summarized with `SUMMARIZE_JS`)."""

    WAIT_SECONDS = 20

    def __init__(self, driver, handle, name):
        self.driver, self.handle, self.name = driver, handle, name

    def focus(self):
        self.driver.switch_to.window(self.handle)

    def run(self, script, *args):
        self.focus()
        return self.driver.execute_script(script, *args)

    def run_async(self, script, *args):
        self.focus()
        return self.driver.execute_async_script(script, *args)

    def call(self, body):
        """Runs SDK code in the page (`CALL_JS`); returns the result dict."""
        return self.run_async(CALL_JS, body)

    @classmethod
    def joined(cls, driver, server, name, channel, uid, join_js, *join_args, new_window=False):
        """Opens the server's page (in a new window when `new_window`) and joins `channel` as `uid`
        with `join_js` (arguments: the token, then `join_args`); returns the window's tab."""
        if new_window:
            driver.switch_to.new_window("window")
        driver.get(server.base + "/")
        tab = cls(driver, driver.current_window_handle, name)
        joined = tab.run_async(join_js, server.channel_token(channel, uid), *join_args)
        expect(joined["ok"], f"{name} joined {channel} as {uid} ({joined.get('error', 'ok')})")
        return tab

    def wait_remote_track(self, uid, kind, timeout=None):
        """`uid`'s first remote track of `kind` once this page's channel knows it: {id, codec, layers}."""
        script = (f"for (const t of ch.remoteTracks) if (t.uid === {json.dumps(uid)} && t.kind === {json.dumps(kind)}) "
                  "return {id: t.id, codec: t.codec, layers: (t.info.layers || []).map((l) => l.desc)}; return null;")
        return self.wait_value(lambda: self.call(script).get("value"), bool, f"{uid}'s {kind} track", timeout)

    def events(self):
        return self.run("return window.events || []")

    def wait_event(self, name, predicate=lambda args: True, timeout=None, after=0):
        """The args of the first event `name` (at index >= after) matching `predicate`."""
        timeout = timeout or self.WAIT_SECONDS

        def found():
            for event in self.events()[after:]:
                if event["name"] == name and predicate(event["args"]):
                    return {"args": event["args"]}
            return None
        try:
            return wait_until(found, f"{self.name}: {name} event", timeout, 0.1)["args"]
        except CheckFailed:
            raise CheckFailed(f"{self.name}: no {name} event within {timeout} s") from None

    def wait_true(self, script, what, timeout=None, *args):
        """Waits until `script` (run in the page with `args`) returns something true; returns it."""
        return wait_until(lambda: self.run(script, *args), f"{self.name}: {what}", timeout or self.WAIT_SECONDS, 0.1)

    def wait_value(self, fetch, predicate, what, timeout=None, interval=0.25):
        """Waits until `predicate(fetch())`; returns that value. The last one is in the failure."""
        last = [None]

        def check():
            last[0] = fetch()
            return predicate(last[0])
        try:
            wait_until(check, what, timeout or self.WAIT_SECONDS, interval)
        except CheckFailed:
            raise CheckFailed(f"{self.name}: {what} not reached within {timeout or self.WAIT_SECONDS} s; last {json.dumps(last[0])}") from None
        return last[0]

    def console(self):
        self.focus()
        try:
            return [entry.get("message") for entry in self.driver.get_log("browser")]
        except Exception as error:  # the log may be unavailable
            return [f"(no console log: {error})"]
