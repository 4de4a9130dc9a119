/// What each reader-app strategy would have shown, replayed from a timeline.
///
/// - `once`: one measurement when the load finished.
/// - `schedule`: that measurement, then the growing-delay polls, each adopted only when it
///   moved more than the threshold and is positive.
/// - `observe`: that measurement and every change the probe observed, adopted at once (as a
///   KVO observer on the scroll view's contentSize does).
///
/// Polls the session did not run because it stopped early are virtual: once the page
/// settled, every later poll reads the settled value.
public struct StrategyReplay: Sendable {
    public var schedule: GrowingDelaySchedule
    public var rule: AdoptionRule

    public init(schedule: GrowingDelaySchedule, threshold: Double) {
        self.schedule = schedule
        self.rule = AdoptionRule(threshold: threshold)
    }

    /// - Parameters:
    ///   - samples: the timeline.
    ///   - finishedAt: when the load finished (nil when it never did: nothing is shown).
    ///   - settledValue: the value later polls would read, when the page settled; nil when the
    ///     session stopped without settling (later polls are then unknown and left out).
    ///   - height: the stabilized height the errors are measured against.
    public func replay(samples: [HeightSample], finishedAt: Double?, settledValue: Double?,
                       height: Double?) -> Strategies {
        let load = samples.first(where: { $0.source == .load })
        var once = StrategyOutcome()
        if let load, rule.adopts(load.height, over: nil) { once.adopt(load.height!, at: load.t) }

        var polled = StrategyOutcome()
        if let load, rule.adopts(load.height, over: nil) { polled.adopt(load.height!, at: load.t) }
        if let finishedAt {
            for (index, offset) in schedule.pollOffsets.enumerated() {
                let number = index + 1
                let value: Double?
                if let real = samples.first(where: { $0.source == .poll && $0.poll == number }) {
                    value = real.height
                } else if let settledValue {
                    value = settledValue
                } else {
                    polled.complete = false
                    continue
                }
                if rule.adopts(value, over: polled.height) { polled.adopt(value!, at: finishedAt + offset) }
            }
        }

        var observed = StrategyOutcome()
        for sample in samples where sample.source == .observer || sample.source == .load {
            guard let value = sample.height, value > 0, value != observed.height else { continue }
            observed.adopt(value, at: sample.t)
        }
        if let settledValue, rule.adopts(settledValue, over: observed.height), let last = samples.last {
            observed.adopt(settledValue, at: last.t) // a change the probe missed shows up at the end
        }

        var result = Strategies(once: once, schedule: polled, observe: observed)
        result.once.setError(against: height)
        result.schedule.setError(against: height)
        result.observe.setError(against: height)
        return result
    }
}

/// The three strategies' outcomes.
public struct Strategies: Codable, Sendable, Equatable {
    public var once: StrategyOutcome
    public var schedule: StrategyOutcome
    public var observe: StrategyOutcome
}

/// What one strategy showed: its final height, its visible jumps, its error.
public struct StrategyOutcome: Codable, Sendable, Equatable {
    /// One visible change of the shown height.
    public struct Jump: Codable, Sendable, Equatable {
        /// Seconds since the load started.
        public var t: Double
        public var height: Double
    }

    /// The height the strategy ends with (nil: it never had a usable one).
    public var height: Double?
    public var jumps: [Jump] = []
    /// `height` minus the stabilized height: negative clips the article, positive leaves blank space.
    public var error: Double?
    /// False when some polls fell after the end of a measurement that never settled.
    public var complete: Bool = true

    public init() {}

    mutating func adopt(_ value: Double, at t: Double) {
        height = value
        jumps.append(Jump(t: t, height: value))
    }

    mutating func setError(against stabilized: Double?) {
        if let height, let stabilized { error = height - stabilized } else { error = nil }
    }
}
