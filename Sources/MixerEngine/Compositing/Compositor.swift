import MediaCore
import MixerTask

/// One cell as the compositor draws it.
struct CompositorCell: Sendable, Hashable {
    var rect: PixelRect
    var fillMode: FillMode
    var background: YUVColor
    /// Index of the input shown, or nil for a cell that only shows its background.
    var input: Int?
    /// Drawn (by the cell's fill mode) while the cell has no picture.
    var placeholder: String?
}

/// What is drawn over the background, bottom to top.
enum CompositorLayer: Sendable, Hashable {
    case cell(CompositorCell)
    case watermark(url: String, rect: PixelRect)
}

/// Composes the canvas each tick: background colour and image, then cells and watermarks
/// from the lowest zOrder up (cells and watermarks share the scale; among equals, cells in
/// list order, then watermarks in list order), each picture scaled straight into its place
/// on the canvas and each image scaled once per size. Confined to the mixing thread.
final class Compositor {
    let width: Int
    let height: Int
    let canvas: Frame
    private var background = YUVColor.black
    private var backgroundImage: String?
    private(set) var layers: [CompositorLayer] = []
    private var scalers: [Scaler] = []
    private let quality: ScaleQuality
    private let images: ImageLibrary
    /// Images at the sizes they are drawn at, by (image, crop, size).
    private var imageLayers: [ImageLayerKey: ImageLayer] = [:]
    private static let imageLayerLimit = 64

    private struct ImageLayerKey: Hashable {
        var url: String
        var source: PixelRect
        var width: Int
        var height: Int
    }

    init(width: Int, height: Int, quality: ScaleQuality, images: ImageLibrary = ImageLibrary()) throws {
        self.width = width
        self.height = height
        self.quality = quality
        self.images = images
        canvas = try Frame.video(width: width, height: height, format: .yuv420p)
    }

    /// Takes a new layout; applied from the next `compose`, i.e. at a tick boundary.
    func setLayout(background: RGBColor, backgroundImage: String? = nil, cells: [VideoCell], inputs: [Int?],
                   watermarks: [Watermark] = []) {
        self.background = YUVColor(background)
        self.backgroundImage = backgroundImage
        var stacked: [(zOrder: Int, order: Int, layer: CompositorLayer)] = []
        for (index, cell) in cells.enumerated() {
            stacked.append((cell.zOrder, index, .cell(CompositorCell(
                rect: CellPlacement.alignedCell(cell.rect), fillMode: cell.fillMode, background: YUVColor(cell.backgroundColor),
                input: inputs[index], placeholder: cell.placeHolderImage))))
        }
        for (index, watermark) in watermarks.enumerated() {
            stacked.append((watermark.zOrder, cells.count + index,
                            .watermark(url: watermark.url, rect: CellPlacement.alignedCell(watermark.rect))))
        }
        layers = stacked.sorted { ($0.zOrder, $0.order) < ($1.zOrder, $1.order) }.map(\.layer)
        while scalers.count < layers.count { scalers.append(Scaler(quality: quality)) }
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
        if let backgroundImage {
            try drawImage(backgroundImage, in: PixelRect(x: 0, y: 0, width: width, height: height), mode: .stretch, on: planes)
        }
        let target = canvas.image
        for (index, layer) in layers.enumerated() {
            switch layer {
            case .watermark(let url, let rect):
                try drawImage(url, in: rect, mode: .stretch, on: planes)
            case .cell(let cell) where !cell.rect.isEmpty:
                let shown = cell.input.flatMap(picture)
                if shown == nil || cell.fillMode == .fit {
                    planes.fill(x: cell.rect.x, y: cell.rect.y, width: cell.rect.width, height: cell.rect.height, color: cell.background)
                }
                guard let shown else {
                    if let placeholder = cell.placeholder { try drawImage(placeholder, in: cell.rect, mode: cell.fillMode, on: planes) }
                    continue
                }
                guard let placement = CellPlacement.place(
                    sourceWidth: shown.width, sourceHeight: shown.height, in: cell.rect, mode: cell.fillMode,
                    canvasWidth: width, canvasHeight: height) else { continue }
                let destination = target.yuv420Region(x: placement.destination.x, y: placement.destination.y,
                                                      width: placement.destination.width, height: placement.destination.height)
                try shown.withImage { image in
                    let source = image.yuv420Region(x: placement.source.x, y: placement.source.y,
                                                    width: placement.source.width, height: placement.source.height)
                    try scalers[index].scale(source, into: destination)
                }
            case .cell:
                continue  // a zero-size cell draws nothing
            }
        }
    }

    /// Draws image `url` into `rect` by `mode`, scaling it only the first time it is drawn at
    /// that size. An image that was never loaded (the task was not preflighted) is skipped.
    private func drawImage(_ url: String, in rect: PixelRect, mode: FillMode, on planes: YUVPlanes) throws {
        guard let image = images.loaded(url),
              let placement = CellPlacement.place(sourceWidth: image.width, sourceHeight: image.height, in: rect, mode: mode,
                                                  canvasWidth: width, canvasHeight: height) else { return }
        let key = ImageLayerKey(url: url, source: placement.source, width: placement.destination.width,
                                height: placement.destination.height)
        let layer: ImageLayer
        if let cached = imageLayers[key] {
            layer = cached
        } else {
            if imageLayers.count >= Compositor.imageLayerLimit { imageLayers.removeAll() }
            layer = try ImageLayer(image, source: placement.source, width: key.width, height: key.height, quality: quality)
            imageLayers[key] = layer
        }
        layer.draw(into: planes, x: placement.destination.x, y: placement.destination.y)
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
