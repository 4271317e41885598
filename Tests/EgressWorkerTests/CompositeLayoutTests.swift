import EgressProtocol
import EgressWorker
import SRTCProtocol
import Testing

@Suite struct CompositeLayoutTests {
    @Test func aGridIsAsSquareAsTheCountAllows() {
        #expect(CompositeLayout.tiles(.grid, count: 1, width: 640, height: 360) == [TileRect(x: 0, y: 0, width: 640, height: 360)])
        // 2: two columns, one row.
        #expect(CompositeLayout.tiles(.grid, count: 2, width: 640, height: 360) ==
                [TileRect(x: 0, y: 0, width: 320, height: 360), TileRect(x: 320, y: 0, width: 320, height: 360)])
        // 3 and 4: 2 × 2 (the fourth tile of three stays empty).
        let four = [TileRect(x: 0, y: 0, width: 320, height: 180), TileRect(x: 320, y: 0, width: 320, height: 180),
                    TileRect(x: 0, y: 180, width: 320, height: 180), TileRect(x: 320, y: 180, width: 320, height: 180)]
        #expect(CompositeLayout.tiles(.grid, count: 3, width: 640, height: 360) == Array(four.prefix(3)))
        #expect(CompositeLayout.tiles(.grid, count: 4, width: 640, height: 360) == four)
        // 5: 3 columns × 2 rows, sizes rounded down to even numbers.
        let five = CompositeLayout.tiles(.grid, count: 5, width: 640, height: 360)
        #expect(five == [TileRect(x: 0, y: 0, width: 212, height: 180), TileRect(x: 212, y: 0, width: 212, height: 180),
                         TileRect(x: 424, y: 0, width: 212, height: 180), TileRect(x: 0, y: 180, width: 212, height: 180),
                         TileRect(x: 212, y: 180, width: 212, height: 180)])
        #expect(CompositeLayout.tiles(.grid, count: 0, width: 640, height: 360).isEmpty)
    }

    @Test func theSpeakerLayoutShowsTheSpeakerLargeAndTheOthersInAColumn() {
        let tiles = CompositeLayout.tiles(.speaker, count: 3, width: 640, height: 360, speaker: 2)
        #expect(tiles[2] == TileRect(x: 0, y: 0, width: 480, height: 360))
        #expect(tiles[0] == TileRect(x: 480, y: 0, width: 160, height: 120))
        #expect(tiles[1] == TileRect(x: 480, y: 120, width: 160, height: 120))
        // Alone: the whole picture. Beyond six others, the rest are not shown.
        #expect(CompositeLayout.tiles(.speaker, count: 1, width: 640, height: 360) == [TileRect(x: 0, y: 0, width: 640, height: 360)])
        let many = CompositeLayout.tiles(.speaker, count: 9, width: 640, height: 360)
        #expect(many.compactMap { $0 }.count == 7)
        #expect(many[0]?.width == 480)
    }

    @Test func fittingKeepsTheAspectAndCentres() {
        let tile = TileRect(x: 320, y: 0, width: 320, height: 360)
        // 16:9 into a tall tile: letterbox bars above and below.
        #expect(CompositeLayout.fit(sourceWidth: 320, sourceHeight: 180, in: tile) == TileRect(x: 320, y: 90, width: 320, height: 180))
        // 4:3 into a wide tile: pillarbox bars left and right.
        #expect(CompositeLayout.fit(sourceWidth: 640, sourceHeight: 480, in: TileRect(x: 0, y: 0, width: 640, height: 360)) ==
                TileRect(x: 80, y: 0, width: 480, height: 360))
        #expect(CompositeLayout.fit(sourceWidth: 1280, sourceHeight: 720, in: TileRect(x: 0, y: 0, width: 640, height: 360)) ==
                TileRect(x: 0, y: 0, width: 640, height: 360))
    }

    @Test func aSmallTileTakesTheSmallLayer() {
        let layers = [SimulcastLayer(rid: "h", desc: "camera_big", width: 1280, height: 720),
                      SimulcastLayer(rid: "l", desc: "camera_small", width: 320, height: 180)]
        #expect(CompositeLayout.layer(for: TileRect(x: 0, y: 0, width: 320, height: 180), layers: layers) == "camera_small")
        #expect(CompositeLayout.layer(for: TileRect(x: 0, y: 0, width: 426, height: 240), layers: layers) == "camera_small")
        #expect(CompositeLayout.layer(for: TileRect(x: 0, y: 0, width: 640, height: 360), layers: layers) == "camera_big")
        #expect(CompositeLayout.layer(for: TileRect(x: 0, y: 0, width: 1920, height: 1080), layers: layers) == "camera_big")
        #expect(CompositeLayout.layer(for: TileRect(x: 0, y: 0, width: 64, height: 48), layers: []) == nil)
    }
}
