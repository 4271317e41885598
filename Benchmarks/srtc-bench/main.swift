print("bench")
runMediaBenchmarks()
runSRTPBenchmarks()
