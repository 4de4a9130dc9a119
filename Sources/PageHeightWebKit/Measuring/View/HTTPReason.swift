/// Reason phrases for the HTTP statuses a page load most often ends with.
enum HTTPReason {
    static func phrase(_ code: Int) -> String {
        switch code {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: code >= 500 ? "Server Error" : "Client Error"
        }
    }
}
