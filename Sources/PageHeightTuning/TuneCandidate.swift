import PageHeightCore

/// One reader-app setting `tune` scores: a schedule of sleeps and a threshold, and where the
/// schedule came from.
public struct TuneCandidate: Sendable, Equatable {
    public enum Origin: Sendable, Equatable {
        /// The reader app's own sleeps (always searched).
        case readerApp
        /// Given with `--candidate`.
        case given
        case family(ScheduleFamily.Parameters)
    }

    public var schedule: GrowingDelaySchedule
    /// Moves of this many px or less are not adopted.
    public var threshold: Double
    public var origin: Origin

    /// The reader app's threshold, searched with its sleeps.
    public static let readerAppThreshold = 5.0

    public init(schedule: GrowingDelaySchedule, threshold: Double, origin: Origin) {
        (self.schedule, self.threshold, self.origin) = (schedule, threshold, origin)
    }

    /// The reader app as it is: its sleeps and its 5 px threshold.
    public static let readerApp = TuneCandidate(schedule: .readerApp, threshold: readerAppThreshold, origin: .readerApp)

    public var isReaderApp: Bool { schedule == .readerApp && threshold == Self.readerAppThreshold }

    /// What replays it.
    public var replay: StrategyReplay { StrategyReplay(schedule: schedule, threshold: threshold) }

    /// The sleeps as `--schedule` takes them, e.g. `0.1,0.2,0.5,1,1.5,2`.
    public var sleeps: String { schedule.delays.map(DecimalText.format).joined(separator: ",") }

    /// The poll times after load finished, e.g. `0.1 0.3 0.8 1.8 3.3 5.3`.
    public var pollTimes: String { schedule.pollOffsets.map(DecimalText.format).joined(separator: " ") }

    /// Where the schedule came from, in words.
    public var originText: String {
        switch origin {
        case .readerApp: "the reader app's"
        case .given: "--candidate"
        case .family(let parameters): parameters.description
        }
    }

    /// The candidates `tune` scores: the family's members and the given schedules, each at
    /// every threshold, and the reader app's sleeps at every threshold and at its own 5 px.
    /// A schedule met twice keeps its first origin (reader app, given, family).
    public static func all(family: ScheduleFamily, given: [GrowingDelaySchedule], thresholds: [Double]) -> [TuneCandidate] {
        var schedules: [(GrowingDelaySchedule, Origin)] = [(.readerApp, .readerApp)]
        schedules += given.map { ($0, .given) }
        schedules += family.members.map { ($0.schedule, .family($0.parameters)) }
        var seen = Set<[Double]>()
        var result: [TuneCandidate] = []
        for (schedule, origin) in schedules where seen.insert(schedule.delays).inserted {
            var levels = thresholds
            if origin == .readerApp && !levels.contains(readerAppThreshold) { levels.append(readerAppThreshold) }
            for threshold in levels { result.append(TuneCandidate(schedule: schedule, threshold: threshold, origin: origin)) }
        }
        return result
    }
}
