import Foundation
import PageHeightCore
import PageHeightWebKit
import Synchronization

/// `pageheight serve`: the engine's views behind an HTTP API, started once and kept warm.
///
/// Its life: `run` listens (`/healthz` answers from then on), measures one page to start a web
/// process, then is ready (`/readyz`); `stop` (SIGTERM, SIGINT) closes the listening socket,
/// answers what is in flight within `ServeSettings.drainSeconds`, and `run` returns 0. Pages are
/// measured on one pool of `jobs` views (`MeasuringSlots`), as `batch --jobs` measures them; a
/// request whose page crashes its web process gets a `crashed` report and nothing else changes.
///
/// Requests are taken in on the GLib thread (`HTTPServer`'s handlers); their bodies are read,
/// their pages measured and their reports encoded in tasks off it.
public final class PageServer: Sendable {
    public let settings: ServeSettings
    let engine: PageHeightEngine
    let slots: MeasuringSlots
    let metrics = ServeMetrics()

    /// Where the server is in its life.
    public enum Phase: String, Sendable {
        case starting, ready, draining
    }
    struct State {
        var phase = Phase.starting
        /// The tasks answering requests, by request number (cancelled when the drain runs out).
        var tasks: [Int: Task<Void, Never>] = [:]
        /// The drain deadline passed: what is still measuring is answered 503.
        var drainExpired = false
    }
    let state = Mutex(State())
    private let stops: AsyncStream<Int32>
    private let stopper: AsyncStream<Int32>.Continuation

    public init(settings: ServeSettings, engine: PageHeightEngine) {
        self.settings = settings
        self.engine = engine
        slots = MeasuringSlots(jobs: settings.jobs, waitingLimit: settings.queue)
        (stops, stopper) = AsyncStream.makeStream(of: Int32.self)
    }

    var phase: Phase { state.withLock { $0.phase } }

    /// Asks the server to stop (a signal's number, for the log); `run` then drains and returns.
    public func stop(signal: Int32) { stopper.yield(signal) }

    /// Serves until `stop`; returns the exit status: 0 after a drain, 70 when it cannot listen.
    /// - Parameter listening: told the address listened on (its port chosen when 0 was asked).
    public func run(listening: @escaping @Sendable (ListenAddress) -> Void = { _ in }) async -> Int32 {
        let http: HTTPServer
        do {
            http = try await listen()
        } catch {
            RequestLog.event("error", ["error": "\(error)"])
            return 70
        }
        let address = ListenAddress(host: settings.listen.host, port: await http.port)
        RequestLog.event("listening", ["url": address.url, "jobs": settings.jobs, "queue": settings.queue,
                                       "token": settings.token != nil, "pagesDir": settings.pagesDirectory ?? NSNull()])
        listening(address)
        await warmUp()
        state.withLock { if $0.phase == .starting { $0.phase = .ready } }
        RequestLog.event("ready")
        var signal: Int32 = 0
        for await given in stops {
            signal = given
            break
        }
        await drain(http, signal: signal)
        return 0
    }

    @GLibActor
    private func listen() throws(HTTPServerError) -> HTTPServer {
        try HTTPServer.listen(on: engine, host: settings.listen.host, port: settings.listen.port,
                              name: "pageheight/\(PageHeightVersion.current)",
                              handler: HTTPServer.Handler(headersRead: { [self] in headersRead($0) }, bodyRead: { [self] in bodyRead($0) }))
    }

    /// One small page in the server's default options: its pool, view and web process are made
    /// before the first request comes.
    private func warmUp() async {
        let started = ContinuousClock.now
        var options = settings.defaults
        options.timeout = min(options.timeout, 10)
        let report = await engine.measure(.html("<!doctype html><p>pageheight</p>", baseURL: "about:blank"), options: options)
        RequestLog.event("warmed-up", ["status": report.status.rawValue, "ms": milliseconds(since: started)])
    }

