#if os(Linux)
import Foundation
import Glibc
@testable import SRTCCore
@testable import SRTCDevices
import Synchronization
import TestWait
import Testing

/// Camera hot-plug on Linux without a camera: the inotify watch of the device directory (a
/// temporary one here) reports `video*` nodes coming and going, and nothing else; the camera list
/// keeps only nodes that answer VIDIOC_QUERYCAP as streaming capture devices.
@Suite(.serialized) struct V4L2DeviceWatchTests {
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "srtc-v4l2-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    @Test func videoNodesComingAndGoingAreReportedAndOtherNamesAreNot() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let changes = Atomic(0)
        let watch = V4L2DeviceList.watch(directory) { changes.add(1, ordering: .relaxed) }
        defer { watch.stop() }
        // The watch is in place once a change is seen: a video node made until then (the thread
        // may not have added its inotify watch yet) is made again.
        try await eventually("the first video node reported") {
            FileManager.default.createFile(atPath: directory + "/video0", contents: nil)
            try? FileManager.default.removeItem(atPath: directory + "/video0")
            return changes.load(ordering: .relaxed) > 0
        }
        // Let the last create/remove pair's events arrive, then start counting afresh.
        try await Task.sleep(for: .milliseconds(300))
        changes.store(0, ordering: .relaxed)

        // Other names first, then a video node: the one change counted is the video node's.
        for name in ["media0", "v4l-subdev0", "vide", "xvideo1"] {
            FileManager.default.createFile(atPath: directory + "/" + name, contents: nil)
        }
        FileManager.default.createFile(atPath: directory + "/video7", contents: nil)
        try await eventually("video7 created") { changes.load(ordering: .relaxed) >= 1 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(changes.load(ordering: .relaxed) == 1)

        // udev sets a node's permissions after making it: an attribute change counts.
        chmod(directory + "/video7", 0o660)
        try await eventually("video7's permissions set") { changes.load(ordering: .relaxed) >= 2 }
        // A rename into the directory's video names (how some tools put nodes in place), and a removal.
        try FileManager.default.moveItem(atPath: directory + "/media0", toPath: directory + "/video8")
        try await eventually("video8 moved in") { changes.load(ordering: .relaxed) >= 3 }
        try FileManager.default.removeItem(atPath: directory + "/video7")
        try await eventually("video7 removed") { changes.load(ordering: .relaxed) >= 4 }
    }

    @Test func filesThatAreNotCaptureDevicesAreNotCameras() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["video0", "video1", "video12x", "media0"] {
            FileManager.default.createFile(atPath: directory + "/" + name, contents: Data("not a device".utf8))
        }
        try FileManager.default.createSymbolicLink(atPath: directory + "/video2", withDestinationPath: "/dev/null")
        #expect(V4L2DeviceList.cameras(in: directory).isEmpty)
        #expect(V4L2DeviceList.captureCard(directory + "/video2") == nil)
        #expect(V4L2DeviceList.cameras(in: directory + "/absent").isEmpty)
    }

    /// struct inotify_event: wd, mask, cookie, len (4 bytes each), then `len` bytes of NUL-padded name.
    @Test func eventNamesAreReadFromTheKernelsLayout() {
        func event(_ name: String, padded length: Int) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 12)
            withUnsafeBytes(of: UInt32(length).littleEndian) { bytes += $0 }
            bytes += Array(name.utf8) + [UInt8](repeating: 0, count: length - name.utf8.count)
            return bytes
        }
        let two = event("video0", padded: 16) + event("media1", padded: 8)
        #expect(V4L2DeviceList.eventNames(two, count: two.count) == ["video0", "media1"])
        // A name that fills its length exactly (no NUL), and a directory event without a name.
        let exact = event("video12", padded: 7) + event("", padded: 0)
        #expect(V4L2DeviceList.eventNames(exact, count: exact.count) == ["video12", ""])
        // A read cut inside the last event's name keeps what arrived; inside a header, nothing of it.
        let cut = event("video0", padded: 16) + event("video3", padded: 16)
        #expect(V4L2DeviceList.eventNames(cut, count: cut.count - 12) == ["video0", "vide"])
        #expect(V4L2DeviceList.eventNames(cut, count: 16 + 16 + 8) == ["video0"])
    }
}
#endif
