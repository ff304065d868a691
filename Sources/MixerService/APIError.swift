import Foundation
import Hummingbird
import MixerTask

/// A refusal over HTTP: the SPEC §5 code and message as a JSON body, with a status that fits.
struct APIError: HTTPResponseError {
    let status: HTTPResponse.Status
    let code: String
    let message: String

    init(_ error: TaskError) {
        code = error.code
        message = error.message
        status = APIError.status(for: error.code)
    }

    init(status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static func status(for code: String) -> HTTPResponse.Status {
        switch code {
        case "FailedOperation.TaskNotExist": .notFound
        case "FailedOperation.TaskExist", "FailedOperation.OutdateRequest": .conflict
        case "FailedOperation.RestrictedConcurrency": .serviceUnavailable
        case "InternalError": .internalServerError
        case _ where code.hasPrefix("InvalidParameter.BodyTooLarge"): .contentTooLarge
        default: .badRequest
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = TaskError(code, message).json + "\n"
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
