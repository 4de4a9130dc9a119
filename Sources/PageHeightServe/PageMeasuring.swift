import Foundation
import PageHeightCore
import PageHeightWebKit

extension PageServer {
    /// Why this server cannot measure `request` as asked: its page is not on the public network
    /// (`PageDestination`), or it asks for another device scale or languages than the engine's,
    /// one each per process (the server's command line sets them). Resolves the page's host.
    func checkEngine(_ request: MeasureRequest) throws(APIError) {
        if case .url(let url) = request.page { try PageDestination.check(url, allowedHosts: settings.defaults.allowedHosts ?? []) }
        for options in request.combinations {
            let device = options.deviceProfile
            if device.engineScale != engine.scale {
                throw .badRequest("the device \(device.name.rawValue) renders at scale \(device.engineScale); this server renders at "
                    + "scale \(engine.scale) (start a server with --device \(device.name.rawValue) for it)", field: "options.device")
            }
            let languages = options.languages ?? MeasureOptions.defaultLanguages
            if languages != engine.languages {
                throw .badRequest("this server asks pages for \(engine.languages.joined(separator: ",")), one list per process (start a "
                    + "server with --lang \(languages.joined(separator: ",")) for these)", field: "options.languages")
            }
        }
    }

    /// Measures one page once it has a job (waiting in line for one); nil when cancelled first.
    /// - Parameter reserved: its place in line was promised (`MeasuringSlots.reserve`).
    func measure(_ page: PageSource, options: MeasureOptions, reserved: Bool) async -> PageReport? {
        guard let job = await slots.take(reserved: reserved) else { return nil }
        let started = ContinuousClock.now
        // The page most likely measured next is one like this (a server's pages come one by one):
        // a view is made ready for it meanwhile, so the next request finds one (the pool's spare).
        let report = await engine.measure(page, options: options, upcoming: page, verdictReached: { job.free() })
        job.free()
        metrics.measured(report.status, seconds: milliseconds(since: started) / 1000)
        return report
    }

    /// Runs `work` until it returns or the client goes away (which cancels it); nil for the latter.
    func untilClientGone<T: Sendable>(_ exchange: HTTPExchange, _ work: @escaping @Sendable () async -> T) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await work() }
            group.addTask {
                await exchange.clientGone()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// `POST /v1/measure`: the report, or a list of reports (one per combination).
    func serveMeasure(_ exchange: HTTPExchange, body: Data) async {
        let request: MeasureRequest
        do throws(APIError) {
            request = try MeasureRequest.parse(body, settings: settings)
            try checkEngine(request)
        } catch {
            return await refuse(exchange, error)
        }
        guard slots.reserve(request.combinations.count) else {
            return await refuse(exchange, APIError(429, "the queue is full: \(settings.jobs) pages measuring and "
                + "\(settings.queue) waiting", retryAfter: retryAfter))
        }
        let reports = await untilClientGone(exchange) { [self] in
            await withTaskGroup(of: (Int, PageReport?).self) { group in
                for (index, options) in request.combinations.enumerated() {
                    group.addTask { (index, await self.measure(request.page, options: options, reserved: true)) }
                }
                var reports = [PageReport?](repeating: nil, count: request.combinations.count)
                for await (index, report) in group { reports[index] = report }
                return reports.compactMap { $0 }.count == reports.count ? reports.compactMap { $0 } : nil
            }
        }
        var entry = await entry(exchange, status: 200)
        entry.host = request.host
        if state.withLock({ $0.drainExpired }) {
            return await refuse(exchange, APIError(503, "the server is shutting down: the measurement was stopped at the drain deadline"))
        }
        guard let done = reports, let reports = done else {
            // The client went away: nothing to send; the message is ended so its connection goes.
            entry.error = "the client went away before the answer"
            return await answer(exchange, status: 499, json: #"{"error":"the client went away"}"#, log: entry)
        }
        entry.heights = reports.map(\.height)
        entry.reportStatuses = reports.map(\.status.rawValue)
        let text = request.isList ? "[\n" + reports.map(ReportEncoding.prettyJSON).joined(separator: ",\n") + "\n]"
            : ReportEncoding.prettyJSON(reports[0])
        await answer(exchange, status: 200, contentType: "application/json", body: Data((text + "\n").utf8), log: entry)
    }
}
