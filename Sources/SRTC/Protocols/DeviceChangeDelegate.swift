/// Device hot-plug events: a camera, microphone or speaker appeared or went away. Register with
/// `srtc.deviceDelegates.add(delegate: self)`; watching starts with the first access to
/// `deviceDelegates`. Events arrive on the engine's delegate queue.
///
/// Every method has a default empty implementation. An engine-wide delegate (the documentation's
/// `RTCEngineDelegate`) may refine this protocol, so one object registered in both gets
/// everything.
public protocol DeviceChangeDelegate: AnyObject {
    /// A device appeared (plugged in, a PulseAudio sink or source loaded, a `/dev/video` node created).
    func engine(_ engine: SRTCEngine, didAddDevice device: MediaDevice)
    /// A device went away.
    func engine(_ engine: SRTCEngine, didRemoveDevice device: MediaDevice)
}

extension DeviceChangeDelegate {
    public func engine(_ engine: SRTCEngine, didAddDevice device: MediaDevice) {}
    public func engine(_ engine: SRTCEngine, didRemoveDevice device: MediaDevice) {}
}
