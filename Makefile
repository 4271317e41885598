# The two commands of README.md: `make serve` and `make test`. Both install what is missing first.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT ?= swift
# Two cores: more parallel jobs only add memory pressure.
JOBS ?= $(shell nproc)
# The demo sign-in of the meeting app, for loopback clients only (README, "Configuration").
SERVE_FLAGS ?= --demo-auth loopback

.PHONY: deps build serve test test-swift test-interop bench fuzz clean

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build -j $(JOBS)

## serve: build the server (release) and run it on the embedded defaults (loopback, SQLite in ./srtc-data),
## with the meeting app's demo sign-in for loopback clients; open the printed meeting app URL.
serve: deps
	$(SWIFT) build -c release -j $(JOBS) --product srtc-server
	.build/release/srtc-server $(SERVE_FLAGS)

## test: every test: Swift unit and end-to-end tests, then the cross-implementation checks under interop/.
test: deps
	$(SWIFT) build --build-tests -j $(JOBS)
	$(MAKE) --no-print-directory test-swift test-interop

# Pure computation (parsers, codecs, seeded robustness loops) runs synchronously on the cooperative
# pool, which has one thread per core: it runs first and apart, so the suites that wait on servers
# and sockets are never starved behind it. Suites that run media workers in processes of their own
# (egress: bots, composites, encoders) keep both cores busy; they run last, one at a time.
UNIT_SUITES := RTCCryptoTests|RTCWireTests|RTCMediaTests|RTCAVTests|SRTCProtocolTests|EgressWorkerTests
HEAVY_SUITES := Egress|SMeetingMcu

# One `swift test` pass: $(1) its selection, $(2) its full log.
define swift_test_pass
@set -o pipefail; $(SWIFT) test --skip-build $(1) 2>&1 | tee $(2) \
	| grep -E --line-buffered '(^✘|^✔ Test run|^Test run|error:|Fatal error|Exited with)'; \
status=$${PIPESTATUS[0]}; \
if [ $$status -ne 0 ]; then echo "Swift tests FAILED (exit $$status); full log in $(2)"; exit $$status; fi
endef

test-swift:
	$(call swift_test_pass,--filter '$(UNIT_SUITES)',.build/test-output-unit.txt)
	$(call swift_test_pass,--skip '$(UNIT_SUITES)|$(HEAVY_SUITES)',.build/test-output.txt)
	$(call swift_test_pass,--no-parallel --filter '$(HEAVY_SUITES)' --skip '$(UNIT_SUITES)',.build/test-output-heavy.txt)

test-interop:
	@for t in interop/test_*.py; do [ -e "$$t" ] || continue; echo "== $$t"; python3 "$$t" || exit 1; done

## bench: release build, then print the figures of every benchmark (never asserted).
bench: deps
	$(SWIFT) build -c release -j $(JOBS) --product srtc-bench
	.build/release/srtc-bench

## fuzz: build each libFuzzer target under fuzz/ and run it for a bounded time.
fuzz: deps
	fuzz/run-all

clean:
	rm -rf .build fuzz/build
