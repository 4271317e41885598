#if canImport(Glibc)
import Glibc
import CSystem
#elseif canImport(Darwin)
import Darwin
#endif

/// Readiness of one descriptor, as reported by a poller.
struct PollEvent {
    var fd: Int32
    var readable: Bool
    var writable: Bool
    /// The socket failed or both directions are shut (EPOLLHUP / EPOLLERR / POLLHUP): it is dead.
    var hangup: Bool
}

/// The readiness backend of an event loop: epoll on Linux, `poll(2)` elsewhere (and on request).
/// Level-triggered: a descriptor stays reported while it is readable or, with write interest, writable.
protocol Poller: AnyObject {
    func add(_ fd: Int32, read: Bool, write: Bool) throws(NetError)
    func modify(_ fd: Int32, read: Bool, write: Bool) throws(NetError)
    func remove(_ fd: Int32)
    /// Waits up to `timeoutMilliseconds` (-1 forever) and fills `events`.
    func wait(timeoutMilliseconds: Int32, into events: inout [PollEvent])
    func close()
}

#if os(Linux)
/// epoll(7) backend.
final class EpollPoller: Poller {
    private let epfd: Int32
    private let capacity = 256
    private let buffer: UnsafeMutablePointer<epoll_event>

    init() throws(NetError) {
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw .system(call: "epoll_create1", errno: errno) }
        buffer = .allocate(capacity: capacity)
    }

    deinit { buffer.deallocate() }

    private func control(_ op: Int32, _ fd: Int32, read: Bool, write: Bool) throws(NetError) {
        var event = epoll_event()
        // RDHUP (peer half-closed) only while reading: level-triggered, it would fire forever otherwise.
        event.events = (read ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0) | (write ? EPOLLOUT.rawValue : 0)
        event.data.fd = fd
        guard epoll_ctl(epfd, op, fd, &event) == 0 else { throw .system(call: "epoll_ctl", errno: errno) }
    }

    func add(_ fd: Int32, read: Bool, write: Bool) throws(NetError) {
        try control(EPOLL_CTL_ADD, fd, read: read, write: write)
    }

    func modify(_ fd: Int32, read: Bool, write: Bool) throws(NetError) {
        try control(EPOLL_CTL_MOD, fd, read: read, write: write)
    }

    func remove(_ fd: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event)
    }

    func wait(timeoutMilliseconds: Int32, into events: inout [PollEvent]) {
        events.removeAll(keepingCapacity: true)
        let n = epoll_wait(epfd, buffer, Int32(capacity), timeoutMilliseconds)
        guard n > 0 else { return }
        for i in 0..<Int(n) {
            let e = buffer[i]
            events.append(PollEvent(
                fd: e.data.fd,
                readable: e.events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
                writable: e.events & EPOLLOUT.rawValue != 0,
                hangup: e.events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
            ))
        }
    }

    func close() { Sockets.close(epfd) }
}
#endif

/// poll(2) backend: portable, O(n) per wait. The fallback off Linux and a test double on Linux.
final class PollPoller: Poller {
    private var fds: [pollfd] = []
    private var index: [Int32: Int] = [:]

    init() {}

    private static func mask(read: Bool, write: Bool) -> Int16 {
        (read ? Int16(POLLIN) : 0) | (write ? Int16(POLLOUT) : 0)
    }

    func add(_ fd: Int32, read: Bool, write: Bool) throws(NetError) {
        guard index[fd] == nil else { throw .system(call: "poll add", errno: EEXIST) }
        index[fd] = fds.count
        fds.append(pollfd(fd: fd, events: Self.mask(read: read, write: write), revents: 0))
    }

    func modify(_ fd: Int32, read: Bool, write: Bool) throws(NetError) {
        guard let i = index[fd] else { throw .system(call: "poll modify", errno: ENOENT) }
        fds[i].events = Self.mask(read: read, write: write)
    }

    func remove(_ fd: Int32) {
        guard let i = index.removeValue(forKey: fd) else { return }
        let last = fds.removeLast()
        if i < fds.count {
            fds[i] = last
            index[last.fd] = i
        }
    }

    func wait(timeoutMilliseconds: Int32, into events: inout [PollEvent]) {
        events.removeAll(keepingCapacity: true)
        let n = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds) }
        guard n > 0 else { return }
        let hangupBits = Int16(POLLERR) | Int16(POLLHUP) | Int16(POLLNVAL)
        for p in fds where p.revents != 0 {
            // poll reports POLLHUP on a half-closed peer too; with data pending POLLIN comes with it.
            events.append(PollEvent(
                fd: p.fd,
                readable: p.revents & Int16(POLLIN) != 0,
                writable: p.revents & Int16(POLLOUT) != 0,
                hangup: p.revents & hangupBits != 0 && p.revents & Int16(POLLIN) == 0
            ))
        }
    }

    func close() {}
}
