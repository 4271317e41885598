// Where the frame-number code sits in a test-pattern frame, shared by the generator and the reader.
//
// The code is a band across the top of the picture: 2 rows × 16 cells, each cell black (Y 16) or white
// (Y 235) for one bit. 32 bits = a 24-bit frame number + an 8-bit check. Large, flat, full-contrast cells
// survive lossy VP8 coding at any sensible bitrate; the reader samples only each cell's centre.

/// Geometry and bit layout of the test-pattern code band.
struct TestPatternLayout: Sendable {
    static let columns = 16
    static let rows = 2
    static let numberBits = 24
    static let black: UInt8 = 16
    static let white: UInt8 = 235

    let width: Int
    let height: Int
    let cellWidth: Int
    let cellHeight: Int

    /// Smallest picture whose cells stay at least 4×4 pixels.
    static let minimumWidth = 64
    static let minimumHeight = 48

    init?(width: Int, height: Int) {
        guard width >= Self.minimumWidth, height >= Self.minimumHeight else { return nil }
        self.width = width
        self.height = height
        cellWidth = width / Self.columns
        cellHeight = max(4, height / 12)
    }

    /// Height of the whole code band.
    var bandHeight: Int { cellHeight * Self.rows }

    /// The 32 code bits for a frame number, most significant first: 24 number bits then 8 check bits.
    static func bits(for number: Int) -> [Bool] {
        let value = UInt32(truncatingIfNeeded: number) & 0xFF_FFFF
        let word = value << 8 | UInt32(check(value))
        return (0..<32).map { word >> (31 - $0) & 1 == 1 }
    }

    /// The frame number encoded by 32 bits, or nil when the check byte disagrees.
    static func number(from bits: [Bool]) -> Int? {
        guard bits.count == 32 else { return nil }
        let word = bits.reduce(UInt32(0)) { $0 << 1 | ($1 ? 1 : 0) }
        let value = word >> 8
        return UInt8(word & 0xFF) == check(value) ? Int(value) : nil
    }

    /// Check byte: the three number bytes summed, rotated and mixed so that a stuck band (all black or
    /// all white) never passes.
    static func check(_ value: UInt32) -> UInt8 {
        let sum = (value & 0xFF) + (value >> 8 & 0xFF) * 3 + (value >> 16 & 0xFF) * 7
        return UInt8(truncatingIfNeeded: sum) ^ 0x5A
    }

    /// Top-left corner of the cell holding bit `index`.
    func origin(ofBit index: Int) -> (x: Int, y: Int) {
        ((index % Self.columns) * cellWidth, (index / Self.columns) * cellHeight)
    }
}
