// The neighbourhood kernels of the render module, over one 8-bit plane: a box mean (background
// blur, mask clean-up, the sharpening base) and box statistics (the edge-preserving smoothing).
//
// Both run columns first: a row of column sums slides down the picture (one add and one subtract
// per sample, independent across x, so the compiler vectorizes it), and a running sum along that
// row gives each window. The cost per sample does not depend on the radius, and the only scratch
// is one or two rows of sums. Edges repeat the border sample. Wrapping arithmetic (`&+`) keeps
// overflow traps out of the loops; the sums are bounded by 255 × (2r + 1)², far below Int32's range.

enum PlaneFilter {
    // MARK: - Public API

    /// Largest radius the kernels accept (sums stay far inside Int32).
    static let maxRadius = 100

    /// The mean of each (2r + 1)² window of `source` into `target` (which must not alias it).
    /// - Parameter columns: scratch of `width` Int32.
    static func boxMean(_ source: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, width: Int, height: Int,
                        radius: Int, columns: UnsafeMutablePointer<Int32>) {
        let r = min(max(0, radius), maxRadius)
        guard r > 0 else { target.update(from: source, count: width * height); return }
        let n = (2 * r + 1) * (2 * r + 1)
        // Fixed-point reciprocal: (sum × recip) >> 16 ≈ sum / n, rounded.
        let recip = Int32((65_536 + n / 2) / n)
        startColumns(source, columns, width: width, height: height, radius: r, squared: false)
        for y in 0..<height {
            let out = target + y * width
            var sum = rowStart(columns, width: width, radius: r)
            // Three stretches, so the middle one (most of the row) needs no edge clamping.
            let left = min(width, r), right = max(left, width - r - 1)
            for x in 0..<left {
                out[x] = UInt8(truncatingIfNeeded: (sum &* recip &+ 32_768) >> 16)
                sum = sum &+ columns[min(x + r + 1, width - 1)] &- columns[0]
            }
            let ahead = columns + r + 1, behind = columns - r
            for x in left..<right {
                out[x] = UInt8(truncatingIfNeeded: (sum &* recip &+ 32_768) &>> 16)
                sum = sum &+ ahead[x] &- behind[x]
            }
            for x in right..<width {
                out[x] = UInt8(truncatingIfNeeded: (sum &* recip &+ 32_768) >> 16)
                sum = sum &+ columns[width - 1] &- columns[max(x - r, 0)]
            }
            slideColumns(source, columns, width: width, height: height, row: y, radius: r, squared: false)
        }
    }

    /// Visits each row with the window sums of the samples and of their squares, for local mean
    /// and variance: `body(y, sums, squareSums)`, each a row of `width` Int32.
    /// - Parameter scratch: 4 × `width` Int32.
    static func boxStatistics(_ source: UnsafePointer<UInt8>, width: Int, height: Int, radius: Int,
                              scratch: UnsafeMutablePointer<Int32>,
                              _ body: (Int, UnsafePointer<Int32>, UnsafePointer<Int32>) -> Void) {
        let r = min(max(1, radius), maxRadius)
        let columns = scratch, squares = scratch + width, rowSums = scratch + 2 * width, rowSquares = scratch + 3 * width
        startColumns(source, columns, width: width, height: height, radius: r, squared: false)
        startColumns(source, squares, width: width, height: height, radius: r, squared: true)
        for y in 0..<height {
            var sum = rowStart(columns, width: width, radius: r)
            var square = rowStart(squares, width: width, radius: r)
            for x in 0..<width {
                rowSums[x] = sum
                rowSquares[x] = square
                let add = min(x + r + 1, width - 1), drop = max(x - r, 0)
                sum = sum &+ columns[add] &- columns[drop]
                square = square &+ squares[add] &- squares[drop]
            }
            body(y, rowSums, rowSquares)
            slideColumns(source, columns, width: width, height: height, row: y, radius: r, squared: false)
            slideColumns(source, squares, width: width, height: height, row: y, radius: r, squared: true)
        }
    }

    // MARK: - Internals

    /// Column sums of the window around row 0 (rows -r…r, the top row repeated above the picture).
    private static func startColumns(_ source: UnsafePointer<UInt8>, _ columns: UnsafeMutablePointer<Int32>,
                                     width: Int, height: Int, radius r: Int, squared: Bool) {
        for x in 0..<width {
            let top = Int32(source[x])
            columns[x] = (squared ? top &* top : top) &* Int32(r + 1)
        }
        for k in 1...r {
            let row = source + min(k, height - 1) * width
            for x in 0..<width {
                let value = Int32(row[x])
                columns[x] = columns[x] &+ (squared ? value &* value : value)
            }
        }
    }

    /// Moves the column window from row `row` to row `row + 1`.
    @inline(__always)
    private static func slideColumns(_ source: UnsafePointer<UInt8>, _ columns: UnsafeMutablePointer<Int32>,
                                     width: Int, height: Int, row: Int, radius r: Int, squared: Bool) {
        let incoming = source + min(row + r + 1, height - 1) * width
        let outgoing = source + max(row - r, 0) * width
        if squared {
            for x in 0..<width {
                let a = Int32(incoming[x]), b = Int32(outgoing[x])
                columns[x] = columns[x] &+ a &* a &- b &* b
            }
        } else {
            for x in 0..<width { columns[x] = columns[x] &+ Int32(incoming[x]) &- Int32(outgoing[x]) }
        }
    }

    /// The window sum at x = 0 along a row of column sums (the first column repeated to the left).
    @inline(__always)
    private static func rowStart(_ columns: UnsafeMutablePointer<Int32>, width: Int, radius r: Int) -> Int32 {
        var sum = columns[0] &* Int32(r + 1)
        for k in 1...r { sum = sum &+ columns[min(k, width - 1)] }
        return sum
    }
}
