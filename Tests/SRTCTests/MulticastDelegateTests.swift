import Dispatch
import Foundation
import Synchronization
import Testing
@testable import SRTCCore

/// Records the events it receives (only two of the protocol's methods are implemented: the
/// others fall back to the default empty implementations).
final class RecordingChannelDelegate: ChannelDelegate, @unchecked Sendable {
    let log = Mutex<[String]>([])
    let queueLabel = Mutex<String?>(nil)

    func channel(_ channel: Channel, didReceiveCustomMessage message: CustomMessage) {
        log.withLock { $0.append("message:\(message.data)") }
        queueLabel.withLock { $0 = DispatchQueue.getSpecific(key: queueNameKey) }
    }

    func channel(_ channel: Channel, userDidLeave uid: String, reason: DisconnectReason) {
        log.withLock { $0.append("left:\(uid):\(reason.rawValue)") }
    }

    var events: [String] { log.withLock { $0 } }
}


@Suite struct MulticastDelegateTests {
    let queue = namedQueue("test.delegates")

    @Test func everyObserverGetsEveryEventInOrderOnTheGivenQueue() async throws {
        let list = MulticastDelegate<ChannelDelegate>(queue: queue)
        let a = RecordingChannelDelegate(), b = RecordingChannelDelegate()
        list.add(delegate: a)
        list.add(delegate: b)
        let channel = try SRTCEngine(independent: .init(delegateQueue: queue)).createChannel()
        for text in ["one", "two", "three"] {
            let message = CustomMessage(from: "bob", to: nil, data: text, timestamp: 1)
            list.notify { $0.channel(channel, didReceiveCustomMessage: message) }
        }
        await drain(queue)
        #expect(a.events == ["message:one", "message:two", "message:three"])
        #expect(b.events == a.events)
        #expect(a.queueLabel.withLock { $0 } == "test.delegates")
    }

    @Test func addingTwiceRegistersOnce() async throws {
        let list = MulticastDelegate<ChannelDelegate>(queue: queue)
        let a = RecordingChannelDelegate()
        list.add(delegate: a)
        list.add(delegate: a)
        #expect(list.count == 1)
        let channel = try SRTCEngine(independent: .init(delegateQueue: queue)).createChannel()
        list.notify { $0.channel(channel, userDidLeave: "bob", reason: .kicked) }
        await drain(queue)
        #expect(a.events == ["left:bob:kicked"])
    }

    @Test func observersAreHeldWeakly() async throws {
        let list = MulticastDelegate<ChannelDelegate>(queue: queue)
        weak var released: RecordingChannelDelegate?
        do {
            let temporary = RecordingChannelDelegate()
            released = temporary
            list.add(delegate: temporary)
            #expect(list.count == 1)
        }
        #expect(released == nil)
        #expect(list.count == 0)
        let channel = try SRTCEngine(independent: .init(delegateQueue: queue)).createChannel()
        list.notify { $0.channel(channel, userDidLeave: "x", reason: .timeout) } // nobody to call: no crash
        await drain(queue)
    }

    @Test func removedObserverGetsNothingRaisedAfterwards() async throws {
        let list = MulticastDelegate<ChannelDelegate>(queue: queue)
        let a = RecordingChannelDelegate(), b = RecordingChannelDelegate()
        list.add(delegate: a)
        list.add(delegate: b)
        list.remove(delegate: a)
        let channel = try SRTCEngine(independent: .init(delegateQueue: queue)).createChannel()
        list.notify { $0.channel(channel, userDidLeave: "bob", reason: .clientLeave) }
        await drain(queue)
        #expect(a.events.isEmpty)
        #expect(b.events == ["left:bob:client_leave"])
    }

    @Test func trackDelegatesFanOutMuteEvents() async {
        let engine = SRTCEngine(independent: .init(delegateQueue: queue))
        let track = engine.createLocalCustomAudioTrack(desc: "bgm")
        final class Observer: TrackDelegate, @unchecked Sendable {
            let log = Mutex<[String]>([])
            func trackDidMute(_ track: Track) { log.withLock { $0.append("mute") } }
            func trackDidUnmute(_ track: Track) { log.withLock { $0.append("unmute") } }
        }
        let observer = Observer()
        track.delegates.add(delegate: observer)
        await track.mute()
        await track.mute() // no change: no event
        await track.unmute()
        await drain(queue)
        #expect(observer.log.withLock { $0 } == ["mute", "unmute"])
        #expect(track.isMuted == false)
    }
}
