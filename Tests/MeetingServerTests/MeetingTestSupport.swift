import SRTCTestSupport

/// A real server with the meeting module on loopback (`TestServer.withMeetings`).
func makeMeetingServer(grace: Int = 20) throws -> TestServer {
    try TestServer.withMeetings(grace: grace)
}
