import PageHeightCore

/// How `pageheight serve` runs, as its command line said.
public struct ServeSettings: Sendable {
    public var listen = ListenAddress.loopback
    /// Pages measured at once (`--jobs`), as `batch --jobs`.
    public var jobs: Int
    /// Pages that may wait for a job (`--queue`); past it, 429.
    public var queue: Int
    /// The token clients must send (`--token-file`); required to listen beyond loopback.
    public var token: BearerToken?
    /// The folder `file:` pages and paths may come from (`--pages-dir`, absolute, no symbolic
    /// link in it); nil: none may.
    public var pagesDirectory: String?
    public var limits = RequestLimits()
    /// Seconds the requests in flight have to be answered after SIGTERM or SIGINT (`--drain`).
    public var drainSeconds = 30.0
    /// The measuring options of a request that sets none (the command line's); their `timeout`
    /// caps every request's.
    public var defaults: MeasureOptions

    public init(jobs: Int, queue: Int? = nil, defaults: MeasureOptions = MeasureOptions()) {
        self.jobs = max(1, jobs)
        self.queue = queue ?? max(1, jobs) * 8
        self.defaults = defaults
    }
}
