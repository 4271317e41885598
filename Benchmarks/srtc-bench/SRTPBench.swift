// SRTP benchmark: per-packet protect and unprotect cost through RTCTransport's SRTPSession, next
// to a floor measured in the same run — the same libsrtp calls on the same buffers with nothing
// of ours around them. Both sides do identical work per packet (copy the packet into the work
// buffer, set its sequence number, transform), so the difference is our wrapper's overhead.
// Every case runs twice: first with libsrtp's built-in crypto (NSS on Debian), then with the
// OpenSSL types of CSRTPCrypto (replacement is process-wide, so the order matters), and the
// protected packets of both passes are compared byte for byte. Figures are printed, never asserted.
#if canImport(Glibc)
import Glibc
#endif
import CSRTP
import RTCTransport

/// Runs every SRTP case under both crypto implementations and prints one line per case.
func runSRTPBenchmarks() {
    print("SRTP (per packet; best of \(SRTPBench.rounds) rounds of \(SRTPBench.packetsPerRound) packets; "
          + "floor = bare libsrtp with the same crypto)")
    var passes: [SRTPBench.Pass] = []
    if getenv(SRTPLibrary.environmentVariable) == nil {
        // The first use of libsrtp in the process reads the variable: keep the built-in types.
        setenv(SRTPLibrary.environmentVariable, "nss", 1)
        let first = SRTPLibrary.crypto
        unsetenv(SRTPLibrary.environmentVariable)
        if first == .builtIn {
            passes.append(SRTPBench.runPass())
        } else {
            print("  (libsrtp was set up before this area; for built-in figures run `SRTC_SRTP_CRYPTO=nss srtc-bench srtp`)")
        }
        if SRTPLibrary.useOpenSSLCrypto() { passes.append(SRTPBench.runPass()) }
    } else {
        passes.append(SRTPBench.runPass()) // the crypto the environment asked for
    }
    guard passes.count == 2 else { return }
    let (builtIn, openSSL) = (passes[0], passes[1])
    print("  OpenSSL vs built-in crypto (ours):")
    for (before, after) in zip(builtIn.figures, openSSL.figures) {
        print("    \(before.label.padding(32)) \(format(before.ours)) → \(format(after.ours)) ns  "
              + "(\(format(before.ours / after.ours, decimals: 2))× faster)")
    }
    let identical = zip(builtIn.protectedRings, openSSL.protectedRings).allSatisfy(==)
    print("  protected packets identical under both: \(identical ? "yes" : "NO")")
}

/// One profile and packet size.
final class SRTPBench {
    /// One run of every case under the crypto in use.
    struct Pass {
        var figures: [Figure] = []
        /// Each case's ring of protected packets, concatenated.
        var protectedRings: [[UInt8]] = []
    }

    struct Figure {
        let label: String
        /// Nanoseconds per packet through `SRTPSession`, and through bare libsrtp.
        let ours: Double, floor: Double
    }

    static func runPass() -> Pass {
        let crypto = SRTPLibrary.crypto == .openSSL ? "OpenSSL EVP (CSRTPCrypto)" : "libsrtp built-in (NSS)"
        print("  crypto: \(crypto)")
        var pass = Pass()
        for profile in [SRTPProfile.aeadAES128GCM, .aes128CMSHA1_80] {
            for size in [200, 1200] {
                let bench = SRTPBench(profile: profile, payloadSize: size)
                pass.figures.append(bench.report("protect", ours: bench.protectOurs, floor: bench.protectFloor))
                pass.figures.append(bench.report("unprotect", ours: bench.unprotectOurs, floor: bench.unprotectFloor))
                pass.protectedRings.append(bench.protectedRing())
            }
        }
        return pass
    }

    static let rounds = 7
    static let packetsPerRound = 100_000
    /// Unprotect replays a ring of packets protected in advance; a fresh inbound session (made
    /// outside the timed region) starts each pass so the replay check accepts them.
    static let ringSize = 1024

    let profile: SRTPProfile
    let packetLength: Int
    let key: [UInt8]
    let plain: [UInt8]
    let work: UnsafeMutableRawBufferPointer
    let ring: UnsafeMutableRawBufferPointer
    var ringLengths: [Int] = []
    let slot = 1500

    init(profile: SRTPProfile, payloadSize: Int) {
        self.profile = profile
        key = (0..<profile.masterLength).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        // RTP header: V=2, PT=96, seq, timestamp, SSRC; then the payload.
        plain = [0x80, 96, 0, 0, 0, 0, 0x10, 0, 0x12, 0x34, 0x56, 0x78] + (0..<payloadSize).map { UInt8(truncatingIfNeeded: $0) }
        packetLength = plain.count
        work = .allocate(byteCount: slot, alignment: 16)
        ring = .allocate(byteCount: slot * Self.ringSize, alignment: 16)
        // Protect the ring once with our wrapper (any correct sender would do).
        let sender = try! SRTPSession(profile: profile, masterKeyAndSalt: key, direction: .outbound)
        for i in 0..<Self.ringSize {
            let buffer = UnsafeMutableRawBufferPointer(rebasing: ring[(i * slot)..<((i + 1) * slot)])
            plain.withUnsafeBytes { buffer.copyMemory(from: $0) }
            setSequence(buffer, UInt16(i))
            ringLengths.append(try! sender.protectRTP(buffer, length: packetLength))
        }
    }

