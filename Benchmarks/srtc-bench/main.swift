print("bench")
runSRTPBenchmarks()
