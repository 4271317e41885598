#if os(Linux)
import SRTCCore
import CV4L2
import Foundation
import Glibc

/// The cameras of a V4L2 system: the `video*` nodes whose driver says they capture video by
/// streaming (UVC cameras also create metadata nodes, which are left out).
enum V4L2DeviceList {
    /// The cameras under `directory`, in node order; the first is the default. A machine without
    /// cameras (or without the directory) gives an empty list.
    static func cameras(in directory: String) -> [MediaDevice] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let nodes = names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
        var cameras: [MediaDevice] = []
        for node in nodes {
            let path = directory + "/" + node
            guard let card = captureCard(path) else { continue }
            cameras.append(MediaDevice(deviceId: path, kind: .videoInput, label: card, isDefault: cameras.isEmpty))
        }
        return cameras
    }

    /// The card name of a video capture node, or nil when it is not one (or cannot be opened).
    static func captureCard(_ path: String) -> String? {
        let fd = open(path, O_RDWR | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var capability = v4l2_capability()
        guard srtc_v4l2_ioctl(fd, srtc_VIDIOC_QUERYCAP(), &capability) == 0 else { return nil }
        // device_caps describes this node; capabilities the whole device.
        let caps = capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? capability.device_caps : capability.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0, caps & UInt32(V4L2_CAP_STREAMING) != 0 else { return nil }
        return withUnsafeBytes(of: capability.card) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Watches `directory` with inotify and calls `changed` when a `video*` node is created,
    /// removed or has its permissions set (udev does that after creating it).
    static func watch(_ directory: String, _ changed: @escaping @Sendable () -> Void) -> DeviceThread {
        DeviceThread(name: "srtc.v4l2.watch") { thread in
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return }
            defer { close(fd) }
            guard inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM)) >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while thread.isRunning {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 200) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { continue }
                if eventNames(buffer, count: count).contains(where: { $0.hasPrefix("video") }) { changed() }
            }
        }
    }

    /// The file names in a buffer of inotify events (struct inotify_event: wd, mask, cookie,
    /// len, then `len` bytes of NUL-padded name).
    static func eventNames(_ buffer: [UInt8], count: Int) -> [String] {
        var names: [String] = []
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= count {
            let length = buffer.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)) }
            let end = min(count, offset + header + length)
            let name = buffer[(offset + header)..<end].prefix { $0 != 0 }
            names.append(String(decoding: name, as: UTF8.self))
            offset += header + length
        }
        return names
    }
}
#endif
