print("srtc-server")
