/// What the page is still doing that may move its height, as the probe last reported it.
public struct PendingWork: Codable, Sendable, Equatable {
    /// `document.readyState` is not `complete`.
    public var document: Bool = false
    /// Images still loading (lazy images out of view excluded).
    public var images: Int = 0
    /// Fonts are loading: `document.fonts.status` says so, or a face does.
    public var fonts: Bool = false
    /// fetch and XMLHttpRequest calls in flight, in any frame.
    public var requests: Int = 0
    /// Calls of the engine's asynchronous work under way, in any frame: storage (IndexedDB, the
    /// Cache API), crypto, encodings, body reads, decodes, messages between a channel's ports.
    /// Like requests, work the settle rule waits for; their time is real (the virtual clock does
    /// not jump while one is under way).
    public var calls: Int = 0
    /// Due times of one-shot timers of any frame, seconds since the load started; periodic ones
    /// excluded.
    public var timers: [Double] = []
    /// Running transitions and animations with a finite end.
    public var animations: Int = 0
    /// The view's network requests in flight, as the engine counts them (any frame, any kind,
    /// the page's own fetches included); not in the report's `pendingAtEnd`.
    public var network: Int = 0
    /// Child frames (at any depth) whose document has not finished loading: like `network`,
    /// something the virtual clock must not jump over, not work the settle rule waits for (a
    /// frame that never finishes does not hold the verdict); not in the report's `pendingAtEnd`.
    public var frames: Int = 0
    /// Dedicated workers running, in any frame: a worker's clock is real, so the virtual clock
    /// must not jump while one runs; like `frames`, not work the settle rule waits for (a worker
    /// may run for ever) and not in the report's `pendingAtEnd`.
    public var workers: Int = 0
    /// The first way of keeping time that the hooks do not move which the page uses now (a
    /// SharedWorker, an open WebSocket, media playing, ...), in any frame: like `workers`, the
    /// virtual clock must not jump while there is one; not work the settle rule waits for.
    public var realTime: String?

    public static let none = PendingWork()

    private enum CodingKeys: String, CodingKey { case document, images, fonts, requests, calls, timers, animations }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        document = try container.decode(Bool.self, forKey: .document)
        images = try container.decode(Int.self, forKey: .images)
        fonts = try container.decode(Bool.self, forKey: .fonts)
        requests = try container.decode(Int.self, forKey: .requests)
        calls = try container.decodeIfPresent(Int.self, forKey: .calls) ?? 0 // absent from earlier reports
        timers = try container.decode([Double].self, forKey: .timers)
        animations = try container.decode(Int.self, forKey: .animations)
    }

    public init(document: Bool = false, images: Int = 0, fonts: Bool = false, requests: Int = 0, calls: Int = 0,
                timers: [Double] = [], animations: Int = 0, network: Int = 0, frames: Int = 0, workers: Int = 0,
                realTime: String? = nil) {
        (self.document, self.images, self.fonts, self.requests, self.timers, self.animations, self.network, self.frames)
            = (document, images, fonts, requests, timers, animations, network, frames)
        self.workers = workers
        self.calls = calls
        self.realTime = realTime
    }

    /// The work that still counts: timers due after `deadline` never will.
    public func counting(before deadline: Double) -> PendingWork {
        var copy = self
        copy.timers = timers.filter { $0 <= deadline }
        return copy
    }

    public var isEmpty: Bool {
        !document && images <= 0 && !fonts && requests <= 0 && calls <= 0 && timers.isEmpty && animations <= 0
    }

    /// A short human list, e.g. `2 images, 1 timer (due at 6.50 s)`.
    public var summary: String {
        var parts: [String] = []
        if document { parts.append("document loading") }
        if images > 0 { parts.append(plural(images, "image")) }
        if fonts { parts.append("fonts loading") }
        if requests > 0 { parts.append(plural(requests, "request")) }
        if calls > 0 { parts.append(plural(calls, "call") + " under way") }
        if let next = timers.min() {
            parts.append(plural(timers.count, "timer") + " (next due at \(Seconds.format(next)))")
        }
        if animations > 0 { parts.append(plural(animations, "animation")) }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }

    private func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
}

/// Formatting of times for messages.
package enum Seconds {
    package static func format(_ t: Double) -> String {
        let hundredths = (t * 100).rounded()
        let whole = Int(hundredths) / 100
        let fraction = abs(Int(hundredths)) % 100
        return "\(whole).\(fraction < 10 ? "0" : "")\(fraction) s"
    }
}
