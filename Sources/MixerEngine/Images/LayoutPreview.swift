import MediaCore
import MixerTask

/// Renders a task's layout with no inputs, for a person designing it: the background
/// colour and image, every cell's background and placeholder, the watermarks, and over them
/// each cell outlined and labelled with its user, zOrder and fill mode.
public enum LayoutPreview {
    /// Outline colours, one per cell in turn, bright enough to see on any background.
    private static let outlines: [YUVColor] = [0xFFE000, 0x00E0FF, 0xFF40C0, 0x40FF40, 0xFF8000, 0xA080FF].map { YUVColor(RGBColor(rgb: $0)) }

    /// PNG bytes of the layout. The task's images must be loaded in `images` (as
    /// `Preflight` or `ImageLibrary.load(for:)` do).
    public static func png(of task: TaskDocument, images: ImageLibrary, roomURLTemplate: String) throws -> [UInt8] {
        guard let param = task.encoderParam, !param.isAudioOnly else {
            throw TaskError.unsupported("Preview", task.encoderParam == nil
                ? "encoderParam is absent (a relay that copies packets): there is no canvas to preview"
                : "encoderParam.videoEncodedWidth/Height are 0x0 (audio-only): there is no canvas to preview")
        }
        let compositor = try Compositor(width: param.width, height: param.height, quality: .bitExactBilinear, images: images)
        let config = task.mixingConfig
        let plan = InputPlan(task: task, roomURLTemplate: roomURLTemplate)
        compositor.setLayout(background: config.backgroundColor, backgroundImage: config.backgroundImage,
                             cells: config.videoLayoutList, inputs: plan.cellInputs, watermarks: config.watermarkList)
        try compositor.compose { _ in nil }
        let planes = compositor.planes
        var labelled: [(zOrder: Int, order: Int, rect: PixelRect, lines: [String])] = []
        for (index, cell) in config.videoLayoutList.enumerated() {
            let user = plan.cellInputs[index].map { input in
                let key = plan.inputs[input].key
                return key.streamType == .big ? key.user.userId : "\(key.user.userId) (\(key.streamType.urlName))"
            } ?? "(no user)"
            labelled.append((cell.zOrder, index, CellPlacement.alignedCell(cell.rect),
                             [user, "z\(cell.zOrder) \(fillName(cell.fillMode))"]))
        }
        for (index, watermark) in config.watermarkList.enumerated() {
            labelled.append((watermark.zOrder, config.videoLayoutList.count + index, CellPlacement.alignedCell(watermark.rect),
                             ["watermark \(index)", "z\(watermark.zOrder)"]))
        }
        for (number, item) in labelled.sorted(by: { ($0.zOrder, $0.order) < ($1.zOrder, $1.order) }).enumerated() where !item.rect.isEmpty {
            outline(item.rect, color: outlines[number % outlines.count], on: planes)
            label(item.lines, in: item.rect, on: planes)
        }
        return try ImageWriter.png(of: compositor.canvas.image)
    }

    private static func fillName(_ mode: FillMode) -> String {
        switch mode {
        case .fill: "fill"
        case .fit: "fit"
        case .stretch: "stretch"
        }
    }

    /// A 2-pixel frame just inside `rect`.
    private static func outline(_ rect: PixelRect, color: YUVColor, on planes: YUVPlanes) {
        let side = min(2, rect.width, rect.height)
        planes.fill(x: rect.x, y: rect.y, width: rect.width, height: side, color: color)
        planes.fill(x: rect.x, y: rect.y + rect.height - side, width: rect.width, height: side, color: color)
        planes.fill(x: rect.x, y: rect.y, width: side, height: rect.height, color: color)
        planes.fill(x: rect.x + rect.width - side, y: rect.y, width: side, height: rect.height, color: color)
    }

    /// White text on a black box in the top-left corner, larger in large cells, cut to fit.
    private static func label(_ lines: [String], in rect: PixelRect, on planes: YUVPlanes) {
        let scale = rect.height >= 200 && rect.width >= 200 ? 2 : 1
        let glyphWidth = BitmapFont.glyphWidth * scale, lineHeight = BitmapFont.glyphHeight * scale
        let fitting = max(0, (rect.width - 8) / glyphWidth)
        let shown = lines.map { String($0.prefix(fitting)) }.filter { !$0.isEmpty }
        let rows = min(shown.count, max(0, (rect.height - 8) / lineHeight))
        guard rows > 0 else { return }
        planes.drawLabel(Array(shown.prefix(rows)), x: rect.x + 2, y: rect.y + 2, scale: scale, padding: (2, 2))
    }
}
