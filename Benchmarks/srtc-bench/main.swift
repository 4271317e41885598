print("bench")
runHTTPBenchmarks()