    deinit {
        work.deallocate()
        ring.deallocate()
    }

    @inline(__always)
    func setSequence(_ buffer: UnsafeMutableRawBufferPointer, _ seq: UInt16) {
        buffer[2] = UInt8(seq >> 8)
        buffer[3] = UInt8(seq & 0xff)
    }

    /// The ring of packets protected at init, concatenated.
    func protectedRing() -> [UInt8] {
        var bytes: [UInt8] = []
        for (i, length) in ringLengths.enumerated() {
            bytes += UnsafeRawBufferPointer(rebasing: ring[(i * slot)..<(i * slot + length)])
        }
        return bytes
    }

    /// Prints (and returns) the best per-packet time of `ours` and `floor`, run alternately.
    func report(_ name: String, ours: () -> Duration, floor: () -> Duration) -> Figure {
        var bestOurs = Duration.seconds(1000), bestFloor = Duration.seconds(1000)
        for _ in 0..<Self.rounds {
            bestFloor = min(bestFloor, floor())
            bestOurs = min(bestOurs, ours())
        }
        let perOurs = nanoseconds(bestOurs) / Double(Self.packetsPerRound)
        let perFloor = nanoseconds(bestFloor) / Double(Self.packetsPerRound)
        let overhead = (perOurs / perFloor - 1) * 100
        let label = "\(name) \(profile == .aeadAES128GCM ? "GCM   " : "CM-80 ") \(packetLength - 12) B payload"
        print("    \(label.padding(32)) ours \(format(perOurs)) ns  floor \(format(perFloor)) ns  "
              + "overhead \(format(overhead, decimals: 1))%")
        return Figure(label: label, ours: perOurs, floor: perFloor)
    }

    // MARK: - Cases

    func protectOurs() -> Duration {
        let session = try! SRTPSession(profile: profile, masterKeyAndSalt: key, direction: .outbound)
        let work = self.work, length = packetLength
        return plain.withUnsafeBytes { template in
            let clock = ContinuousClock()
            let start = clock.now
            for i in 0..<Self.packetsPerRound {
                work.baseAddress!.copyMemory(from: template.baseAddress!, byteCount: length)
                setSequence(work, UInt16(truncatingIfNeeded: i))
                _ = try? session.protectRTP(work, length: length)
            }
            return clock.now - start
        }
    }

    func protectFloor() -> Duration {
        let session = rawSession(outbound: true)
        defer { srtp_dealloc(session) }
        let work = self.work, length = packetLength
        return plain.withUnsafeBytes { template in
            let clock = ContinuousClock()
            let start = clock.now
            for i in 0..<Self.packetsPerRound {
                work.baseAddress!.copyMemory(from: template.baseAddress!, byteCount: length)
                setSequence(work, UInt16(truncatingIfNeeded: i))
                var size = Int32(length)
                _ = srtp_protect(session, work.baseAddress, &size)
            }
            return clock.now - start
        }
    }

    func unprotectOurs() -> Duration {
        var total = Duration.zero
        var done = 0
        while done < Self.packetsPerRound {
            let session = try! SRTPSession(profile: profile, masterKeyAndSalt: key, direction: .inbound)
            let count = min(Self.ringSize, Self.packetsPerRound - done)
            let clock = ContinuousClock()
            let start = clock.now
            for i in 0..<count {
                let length = ringLengths[i]
                work.baseAddress!.copyMemory(from: ring.baseAddress! + i * slot, byteCount: length)
                _ = try? session.unprotectRTP(work, length: length)
            }
            total += clock.now - start
            done += count
        }
        return total
    }

    func unprotectFloor() -> Duration {
        var total = Duration.zero
        var done = 0
        while done < Self.packetsPerRound {
            let session = rawSession(outbound: false)
            let count = min(Self.ringSize, Self.packetsPerRound - done)
            let clock = ContinuousClock()
            let start = clock.now
            for i in 0..<count {
                let length = ringLengths[i]
                work.baseAddress!.copyMemory(from: ring.baseAddress! + i * slot, byteCount: length)
                var size = Int32(length)
                _ = srtp_unprotect(session, work.baseAddress, &size)
            }
            total += clock.now - start
            srtp_dealloc(session)
            done += count
        }
        return total
    }

    /// The same policy `SRTPSession` builds, made directly.
    func rawSession(outbound: Bool) -> srtp_t? {
        var policy = srtp_policy_t()
        if profile == .aeadAES128GCM {
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        } else {
            srtp_crypto_policy_set_rtp_default(&policy.rtp)
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
        }
        policy.ssrc.type = outbound ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = 1024
        policy.allow_repeat_tx = outbound ? 1 : 0
        var material = key + [UInt8](repeating: 0, count: 32)
        var session: srtp_t?
        material.withUnsafeMutableBufferPointer { buffer in
            policy.key = buffer.baseAddress
            _ = srtp_create(&session, &policy)
        }
        return session
    }

    private func nanoseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9
    }

}

func format(_ value: Double, decimals: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return "\(rounded)"
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
