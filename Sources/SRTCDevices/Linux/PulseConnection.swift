#if os(Linux)
import SRTCCore
import CPulse
import Dispatch

/// A connection to the PulseAudio server through the asynchronous API, driven on the calling
/// thread: what the simple API cannot do (list sources and sinks, subscribe to their changes).
/// libpulse calls back through C function pointers; the Swift side travels as the `userdata`
/// pointer of a box, never captured.
final class PulseConnection {
    /// What the list callbacks fill.
    private final class Collected {
        var devices: [MediaDevice] = []
        var defaultSource: String?
        var defaultSink: String?
        var changed = false

        static func from(_ userdata: UnsafeMutableRawPointer) -> Collected {
            Unmanaged<Collected>.fromOpaque(userdata).takeUnretainedValue()
        }

        /// A source (`.audioInput`) or sink (`.audioOutput`) from a list callback.
        func add(_ name: UnsafePointer<CChar>, _ description: UnsafePointer<CChar>?, kind: MediaDeviceKind) {
            let id = String(cString: name)
            let preferred = kind == .audioInput ? defaultSource : defaultSink
            devices.append(MediaDevice(deviceId: id, kind: kind, label: description.map { String(cString: $0) } ?? id,
                                       isDefault: id == preferred))
        }
    }

    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private let collected = Collected()

    /// Connects, waiting up to `timeout` seconds.
    /// - Throws: `.systemError` when no server answers.
    init(server: String?, timeout: Double = 2) throws(SRTCError) {
        guard let mainloop = pa_mainloop_new() else { throw .systemError("PulseAudio: no main loop") }
        guard let context = pa_context_new(pa_mainloop_get_api(mainloop), "SRTC") else {
            pa_mainloop_free(mainloop)
            throw .systemError("PulseAudio: no context")
        }
        self.mainloop = mainloop
        self.context = context
        guard pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw PulseStream.error(pa_context_errno(context), device: nil)
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while true {
            let state = pa_context_get_state(context)
            if state == PA_CONTEXT_READY { break }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED || DispatchTime.now().uptimeNanoseconds > deadline {
                throw PulseStream.error(pa_context_errno(context), device: nil)
            }
            iterate(timeoutMs: 100)
        }
    }

    deinit {
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(mainloop)
    }

    // MARK: - Internals

    /// Whether the server connection still works.
    var isReady: Bool { pa_context_get_state(context) == PA_CONTEXT_READY }

    /// Sources (`.audioInput`) and sinks (`.audioOutput`), the server's defaults marked.
    func devices() -> [MediaDevice] {
        collected.devices = []
        let box = Unmanaged.passUnretained(collected).toOpaque()
        run(pa_context_get_server_info(context, { _, info, userdata in
            guard let info, let userdata else { return }
            let collected = Unmanaged<Collected>.fromOpaque(userdata).takeUnretainedValue()
            collected.defaultSource = info.pointee.default_source_name.map { String(cString: $0) }
            collected.defaultSink = info.pointee.default_sink_name.map { String(cString: $0) }
        }, box))
        run(pa_context_get_source_info_list(context, { _, info, eol, userdata in
            guard eol == 0, let info, let userdata else { return }
            Collected.from(userdata).add(info.pointee.name, info.pointee.description, kind: .audioInput)
        }, box))
        run(pa_context_get_sink_info_list(context, { _, info, eol, userdata in
            guard eol == 0, let info, let userdata else { return }
            Collected.from(userdata).add(info.pointee.name, info.pointee.description, kind: .audioOutput)
        }, box))
        return collected.devices
    }

    /// Asks the server to report sources and sinks coming and going; `takeChanges()` tells.
    func subscribe() {
        let box = Unmanaged.passUnretained(collected).toOpaque()
        pa_context_set_subscribe_callback(context, { _, event, _, userdata in
            guard let userdata else { return }
            let type = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
            guard type == PA_SUBSCRIPTION_EVENT_NEW.rawValue || type == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue else { return }
            Unmanaged<Collected>.fromOpaque(userdata).takeUnretainedValue().changed = true
        }, box)
        let mask = pa_subscription_mask_t(PA_SUBSCRIPTION_MASK_SINK.rawValue | PA_SUBSCRIPTION_MASK_SOURCE.rawValue)
        run(pa_context_subscribe(context, mask, nil, nil))
    }

    /// Whether a subscribed change arrived since the last call.
    func takeChanges() -> Bool {
        defer { collected.changed = false }
        return collected.changed
    }

    /// Waits up to `timeoutMs` for server messages and handles them.
    func iterate(timeoutMs: Int) {
        guard pa_mainloop_prepare(mainloop, Int32(timeoutMs * 1_000)) >= 0 else { return }
        _ = pa_mainloop_poll(mainloop)
        _ = pa_mainloop_dispatch(mainloop)
    }

    /// Drives the loop until `operation` completes (or the connection fails).
    private func run(_ operation: OpaquePointer?) {
        guard let operation else { return }
        defer { pa_operation_unref(operation) }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING && isReady {
            iterate(timeoutMs: 100)
        }
    }
}
#endif
