// End-to-end encryption per channel (docs/e2ee.md).
extension Channel {
    /// End-to-end encryption for this channel alone (docs/e2ee.md), in place of the engine's
    /// `Configuration.e2ee` (nil: none): how SMeeting encrypts an E2EE meeting's channel on the
    /// process's shared engine. Set it before `join`.
    /// - Throws: `wrongState` once the channel's media exists (after joining).
    public func setE2EE(_ configuration: E2EEConfiguration?) throws(SRTCError) {
        try state.sync { (s) throws(SRTCError) in
            guard s.media == nil else { throw .wrongState("end-to-end encryption is set before joining") }
            s.e2ee = configuration
        }
    }
}