    /// Stops accepting, waits for the requests in flight to be answered, within the deadline;
    /// past it, those still measuring are cancelled and answered 503.
    private func drain(_ http: HTTPServer, signal: Int32) async {
        state.withLock { $0.phase = .draining }
        await http.stopAccepting()
        RequestLog.event("draining", ["signal": Int(signal), "inFlight": await http.inFlight, "deadlineSeconds": settings.drainSeconds])
        let started = ContinuousClock.now
        let deadline = started + .milliseconds(Int(settings.drainSeconds * 1000))
        while await http.inFlight > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let late = await http.inFlight
        if late > 0 {
            let tasks = state.withLock { state -> [Task<Void, Never>] in
                state.drainExpired = true
                return Array(state.tasks.values)
            }
            tasks.forEach { $0.cancel() }
            let grace = ContinuousClock.now + .seconds(5)
            while await http.inFlight > 0, ContinuousClock.now < grace {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        RequestLog.event("stopped", ["ms": milliseconds(since: started), "answeredLate": late, "unanswered": await http.inFlight])
        await http.close() // the connections kept alive, idle, go too
    }

    // MARK: - Taking requests in (on the GLib thread)

    @GLibActor
    private func headersRead(_ exchange: HTTPExchange) {
        let facts = RequestAdmission.Facts(method: exchange.method, path: exchange.path, targetBytes: exchange.targetBytes,
                                           headerBytes: exchange.headerBytes, declaredBodyBytes: exchange.declaredBodyBytes,
                                           authorization: exchange.header("Authorization"))
        let admission = RequestAdmission(settings: settings, draining: phase == .draining, queueHasRoom: slots.hasRoom(),
                                         retryAfter: retryAfter)
        switch admission.check(facts) {
        case .success(let endpoint):
            guard endpoint.measures, facts.declaredBodyBytes == nil else { return }
            let limit = settings.limits.bodyBytes
            exchange.limitBody(to: limit) { [self] in
                refuse(exchange, APIError(413, "the body has more than \(limit) bytes; at most \(limit)"))
            }
        case .failure(let error):
            refuse(exchange, error)
        }
    }

    @GLibActor
    private func bodyRead(_ exchange: HTTPExchange) {
        guard let endpoint = Endpoint(path: exchange.path) else { return refuse(exchange, APIError(404, "no such endpoint")) }
        switch endpoint {
        case .healthz:
            answer(exchange, status: 200, json: #"{"status":"ok"}"#)
        case .readyz:
            let phase = self.phase
            if phase == .ready, slots.hasRoom() {
                answer(exchange, status: 200, json: #"{"status":"ready"}"#)
            } else {
                let why = phase == .ready ? "the queue is full" : phase == .starting ? "the engine is starting" : "the server is shutting down"
                refuse(exchange, APIError(503, why, retryAfter: retryAfter))
            }
        case .metrics:
            exchange.hold()
            let gaugesAtStart = (busy: slots.busy, waiting: slots.waiting, ready: phase == .ready && slots.hasRoom())
            Task.detached { [self] in
                let statistics = engine.statistics // reads /proc: off the GLib thread
                let inFlight = state.withLock { $0.tasks.count }
                let text = metrics.text(ServeMetrics.Gauges(jobs: slots.jobs, busy: gaugesAtStart.busy, waiting: gaugesAtStart.waiting,
                                                            waitingLimit: slots.waitingLimit, inFlight: inFlight,
                                                            ready: gaugesAtStart.ready, engine: statistics))
                await answer(exchange, status: 200, contentType: PrometheusText.contentType, body: Data(text.utf8))
            }
        case .measure, .batch:
            exchange.hold()
            let body = exchange.body
            let number = exchange.number
            let task = Task.detached { [self] in
                if endpoint == .measure { await serveMeasure(exchange, body: body) } else { await serveBatch(exchange, body: body) }
                _ = state.withLock { $0.tasks.removeValue(forKey: number) }
            }
            state.withLock { $0.tasks[number] = task }
        }
    }

    // MARK: - Answers

    /// Answers `status` with a JSON body, counted and logged.
    @GLibActor
    func answer(_ exchange: HTTPExchange, status: Int, json: String, log: RequestLog.Entry? = nil) {
        answer(exchange, status: status, contentType: "application/json", body: Data((json + "\n").utf8), log: log)
    }

    @GLibActor
    func answer(_ exchange: HTTPExchange, status: Int, contentType: String, body: Data, headers: [(String, String)] = [],
                log: RequestLog.Entry? = nil) {
        guard exchange.state == .open else { return }
        var fields = headers + [("X-Request-Id", requestID(exchange))]
        if phase == .draining { fields.append(("Connection", "close")) }
        exchange.respond(status: status, reason: Self.reasons[status], contentType: contentType, body: body, headers: fields)
        record(exchange, status: status, log: log)
    }

    /// Status phrases libsoup does not know.
    static let reasons = [429: "Too Many Requests", 431: "Request Header Fields Too Large", 499: "Client Closed Request"]

    /// Refuses the request with `error`.
    @GLibActor
    func refuse(_ exchange: HTTPExchange, _ error: APIError) {
        var entry = entry(exchange, status: error.status)
        (entry.error, entry.field) = (error.message, error.field)
        answer(exchange, status: error.status, contentType: "application/json", body: error.json, headers: error.headers, log: entry)
    }

    /// Counts the request's answer in the metrics and writes its log line.
    @GLibActor
    func record(_ exchange: HTTPExchange, status: Int, log: RequestLog.Entry? = nil) {
        let endpoint = Endpoint(path: exchange.path)?.label ?? "other"
        metrics.answered(endpoint, status: status)
        var entry = log ?? entry(exchange, status: status)
        entry.status = status
        RequestLog.write(entry)
    }

    @GLibActor
    func entry(_ exchange: HTTPExchange, status: Int) -> RequestLog.Entry {
        RequestLog.Entry(id: requestID(exchange), endpoint: Endpoint(path: exchange.path)?.label ?? "other", method: exchange.method,
                         status: status, milliseconds: milliseconds(since: exchange.receivedAt))
    }

    @GLibActor
    func requestID(_ exchange: HTTPExchange) -> String { "r\(exchange.number)" }

    /// Seconds a client refused for a full queue should wait: the line ahead of it at the mean
    /// measuring time so far, at least one.
    var retryAfter: Int {
        let ahead = Double(slots.waiting + 1) / Double(slots.jobs)
        return max(1, Int((ahead * (metrics.meanSeconds ?? 1)).rounded(.up)))
    }
}

func milliseconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}
