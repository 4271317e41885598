#!/usr/bin/env python3
"""The Debian package and `make install`, as an operator gets them. `scripts/build-deb` packages the
built binaries (those of `swift build`, as every interop test runs them); dpkg-deb shows the expected
files, the conffile and a Depends naming the package of every library the binaries load; the
package unpacked into a temporary root runs its own server, Swift runtime and web/ on the packaged
config, moved into the root only by flags and variables (data directory, loopback ports, web
directory); `systemd-analyze verify` accepts the unit with and without the low-ports drop-in, and
refuses a broken copy (so the check can fail); the maintainer scripts parse (`sh -n`). Then
`make install PREFIX=/usr/local DESTDIR=…` gives the same layout under the prefix, without
maintainer scripts, and that server starts too. Nothing is installed on this machine."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srtc_test_support import ROOT, CheckFailed, Server, bin_path, expect, ok  # noqa: E402

BINARIES = ("srtc-server", "srtc-egress", "srtc")
UNIT = "srtc-server.service"
# Libraries of the Swift toolchain: bundled in lib/srtc/swift when the binaries link them dynamically.
SWIFT_RUNTIME = re.compile(r"^(libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime)")
# Hardening and service settings the unit must keep (docs/deploy.md).
UNIT_SETTINGS = ["User=srtc", "ProtectSystem=strict", "StateDirectory=srtc", "NoNewPrivileges=yes", "PrivateTmp=yes",
                 "ProtectHome=yes", "Restart=on-failure", "ExecReload=/bin/kill -HUP $MAINPID", "CapabilityBoundingSet="]


def run(cmd, **kw):
    """Runs `cmd`; its output, or a failure that shows it."""
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        raise CheckFailed(f"{' '.join(cmd)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def get(url):
    """(status, body) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


# ---- The package -------------------------------------------------------------------------------

def build_package(bin_dir, out_dir):
    env = dict(os.environ, DEB_BIN_DIR=bin_dir, DEB_OUT_DIR=out_dir, DEB_COMPRESSION="none")
    deb = run([os.path.join(ROOT, "scripts", "build-deb")], env=env).strip().splitlines()[-1]
    expect(os.path.isfile(deb) and re.search(r"/srtc_[0-9.]+-1_[a-z0-9]+\.deb$", deb), f"make deb's script built {os.path.basename(deb)}")
    return deb


def check_contents(deb):
    listing = run(["dpkg-deb", "--contents", deb]).splitlines()
    entries = {}
    for line in listing:
        mode, owner, *_, path = line.split()
        entries[path.removeprefix(".")] = (mode, owner)
    for name in BINARIES:
        expect(entries.get(f"/usr/bin/{name}", ("",))[0] == "-rwxr-xr-x", f"/usr/bin/{name} is in the package, mode 0755")
    web = sorted(os.path.relpath(os.path.join(d, f), os.path.join(ROOT, "web")) for d, _, fs in os.walk(os.path.join(ROOT, "web")) for f in fs)
    missing = [f for f in web if f"/usr/share/srtc/web/{f}" not in entries]
    expect(not missing, f"all {len(web)} files of web/ are in /usr/share/srtc/web (missing: {missing[:5]})")
    for path in ["/etc/srtc/srtc-server.json", f"/lib/systemd/system/{UNIT}", "/usr/share/srtc/systemd/low-ports.conf",
                 "/usr/share/doc/srtc/deploy.md"]:
        expect(entries.get(path, ("",))[0] == "-rw-r--r--", f"{path} is in the package, mode 0644")
    owners = {owner for _, owner in entries.values()}
    expect(owners == {"root/root"}, f"every file belongs to root/root ({owners})")
    outside = [p for p in entries if not re.match(r"^/($|etc/($|srtc/)|lib/($|systemd/)|usr/($|bin/|lib/($|srtc/)|share/($|srtc/|doc/)))", p)]
    expect(not outside, f"nothing outside /etc/srtc, /lib/systemd, /usr/bin, /usr/lib/srtc, /usr/share ({outside[:5]})")
    expect(not any(p.startswith("/var/") for p in entries), "/var/lib/srtc is left to postinst (it makes it for the srtc user)")


