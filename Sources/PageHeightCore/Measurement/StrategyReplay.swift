/// What each reader-app strategy would have shown, replayed from a recorded timeline.
///
/// - `once`: one measurement when the load finished.
/// - `schedule`: that measurement, then the growing-delay polls, each adopted only when it
///   moved more than the threshold and is positive.
/// - `observe`: that measurement and every change the probe observed, adopted at once (as a
///   KVO observer on the scroll view's contentSize does).
///
/// The schedule need not be the one the timeline was recorded on: each poll reads what the
/// timeline says the page showed at its due time (`RecordedTimeline.reading(atOffset:)`). A
/// poll past the recording's horizon is unknown, and leaves the outcome incomplete.
public struct StrategyReplay: Sendable, Equatable {
    public var schedule: GrowingDelaySchedule
    public var rule: AdoptionRule

    public init(schedule: GrowingDelaySchedule, threshold: Double) {
        self.schedule = schedule
        self.rule = AdoptionRule(threshold: threshold)
    }

    /// - Parameters:
    ///   - timeline: the recording; its load finished time decides when polls run (nothing is
    ///     shown when the load never finished).
    ///   - height: the stabilized height the errors are measured against.
    public func replay(_ timeline: RecordedTimeline, height: Double?) -> Strategies {
        var result = Strategies(once: once(timeline), schedule: polled(timeline), observe: observed(timeline))
        result.once.setError(against: height)
        result.schedule.setError(against: height)
        result.observe.setError(against: height)
        return result
    }

    /// The schedule strategy alone, its error measured against `height`.
    public func replaySchedule(_ timeline: RecordedTimeline, height: Double?) -> StrategyOutcome {
        var outcome = polled(timeline)
        outcome.setError(against: height)
        return outcome
    }

    private func once(_ timeline: RecordedTimeline) -> StrategyOutcome {
        var once = StrategyOutcome()
        if let load = timeline.samples.first(where: { $0.source == .load }), rule.adopts(load.height, over: nil) {
            once.adopt(load.height!, at: load.t)
        }
        return once
    }

    private func polled(_ timeline: RecordedTimeline) -> StrategyOutcome {
        var polled = once(timeline)
        guard let finishedAt = timeline.finishedAt else { return polled }
        for offset in schedule.pollOffsets {
            switch timeline.reading(atOffset: offset) {
            case .unknown:
                polled.complete = false
            case .value(let value):
                if rule.adopts(value, over: polled.height) { polled.adopt(value!, at: finishedAt + offset) }
            }
        }
        return polled
    }

    private func observed(_ timeline: RecordedTimeline) -> StrategyOutcome {
        var observed = StrategyOutcome()
        for sample in timeline.samples where sample.source == .observer || sample.source == .load {
            guard let value = sample.height, value > 0, value != observed.height else { continue }
            observed.adopt(value, at: sample.t)
        }
        if let settledValue = timeline.settledValue, rule.adopts(settledValue, over: observed.height),
           let last = timeline.lastReading {
            observed.adopt(settledValue, at: last.t) // a change the probe missed shows up at the end
        }
        return observed
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
