import Foundation

/// A request the server does not measure, answered as JSON `{"error": …, "field": …}` with its
/// status: what was wrong and, for a bad body, which key (`options.widths`).
public struct APIError: Error, Sendable, Equatable {
    public var status: Int
    public var message: String
    /// The key of the body the problem is in, dotted (`options.timeout`); nil when not one key's.
    public var field: String?
    /// Seconds to wait before trying again (429, 503): sent as `Retry-After`.
    public var retryAfter: Int?
    /// The methods the path takes (405): sent as `Allow`.
    public var allow: String?

    public init(_ status: Int, _ message: String, field: String? = nil, retryAfter: Int? = nil, allow: String? = nil) {
        (self.status, self.message, self.field, self.retryAfter, self.allow) = (status, message, field, retryAfter, allow)
    }

    public static func badRequest(_ message: String, field: String? = nil) -> APIError { APIError(400, message, field: field) }

    /// The JSON body.
    public var json: Data {
        var object: [String: Any] = ["error": message]
        if let field { object["field"] = field }
        if let retryAfter { object["retryAfter"] = retryAfter }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return data + Data("\n".utf8)
    }

    /// Header fields beside the body.
    public var headers: [(String, String)] {
        var fields: [(String, String)] = []
        if let retryAfter { fields.append(("Retry-After", "\(retryAfter)")) }
        if status == 401 { fields.append(("WWW-Authenticate", "Bearer")) }
        if let allow { fields.append(("Allow", allow)) }
        return fields
    }
}
