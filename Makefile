# The two commands of README.md: `make serve` and `make test`. Both install what is missing first.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
# Two cores: more parallel jobs only add memory pressure.
JOBS ?= $(shell nproc)
# The demo sign-in of the meeting app, for loopback clients only (README, "Configuration").
SERVE_FLAGS ?= --demo-auth loopback
# make soak SOAK_MINUTES=10; SOAK_FLAGS="--participants 10 --seed 7".
SOAK_MINUTES ?= 30
SOAK_FLAGS ?=
# make install PREFIX=/usr/local DESTDIR=/tmp/stage; BIN_DIR=.build/debug (make deb, make install)
# takes those already-built binaries instead of a release build.
PREFIX ?= /usr/local
DESTDIR ?=
BIN_DIR ?=

.PHONY: deps build serve test test-passes test-fuzz-build test-swift test-swift-light test-media test-lab test-lab-swift test-lab-scripts test-lab-side test-lab-last test-interop test-lane-media test-lane-interop test-fuzz bench bench-sfu soak fuzz fuzz-long deb install clean

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build -j $(JOBS)

## serve: build the server (release) and run it on the embedded defaults (loopback, SQLite in ./srtc-data),
## with the meeting app's demo sign-in for loopback clients; open the printed meeting app URL.
serve: deps
	$(SWIFT) build -c release -j $(JOBS) --product srtc-server
	.build/release/srtc-server $(SERVE_FLAGS)

## test: every test: Swift unit and end-to-end tests, the cross-implementation checks under interop/,
## then every fuzz target briefly (so a target that no longer builds fails here, not months later).
# The passes run in this order: the build; the light Swift tests; then the media suites (processes
# of their own) beside the interop scripts, in two lanes of about equal length (each lane mostly
# waits on media and timers: one pass after the other left the two cores 70 % idle); then the
# network lab's Swift suites, two calls at a time (they measure timing through kernel rate limits),
# and beside them the lab scripts with two Chromium windows and then the fuzzers, two at a time
# (test-lab-side). The lab's calls use half a core between them (123 CPU-s in a 250 s pass): the
# scripts run at nice 10 (LAB_SCRIPTS_NICE) and the fuzzers at nice 19, so that the calls keep the
# CPU they need and the others take what they leave. The fuzzers' sanitized modules, which a clean
# clone compiles from scratch (several CPU-minutes), are built from the start at the lowest CPU
# priority (nice 19) in the time the passes leave a core idle, so that they are ready when the
# passes end (test-fuzz-build, its output in .build/fuzz-build.log). The binaries' directory is
# asked of SwiftPM once, before a `swift test` pass holds the build directory (SRTC_BIN_DIR, read by
# scripts/interop-pass).
test: deps
	@$(MAKE) --no-print-directory -j 2 test-fuzz-build test-passes
	@SRTC_BIN_DIR="$$($(SWIFT) build --show-bin-path)" $(MAKE) --no-print-directory -j 2 test-lab-swift test-lab-side
	@$(MAKE) --no-print-directory test-lab-last

test-passes:
	$(SWIFT) build --build-tests -j $(JOBS)
	@$(MAKE) --no-print-directory test-swift-light
	@rm -f .build/interop/queue-*
	@$(MAKE) --no-print-directory -j 2 test-lane-media test-lane-interop

