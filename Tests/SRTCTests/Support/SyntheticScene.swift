import RTCMedia
import TestRandom

/// A synthetic camera picture for the render module's tests: a textured wall (a fine
/// checkerboard with a colour gradient) and, optionally, a "person" (an ellipse of skin tone with
/// fine noise, and a dark-and-light collar with hard edges). The person's mask is known exactly.
struct SyntheticScene {
    let width: Int
    let height: Int

    /// Whether pixel (x, y) belongs to the person.
    func isPerson(x: Int, y: Int) -> Bool {
        let cx = Double(width) / 2, cy = Double(height) * 0.55
        let rx = Double(width) * 0.22, ry = Double(height) * 0.42
        let dx = (Double(x) - cx) / rx, dy = (Double(y) - cy) / ry
        return dx * dx + dy * dy <= 1
    }

    /// The picture, with sensor noise of ±`noise` on every sample (seeded).
    func frame(person: Bool, noise: Int = 2, seed: UInt64 = 1) -> VideoPixelBuffer {
        var random = SeededRandom(seed: seed)
        var buffer = try! VideoPixelBuffer(format: .i420, width: width, height: height)
        let (cw, ch) = (buffer.chromaWidth, buffer.chromaHeight)
        func jitter(_ amount: Int) -> Int { amount == 0 ? 0 : Int(random.next() % UInt64(2 * amount + 1)) - amount }
        buffer.withMutablePlane(0) { luma in
            for y in 0..<height {
                for x in 0..<width {
                    var value: Int
                    if person && isPerson(x: x, y: y) {
                        // Skin with fine texture; a collar band with hard black/white edges.
                        let collar = y > Int(Double(height) * 0.8)
                        value = collar ? ((x / 6) % 2 == 0 ? 40 : 210) : 150 + jitter(10)
                    } else {
                        value = ((x / 4 + y / 4) % 2 == 0) ? 70 : 180
                    }
                    luma[y * width + x] = UInt8(max(16, min(235, value + jitter(noise))))
                }
            }
        }
        for plane in 1...2 {
            buffer.withMutablePlane(plane) { chroma in
                for y in 0..<ch {
                    for x in 0..<cw {
                        let skin = person && isPerson(x: 2 * x, y: 2 * y)
                        let value = skin ? (plane == 1 ? 110 : 155) : (plane == 1 ? 100 + x * 40 / cw : 150 - y * 40 / ch)
                        chroma[y * cw + x] = UInt8(value + jitter(noise / 2))
                    }
                }
            }
        }
        return buffer
    }

    /// The person mask (255 person, 0 wall).
    var mask: [UInt8] {
        (0..<(width * height)).map { isPerson(x: $0 % width, y: $0 / width) ? 255 : 0 }
    }
}

/// Measurements of a picture's planes.
enum PictureMeasure {
    /// The mean of plane `index`.
    static func mean(_ buffer: VideoPixelBuffer, plane index: Int) -> Double {
        buffer.withPlane(index) { samples in Double(samples.reduce(0) { $0 + Int($1) }) / Double(samples.count) }
    }

    /// High-frequency energy of the luma: the mean squared difference between horizontal and
    /// vertical neighbours, over the pixels selected by `region` (all by default).
    static func highFrequencyEnergy(_ buffer: VideoPixelBuffer, region: ((Int, Int) -> Bool)? = nil) -> Double {
        let (w, h) = (buffer.width, buffer.height)
        return buffer.withPlane(0) { luma in
            var sum = 0, count = 0
            for y in 0..<(h - 1) {
                for x in 0..<(w - 1) where region?(x, y) ?? true {
                    let here = Int(luma[y * w + x])
                    let dx = Int(luma[y * w + x + 1]) - here, dy = Int(luma[(y + 1) * w + x]) - here
                    sum += dx * dx + dy * dy
                    count += 1
                }
            }
            return Double(sum) / Double(max(1, count))
        }
    }
}
