print("bench")
runWireBenchmarks()
