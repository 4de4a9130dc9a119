import Foundation
import PageHeightCore
import PageHeightWebKit
import Synchronization

/// What `/metrics` counts since the server started: requests by endpoint and HTTP status,
/// measurements by report status and their seconds; the gauges (queue, busy views, the engine's
/// processes) are read when the text is made.
final class ServeMetrics: Sendable {
    private struct Counts {
        var requests: [RequestKey: Int] = [:]
        var measurements: [PageStatus: Int] = [:]
        var seconds = SecondsHistogram()
    }
    private struct RequestKey: Hashable {
        var endpoint: String
        var status: Int
    }
    private let counts = Mutex(Counts())

    /// A request was answered with `status` (499: its client went away before the answer).
    func answered(_ endpoint: String, status: Int) {
        counts.withLock { $0.requests[RequestKey(endpoint: endpoint, status: status), default: 0] += 1 }
    }

    /// A page was measured in `seconds` (from taking its job to its report) and ended `status`.
    func measured(_ status: PageStatus, seconds: Double) {
        counts.withLock {
            $0.measurements[status, default: 0] += 1
            $0.seconds.observe(seconds)
        }
    }

    /// The mean seconds of a measurement so far; nil before the first.
    var meanSeconds: Double? {
        counts.withLock { $0.seconds.count > 0 ? $0.seconds.sum / Double($0.seconds.count) : nil }
    }

    /// The gauges read when `/metrics` is asked for.
    struct Gauges {
        var jobs: Int
        var busy: Int
        var waiting: Int
        var waitingLimit: Int
        var inFlight: Int
        var ready: Bool
        var engine: EngineStatistics
    }

    /// The exposition text.
    func text(_ gauges: Gauges) -> String {
        let counts = self.counts.withLock { $0 }
        let requests = counts.requests.sorted { ($0.key.endpoint, $0.key.status) < ($1.key.endpoint, $1.key.status) }
        var text = PrometheusText.metric("pageheight_http_requests_total", "counter", "HTTP requests answered, by endpoint and status.",
            requests.map { PrometheusText.sample("pageheight_http_requests_total",
                                                 [("endpoint", $0.key.endpoint), ("status", "\($0.key.status)")], Double($0.value)) })
        text += PrometheusText.metric("pageheight_measurements_total", "counter", "Pages measured, by report status.",
            PageStatus.allCases.map { PrometheusText.sample("pageheight_measurements_total", [("status", $0.rawValue)],
                                                            Double(counts.measurements[$0] ?? 0)) })
        text += PrometheusText.metric("pageheight_measuring_seconds", "histogram",
                                      "Seconds from a page's job to its report.", counts.seconds.lines("pageheight_measuring_seconds"))
        let values: [(String, String, Double)] = [
            ("pageheight_jobs", "Pages measured at once at most (--jobs).", Double(gauges.jobs)),
            ("pageheight_busy_views", "Views measuring a page now.", Double(gauges.busy)),
            ("pageheight_queue_depth", "Pages waiting for a view.", Double(gauges.waiting)),
            ("pageheight_queue_limit", "Pages that may wait (--queue).", Double(gauges.waitingLimit)),
            ("pageheight_requests_in_flight", "Measuring requests (measure, batch) being answered.", Double(gauges.inFlight)),
            ("pageheight_ready", "1 when /readyz answers 200.", gauges.ready ? 1 : 0),
            ("pageheight_web_processes", "Web processes running.", Double(gauges.engine.webProcesses)),
            ("pageheight_process_tree_private_bytes", "Private memory of the server and every process it started.",
             Double(gauges.engine.processTreeBytes)),
        ]
        for (name, help, value) in values { text += PrometheusText.metric(name, "gauge", help, [PrometheusText.sample(name, [], value)]) }
        text += PrometheusText.metric("pageheight_web_process_renewals_total", "counter", "Web processes replaced on purpose.",
                                      [PrometheusText.sample("pageheight_web_process_renewals_total", [], Double(gauges.engine.webProcessRenewals))])
        return text
    }
}
