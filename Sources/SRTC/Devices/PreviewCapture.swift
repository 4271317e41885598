/// A camera track whose capture the engine's preview may own: `SRTCDevices` opens the device
/// camera for `startLocalPreview(frontCamera:view:preset:)`, and stopping or replacing that
/// preview stops the capture. The device tracks are `SRTCDevices`', which the engine does not
/// import, so the engine stops them through this.
package protocol PreviewCapture: AnyObject {
    func stopCapture()
}
