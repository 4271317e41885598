import SMeetingProtocol
import SRTC

/// The driver of the meeting's rules (`SMeetingRoomMachine`): server events (on the reader
/// thread, in arrival order), answers and public calls are fed to the machine under the state's
/// lock, and its actions are carried out after it, on the same thread: delegate calls (on the
/// delegate queue), channel switches (one after the other, `switchChannel`), the channel's leave,
/// the devices a host closed, the E2EE hooks. This is the engine's one discipline: the `Mutex`
/// around `State`, and tasks for what awaits.
extension SMeetingEngine {
    typealias RoomAction = SMeetingRoomMachine.Action

    /// An event from the WebSocket: skipped when a resumed session sends it again, or when this
    /// SDK cannot read it (the snapshot stays as it was).
    func receiveEvent(_ type: MeetingEventType, _ text: String) {
        guard acceptSequence((try? MeetingCodec.head(of: text))?.seq) else { return }
        guard let event = try? SMeetingServerEvent(type, text) else { return }
        meetingEvent(.server(event))
    }

    /// Feeds one event to the meeting's rules; returns what to do.
    func meetingStep(_ event: SMeetingRoomMachine.Event) -> [RoomAction] {
        state.withLock { $0.meeting.handle(event) }
    }

    /// Feeds one event and carries out what it says without waiting (the reader, a switch's end).
    func meetingEvent(_ event: SMeetingRoomMachine.Event) {
        carryOut(meetingStep(event))
    }

    /// Carries out actions; what awaits (a switch, an exit sent) runs in a task of its own.
    func carryOut(_ actions: [RoomAction]) {
        for action in actions {
            switch action {
            case .notify(let notice): notify { notice.deliver(to: $0, from: $1) }
            case .joinChannel(let grant, let nickname, let why): switchTo(grant, nickname: nickname, why)
            case .sendExit(let then):
                Task {
                    await self.sendExit()
                    self.meetingEvent(then)
                }
            case .leaveChannel: leaveChannel()
            case .unpublish(let device): Task { await self.unpublish(device) }
            case .e2ee(.memberEntered(let uid)): e2eeMemberEntered(uid)
            case .e2ee(.memberLeft(let uid)): e2eeMemberLeft(uid)
            case .e2ee(.hostChanged): e2eeHostChanged()
            }
        }
    }

    /// Carries out actions for a caller that awaits them (entering, exiting, a visit, a rejoin):
    /// returns once its channel is joined and its exit sent; throws the entry's or the visit's failure.
    func carryOutAwaiting(_ actions: [RoomAction]) async throws {
        for action in actions {
            switch action {
            case .joinChannel(let grant, let nickname, let why):
                switch why {
                case .entry, .rejoin:
                    // Not queued behind switches: nothing else moves this channel while entering.
                    do {
                        try await joinChannel(grant, nickname: nickname)
                    } catch {
                        try? await carryOutAwaiting(meetingStep(.channelFailed(why)))
                        if why == .entry { throw error }
                        continue
                    }
                    carryOut(meetingStep(.channelJoined(why)))
                default:
                    try await switchTo(grant, nickname: nickname, why).value
                }
            case .sendExit(let then):
                await sendExit()
                try await carryOutAwaiting(meetingStep(then))
            default:
                carryOut([action])
            }
        }
    }

    /// Joins `grant`'s channel after every earlier switch, then tells the machine how it went.
    @discardableResult
    private func switchTo(_ grant: RTCGrant, nickname: String, _ why: SMeetingRoomMachine.Switch) -> Task<Void, any Error> {
        switchChannel { [weak self] in
            guard let self else { return }
            do {
                try await self.joinChannel(grant, nickname: nickname)
            } catch {
                try? await self.carryOutAwaiting(self.meetingStep(.channelFailed(why)))
                throw error
            }
            self.carryOut(self.meetingStep(.channelJoined(why)))
        }
    }

    /// `exit_room` on the live connection; its failure changes nothing (I leave all the same).
    private func sendExit() async {
        guard let client = state.withLock({ $0.client }) else { return }
        _ = try? await client.call(.exitRoom, EmptyPayload(), EmptyPayload.self)
    }

    private func unpublish(_ device: SMeetingRoomMachine.Device) async {
        switch device {
        case .mic: await unpublishMic()
        case .camera: await unpublishCamera()
        case .screen: await unpublishScreen()
        case .viewCapture: await unpublishViewCapture()
        }
    }
}
