import Foundation

/// A layout template from `layouts/NAME.json` (SPEC §1.4 `layoutTemplate`): cells in
/// canvas-relative terms, in variants by user count and canvas orientation, so that one
/// file fits every canvas size.
public struct LayoutTemplate: Sendable, Decodable, Equatable {
    public var name: String
    public var description: String
    public var variants: [Variant]

    public struct Variant: Sendable, Decodable, Equatable {
        /// The variant serves up to this many users (the first one that fits is used; its
        /// first N cells are filled).
        public var maxUsers: Int
        /// "landscape" (width ≥ height) or "portrait"; absent fits both.
        public var orientation: String?
        public var cells: [Cell]
    }

    /// Fractions of the canvas: x, y, width, height in 0…1.
    public struct Cell: Sendable, Decodable, Equatable {
        public var x: Double
        public var y: Double
        public var w: Double
        public var h: Double
        public var zOrder: Int?
        public var fillMode: Int?
    }

    /// The cells for `users` (in order) on a `width`×`height` canvas; users past the largest
    /// variant get no cell.
    public func cells(width: Int, height: Int, users: [InputKey], background: RGBColor) -> [VideoCell] {
        guard !users.isEmpty else { return [] }
        let orientation = width >= height ? "landscape" : "portrait"
        let fitting = variants.filter { $0.orientation == nil || $0.orientation == orientation }
        guard let variant = fitting.first(where: { $0.maxUsers >= users.count }) ?? fitting.last else { return [] }
        return zip(variant.cells, users).map { cell, user in
            let x = Int((cell.x * Double(width)).rounded()), y = Int((cell.y * Double(height)).rounded())
            let right = Int(((cell.x + cell.w) * Double(width)).rounded())
            let bottom = Int(((cell.y + cell.h) * Double(height)).rounded())
            return VideoCell(rect: Rect(x: x, y: y, width: right - x, height: bottom - y), zOrder: cell.zOrder ?? 0,
                             fillMode: FillMode(rawValue: cell.fillMode ?? 0) ?? .fill, backgroundColor: background,
                             placeHolderImage: nil, fixedVideoUser: user.user, fixedVideoStreamType: user.streamType)
        }
    }

    /// Checks a template's data: fractions within the canvas, zOrder and fill modes in range,
    /// variants in increasing size with enough cells.
    func validate() -> String? {
        guard !variants.isEmpty else { return "it has no variants" }
        for (index, variant) in variants.enumerated() {
            if let orientation = variant.orientation, orientation != "landscape" && orientation != "portrait" {
                return "variants[\(index)].orientation must be landscape or portrait"
            }
            if variant.cells.count < variant.maxUsers { return "variants[\(index)] has fewer cells than maxUsers" }
            for cell in variant.cells {
                let inside = [cell.x, cell.y, cell.w, cell.h].allSatisfy { (0...1).contains($0) } && cell.x + cell.w <= 1.0001 && cell.y + cell.h <= 1.0001
                if !inside { return "variants[\(index)] has a cell outside the canvas" }
                if !(0...15).contains(cell.zOrder ?? 0) || !(0...2).contains(cell.fillMode ?? 0) {
                    return "variants[\(index)] has a zOrder or fillMode out of range"
                }
            }
        }
        return nil
    }
}

/// Where templates are read from: a folder of `NAME.json` files.
public struct LayoutTemplateLibrary: Sendable {
    public let directory: String?

    public init(directory: String?) { self.directory = directory }

    /// `$MIXER_LAYOUTS`, else `./layouts`, else the `layouts` folder of an installed or
    /// built mixer (`<prefix>/share/mixer/layouts`, `/usr/share/mixer/layouts`, or the
    /// repository a build lives in).
    public static func locate(executable: String = CommandLine.arguments.first ?? "") -> String? {
        var candidates: [String] = []
        if let configured = ProcessInfo.processInfo.environment["MIXER_LAYOUTS"] { candidates.append(configured) }
        candidates.append(FileManager.default.currentDirectoryPath + "/layouts")
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        candidates.append(binary.appendingPathComponent("../share/mixer/layouts").standardized.path)
        candidates.append("/usr/share/mixer/layouts")  // the Docker image
        // .build/<triple>/<configuration>/mixer in a checkout.
        candidates.append(binary.appendingPathComponent("../../../layouts").standardized.path)
        return candidates.first { LayoutTemplateLibrary.isTemplateFolder($0) }
    }

    static func isTemplateFolder(_ path: String) -> Bool {
        (try? FileManager.default.contentsOfDirectory(atPath: path))?.contains { $0.hasSuffix(".json") } ?? false
    }

    /// The names of the templates in the folder.
    public var names: [String] {
        guard let directory, let files = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Reads template `name`, refusing with `ResourceNotFound.LayoutTemplate` (unknown name)
    /// or `InvalidParameter.LayoutTemplate` (a file that is not a valid template).
    public func template(named name: String, field: String) throws(TaskError) -> LayoutTemplate {
        guard let directory else {
            throw TaskError.notFound("LayoutTemplate", "\(field) \"\(name)\": this worker has no layouts folder (set MIXER_LAYOUTS)")
        }
        let path = directory + "/" + name + ".json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TaskError.notFound("LayoutTemplate", "\(field) \"\(name)\" is not a template in \(directory); known: \(names.joined(separator: ", "))")
        }
        let template: LayoutTemplate
        do {
            template = try JSONDecoder().decode(LayoutTemplate.self, from: data)
        } catch {
            throw TaskError.invalid("LayoutTemplate", "\(field) \"\(name)\": \(path) is not a valid template: \(error)")
        }
        if let problem = template.validate() {
            throw TaskError.invalid("LayoutTemplate", "\(field) \"\(name)\": \(path): \(problem)")
        }
        return template
    }
}
