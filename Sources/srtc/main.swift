print("srtc")
