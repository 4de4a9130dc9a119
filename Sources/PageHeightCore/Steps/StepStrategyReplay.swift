/// What each reader-app strategy shows after a step, replayed from the step's readings.
///
/// - `observe` follows every change the probe observed, and the step's height at its end (a
///   change the probe missed shows there).
/// - `schedule` measured after load only: it keeps what it showed before the step.
/// - `schedule-again` measures once when the change happens, then polls on the growing-delay
///   schedule from there, each poll adopted only when it moved more than the threshold.
public struct StepStrategyReplay: Sendable, Equatable {
    public var schedule: GrowingDelaySchedule
    public var rule: AdoptionRule

    public init(schedule: GrowingDelaySchedule, threshold: Double) {
        self.schedule = schedule
        self.rule = AdoptionRule(threshold: threshold)
    }

    /// What each strategy showed when a step was applied.
    public struct Shown: Sendable, Equatable {
        public var observe: Double?
        public var schedule: Double?
        public var scheduleAgain: Double?

        public init(observe: Double?, schedule: Double?, scheduleAgain: Double?) {
            (self.observe, self.schedule, self.scheduleAgain) = (observe, schedule, scheduleAgain)
        }
    }

    /// - Parameters:
    ///   - samples: the step's readings, in order (the first is the one taken right after it was
    ///     applied).
    ///   - appliedAt: when the step was applied, seconds since the load started.
    ///   - before: what each strategy showed then.
    ///   - height: the step's height, the errors' reference.
    ///   - settled: the step ended settled: a poll after its last reading reads the same.
    public func replay(_ samples: [HeightSample], appliedAt: Double, before: Shown, height: Double?,
                       settled: Bool) -> StepStrategies {
        var observe = StrategyOutcome(showing: before.observe)
        for sample in samples where sample.source == .observer {
            guard let value = sample.height, value > 0, value != observe.height else { continue }
            observe.adopt(value, at: sample.t)
        }
        if let height, rule.adopts(height, over: observe.height), let last = samples.last {
            observe.adopt(height, at: last.t)
        }

        var again = StrategyOutcome(showing: before.scheduleAgain)
        if let first = samples.first, rule.adopts(first.height, over: again.height) { again.adopt(first.height!, at: first.t) }
        for offset in schedule.pollOffsets {
            let due = appliedAt + offset
            guard let last = samples.last, last.t >= due - 0.0005 || settled else {
                again.complete = false
                continue
            }
            let value = samples.last(where: { $0.t <= due + 0.0005 && $0.height != nil })?.height
            if rule.adopts(value, over: again.height) { again.adopt(value!, at: due) }
        }

        var result = StepStrategies(observe: observe, schedule: StrategyOutcome(showing: before.schedule), scheduleAgain: again)
        result.observe.setError(against: height)
        result.schedule.setError(against: height)
        result.scheduleAgain.setError(against: height)
        return result
    }
}

extension StrategyOutcome {
    /// An outcome that starts out showing `height` (what the strategy showed before), with no jump.
    init(showing height: Double?) {
        self.init()
        self.height = height
    }
}
