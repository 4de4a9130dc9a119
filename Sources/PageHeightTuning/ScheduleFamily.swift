import PageHeightCore

/// The schedules `tune` searches: growing sleeps up to a last poll.
///
/// A member has four parameters: at most `polls` polls, the first `first` seconds after load
/// finished, each sleep `growth` times the one before, and the last poll at `lastPoll`. Polls
/// run at the growing offsets while they fall before `lastPoll` (at most `polls - 1` of them),
/// then once at `lastPoll`: every member ends at its last poll time, and `polls` caps the cost.
/// Offsets are rounded to milliseconds; members with the same sleeps count once.
public struct ScheduleFamily: Sendable, Equatable {
    public var polls: [Int]
    public var firstDelays: [Double]
    public var growthFactors: [Double]
    public var lastPolls: [Double]

    public static let defaultPolls = [1, 2, 3, 4, 5, 6, 8, 10, 12]
    public static let defaultFirstDelays = [0.05, 0.1, 0.2, 0.3, 0.5, 1.0]
    public static let defaultGrowthFactors = [1.0, 1.5, 2.0, 3.0]
    public static let defaultLastPolls = [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0]

    public init(polls: [Int] = defaultPolls, firstDelays: [Double] = defaultFirstDelays,
                growthFactors: [Double] = defaultGrowthFactors, lastPolls: [Double] = defaultLastPolls) {
        (self.polls, self.firstDelays, self.growthFactors, self.lastPolls)
            = (polls, firstDelays, growthFactors, lastPolls)
    }

    /// One member's parameters.
    public struct Parameters: Sendable, Equatable, Hashable {
        public var polls: Int
        public var first: Double
        public var growth: Double
        public var lastPoll: Double

        public init(polls: Int, first: Double, growth: Double, lastPoll: Double) {
            precondition(polls >= 1 && first > 0 && growth >= 1 && lastPoll > 0, "not a member of the family")
            (self.polls, self.first, self.growth, self.lastPoll)
                = (polls, first, growth, lastPoll)
        }

        /// The member's sleeps.
        public var schedule: GrowingDelaySchedule {
            var offsets: [Double] = []
            var sleep = first
            var offset = first
            while offsets.count < polls - 1, milliseconds(offset) < milliseconds(lastPoll) {
                offsets.append(milliseconds(offset))
                sleep *= growth
                offset += sleep
            }
            offsets.append(milliseconds(lastPoll))
            var delays: [Double] = []
            var previous = 0.0
            for offset in offsets {
                delays.append(milliseconds(offset - previous))
                previous = offset
            }
            return GrowingDelaySchedule(delays: delays)
        }

        /// e.g. `6 polls from 0.1 s, x1.5, last at 5 s`.
        public var description: String {
            "\(polls) poll\(polls == 1 ? "" : "s") from \(DecimalText.format(first)) s, x\(DecimalText.format(growth)), last at \(DecimalText.format(lastPoll)) s"
        }
    }

    /// Every distinct schedule of the family, each with the parameters that first gave it, in
    /// grid order (polls, first delay, growth, last poll).
    public var members: [(schedule: GrowingDelaySchedule, parameters: Parameters)] {
        var seen = Set<[Double]>()
        var result: [(GrowingDelaySchedule, Parameters)] = []
        for count in polls {
            for first in firstDelays {
                for growth in growthFactors {
                    for last in lastPolls {
                        let parameters = Parameters(polls: count, first: first, growth: growth, lastPoll: last)
                        let schedule = parameters.schedule
                        if seen.insert(schedule.delays).inserted { result.append((schedule, parameters)) }
                    }
                }
            }
        }
        return result
    }
}

private func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