# At most TEST_WIDTH tests run at once. Unbounded, Swift Testing starts every suite together and
# on 2 cores the end-to-end tests' servers, encoders and sockets starve one another until their
# failure deadlines pass (the whole run took 103 s with 9 starved tests; with 4 at once, 37 s and
# none). The limit is Swift Testing's own (SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH).
TEST_WIDTH ?= 4
# The light pass (no media processes of its own; many tests wait on timers and sockets) runs one
# more at once: 179 s against 216 s at 4 in one run, none starved.
LIGHT_WIDTH ?= 5
# Suites that run media workers in processes of their own (egress: bots, composites, encoders)
# keep both cores busy outside that count, and the network lab's calls measure timing through a
# kernel rate limit: they run last, one at a time. Agents' calls run speech recognition per
# speaker beside `srtc join` bots in processes of their own.
MEDIA_SUITES := Egress|SMeetingMcu|AgentTests
LAB_SUITES := NetworkLab
# The lab's suites run two at a time, each suite's tests one after the other (the suites are
# serialized): each call has namespaces and veth pairs of its own (its own kernel bottleneck) and
# uses a small share of a core; 420 s one suite at a time, 270 s two at a time with other agents'
# builds on the cores, every bound held. Two layer calls at once (NetworkLabLayerTests not
# serialized) once left a standing queue in the delay bound, so that suite stays one call at a time.
# Three calls at once with the lab scripts beside them (make test-lab) were too many: the 60 s
# unlimited call switched down for bandwidth and the relay's worst video gap passed its 1 s.
LAB_WIDTH ?= 2
# The lab scripts' CPU priority beside the lab's Swift calls (make test-lab): those calls are
# timing-sensitive (a starved receiver reads its late arrivals as queueing delay, docs/network.md),
# so Chromium takes what they leave.
LAB_SCRIPTS_NICE ?= 10
HEAVY_SUITES := $(MEDIA_SUITES)|$(LAB_SUITES)
# Suites run a second time with two media workers in every server they start
# (SRTC_TEST_MEDIA_WORKERS, read by SRTCTestSupport; in-process servers put their channels on
# the last worker): TURN, data channels, drain and failover, node-to-node relays, the speed test.
# ICE-TCP per worker is MediaWorkersTests' own.
WORKER_SUITES := SDKRelayTests|ServerDataChannelTests|SDKDataMessageTests|ClusterMoveTests|ClusterEdgeTests|ClusterEdgeDataTests|SpeedTestTests
# Suites run a third time with every participant after a channel's first served by the other
# worker (SRTC_TEST_WORKER_SUBSCRIBER_BUDGET=1): subscriptions, TURN, data channels and ICE
# restarts through the pipes between workers (docs/architecture.md, "A channel larger than a
# worker"). Suites that check which worker forwards or count `delivered` on one router are not here.
PIPE_SUITES := SDKRelayTests|ServerDataChannelTests|SDKICERestartTests|SDKMediaTests

# One `swift test` pass (scripts/swift-test-pass): its failures printed, its full log kept; up to two
# suites that fail are run once more alone and named FLAKY if they pass then (docs/architecture.md).
# test-swift runs every Swift pass one after the other (make test runs test-media beside the interop scripts).
test-swift: test-swift-light test-media test-lab

test-swift-light:
	@TEST_WIDTH=$(LIGHT_WIDTH) scripts/swift-test-pass .build/test-output.txt --skip '$(HEAVY_SUITES)'

test-media:
	@TEST_WIDTH=$(TEST_WIDTH) scripts/swift-test-pass .build/test-output-heavy.txt --no-parallel --filter '$(MEDIA_SUITES)'
	@TEST_WIDTH=$(TEST_WIDTH) SRTC_TEST_MEDIA_WORKERS=2 scripts/swift-test-pass .build/test-output-workers.txt --filter '$(WORKER_SUITES)'
	@TEST_WIDTH=$(TEST_WIDTH) SRTC_TEST_MEDIA_WORKERS=2 SRTC_TEST_WORKER_SUBSCRIBER_BUDGET=1 scripts/swift-test-pass .build/test-output-pipes.txt --filter '$(PIPE_SUITES)'

# The lab: its Swift suites and beside them its scripts with two Chromium windows, one after the
# other (scripts/interop-pass --lab-alone), then the aiortc step alone (--lab-last). Beside the
# Swift suites the relay suite's video once stalled 1.24-1.93 s (bound 1 s); that was the
# estimator reading reordering and resent copies as loss (docs/network.md, "Loss is not
# congestion"), which it had done alone too, not the scripts' load. The scripts are not in the interop lanes: beside the media
# lane's Swift tests (both cores busy) those tests' speech and recording checks starved.
test-lab:
	@SRTC_BIN_DIR="$$($(SWIFT) build --show-bin-path)" $(MAKE) --no-print-directory -j 2 test-lab-swift test-lab-scripts
	@$(MAKE) --no-print-directory test-lab-last

test-lab-swift:
	@TEST_WIDTH=$(LAB_WIDTH) scripts/swift-test-pass .build/test-output-lab.txt --filter '$(LAB_SUITES)'

test-lab-scripts:
	@SRTC_BIN_DIR="$${SRTC_BIN_DIR:-$$($(SWIFT) build --show-bin-path)}" nice -n $(LAB_SCRIPTS_NICE) scripts/interop-pass .build/interop --lab-alone

# The aiortc subscriber's step (a REMB-only receiver; a core's worth of Python, ~100 ms of margin in
# its gaps): after the lab's calls and scripts, alone.
test-lab-last:
	@SRTC_BIN_DIR="$${SRTC_BIN_DIR:-$$($(SWIFT) build --show-bin-path)}" scripts/interop-pass .build/interop --lab-last

# make test's side of the lab: its scripts, then every fuzz target briefly (test-fuzz) at nice 19.
test-lab-side: test-lab-scripts
	@nice -n 19 $(MAKE) --no-print-directory test-fuzz

