import Foundation

/// A parsed JSON document that keeps integers exact and tells booleans from numbers,
/// so that validation can name the wrong type of any field.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses a JSON text; malformed input is refused with `InvalidParameter.Json`.
    public static func parse(_ text: String) throws(TaskError) -> JSONValue {
        try parse(Data(text.utf8))
    }

    public static func parse(_ data: Data) throws(TaskError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch let error as DecodingError {
            throw TaskError.invalid("Json", "the task is not valid JSON: \(JSONValue.describe(error))")
        } catch {
            throw TaskError.invalid("Json", "the task is not valid JSON: \(error)")
        }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A JSON string literal for `text`.
    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.userInfo["NSDebugDescription"] as? String
            return underlying ?? context.debugDescription
        default:
            return "\(error)"
        }
    }
}

extension JSONValue: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
