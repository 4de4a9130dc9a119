import Foundation

/// The server's log on stderr: one JSON object a line, one line a request (its id, endpoint,
/// status, the host of the page's URL, the height, milliseconds), and a line for each event of
/// the server's life. No header or cookie value is ever written, nor a page's path or query.
enum RequestLog {
    /// One request's line.
    struct Entry {
        var id: String
        var endpoint: String
        var method: String
        var status: Int
        var milliseconds: Double
        var host: String?
        var heights: [Double?] = []
        var reportStatuses: [String] = []
        var lines: Int?
        var error: String?
        var field: String?
    }

    static func write(_ entry: Entry) {
        var object: [String: Any] = ["time": timestamp(), "id": entry.id, "endpoint": entry.endpoint, "method": entry.method,
                                     "status": entry.status, "ms": (entry.milliseconds * 10).rounded() / 10]
        if let host = entry.host { object["host"] = host }
        if entry.heights.count == 1, let height = entry.heights[0] { object["height"] = height }
        if entry.heights.count > 1 { object["heights"] = entry.heights.map { $0.map { $0 as Any } ?? NSNull() } }
        if entry.reportStatuses.count == 1 { object["reportStatus"] = entry.reportStatuses[0] }
        if entry.reportStatuses.count > 1 { object["reportStatuses"] = entry.reportStatuses }
        if let lines = entry.lines { object["lines"] = lines }
        if let error = entry.error { object["error"] = error }
        if let field = entry.field { object["field"] = field }
        emit(object)
    }

    /// A line about the server itself: `{"event": "listening", …}`.
    static func event(_ name: String, _ fields: [String: Any] = [:]) {
        emit(fields.merging(["time": timestamp(), "event": name]) { _, new in new })
    }

    private static func emit(_ object: [String: Any]) {
        guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        data.append(0x0A)
        FileHandle.standardError.write(data) // one write: lines of concurrent requests do not mix
    }

    private static func timestamp() -> String {
        Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
