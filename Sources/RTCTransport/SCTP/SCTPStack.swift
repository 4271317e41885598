import CUsrSCTP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// usrsctp's process-wide state: initialised once, without its own threads
/// (`usrsctp_init_nothreads`), so its timers run from our I/O threads' ticks and no thread of
/// its own ever calls us. Associations are registered by a small integer id that doubles as
/// their AF_CONN address (the `addr` usrsctp hands back to the output callback), so a callback
/// for an association that is already gone finds nothing instead of a dangling pointer.
enum SCTPStack {
    /// Largest SCTP packet: IPv6's minimum MTU (1280) less IPv6 (40), UDP (8) and the DTLS 1.2
    /// AES-GCM record overhead (13 header + 8 explicit nonce + 16 tag), rounded down, so an
    /// SCTP packet in one DTLS record never needs IP fragmentation (RFC 8261 §5).
    static let pathMTU: UInt32 = 1188

    private static let registry = Mutex<[UInt: Weak]>([:])
    private static let nextID = Atomic<UInt>(1)
    private static let lastTimerRun = Mutex<ContinuousClock.Instant?>(nil)

    private struct Weak { weak var association: SCTPAssociation? }

    /// Initialises usrsctp once per process (thread-safe, lazy).
    static let initialized: Bool = {
        usrsctp_init_nothreads(0, sctpOutput, nil)
        // No ECN (nothing below us reports congestion marks); explicit congestion control stays on.
        usrsctp_sysctl_set_sctp_ecn_enable(0)
        // Partial reliability (RFC 3758) for unreliable channels, stream reconfiguration (RFC 6525)
        // to close channels (RFC 8831 §6.7).
        usrsctp_sysctl_set_sctp_pr_enable(1)
        usrsctp_sysctl_set_sctp_reconfig_enable(1)
        // No address reconfiguration: an AF_CONN association has exactly one address.
        usrsctp_sysctl_set_sctp_asconf_enable(0)
        usrsctp_sysctl_set_sctp_auto_asconf(0)
        return true
    }()

    static func register(_ association: SCTPAssociation) -> UInt {
        _ = initialized
        let id = nextID.add(1, ordering: .relaxed).oldValue
        registry.withLock { $0[id] = Weak(association: association) }
        return id
    }

    static func unregister(_ id: UInt) {
        _ = registry.withLock { $0.removeValue(forKey: id) }
    }

    static func association(_ id: UInt) -> SCTPAssociation? {
        registry.withLock { $0[id]?.association }
    }

    /// Runs usrsctp's timers (retransmissions, heartbeats, delayed SACKs) for every association.
    /// Called from each transport's tick; whichever thread comes first does the work, the others
    /// skip, so the timers advance at the tick rate however many threads call.
    static func runTimers(now: ContinuousClock.Instant) {
        let elapsed: Duration? = lastTimerRun.withLockIfAvailable { last -> Duration? in
            guard let previous = last else { last = now; return nil }
            let elapsed = now - previous
            guard elapsed >= .milliseconds(10) else { return nil }
            last = now
            return elapsed
        } ?? nil
        guard let elapsed else { return }
        let ms = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        usrsctp_handle_timers(UInt32(clamping: ms))
    }
}

/// usrsctp's output callback: an SCTP packet for the association whose id is `addr`.
/// It may run on any thread that drives usrsctp (a send, an input, a timer).
private func sctpOutput(_ addr: UnsafeMutableRawPointer?, _ buffer: UnsafeMutableRawPointer?, _ length: Int,
                        _ tos: UInt8, _ setDF: UInt8) -> Int32 {
    guard let buffer, length > 0, let association = SCTPStack.association(UInt(bitPattern: addr)) else { return 0 }
    association.output(UnsafeRawBufferPointer(start: buffer, count: length))
    return 0
}
