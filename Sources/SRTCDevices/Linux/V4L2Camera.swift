#if os(Linux)
import SRTCCore
import CV4L2
import Foundation
import Glibc

/// One open V4L2 camera, streaming into four memory-mapped driver buffers (the V4L2 streaming
/// I/O model: queue a buffer, the driver fills it, dequeue it, read it, queue it again). Opened
/// through libv4l2, which adds software conversions for cameras with unusual formats. Used from
/// one thread.
final class V4L2Camera {
    let path: String
    let format: CameraPixelFormat
    let width: Int
    let height: Int
    /// Bytes per row of the first plane.
    let stride: Int
    private let fd: Int32
    private var buffers: [(start: UnsafeMutableRawPointer, length: Int)] = []
    private var streaming = false

    /// The V4L2 codes of the formats the SDK reads, most preferred first for a preset: MJPEG
    /// first from 720p up (uncompressed 720p does not fit USB 2 at 30 fps), YUYV first below.
    static func preferredFormats(for preset: VideoPreset) -> [(code: UInt32, format: CameraPixelFormat)] {
        let compressed = (srtc_V4L2_PIX_FMT_MJPEG(), CameraPixelFormat.mjpeg)
        let raw = [(srtc_V4L2_PIX_FMT_YUYV(), CameraPixelFormat.yuyv), (srtc_V4L2_PIX_FMT_NV12(), .nv12),
                   (srtc_V4L2_PIX_FMT_YUV420(), .i420)]
        return preset.height >= 720 ? [compressed] + raw : raw + [compressed]
    }

    /// Opens the camera at `path` and starts streaming at (about) the preset's size and rate.
    /// - Throws: `.notFound` when the node does not exist, `.systemError` when it is not a camera,
    ///   is busy, or offers no format the SDK reads.
    init(path: String, preset: VideoPreset) throws(SRTCError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .notFound("camera \(path)") }
        let raw = open(path, O_RDWR | O_NONBLOCK)
        guard raw >= 0 else { throw .systemError("camera \(path): \(String(cString: strerror(errno)))") }
        let fd = v4l2_fd_open(raw, 0)
        guard fd >= 0 else {
            close(raw)
            throw .systemError("camera \(path): libv4l2 refused it")
        }
        let agreed: (format: CameraPixelFormat, width: Int, height: Int, stride: Int)
        do {
            agreed = try Self.configure(fd, path: path, preset: preset)
        } catch {
            v4l2_close(fd)
            throw error
        }
        self.fd = fd
        self.path = path
        (format, width, height, stride) = agreed
        try startStreaming()   // on failure deinit unmaps and closes
    }

    /// Chooses and sets the format, size and frame rate; returns what the driver agreed to.
    private static func configure(_ fd: Int32, path: String, preset: VideoPreset) throws(SRTCError)
        -> (format: CameraPixelFormat, width: Int, height: Int, stride: Int) {
        let offered = offeredFormats(fd)
        guard let choice = preferredFormats(for: preset).first(where: { offered.contains($0.code) }) else {
            throw .systemError("camera \(path) offers no YUYV, MJPEG, NV12 or I420")
        }
        var requested = v4l2_format()
        requested.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        requested.fmt.pix.width = UInt32(preset.width)
        requested.fmt.pix.height = UInt32(preset.height)
        requested.fmt.pix.pixelformat = choice.code
        requested.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try ioctl(fd, srtc_VIDIOC_S_FMT(), &requested, "set format")
        // The driver answers with what it can do, which may differ from what was asked.
        guard let agreed = preferredFormats(for: preset).first(where: { $0.code == requested.fmt.pix.pixelformat }) else {
            throw .systemError("camera \(path) switched to an unknown format")
        }
        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        parameters.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: UInt32(preset.frameRate))
        _ = srtc_v4l2_ioctl(fd, srtc_VIDIOC_S_PARM(), &parameters)   // best effort: not every camera sets its rate
        return (agreed.format, Int(requested.fmt.pix.width), Int(requested.fmt.pix.height), Int(requested.fmt.pix.bytesperline))
    }

    deinit {
        stopStreaming()
        v4l2_close(fd)
    }

    /// Waits up to `timeoutMs` for a frame and hands its bytes to `body` (valid only during the
    /// call). Returns false on a timeout.
    /// - Throws: `.systemError` when the camera fails (unplugged).
    func nextFrame(timeoutMs: Int32, _ body: (UnsafeRawBufferPointer) -> Void) throws(SRTCError) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMs) > 0 else { return false }
        var buffer = v4l2_buffer()
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        if srtc_v4l2_ioctl(fd, srtc_VIDIOC_DQBUF(), &buffer) != 0 {
            if errno == EAGAIN { return false }
            throw .systemError("camera \(path): \(String(cString: strerror(errno)))")
        }
        let index = Int(buffer.index)
        if index < buffers.count {
            body(UnsafeRawBufferPointer(start: buffers[index].start, count: min(Int(buffer.bytesused), buffers[index].length)))
        }
        try Self.ioctl(fd, srtc_VIDIOC_QBUF(), &buffer, "queue buffer")
        return true
    }

    // MARK: - Internals

    private static func offeredFormats(_ fd: Int32) -> Set<UInt32> {
        var codes = Set<UInt32>()
        var description = v4l2_fmtdesc()
        description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        while srtc_v4l2_ioctl(fd, srtc_VIDIOC_ENUM_FMT(), &description) == 0 {
            codes.insert(description.pixelformat)
            description.index += 1
        }
        return codes
    }

    private func startStreaming() throws(SRTCError) {
        var request = v4l2_requestbuffers()
        request.count = 4
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try Self.ioctl(fd, srtc_VIDIOC_REQBUFS(), &request, "request buffers")
        for index in 0..<request.count {
            var buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            buffer.index = index
            try Self.ioctl(fd, srtc_VIDIOC_QUERYBUF(), &buffer, "query buffer")
            guard let start = v4l2_mmap(nil, Int(buffer.length), PROT_READ | PROT_WRITE, MAP_SHARED, fd, Int64(buffer.m.offset)),
                  start != MAP_FAILED else { throw .systemError("camera \(path): cannot map its buffers") }
            buffers.append((start, Int(buffer.length)))
            try Self.ioctl(fd, srtc_VIDIOC_QBUF(), &buffer, "queue buffer")
        }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try Self.ioctl(fd, srtc_VIDIOC_STREAMON(), &type, "start streaming")
        streaming = true
    }

    private func stopStreaming() {
        if streaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            _ = srtc_v4l2_ioctl(fd, srtc_VIDIOC_STREAMOFF(), &type)
            streaming = false
        }
        for buffer in buffers { v4l2_munmap(buffer.start, buffer.length) }
        buffers = []
    }

    private static func ioctl<T>(_ fd: Int32, _ request: UInt, _ argument: inout T, _ what: String) throws(SRTCError) {
        guard withUnsafeMutablePointer(to: &argument, { srtc_v4l2_ioctl(fd, request, $0) }) == 0 else {
            throw .systemError("camera: \(what) failed: \(String(cString: strerror(errno)))")
        }
    }
}
#endif
