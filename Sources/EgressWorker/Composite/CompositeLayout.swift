import EgressProtocol
import SRTCProtocol

/// A rectangle of the composite picture, in pixels; origin and size even (4:2:0 chroma).
public struct TileRect: Sendable, Equatable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x & ~1
        self.y = y & ~1
        self.width = width & ~1
        self.height = height & ~1
    }

    public var description: String { "\(x),\(y) \(width)x\(height)" }
}

/// Where each source goes in the composite: grid or speaker layouts, aspect-kept fitting, and the
/// simulcast layer a tile needs. Pure functions, tested without media.
public enum CompositeLayout {
    /// Most small tiles the speaker layout shows beside the speaker.
    public static let maxSideTiles = 6

    /// The tile of each of `count` sources (nil: not shown), in a `width`×`height` picture.
    /// - Parameter speaker: for `.speaker`, the index of the source shown large (the first when nil).
    public static func tiles(_ layout: EgressLayout, count: Int, width: Int, height: Int, speaker: Int? = nil) -> [TileRect?] {
        guard count > 0, width >= 2, height >= 2 else { return [TileRect?](repeating: nil, count: max(0, count)) }
        switch layout {
        case .grid:
            let columns = Int(Double(count).squareRoot().rounded(.up))
            let rows = (count + columns - 1) / columns
            let (w, h) = ((width / columns) & ~1, (height / rows) & ~1)
            return (0..<count).map { TileRect(x: ($0 % columns) * w, y: ($0 / columns) * h, width: w, height: h) }
        case .speaker:
            guard count > 1 else { return [TileRect(x: 0, y: 0, width: width, height: height)] }
            let main = min(max(0, speaker ?? 0), count - 1)
            let sideWidth = width / 4
            var result = [TileRect?](repeating: nil, count: count)
            result[main] = TileRect(x: 0, y: 0, width: width - sideWidth, height: height)
            let others = (0..<count).filter { $0 != main }.prefix(maxSideTiles)
            let sideHeight = height / max(3, others.count)
            for (slot, index) in others.enumerated() {
                result[index] = TileRect(x: width - sideWidth, y: slot * sideHeight, width: sideWidth, height: sideHeight)
            }
            return result
        }
    }

    /// The part of `tile` that shows a `sourceWidth`×`sourceHeight` picture whole, aspect kept,
    /// centred: the rest of the tile stays black (letterbox or pillarbox).
    public static func fit(sourceWidth: Int, sourceHeight: Int, in tile: TileRect) -> TileRect {
        guard sourceWidth > 0, sourceHeight > 0 else { return tile }
        // Compare w/h ratios by cross-multiplying (exact in integers).
        if sourceWidth * tile.height > tile.width * sourceHeight {
            let h = tile.width * sourceHeight / sourceWidth
            return TileRect(x: tile.x, y: tile.y + (tile.height - h) / 2, width: tile.width, height: h)
        }
        let w = tile.height * sourceWidth / sourceHeight
        return TileRect(x: tile.x + (tile.width - w) / 2, y: tile.y, width: w, height: tile.height)
    }

    /// The simulcast layer a tile needs: the smallest whose width covers three quarters of the
    /// tile's, else the largest. Nil for a track without layers.
    public static func layer(for tile: TileRect, layers: [SimulcastLayer]) -> String? {
        let sized = layers.filter { ($0.width ?? 0) > 0 }.sorted { ($0.width ?? 0) < ($1.width ?? 0) }
        guard !sized.isEmpty else { return layers.first?.desc }
        return (sized.first { ($0.width ?? 0) * 4 >= tile.width * 3 } ?? sized.last)?.desc
    }
}
