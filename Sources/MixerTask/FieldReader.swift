/// Reads one JSON object while tracking where it sits in the document, so that every
/// refusal names the field (`mixingConfig.videoLayoutList[2].zOrder`). Fields read are
/// remembered; whatever is left is an unknown field and is refused.
struct FieldReader {
    let path: String
    private let fields: [String: JSONValue]
    private var consumed: Set<String> = []

    init(_ value: JSONValue, path: String, code: String) throws(TaskError) {
        guard case .object(let fields) = value else {
            throw TaskError.invalid(code, "\(path.isEmpty ? "the task" : path) must be an object, got \(value.typeName)")
        }
        self.path = path
        self.fields = fields
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The value of the first of `keys` present and not null (aliases after the first).
    mutating func value(_ keys: String...) -> (key: String, value: JSONValue)? {
        var found: (String, JSONValue)?
        for key in keys {
            consumed.insert(key)
            if found == nil, let value = fields[key], value != .null { found = (key, value) }
        }
        return found
    }

    mutating func has(_ key: String) -> Bool { value(key) != nil }

    mutating func integer(_ key: String, code: String, range: ClosedRange<Int64>, default fallback: Int64? = nil,
                          rule: String? = nil) throws(TaskError) -> Int64? {
        guard let (key, value) = value(key) else { return fallback }
        return try FieldReader.integer(value, name: name(key), code: code, range: range, rule: rule)
    }

    static func integer(_ value: JSONValue, name: String, code: String, range: ClosedRange<Int64>,
                        rule: String? = nil) throws(TaskError) -> Int64 {
        let number: Int64
        switch value {
        case .integer(let n): number = n
        case .number(let d) where d.rounded() == d && abs(d) < 9e15: number = Int64(d)
        default: throw TaskError.invalid(code, "\(name) must be an integer, got \(value.typeName)")
        }
        guard range.contains(number) else {
            throw TaskError.invalid(code, "\(name) \(number) is outside \(rule ?? "\(range.lowerBound)–\(range.upperBound)")")
        }
        return number
    }

    mutating func string(_ keys: String..., code: String, maxLength: Int = 4096) throws(TaskError) -> String? {
        var found: (key: String, value: JSONValue)?
        for key in keys {
            if let hit = value(key), found == nil { found = hit }
        }
        guard let (key, value) = found else { return nil }
        guard case .string(let text) = value else {
            throw TaskError.invalid(code, "\(name(key)) must be a string, got \(value.typeName)")
        }
        guard text.utf8.count <= maxLength else {
            throw TaskError.invalid(code, "\(name(key)) is longer than \(maxLength) bytes")
        }
        return text
    }

    mutating func bool(_ key: String, code: String, default fallback: Bool) throws(TaskError) -> Bool {
        guard let (key, value) = value(key) else { return fallback }
        guard case .bool(let flag) = value else {
            throw TaskError.invalid(code, "\(name(key)) must be true or false, got \(value.typeName)")
        }
        return flag
    }

    mutating func array(_ key: String, code: String, maxCount: Int) throws(TaskError) -> [(String, JSONValue)] {
        guard let (key, value) = value(key) else { return [] }
        guard case .array(let items) = value else {
            throw TaskError.invalid(code, "\(name(key)) must be an array, got \(value.typeName)")
        }
        guard items.count <= maxCount else {
            throw TaskError.invalid(code, "\(name(key)) has \(items.count) entries; at most \(maxCount) are allowed")
        }
        return items.enumerated().map { ("\(name(key))[\($0.offset)]", $0.element) }
    }

    /// Refuses any field that no reader asked for.
    func finish() throws(TaskError) {
        let unknown = fields.keys.filter { !consumed.contains($0) }.sorted()
        guard let first = unknown.first else { return }
        let known = consumed.sorted()
        let hint = FieldReader.closest(to: first, in: known).map { " (did you mean \"\($0)\"?)" } ?? ""
        throw TaskError.invalid("UnknownField", "\(name(first)) is not a known field\(hint)")
    }

    /// The known name within edit distance 2 of `word`, case-insensitively.
    static func closest(to word: String, in candidates: [String]) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for (i, ca) in a.enumerated() {
                var current = [i + 1]
                for (j, cb) in b.enumerated() {
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
                }
                previous = current
            }
            return previous[b.count]
        }
        let lowered = Array(word.lowercased())
        return candidates
            .map { ($0, distance(lowered, Array($0.lowercased()))) }
            .filter { $0.1 <= 2 }
            .min { $0.1 < $1.1 }?.0
    }
}
