/// A page's recorded readings, as evidence of what a poll at any moment would have read.
///
/// A poll of the recorded schedule reads what that poll read. Any other moment reads the last
/// reading taken at or before it: the probe reports every change it sees, so between two
/// readings the page held the first one's value as far as anything can tell. Past the
/// recording's horizon nothing is known, unless the page settled.
///
/// Times are seconds since the load started; poll offsets are seconds after load finished.
public struct RecordedTimeline: Sendable, Equatable {
    /// How far the recording can answer.
    public enum Horizon: Sendable, Equatable {
        /// The page settled (quiet window passed, nothing pending): a poll after the last reading
        /// reads the last reading, as every strategy in a report assumes. Changes nothing pending
        /// announced (a timer due after the timeout, a periodic one) are not in the recording.
        case settled
        /// The page was watched until this time; a poll after it is unknown.
        case watched(until: Double)

        /// The horizon of a finished measurement.
        /// - Parameters:
        ///   - settled: the settle rule ended it under a rule with a quiet window (`quiet` or
        ///     `schedule`; the `quick` rule's verdict says nothing about later changes).
        ///   - quiet: it ended quiet at the timeout (status `ok` without settling): the probe
        ///     watched the page until the end.
        ///   - endedAt: when the measurement ended.
        ///   - lastReadingAt: the last reading kept on the timeline.
        public static func of(settled: Bool, quiet: Bool, endedAt: Double, lastReadingAt: Double?) -> Horizon {
            if settled { return .settled }
            if quiet { return .watched(until: endedAt) }
            return .watched(until: lastReadingAt ?? 0)
        }
    }

    /// What a poll at some moment reads.
    public enum Reading: Sendable, Equatable {
        /// The page's value then (nil: JavaScript gave none, or nothing was read yet).
        case value(Double?)
        /// The moment lies past the recording.
        case unknown
    }

    public let samples: [HeightSample]
    /// When the load finished (nil: it never did, and no poll ran).
    public let finishedAt: Double?
    /// The schedule the recording polled on: its `poll`-numbered readings answer for their due times.
    public let recordedSchedule: GrowingDelaySchedule
    public let horizon: Horizon
    /// Sample indices in time order.
    private let order: [Int]
    /// The recorded schedule's poll offsets, and what each poll read (nil: it did not run).
    private let recordedPolls: [(offset: Double, reading: Double??)]

    public init(samples: [HeightSample], finishedAt: Double?, recordedSchedule: GrowingDelaySchedule, horizon: Horizon) {
        (self.samples, self.finishedAt, self.recordedSchedule, self.horizon)
            = (samples, finishedAt, recordedSchedule, horizon)
        order = samples.indices.sorted { (samples[$0].t, $0) < (samples[$1].t, $1) }
        var readings: [Int: Double?] = [:]
        for sample in samples where sample.source == .poll {
            if let number = sample.poll, readings[number] == nil { readings[number] = sample.height }
        }
        recordedPolls = recordedSchedule.pollOffsets.enumerated().map { ($0.element, readings[$0.offset + 1]) }
    }

    public static func == (a: RecordedTimeline, b: RecordedTimeline) -> Bool {
        a.samples == b.samples && a.finishedAt == b.finishedAt && a.recordedSchedule == b.recordedSchedule && a.horizon == b.horizon
    }

    /// The last reading, the page's state when the recording ended.
    public var lastReading: HeightSample? { order.last.map { samples[$0] } }

    /// The value later polls read once the page settled; nil when it did not.
    public var settledValue: Double? {
        guard horizon == .settled else { return nil }
        return lastReading?.height
    }

    /// What a poll `offset` seconds after load finished reads.
    public func reading(atOffset offset: Double) -> Reading {
        guard let finishedAt else { return .unknown }
        for poll in recordedPolls where abs(poll.offset - offset) < 1e-9 {
            if let value = poll.reading { return .value(value) }
        }
        let t = finishedAt + offset
        if case .watched(let until) = horizon, t > until { return .unknown }
        // The last reading at or before t (binary search over the time order).
        var low = 0, high = order.count
        while low < high {
            let middle = (low + high) / 2
            if samples[order[middle]].t <= t { low = middle + 1 } else { high = middle }
        }
        return .value(low == 0 ? nil : samples[order[low - 1]].height)
    }
}
