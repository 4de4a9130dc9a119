import Foundation
import PageHeightCore
import PageHeightWebKit
import Synchronization

extension PageServer {
    /// `POST /v1/batch`: JSON Lines in (each line a `/v1/measure` body), JSON Lines out as each
    /// page finishes, chunked, each report with `index`, the line's place among the body's
    /// non-blank lines (a line with several widths gives a report for each). A line that cannot be
    /// measured answers `{"index", "error", "field"}` and the others go on. The batch's pages take
    /// jobs from the one pool as they come, one waiting at a time, so a batch never fills the
    /// queue; a client that goes away cancels what is left.
    func serveBatch(_ exchange: HTTPExchange, body: Data) async {
        let lines = String(decoding: body, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { return await refuse(exchange, .badRequest("no line in the body: send JSON Lines, one request a line")) }
        guard lines.count <= settings.limits.batchLines else {
            return await refuse(exchange, .badRequest("\(lines.count) lines; at most \(settings.limits.batchLines) a batch"))
        }
        await beginStream(exchange)
        let answered = Mutex(Set<Int>())
        let send: @Sendable (Int, String) async -> Void = { index, line in
            answered.withLock { _ = $0.insert(index) }
            await exchange.stream(Data((line + "\n").utf8))
        }
        let finished = await untilClientGone(exchange) { [self] in
            await withTaskGroup(of: Void.self) { group in
                for (index, line) in lines.enumerated() {
                    if Task.isCancelled { break }
                    let request: MeasureRequest
                    do throws(APIError) {
                        request = try MeasureRequest.parse(Data(line.utf8), settings: settings)
                        try checkEngine(request)
                    } catch {
                        await send(index, Self.errorLine(index: index, error))
                        continue
                    }
                    for options in request.combinations {
                        // Waits here for a job: one page of the batch in line at a time.
                        guard let job = await slots.take() else { break }
                        group.addTask {
                            let started = ContinuousClock.now
                            var report = await self.engine.measure(request.page, options: options, upcoming: request.page,
                                                                   verdictReached: { job.free() })
                            job.free()
                            self.metrics.measured(report.status, seconds: milliseconds(since: started) / 1000)
                            guard !Task.isCancelled else { return }
                            report.index = index
                            await send(index, ReportEncoding.jsonLine(report))
                        }
                    }
                }
            }
            return true
        }
        var entry = await entry(exchange, status: 200)
        entry.lines = lines.count
        // The drain's cancellation ends the client's watch too: it is told apart by the flag.
        if state.withLock({ $0.drainExpired }) {
            let left = Set(lines.indices).subtracting(answered.withLock { $0 }).sorted()
            for index in left {
                await exchange.stream(Data((Self.errorLine(index: index, APIError(503, "the server is shutting down")) + "\n").utf8))
            }
            entry.error = "stopped at the drain deadline: \(left.count) lines answered with an error"
        } else if finished == nil {
            entry.error = "the client went away: the lines left were not measured"
        }
        await endStream(exchange, log: entry)
    }

    @GLibActor
    private func beginStream(_ exchange: HTTPExchange) {
        var fields = [("X-Request-Id", requestID(exchange))]
        if phase == .draining { fields.append(("Connection", "close")) }
        exchange.beginStream(status: 200, contentType: "application/x-ndjson", headers: fields)
    }

    @GLibActor
    private func endStream(_ exchange: HTTPExchange, log: RequestLog.Entry) {
        exchange.endStream()
        record(exchange, status: 200, log: log)
    }

    static func errorLine(index: Int, _ error: APIError) -> String {
        var object: [String: Any] = ["index": index, "error": error.message, "status": error.status]
        if let field = error.field { object["field"] = field }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
