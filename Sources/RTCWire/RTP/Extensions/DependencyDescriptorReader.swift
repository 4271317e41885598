/// Reads one stream's Dependency Descriptors (av1-rtp-spec Appendix A), keeping what later
/// packets refer to: the last template structure (sent only with key frames) and the set of
/// decode targets the sender says are active (§A.4: valid until the next update).
///
/// Both structures' storage is made at init; a packet that carries a new structure is read into
/// the spare one, which becomes current only when the whole packet parsed. Not thread-safe:
/// one per stream, on its I/O thread.
public struct DependencyDescriptorReader: Sendable {
    /// The last structure received, nil before the first.
    public var structure: DependencyStructure? { hasStructure ? current : nil }
    /// The decode targets the sender says are active: all of the structure's after a structure,
    /// then its last active_decode_targets_bitmask (0 before any structure).
    public private(set) var activeDecodeTargets: UInt32 = 0

    private var current = DependencyStructure()
    private var spare = DependencyStructure()
    private var hasStructure = false

    public init() {}

    /// Parses a packet's value.
    /// - Parameter keepsStructure: false to read an old packet (a retransmission) without it
    ///   replacing the stream's structure or active decode targets.
    /// - Throws: `DependencyDescriptorError`; the kept state is then unchanged.
    public mutating func read(_ value: UnsafeRawBufferPointer, keepsStructure: Bool = true) throws(DependencyDescriptorError) -> DependencyDescriptor {
        let descriptor = try DependencyDescriptor.parse(value, structure: structure, incoming: &spare)
        guard keepsStructure else { return descriptor }
        if descriptor.carriesStructure {
            swap(&current, &spare)
            hasStructure = true
            activeDecodeTargets = current.allDecodeTargets
        }
        if let mask = descriptor.activeDecodeTargets { activeDecodeTargets = mask }
        return descriptor
    }

    /// Reads a value held in an array (tests and tools).
    public mutating func read(_ value: [UInt8], keepsStructure: Bool = true) throws(DependencyDescriptorError) -> DependencyDescriptor {
        try withRawBytes(value) { (raw) throws(DependencyDescriptorError) in try read(raw, keepsStructure: keepsStructure) }
    }
}
