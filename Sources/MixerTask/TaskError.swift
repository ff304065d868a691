/// A refusal a user can act on: a stable `code` (e.g. `InvalidParameter.ZOrder`) and a
/// message naming the field and the rule it broke.
public struct TaskError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// The JSON body of a refusal, `{"code":…,"message":…}`.
    public var json: String {
        "{\"code\":\(JSONValue.quote(code)),\"message\":\(JSONValue.quote(message))}"
    }

    public static func invalid(_ name: String, _ message: String) -> TaskError {
        TaskError("InvalidParameter.\(name)", message)
    }

    public static func missing(_ name: String, _ message: String) -> TaskError {
        TaskError("MissingParameter.\(name)", message)
    }

    public static func unsupported(_ name: String, _ message: String) -> TaskError {
        TaskError("UnsupportedOperation.\(name)", message)
    }

    public static func notFound(_ name: String, _ message: String) -> TaskError {
        TaskError("ResourceNotFound.\(name)", message)
    }
}
