import MediaCore
import MixerTask

/// One cell as the compositor draws it.
struct CompositorCell: Sendable, Hashable {
    var rect: PixelRect
    var fillMode: FillMode
    var background: YUVColor
    /// Index of the input shown, or nil for a cell that only shows its background.
    var input: Int?
}

/// Composes the canvas each tick: background, then the cells from the lowest zOrder up
/// (list order among equals), each picture scaled straight into its place on the canvas.
/// Confined to the mixing thread.
final class Compositor {
    let width: Int
    let height: Int
    let canvas: Frame
    private var background = YUVColor.black
    private var cells: [CompositorCell] = []
    private var scalers: [Scaler] = []
    private let quality: ScaleQuality

    init(width: Int, height: Int, quality: ScaleQuality) throws {
        self.width = width
        self.height = height
        self.quality = quality
        canvas = try Frame.video(width: width, height: height, format: .yuv420p)
    }

    /// Takes a new layout; applied from the next `compose`, i.e. at a tick boundary.
    func setLayout(background: RGBColor, cells: [VideoCell], inputs: [Int?]) {
        self.background = YUVColor(background)
        let ordered = cells.indices.sorted { (cells[$0].zOrder, $0) < (cells[$1].zOrder, $1) }
        self.cells = ordered.map { index in
            CompositorCell(rect: CellPlacement.alignedCell(cells[index].rect), fillMode: cells[index].fillMode,
                           background: YUVColor(cells[index].backgroundColor), input: inputs[index])
        }
        while scalers.count < self.cells.count { scalers.append(Scaler(quality: quality)) }
    }

    var planes: YUVPlanes {
        YUVPlanes(y: canvas.data(0)!, u: canvas.data(1)!, v: canvas.data(2)!,
                  strides: (0..<3).map { canvas.linesize($0) }, width: width, height: height)
    }

    /// Draws the canvas for one tick; `picture` gives each input's due picture, if any.
    func compose(picture: (Int) -> VideoPicture?) throws {
        try canvas.makeWritable()
        let planes = self.planes
        planes.fill(x: 0, y: 0, width: width, height: height, color: background)
        let target = canvas.image
        for (index, cell) in cells.enumerated() where !cell.rect.isEmpty {
            let shown = cell.input.flatMap(picture)
            if shown == nil || cell.fillMode == .fit {
                planes.fill(x: cell.rect.x, y: cell.rect.y, width: cell.rect.width, height: cell.rect.height, color: cell.background)
            }
            guard let shown, let placement = CellPlacement.place(
                sourceWidth: shown.width, sourceHeight: shown.height, in: cell.rect, mode: cell.fillMode,
                canvasWidth: width, canvasHeight: height) else { continue }
            let destination = target.yuv420Region(x: placement.destination.x, y: placement.destination.y,
                                                  width: placement.destination.width, height: placement.destination.height)
            try shown.withImage { image in
                let source = image.yuv420Region(x: placement.source.x, y: placement.source.y,
                                                width: placement.source.width, height: placement.source.height)
                try scalers[index].scale(source, into: destination)
            }
        }
    }

    /// Adler-32 of the visible canvas bytes (Y, then U, then V), the golden tests' hash.
    func checksum() -> UInt32 {
        var adler = Adler32()
        let chroma = (width + 1) / 2
        for (plane, rows, bytes) in [(0, height, width), (1, (height + 1) / 2, chroma), (2, (height + 1) / 2, chroma)] {
            let base = canvas.data(plane)!, stride = canvas.linesize(plane)
            for row in 0..<rows { adler.update(base + row * stride, count: bytes) }
        }
        return adler.value
    }

    /// A Sendable copy of the canvas (for snapshots and tests; not used per tick otherwise).
    func copy() -> VideoPicture { VideoPicture(copying: canvas) }
}