def check_control(deb, tmp):
    info = run(["dpkg-deb", "--info", deb])
    control_dir = os.path.join(tmp, "control")
    run(["dpkg-deb", "--control", deb, control_dir])
    with open(os.path.join(control_dir, "conffiles")) as f:
        expect(f.read().split() == ["/etc/srtc/srtc-server.json"], "conffiles: /etc/srtc/srtc-server.json, and nothing else")
    for script in ("postinst", "prerm", "postrm"):
        path = os.path.join(control_dir, script)
        expect(os.access(path, os.X_OK) and script in info, f"{script} is in the package and executable")
        run(["sh", "-n", path])
        ok(f"sh -n {script}: no syntax error")
    fields = run(["dpkg-deb", "--field", deb, "Package", "Version", "Architecture", "Depends"])
    depends = re.search(r"^Depends: (.*)$", fields, re.M).group(1)
    expect(re.search(r"^Package: srtc$", fields, re.M) and re.search(r"^Architecture: \S+$", fields, re.M),
           "control names the package srtc and its architecture")
    return {d.strip().split(" ")[0] for d in depends.split(",")}


def package_of(path):
    """The Debian package that ships `path` (tried as given, resolved, and across the /usr merge)."""
    real = os.path.realpath(path)
    for candidate in (path, real, path.removeprefix("/usr"), "/usr" + path, real.removeprefix("/usr"), "/usr" + real):
        result = subprocess.run(["dpkg-query", "-S", candidate], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.split(":")[0]
    return None


def check_libraries(root, depends):
    """Every library an ELF file of the package needs directly is bundled (the Swift runtime,
    found in the root) or comes from a package named in Depends."""
    elves = [os.path.join(root, "usr/bin", b) for b in BINARIES]
    swift_dir = os.path.join(root, "usr/lib/srtc/swift")
    if os.path.isdir(swift_dir):
        elves += [os.path.join(swift_dir, f) for f in sorted(os.listdir(swift_dir))]
    bundled, packaged = set(), set()
    for elf in elves:
        needed = re.findall(r"^\s*NEEDED\s+(\S+)$", run(["objdump", "-p", elf]), re.M)
        loaded = run(["ldd", elf])
        resolved = dict(re.findall(r"^\s*(\S+) => (/\S+)", loaded, re.M))
        resolved.update((os.path.basename(p), p) for p in re.findall(r"^\s*(/\S+) \(0x", loaded, re.M))  # the loader itself
        for name in needed:
            path = resolved.get(name)
            if path is None:
                raise CheckFailed(f"{elf} needs {name}, which the loader does not find")
            if SWIFT_RUNTIME.match(name):
                if not os.path.realpath(path).startswith(os.path.realpath(swift_dir) + "/"):
                    raise CheckFailed(f"{elf} loads {name} from {path}, not from the package's {swift_dir}")
                bundled.add(name)
                continue
            package = package_of(path)
            if package not in depends:
                raise CheckFailed(f"{elf} needs {name} ({path}, package {package}), which Depends does not name: {sorted(depends)}")
            packaged.add(package)
    expect("adduser" in depends, "Depends names adduser (postinst makes the srtc user)")
    ok(f"Depends names the package of every library needed ({len(packaged)}: {', '.join(sorted(packaged))})")
    ok(f"Swift runtime: {'%d libraries bundled in /usr/lib/srtc/swift' % len(bundled) if bundled else 'linked in'}")


# ---- Running what was installed ------------------------------------------------------------------

def run_installed_server(root, prefix, config):
    """Starts `root`/`prefix`/bin/srtc-server on `config` as installed; only the data directory,
    the address, the ports and the web directory move into the test's root, by variables and flags."""
    with open(config) as f:
        settings = json.load(f)
    web_dir = root + settings["web_dir"]
    expect(settings["data_dir"] == "/var/lib/srtc" and settings["web_dir"] == f"{prefix}/share/srtc/web",
           f"{os.path.basename(config)}: data_dir /var/lib/srtc, web_dir {prefix}/share/srtc/web")
    env = {"SRTC_CONFIG": config, "SRTC_BIND": "127.0.0.1", "SRTC_WEB_DIR": web_dir}
    server = Server(binary=root + prefix + "/bin/srtc-server", env=env, data_dir=root + settings["data_dir"])
    with server:
        status, body = get(server.base + "/healthz")
        expect(status == 200 and json.loads(body)["status"] == "ok", "GET /healthz: 200 ok")
        status, body = get(server.base + "/sdk/srtc.js")
        with open(os.path.join(web_dir, "srtc.js"), "rb") as f:
            expect(status == 200 and body == f.read(), f"GET /sdk/srtc.js: 200, the installed {prefix}/share/srtc/web/srtc.js")
        status, _ = get(server.base + "/meet/")
        expect(status == 200, "GET /meet/ (the meeting app): 200")
        status, body = server.call("POST", "/server/v1/channel/grant", {"channel": "room1", "uid": "alice"})
        expect(status == 200 and "token" in body, "a signed grant with the credentials from the environment: 200")
        expect(os.path.isfile(os.path.join(server.data_dir, "srtc.sqlite3")), "the database is in the data directory")
    for name in ("srtc-egress", "srtc"):
        run([root + prefix + "/bin/" + name, "--help"])
    ok("srtc-egress and srtc run from the same directory")


def verify_unit(unit_path, root, prefix, tmp, name, drop_in=None):
    """systemd-analyze verify on a copy of the unit whose ExecStart names the binary in `root`
    (verify wants it to exist); returns what it says about the copy (empty: accepted)."""
    units = os.path.join(tmp, "units-" + name)
    os.makedirs(units)
    with open(unit_path) as f:
        text = f.read().replace(f"ExecStart={prefix}/bin/", f"ExecStart={root}{prefix}/bin/")
    with open(os.path.join(units, UNIT), "w") as f:
        f.write(text)
    if drop_in:
        os.makedirs(os.path.join(units, UNIT + ".d"))
        shutil.copy(drop_in, os.path.join(units, UNIT + ".d", os.path.basename(drop_in)))
    env = dict(os.environ, SYSTEMD_UNIT_PATH=units + ":")  # the trailing colon keeps the default path
    result = subprocess.run(["systemd-analyze", "verify", os.path.join(units, UNIT)], capture_output=True, text=True, cwd=units, env=env)
    complaints = [line for line in (result.stdout + result.stderr).splitlines() if units in line or UNIT in line]
    if result.returncode != 0 and not complaints:
        complaints = [f"exit {result.returncode}: {result.stderr.strip()}"]
    return complaints


def check_unit(unit_path, root, prefix, drop_in, tmp, label):
    with open(unit_path) as f:
        lines = set(f.read().splitlines())
    missing = [s for s in UNIT_SETTINGS if s not in lines]
    expect(not missing, f"{label} unit has User=srtc, ProtectSystem=strict, StateDirectory, … (missing: {missing})")
    expect(f"ExecStart={prefix}/bin/srtc-server --config {'/etc' if prefix == '/usr' else prefix + '/etc'}/srtc/srtc-server.json" in lines,
           f"{label} unit starts {prefix}/bin/srtc-server on its config")
    expect(not any(line.startswith("AmbientCapabilities=CAP") for line in lines), f"{label} unit grants no capability")
    complaints = verify_unit(unit_path, root, prefix, tmp, label)
    expect(not complaints, f"systemd-analyze verify accepts the {label} unit {complaints}")
    complaints = verify_unit(unit_path, root, prefix, tmp, label + "-low-ports", drop_in)
    expect(not complaints, f"systemd-analyze verify accepts it with the low-ports drop-in {complaints}")


def check_verify_can_fail(unit_path, root, prefix, tmp):
    """The checks above would see a broken unit: a misspelt value, then a missing binary."""
    broken = os.path.join(tmp, "broken.service")
    with open(unit_path) as f:
        text = f.read()
    with open(broken, "w") as f:
        f.write(text.replace("ProtectSystem=strict", "ProtectSystem=strcit"))
    complaints = verify_unit(broken, root, prefix, tmp, "broken-value")
    expect(any("strcit" in c for c in complaints), f"a broken copy (ProtectSystem=strcit) is refused: {complaints[:1]}")
    complaints = verify_unit(unit_path, root + "/nowhere", prefix, tmp, "broken-exec")
    expect(any("not executable" in c or "No such file" in c for c in complaints), f"a copy naming a missing binary is refused: {complaints[:1]}")


# ---- make install --------------------------------------------------------------------------------

def check_make_install(bin_dir, tmp):
    dest, prefix = os.path.join(tmp, "dest"), "/usr/local"
    out = run(["make", "--no-print-directory", "-C", ROOT, "install", f"PREFIX={prefix}", f"DESTDIR={dest}", f"BIN_DIR={bin_dir}"])
    expect("useradd --system" in out and "systemctl" in out and "journalctl -u srtc-server" in out,
           "make install prints what to do next (the srtc user, systemctl, journalctl)")
    files = sorted("/" + os.path.relpath(os.path.join(d, f), dest) for d, _, fs in os.walk(dest) for f in fs)
    for path in [f"{prefix}/bin/{b}" for b in BINARIES] + [f"{prefix}/etc/srtc/srtc-server.json", f"{prefix}/lib/systemd/system/{UNIT}",
                                                           f"{prefix}/share/srtc/web/srtc.js", f"{prefix}/share/srtc/web/meet/index.html",
                                                           f"{prefix}/share/srtc/systemd/low-ports.conf"]:
        expect(path in files, f"make install: {path}")
    outside = [f for f in files if not f.startswith(prefix + "/")]
    expect(not outside, f"make install writes only under DESTDIR{prefix} ({outside[:5]})")
    expect(not any("DEBIAN" in f or "postinst" in f for f in files), "make install has no maintainer scripts")
    unit = dest + f"{prefix}/lib/systemd/system/{UNIT}"
    check_unit(unit, dest, prefix, dest + f"{prefix}/share/srtc/systemd/low-ports.conf", tmp, "installed")
    with open(unit) as f:
        expect(not re.search(r"(^|[= ])/usr/(bin|share)/", f.read(), re.M), f"the installed unit names {prefix} paths only")
    run_installed_server(dest, prefix, dest + f"{prefix}/etc/srtc/srtc-server.json")


def main():
    for tool in ("dpkg-deb", "dpkg-shlibdeps", "systemd-analyze", "objdump", "ldd"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing: run scripts/install-deps")
    bin_dir = os.path.dirname(bin_path("srtc-server"))
    tmp = tempfile.mkdtemp(prefix="srtc-package-")
    try:
        deb = build_package(bin_dir, os.path.join(tmp, "out"))
        check_contents(deb)
        depends = check_control(deb, tmp)
        root = os.path.join(tmp, "root")
        run(["dpkg-deb", "--extract", deb, root])
        check_libraries(root, depends)
        with open(os.path.join(root, "etc/srtc/srtc-server.json")) as a, open(os.path.join(ROOT, "deploy/srtc-server.json")) as b:
            expect(a.read() == b.read(), "the packaged config is deploy/srtc-server.json")
        run_installed_server(root, "/usr", os.path.join(root, "etc/srtc/srtc-server.json"))
        unit = os.path.join(root, "lib/systemd/system", UNIT)
        check_unit(unit, root, "/usr", os.path.join(root, "usr/share/srtc/systemd/low-ports.conf"), tmp, "packaged")
        check_verify_can_fail(unit, root, "/usr", tmp)
        check_make_install(bin_dir, tmp)
    except CheckFailed as e:
        print(f"FAIL {e}")
        sys.exit(1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("package test passed")


if __name__ == "__main__":
    main()
