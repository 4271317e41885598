print("bench")
runMediaBenchmarks()