# Each script's output in .build/interop/<script>.log; its time printed ("== interop/test_x.py: 12 s");
# a script that fails runs once more and is named FLAKY if it passes then (scripts/interop-pass).
test-interop:
	@SRTC_BIN_DIR="$$($(SWIFT) build --show-bin-path)" scripts/interop-pass .build/interop

# make test's two lanes: the media suites, then interop scripts; interop scripts from the start. The
# two take the scripts from one queue (scripts/interop-pass --queue, a fresh file per run of make),
# so that they end together: a lane that is free takes the next script.
INTEROP_QUEUE := .build/interop/queue-$(shell date +%s%N)
test-lane-media: test-media
	@SRTC_BIN_DIR="$$($(SWIFT) build --show-bin-path)" scripts/interop-pass .build/interop --queue $(INTEROP_QUEUE)

test-lane-interop:
	@SRTC_BIN_DIR="$$($(SWIFT) build --show-bin-path)" scripts/interop-pass .build/interop --queue $(INTEROP_QUEUE)

## bench: release build, then print the figures of every benchmark (never asserted), bench-sfu's table last.
bench: deps
	$(SWIFT) build -c release -j $(JOBS) --product srtc-server
	$(SWIFT) build -c release -j $(JOBS) --product srtc-egress
	$(SWIFT) build -c release -j $(JOBS) --product srtc-bench
	.build/release/srtc-bench

## bench-sfu: our release server (with 1 and with 2 media workers) and Janus VideoRoom under the same
## load (srtc load-test's clients): forwarded packets/s, server CPU per packet against the bare sendmmsg
## floor, delay, loss, ours/Janus.
bench-sfu: deps
	$(SWIFT) build -c release -j $(JOBS) --product srtc-server
	$(SWIFT) build -c release -j $(JOBS) --product srtc-bench
	.build/release/srtc-bench sfu-load

# Whoever runs `make test` already holds the build lock (or nobody else builds): no lock inside.
# -Onone: here the fuzzers only show they build and run for a few seconds, and a clean clone (CI)
# compiles their sanitized modules from scratch, much faster than at -O (`make fuzz` keeps -O).
test-fuzz:
	@FUZZ_SECONDS=$${FUZZ_TEST_SECONDS:-3} FUZZ_OPT=$${FUZZ_TEST_OPT:--Onone} FUZZ_LOCK=none FUZZ_QUIET=1 fuzz/run-all

# The same targets built only, at nice 19 (make test runs this beside its passes; test-fuzz then finds them built).
test-fuzz-build:
	@mkdir -p .build
	@FUZZ_BUILD_ONLY=1 FUZZ_OPT=$${FUZZ_TEST_OPT:--Onone} FUZZ_LOCK=none FUZZ_QUIET=1 nice -n 19 fuzz/run-all \
		>.build/fuzz-build.log 2>&1 || { cat .build/fuzz-build.log; exit 1; }

## soak: participants through a lossy, jittery relay with churn against the release server for
## SOAK_MINUTES (default 30); prints figures each minute; fails on a crash, growth or lost media. Not in make test.
soak: deps
	$(SWIFT) build -c release -j $(JOBS) --product srtc-server
	$(SWIFT) build -c release -j $(JOBS) --product srtc-soak
	.build/release/srtc-soak --minutes $(SOAK_MINUTES) $(SOAK_FLAGS)

## fuzz: build each libFuzzer target under fuzz/ and run it for FUZZ_SECONDS (default 30), starting
## from its committed corpus (fuzz/corpus/<target>/) and merging what it found back into it.
fuzz: deps
	FUZZ_MERGE=1 fuzz/run-all

## fuzz-long: the nightly run: every target for an hour (FUZZ_SECONDS overrides).
fuzz-long: deps
	FUZZ_SECONDS=$${FUZZ_SECONDS:-3600} FUZZ_MERGE=1 fuzz/run-all

## deb: the Debian package .build/deb/srtc_<version>-1_<arch>.deb (dpkg-deb): a release build with the Swift
## runtime linked in, the srtc user, /etc/srtc/srtc-server.json, a hardened systemd unit (docs/deploy.md).
deb: deps
	DEB_BIN_DIR="$(BIN_DIR)" scripts/build-deb

## install: the package's layout under $(DESTDIR)$(PREFIX) (default /usr/local) without its maintainer
## scripts, from a release build; prints what to do next (the srtc user, systemctl).
install: deps
	scripts/install-srtc "$(DESTDIR)" "$(PREFIX)" "$(BIN_DIR)"

clean:
	rm -rf .build fuzz/build
