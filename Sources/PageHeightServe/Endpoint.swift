/// The server's API: each path with its method, and the name `/metrics` counts it by.
public enum Endpoint: String, Sendable, CaseIterable {
    case measure = "/v1/measure"
    case batch = "/v1/batch"
    case healthz = "/healthz"
    case readyz = "/readyz"
    case metrics = "/metrics"

    /// The method it takes (`HEAD` too, for the `GET` ones).
    public var method: String {
        switch self {
        case .measure, .batch: "POST"
        case .healthz, .readyz, .metrics: "GET"
        }
    }

    /// Whether it measures pages (the queue and the token apply).
    public var measures: Bool { self == .measure || self == .batch }

    /// Whether a token (`--token-file`) is asked for: not by the probes an orchestrator sends.
    public var needsToken: Bool { self != .healthz && self != .readyz }

    /// The name in logs and metrics.
    public var label: String { String(rawValue.dropFirst()) }

    /// The endpoint at `path`; a trailing slash is the same path.
    public init?(path: String) {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        self.init(rawValue: trimmed)
    }
}
