// srtc-bench: prints the figures of every benchmark (release build: `make bench`); nothing here is
// asserted. `srtc-bench srtp media` runs only the named areas.
let requested = Set(CommandLine.arguments.dropFirst())
func wants(_ area: String) -> Bool { requested.isEmpty || requested.contains(area) }

if wants("grant") { runGrantBenchmarks(); runGrantPartsBenchmarks() }
if wants("http") { runHTTPBenchmarks() }
if wants("wire") { runWireBenchmarks() }
if wants("srtp") { runSRTPBenchmarks() }
if wants("e2ee") { runE2EEBenchmarks() }
if wants("media") { runMediaBenchmarks() }
if wants("sfu") { runSFUBenchmarks() }
if wants("sfu-e2ee") { runSFUE2EEBenchmarks() }
if wants("sdk") { runSDKBenchmarks() }
if wants("dynacast") { runDynacastBenchmarks() }
if wants("sfu-load") { runSFULoadBenchmarks() }
if wants("speedtest") { runSpeedTestBenchmarks() }
if wants("render") { runRenderBenchmarks() }
if wants("devices") { runDeviceBenchmarks() }
if wants("egress") { runEgressBenchmarks() }
if wants("ingress") { runIngressBenchmarks() }
if wants("cluster") { runClusterBenchmarks() }
if wants("agents") { runAgentBenchmarks() }
if wants("captions") { runCaptionBenchmarks() }
if wants("lab") { runLabBenchmarks() }
