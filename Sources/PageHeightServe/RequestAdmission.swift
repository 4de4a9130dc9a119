/// Whether a request whose headers are read goes on to its body, decided before the body is read:
/// the server's state, the sizes of its target and header fields, its path and method, its token,
/// its declared body, and room in the queue. Pure.
struct RequestAdmission {
    /// What the request's headers say.
    struct Facts {
        var method: String
        var path: String
        var targetBytes: Int
        var headerBytes: Int
        /// The declared body length; nil for a chunked body (limited as it arrives).
        var declaredBodyBytes: Int?
        var authorization: String?
    }

    var settings: ServeSettings
    var draining: Bool
    /// Whether the queue has room for one more page.
    var queueHasRoom: Bool
    /// Seconds a refused client should wait.
    var retryAfter: Int

    /// The endpoint, or why the request is refused.
    func check(_ facts: Facts) -> Result<Endpoint, APIError> {
        let limits = settings.limits
        if draining {
            return .failure(APIError(503, "the server is shutting down", retryAfter: retryAfter))
        }
        if facts.targetBytes > limits.targetBytes {
            return .failure(APIError(414, "the request target has \(facts.targetBytes) bytes; at most \(limits.targetBytes)"))
        }
        if facts.headerBytes > limits.headerBytes {
            return .failure(APIError(431, "the header fields have \(facts.headerBytes) bytes; at most \(limits.headerBytes)"))
        }
        guard let endpoint = Endpoint(path: facts.path) else {
            return .failure(APIError(404, "no such endpoint: \(facts.path.prefix(200)) (the API: "
                + Endpoint.allCases.map { "\($0.method) \($0.rawValue)" }.joined(separator: ", ") + ")"))
        }
        guard facts.method == endpoint.method || (endpoint.method == "GET" && facts.method == "HEAD") else {
            return .failure(APIError(405, "\(endpoint.rawValue) takes \(endpoint.method), not \(facts.method)",
                                     allow: endpoint.method == "GET" ? "GET, HEAD" : endpoint.method))
        }
        if endpoint.needsToken, let token = settings.token, !token.accepts(facts.authorization) {
            return .failure(APIError(401, "missing or wrong bearer token (Authorization: Bearer …)"))
        }
        guard endpoint.measures else { return .success(endpoint) }
        if let declared = facts.declaredBodyBytes, declared > limits.bodyBytes {
            return .failure(APIError(413, "the body has \(declared) bytes; at most \(limits.bodyBytes)"))
        }
        if !queueHasRoom {
            return .failure(APIError(429, "the queue is full: \(settings.jobs) pages measuring and \(settings.queue) waiting",
                                     retryAfter: retryAfter))
        }
        return .success(endpoint)
    }
}
